package run

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
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

	// LeaderElectionID names the example's leader election Lease, the
	// default of --leader-election-id. Default: <Name>.examples.ctrlkit.dev.
	LeaderElectionID string

	// Cache, when set, changes the options of the manager's cache before
	// Main creates the manager, e.g. to set its watch error handler.
	Cache func(*cache.Options)

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

	// KeepRunning is printed once Run has returned nil when --keep-running
	// is given (a hint for kubectl); Main then keeps the controllers running
	// until ctx ends. Without --keep-running Main stops once Run returns.
	KeepRunning string

	// Objects, when it has kinds, are what the example's script and
	// controllers create: Main labels them as the example's (the manager's
	// client and Env.Client label what they create), deletes those an
	// earlier run left before it calls Run, and, unless --keep-running,
	// deletes them again once Run has returned, while the controllers still
	// run and remove their finalizers. Only for an example with Setup.
	Objects owned.Set

	// PlaysControllerManager says that Run can play kube-controller-manager's
	// part (Deployments become available) on a cluster that runs none: Main
	// adds --simulate and sets Env.Simulate.
	PlaysControllerManager bool
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

	// ManagerOptions are those the flags give (metrics, probes, leader
	// election, concurrency), for an example without Setup that builds
	// its own manager; it adds the probes with AddProbes and its
	// controllers to the manager AddProbes returns.
	ManagerOptions manager.Options

	// KeepRunning is --keep-running: the example keeps its controllers
	// (and, where it says so, its objects) after its script, for kubectl.
	KeepRunning bool

	// Simulate says that Run should play kube-controller-manager's part:
	// --simulate was given, Main started the cluster, or the cluster runs
	// no kube-controller-manager (see ControllerManagerRuns). Only for an
	// example with PlaysControllerManager.
	Simulate bool
}

// settings are the values of the flags Main adds.
type settings struct {
	kubeconfig  string
	crds        string
	leaderElect bool
	leaderNS    string
	leaderID    string
	metricsAddr string
	probeAddr   string
	concurrency int
	keepRunning bool
	simulate    bool
	zap         zap.Options
	zapSet      bool // a --zap-* flag was given

	// log is the manager's logger (default: controller-runtime's log.Log).
	log logr.Logger
}

// Main parses the flags, runs the example and exits: with status 0 when Run
// returned nil or the process was interrupted after start-up, else with status
// 1 after printing the error (an interrupt during start-up is one).
func Main(ex Example) {
	s, err := ex.parseFlags(flag.CommandLine, os.Args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0) // --help, as flag.ExitOnError does
	case err != nil:
		os.Exit(2) // as flag.ExitOnError does; the flag package printed why
	}
	switch {
	case s.zapSet:
		log.SetLogger(zap.New(zap.UseFlagOptions(&s.zap)))
	case ex.Quiet:
		log.SetLogger(logr.Discard())
	default:
		log.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var p phase
	err = ex.run(ctx, s, &p)
	interrupted := ctx.Err() != nil
	stop()
	os.Exit(ex.exit(os.Stderr, err, interrupted, p.startedUp()))
}

// exit prints how the example ended to w and returns its exit status.
func (ex Example) exit(w io.Writer, err error, interrupted, startedUp bool) int {
	switch {
	case interrupted && !startedUp:
		fmt.Fprintf(w, "%s: interrupted during start-up; stopped connecting, and stopped what had started\n", ex.Name)
		return 1
	case interrupted:
		fmt.Fprintf(w, "%s: interrupted; stopped the controllers and the example\n", ex.Name)
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(w, "%s: %v\n", ex.Name, err)
			return 1
		}
		return 0
	case err != nil:
		fmt.Fprintf(w, "%s: %v\n", ex.Name, err)
		return 1
	}
	return 0
}

// phase records whether start-up finished: the cluster is connected, the
// CRDs installed, and Run called.
type phase struct{ done atomic.Bool }

func (p *phase) startedUp() bool { return p != nil && p.done.Load() }

