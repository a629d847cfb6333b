// Command nop is a provider for NopResources and ClusterNopResources
// (package nop): it applies the provider-nop design's sample and prints each
// condition transition as it lands, with its lateness against the schedule.
//
//	go run ./examples/nop [--kubeconfig FILE] [--watch] [--leader-elect]
//	    [--metrics-bind-address :8080] [--concurrency 10] [--poll-interval 0]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it; it installs the CRDs from --crds (run it
// from the repository root, or pass the path). It exits after the sample's
// last transition unless --watch keeps it running for other objects.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlkit/ctrlkit/internal/localcluster"
	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

//go:embed example.yaml
var exampleYAML []byte

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to use (default: KUBECONFIG, else a local control plane)")
	crds := flag.String("crds", "nop/crds", "directory of the NopResource CRDs to install")
	watch := flag.Bool("watch", false, "keep running after the sample's schedule, reconciling every nop resource")
	leaderElect := flag.Bool("leader-elect", false, "elect a leader among replicas, so that one reconciles at a time")
	leaderNS := flag.String("leader-election-namespace", "default", "namespace of the leader election Lease")
	metricsAddr := flag.String("metrics-bind-address", "0", "address of the Prometheus metrics endpoint, e.g. :8080; 0 turns it off")
	concurrency := flag.Int("concurrency", 10, "objects of each kind reconciled at once")
	poll := flag.Duration("poll-interval", 0, "reconcile every object at least this often, as a safety net (0: off; the reconciler requeues at each deadline)")
	flag.Parse()
	log.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, *kubeconfig, *crds, *watch, manager.Options{
		Metrics:                       metricsserver.Options{BindAddress: *metricsAddr},
		LeaderElection:                *leaderElect,
		LeaderElectionID:              "nop.ctrlkit.dev",
		LeaderElectionNamespace:       *leaderNS,
		LeaderElectionReleaseOnCancel: true, // the process exits right after
	}, nop.Options{MaxConcurrentReconciles: *concurrency, PollInterval: *poll})
	if err != nil {
		fmt.Fprintln(os.Stderr, "nop:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, crds string, watch bool, mo manager.Options, no nop.Options) error {
	c, err := localcluster.Connect(ctx, localcluster.Options{Kubeconfig: kubeconfig, CRDDirs: []string{crds}})
	if err != nil {
		return err
	}
	defer c.Stop()
	if c.Config.QPS == 0 {
		c.Config.QPS = -1 // as controller-runtime's config.GetConfig does: rely on the API server's priority and fairness
	}

	mo.Scheme = runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(mo.Scheme), v1alpha1.AddToScheme(mo.Scheme)); err != nil {
		return err
	}
	sample := &v1alpha1.NopResource{}
	if err := yaml.Unmarshal(exampleYAML, sample); err != nil {
		return fmt.Errorf("cannot read the sample: %w", err)
	}
	last := len(sample.Spec.ForProvider.ConditionAfter) - 1
	done := make(chan struct{})
	finish := sync.OnceFunc(func() { close(done) })
	no.OnTransition = func(t nop.Transition) {
		fmt.Printf("%s  %s %s  %s=%s (%s)  due %s, %s late\n", t.Landed.Format("15:04:05.000"), t.Kind, t.Object,
			t.Condition.Type, t.Condition.Status, t.Condition.Reason, t.Due.Format("15:04:05"), t.Lateness().Round(time.Millisecond))
		if !watch && t.Object == client.ObjectKeyFromObject(sample) && t.Entry == last {
			finish()
		}
	}

	mgr, err := manager.New(c.Config, mo)
	if err == nil {
		err = nop.Setup(mgr, no)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()

	if err := recreate(ctx, mgr.GetClient(), mgr.GetAPIReader(), sample); err != nil {
		return err
	}
	fmt.Printf("created NopResource %s at %s; its schedule: Ready False at 5s, True at 10s, Synced False at 15s, True at 20s\n",
		client.ObjectKeyFromObject(sample), sample.CreationTimestamp.Format("15:04:05"))
	select {
	case <-done:
		cancel()
	case <-ctx.Done():
	}
	return <-stopped
}

// recreate deletes a sample left by an earlier run, since its schedule has
// passed, and creates it anew.
func recreate(ctx context.Context, c client.Client, r client.Reader, obj *v1alpha1.NopResource) error {
	if err := c.Delete(ctx, obj.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("cannot delete the old sample: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := r.Get(ctx, client.ObjectKeyFromObject(obj), &v1alpha1.NopResource{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if err != nil {
		return fmt.Errorf("cannot delete the old sample: %w", err)
	}
	if err := c.Create(ctx, obj); err != nil {
		return fmt.Errorf("cannot create the sample: %w", err)
	}
	return nil
}
