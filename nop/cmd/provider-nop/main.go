// Command provider-nop runs nop's controllers (NopResource and
// ClusterNopResource) and nothing else: the runtime of nop's Crossplane
// provider package (nop/package, make xpkg), whose image holds this binary as
// its entrypoint.
//
//	provider-nop [--kubeconfig FILE] [--metrics-bind-address :8080]
//	    [--health-probe-bind-address :8081] [--leader-elect]
//	    [--leader-election-namespace NS] [--concurrency 10] [--poll-interval 0]
//
// Without --kubeconfig (or KUBECONFIG) it uses the cluster of the pod it runs
// in, through the pod's ServiceAccount. It installs no CRD: Crossplane's
// package manager installs them from the package. It needs the permissions
// docs/design/nop.md lists, which the system ClusterRole Crossplane creates
// for the provider grants (but events in events.k8s.io, see there). It runs
// until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// leaseID is the name of the leader election Lease.
const leaseID = "provider-nop.nop.ctrlkit.dev"

func main() {
	set := flag.CommandLine
	kubeconfig := set.String("kubeconfig", "", "kubeconfig of the cluster (default: KUBECONFIG, else the pod's own cluster)")
	metricsAddr := set.String("metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint; 0 turns it off")
	probeAddr := set.String("health-probe-bind-address", ":8081", "address that serves /healthz and /readyz; 0 turns it off")
	leaderElect := set.Bool("leader-elect", false, "elect a leader among replicas, so that one reconciles at a time")
	leaderNS := set.String("leader-election-namespace", "", "namespace of the leader election Lease (default: the pod's)")
	concurrency := set.Int("concurrency", nop.DefaultWorkers, "objects of each kind reconciled at once")
	poll := set.Duration("poll-interval", 0, "reconcile every object at least this often, as a safety net (0: off; the reconciler requeues at each deadline)")
	zo := zap.Options{}
	zo.BindFlags(set)
	flag.Parse()
	log.SetLogger(zap.New(zap.UseFlagOptions(&zo)))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, *kubeconfig, manager.Options{
		Metrics:                 metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress:  *probeAddr,
		LeaderElection:          *leaderElect,
		LeaderElectionID:        leaseID,
		LeaderElectionNamespace: *leaderNS,
		// The controllers stop writing before the Lease is released.
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       ptr(10 * time.Second),
	}, nop.Options{MaxConcurrentReconciles: *concurrency, PollInterval: *poll})
	if err != nil {
		fmt.Fprintln(os.Stderr, "provider-nop:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig string, mo manager.Options, no nop.Options) error {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	mo.Scheme = scheme
	mgr, err := manager.New(cfg, mo)
	if err != nil {
		return fmt.Errorf("cannot create the manager: %w", err)
	}
	//lint:ignore SA1019 Crossplane's provider role grants core Events only
	no.Recorder = coreEvents{mgr.GetEventRecorderFor("nop.ctrlkit.dev")}
	if err := nop.Setup(mgr, no); err != nil {
		return err
	}
	if mo.HealthProbeBindAddress != "0" {
		if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
			return err
		}
		if err := mgr.AddReadyzCheck("caches", func(r *http.Request) error {
			if !mgr.GetCache().WaitForCacheSync(r.Context()) {
				return errors.New("caches have not synced")
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("cannot run the controllers: %w", err)
	}
	return nil
}

// restConfig reads kubeconfig, else KUBECONFIG, else the pod's in-cluster
// configuration.
func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		kubeconfig = os.Getenv("KUBECONFIG")
	}
	if kubeconfig == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("cannot find a cluster (no --kubeconfig, no KUBECONFIG, not in a pod): %w", err)
		}
		return cfg, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("cannot read kubeconfig %s: %w", kubeconfig, err)
	}
	return cfg, nil
}

func ptr[T any](v T) *T { return &v }

// coreEvents records through the core Events API what nop records through
// events.k8s.io's: the related object and the action have no place there.
type coreEvents struct{ r record.EventRecorder }

func (c coreEvents) Eventf(regarding, _ runtime.Object, eventtype, reason, _, note string, args ...any) {
	c.r.Eventf(regarding, eventtype, reason, note, args...)
}
