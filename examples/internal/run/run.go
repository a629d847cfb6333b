package run

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlkit/ctrlkit/internal/localcluster"
)

// An Example is one example command: what Main needs to know about it.
type Example struct {
	// Name starts the command's error messages ("nop: cannot ...").
	Name string

	// CRDs hold the example's CRD manifests, e.g. the FS of a crds
	// package; Main installs them before it starts the manager.
	CRDs []fs.FS

	// CRDDirs, when set, replaces the --crds flag: Main calls it once the
	// flags are parsed, and the directories it returns, if any, are
	// installed instead of CRDs (the tour's --root).
	CRDDirs func() []string

	// AddToScheme adds the example's kinds to the scheme of the manager
	// and of Env.Client, which has client-go's kinds too.
	AddToScheme func(*runtime.Scheme) error

	// LeaderElectionID, when set, gives the example the flags of a
	// controller that runs in replicas (--leader-elect,
	// --leader-election-namespace, --metrics-bind-address) and names its
	// leader election Lease.
	LeaderElectionID string

	// Quiet discards controller-runtime's log, for an example whose
	// output already shows every error the controllers meet.
	Quiet bool

	// Setup adds the example's controllers to the manager. Without Setup
	// Main builds no manager (the tour builds its own).
	Setup func(mgr manager.Manager) error

	// Run is what the example does while its controllers run, such as a
	// demo script. Main stops the manager when Run returns; an example
	// that keeps running for kubectl waits for ctx to end. ctx ends on an
	// interrupt, or when the manager stops with an error.
	Run func(ctx context.Context, e Env) error
}

// Env is what Example.Run works with.
type Env struct {
	// Cluster is the cluster in use. Cluster.Local reports that Main
	// started it, so that no kube-controller-manager runs there.
	Cluster *localcluster.Cluster

	// Manager runs the example's controllers; nil without Example.Setup.
	Manager manager.Manager

	// Client reads and writes without the manager's cache, so that a demo
	// reads what it just wrote; nil without Example.Setup.
	Client client.WithWatch
}

// settings are the values of the flags Main adds.
type settings struct {
	kubeconfig  string
	crds        string
	leaderElect bool
	leaderNS    string
	metricsAddr string
}

// Main parses the flags, runs the example and exits: with status 0 when Run
// returned nil or the process was interrupted, else with status 1 after
// printing the error.
func Main(ex Example) {
	s, err := ex.parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		os.Exit(2) // as flag.ExitOnError does; the flag package printed why
	}
	if ex.Quiet {
		log.SetLogger(logr.Discard())
	} else {
		log.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = ex.run(ctx, s)
	stop()
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ex.Name, err)
		os.Exit(1)
	}
}

// parseFlags adds the flags of ex to set, which holds the example's own
// flags, and parses args with them.
func (ex Example) parseFlags(set *flag.FlagSet, args []string) (*settings, error) {
	s := &settings{metricsAddr: "0"}
	// controller-runtime's client/config package registers --kubeconfig
	// on the command line when a binary imports it (the direct example and
	// the tour do).
	if set.Lookup("kubeconfig") == nil {
		set.String("kubeconfig", "", "kubeconfig of the cluster to use (default: KUBECONFIG, else a local control plane)")
	}
	if ex.CRDDirs == nil {
		set.StringVar(&s.crds, "crds", "", "a directory of CRD manifests to install instead of the ones built into the binary")
	}
	if ex.LeaderElectionID != "" {
		set.BoolVar(&s.leaderElect, "leader-elect", false, "elect a leader among replicas, so that one reconciles at a time")
		set.StringVar(&s.leaderNS, "leader-election-namespace", "default", "namespace of the leader election Lease")
		set.StringVar(&s.metricsAddr, "metrics-bind-address", "0", "address of the Prometheus metrics endpoint, e.g. :8080; 0 turns it off")
	}
	if err := set.Parse(args); err != nil {
		return nil, err
	}
	s.kubeconfig = set.Lookup("kubeconfig").Value.String()
	return s, nil
}

// clusterOptions say how to connect to the example's cluster and which CRDs
// to install.
func (ex Example) clusterOptions(s *settings) localcluster.Options {
	o := localcluster.Options{Kubeconfig: s.kubeconfig, CRDs: ex.CRDs}
	var dirs []string
	if ex.CRDDirs != nil {
		dirs = ex.CRDDirs()
	} else if s.crds != "" {
		dirs = []string{s.crds}
	}
	if len(dirs) > 0 {
		o.CRDs, o.CRDDirs = nil, dirs
	}
	return o
}

// managerOptions are the options of the example's manager.
func (ex Example) managerOptions(s *settings, scheme *runtime.Scheme) manager.Options {
	o := manager.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: s.metricsAddr}}
	if ex.LeaderElectionID != "" {
		o.LeaderElection = s.leaderElect
		o.LeaderElectionID = ex.LeaderElectionID
		o.LeaderElectionNamespace = s.leaderNS
		o.LeaderElectionReleaseOnCancel = true // the process exits right after
	}
	return o
}

func (ex Example) run(ctx context.Context, s *settings) error {
	if s.kubeconfig == "" && os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		fmt.Fprintln(os.Stderr, "starting a local control plane (a first run builds kube-apiserver and etcd: several minutes, progress below)")
	}
	c, err := localcluster.Connect(ctx, ex.clusterOptions(s))
	if err != nil {
		return err
	}
	defer c.Stop()
	if c.Config.QPS == 0 {
		c.Config.QPS = -1 // as controller-runtime's config.GetConfig does: rely on the API server's priority and fairness
	}
	if ex.Setup == nil {
		return ex.Run(ctx, Env{Cluster: c})
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if ex.AddToScheme != nil {
		if err := ex.AddToScheme(scheme); err != nil {
			return err
		}
	}
	mgr, err := manager.New(c.Config, ex.managerOptions(s, scheme))
	if err != nil {
		return fmt.Errorf("cannot create the manager: %w", err)
	}
	if err := ex.Setup(mgr); err != nil {
		return err
	}
	cl, err := client.NewWithWatch(c.Config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}

	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	mgrCtx, stopManager := context.WithCancel(ctx)
	defer stopManager()
	stopped := make(chan error, 1)
	go func() {
		err := mgr.Start(mgrCtx)
		cancelRun() // Run cannot go on without its controllers
		stopped <- err
	}()
	err = ex.Run(runCtx, Env{Cluster: c, Manager: mgr, Client: cl})
	stopManager()
	if merr := <-stopped; merr != nil {
		return merr
	}
	return err
}