// parseFlags adds the flags of ex to set, which holds the example's own
// flags, and parses args with them.
func (ex Example) parseFlags(set *flag.FlagSet, args []string) (*settings, error) {
	s := &settings{metricsAddr: "0", probeAddr: "0"}
	// controller-runtime's client/config package registers --kubeconfig
	// on the command line when a binary imports it (the direct example and
	// the tour do): Main explains it the same way either way.
	const kubeconfigUsage = "kubeconfig of the cluster to use (default: KUBECONFIG, else in a pod its own cluster, else a local control plane, whose kubeconfig is printed for kubectl)"
	if f := set.Lookup("kubeconfig"); f != nil {
		f.Usage = kubeconfigUsage
	} else {
		set.String("kubeconfig", "", kubeconfigUsage)
	}
	if ex.CRDDirs == nil {
		set.StringVar(&s.crds, "crds", "", "a directory of CRD manifests to install instead of the ones built into the binary")
	}
	id := ex.LeaderElectionID
	if id == "" {
		id = ex.Name + ".examples.ctrlkit.dev"
	}
	set.StringVar(&s.metricsAddr, "metrics-bind-address", "0", "address of the Prometheus metrics endpoint, e.g. :8080; 0 turns it off")
	set.StringVar(&s.probeAddr, "health-probe-bind-address", "0", "address that serves /healthz and /readyz, e.g. :8081; 0 turns it off")
	set.BoolVar(&s.leaderElect, "leader-elect", false, "elect a leader among replicas, so that one reconciles at a time")
	set.StringVar(&s.leaderNS, "leader-election-namespace", "default", "namespace of the leader election Lease")
	set.StringVar(&s.leaderID, "leader-election-id", id, "name of the leader election Lease")
	set.BoolVar(&s.keepRunning, "keep-running", false, "keep the controllers running after the example's script, for kubectl, until interrupted")
	if ex.PlaysControllerManager {
		set.BoolVar(&s.simulate, "simulate", false, "play kube-controller-manager (Deployments become available) even on a cluster that runs one; without it the example plays it only on a cluster that runs none, such as its own or make cluster's")
	}
	// An example with a concurrency flag of its own (nop) keeps it.
	if set.Lookup("concurrency") == nil {
		set.IntVar(&s.concurrency, "concurrency", 1, "objects of each kind reconciled at once")
	}
	zapFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	s.zap.BindFlags(zapFlags)
	zapFlags.VisitAll(func(f *flag.Flag) {
		f.Usage += " (controller-runtime's log; without any --zap-* flag, warnings and errors go to stderr)"
		set.Var(f.Value, f.Name, f.Usage)
	})
	if err := set.Parse(args); err != nil {
		return nil, err
	}
	s.kubeconfig = set.Lookup("kubeconfig").Value.String()
	set.Visit(func(f *flag.Flag) {
		if zapFlags.Lookup(f.Name) != nil {
			s.zapSet = true
		}
	})
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

// managerOptions are the options of the example's manager; stopping reports
// that Main is stopping the manager, after which the release of its Lease is
// not logged as an error.
func (ex Example) managerOptions(s *settings, scheme *runtime.Scheme, stopping func() bool) manager.Options {
	l := s.log
	if l.GetSink() == nil {
		l = log.Log
	}
	o := manager.Options{
		Scheme:                        scheme,
		Logger:                        newStopLog(l, stopping),
		Metrics:                       metricsserver.Options{BindAddress: s.metricsAddr},
		HealthProbeBindAddress:        s.probeAddr,
		LeaderElection:                s.leaderElect,
		LeaderElectionID:              s.leaderID,
		LeaderElectionNamespace:       s.leaderNS,
		LeaderElectionReleaseOnCancel: true, // the process exits right after
	}
	if s.concurrency > 0 {
		o.Controller.MaxConcurrentReconciles = s.concurrency
	}
	o.Controller.UsePriorityQueue = ptr.To(usePriorityQueue(controllerRuntimeVersion()))
	// Controllers start their watches before they are elected, so that a
	// standby is as ready as the leader and /readyz can wait for them
	// (AddProbes).
	o.Controller.EnableWarmup = ptr.To(true)
	if len(ex.Objects.Kinds) > 0 {
		o.NewClient = ex.Objects.NewClient
	}
	// The cache drops each object's managedFields, which no example
	// reads (nop learns the API server's clock from its writes' responses,
	// not from the cache): a fifth of a settled NopResource's heap
	// (docs/benchmarks.md). An update sent from a cached object without
	// them leaves the stored ones as they are. The last-applied-configuration
	// annotation is kept: an update from a cached object without it would
	// delete it.
	o.Cache.DefaultTransform = cache.TransformStripManagedFields()
	if ex.Cache != nil {
		ex.Cache(&o.Cache)
	}
	return o
}

func (ex Example) run(ctx context.Context, s *settings, p *phase) error {
	o := ex.clusterOptions(s)
	o.Out = os.Stderr
	c, err := localcluster.Connect(ctx, o)
	if err != nil {
		return err
	}
	defer c.Stop()
	if c.Config.QPS == 0 {
		c.Config.QPS = -1 // as controller-runtime's config.GetConfig does: rely on the API server's priority and fairness
	}
	if ex.Setup == nil {
		stopping := func() bool { return ctx.Err() != nil }
		e := Env{Cluster: c, ManagerOptions: ex.managerOptions(s, nil, stopping), KeepRunning: s.keepRunning}
		if err := ex.decideSimulate(ctx, s, &e, nil); err != nil {
			return err
		}
		p.done.Store(true)
		return ex.play(ctx, e)
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
	// The manager stops when mgrCtx ends: on an interrupt, or once Run
	// returned.
	mgrCtx, stopManager := context.WithCancel(ctx)
	defer stopManager()
	stopping := func() bool { return mgrCtx.Err() != nil }
	mgr, err := manager.New(c.Config, ex.managerOptions(s, scheme, stopping))
	if err != nil {
		return fmt.Errorf("cannot create the manager: %w", err)
	}
	probed, err := AddProbes(mgr)
	if err != nil {
		return err
	}
	if err := ex.Setup(probed); err != nil {
		return err
	}
	cl, err := client.NewWithWatch(c.Config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if len(ex.Objects.Kinds) > 0 {
		cl = ex.Objects.Label(cl)
	}

	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	stopped := make(chan error, 1)
	go func() {
		err := mgr.Start(mgrCtx)
		cancelRun() // Run cannot go on without its controllers
		stopped <- err
	}()
	e := Env{Cluster: c, Manager: mgr, Client: cl, ManagerOptions: ex.managerOptions(s, scheme, stopping), KeepRunning: s.keepRunning}
	if err := ex.decideSimulate(ctx, s, &e, cl); err != nil {
		return err
	}
	p.done.Store(true)
	err = ex.playElected(runCtx, mgr, s.leaderElect, e)
	stopManager()
	merr := <-stopped
	if e.KeepRunning && !s.leaderElect && p.startedUp() {
		ex.releaseFinalizers(ctx, cl)
	}
	if merr != nil {
		return merr
	}
	return err
}

// releaseTimeout bounds the removal of the finalizers of the objects kept
// for kubectl, which runs after an interrupt too.
const releaseTimeout = 10 * time.Second

// releaseFinalizers removes the finalizers of the objects that
// --keep-running keeps, once the controllers that would remove them have
// stopped, so that a kubectl delete does not hang; the next run deletes the
// objects. With leader election another replica may lead now, and the
// finalizers are its own.
func (ex Example) releaseFinalizers(ctx context.Context, c client.Client) {
	if len(ex.Objects.Kinds) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	n, err := ex.Objects.ReleaseFinalizers(ctx, c)
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "%s: the objects kept for kubectl may keep finalizers no controller removes: %v\n", ex.Name, err)
	case n > 0:
		fmt.Fprintf(os.Stderr, "%s: removed the finalizers of %d objects kept for kubectl (no controller runs to remove them); the next run deletes the objects\n", ex.Name, n)
	}
}

// playElected calls play once mgr is elected leader, so that a standby
// replica neither runs the example's set-up nor acts on the objects the
// leader's controllers own; a replica without leader election is its own
// leader.
func (ex Example) playElected(ctx context.Context, mgr manager.Manager, leaderElect bool, e Env) error {
	if leaderElect {
		fmt.Fprintf(os.Stderr, "%s: waiting to be elected leader before the example's set-up\n", ex.Name)
	}
	select {
	case <-mgr.Elected():
	case <-ctx.Done():
		return ctx.Err()
	}
	return ex.play(ctx, e)
}

// play calls Run and then, with --keep-running, waits for ctx to end. With
// Example.Objects it deletes the objects of an earlier run before Run, and,
// without --keep-running, the run's own after it.
func (ex Example) play(ctx context.Context, e Env) error {
	if err := ex.clean(ctx, e, "an earlier run left"); err != nil {
		return err
	}
	err := ex.Run(ctx, e)
	if !e.KeepRunning && ctx.Err() == nil {
		// Also after a failed Run: the next run starts from a clean slate
		// either way, and the error says what went wrong.
		if cerr := ex.clean(ctx, e, "the example created (--keep-running keeps them, for kubectl)"); err == nil {
			err = cerr
		}
	}
	if err != nil || !e.KeepRunning {
		return err
	}
	if ex.KeepRunning != "" {
		fmt.Println(ex.KeepRunning)
	}
	<-ctx.Done()
	return nil
}

// cleanTimeout bounds the deletion of an example's objects.
const cleanTimeout = time.Minute

// clean deletes the objects of ex.Objects and says how many it deleted,
// which are what.
func (ex Example) clean(ctx context.Context, e Env, what string) error {
	if len(ex.Objects.Kinds) == 0 || e.Client == nil {
		return nil
	}
	n, err := ex.Objects.Clean(ctx, e.Client, cleanTimeout)
	if err != nil {
		return fmt.Errorf("cannot delete the objects %s: %w", what, err)
	}
	if n > 0 {
		fmt.Fprintf(os.Stderr, "%s: deleted %d objects %s\n", ex.Name, n, what)
	}
	return nil
}
