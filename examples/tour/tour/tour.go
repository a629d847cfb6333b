package tour

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	compositecrds "github.com/ctrlkit/ctrlkit/examples/composite/crds"
	compositedemo "github.com/ctrlkit/ctrlkit/examples/composite/demo"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	compositev1alpha1 "github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/direct/cloudapi"
	directcontroller "github.com/ctrlkit/ctrlkit/examples/direct/controller"
	directcrds "github.com/ctrlkit/ctrlkit/examples/direct/crds"
	directv1alpha1 "github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	extrefcontroller "github.com/ctrlkit/ctrlkit/examples/extref/controller"
	extrefcrds "github.com/ctrlkit/ctrlkit/examples/extref/crds"
	extrefv1alpha1 "github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	healthcrds "github.com/ctrlkit/ctrlkit/examples/healthscope/crds"
	healthv1alpha1 "github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/run"
	"github.com/ctrlkit/ctrlkit/extref"
	"github.com/ctrlkit/ctrlkit/nop"
	nopcrds "github.com/ctrlkit/ctrlkit/nop/crds"
	nopv1alpha1 "github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// CRDs are the CRDs of every example the tour runs, built into the binary.
var CRDs = []fs.FS{nopcrds.FS, compositecrds.FS, healthcrds.FS, extrefcrds.FS, directcrds.FS}

// CRDDirs are the folders, relative to the repository root, of the same
// CRDs.
var CRDDirs = []string{
	"nop/crds",
	"examples/composite/crds",
	"examples/healthscope/crds",
	"examples/extref/crds",
	"examples/direct/crds",
}

// CRDDirsUnder returns CRDDirs under the repository root.
func CRDDirsUnder(root string) []string {
	dirs := make([]string, len(CRDDirs))
	for i, d := range CRDDirs {
		dirs[i] = filepath.Join(root, d)
	}
	return dirs
}

// AddToScheme adds every kind the tour uses.
func AddToScheme(s *runtime.Scheme) error {
	return errors.Join(
		clientgoscheme.AddToScheme(s),
		nopv1alpha1.AddToScheme(s),
		compositev1alpha1.AddToScheme(s),
		healthv1alpha1.AddToScheme(s),
		extrefv1alpha1.AddToScheme(s),
		directv1alpha1.AddToScheme(s),
	)
}

// Options configure Run.
type Options struct {
	// Config reaches the API server, where the CRDs are installed.
	Config *rest.Config

	// Simulate plays kube-controller-manager (Deployments become available,
	// ReplicaSets appear), for a local control plane that runs none.
	Simulate bool

	// Out receives the timeline and the summary.
	Out io.Writer

	// Transcript receives the examples' own narration; nil discards it.
	Transcript io.Writer

	// CloudLatency is how long every call to the direct example's fake
	// cloud takes. Default: 300ms.
	CloudLatency time.Duration

	// ScenarioTimeout bounds each scenario. Default: three minutes.
	ScenarioTimeout time.Duration

	// Watch keeps the controllers running after the summary until ctx
	// ends, and the tour's objects in place. Without Watch, Run deletes
	// them after the summary.
	Watch bool

	// CleanupTimeout bounds the deletion of the tour's objects, those an
	// earlier run left before the scenarios and the tour's own after them.
	// Default: one minute.
	CleanupTimeout time.Duration

	// OnSummary, when set, is called after the summary is printed (before
	// Watch waits), e.g. to print the kubeconfig.
	OnSummary func()

	// Manager holds the manager's options from the command's flags
	// (metrics, health probes, leader election, concurrency); Run sets
	// the scheme, the client and controller name validation itself.
	// Default: metrics and probes off, no leader election.
	Manager manager.Options
}

// A Result is the outcome of one scenario.
type Result struct {
	Scenario, Expected, Observed string
	Passed                       bool
}

// A scenario plays one story and says what it observed.
type scenario struct {
	name, expected string
	play           func(ctx context.Context, e *env) (observed string, err error)
}

// env is what scenarios share.
type env struct {
	c          client.WithWatch
	timeline   *Timeline
	platform   *function.StaticPlatform
	cloud      *cloudapi.Server
	simulate   bool
	transcript io.Writer
	unreadable *extref.UnreadableKinds // the cache's watch error handler's, for the extref controllers
}

var scenarios = []scenario{
	{name: "1 provider-nop composition", expected: "3 NopResources Ready at about 3 s; the XApp Ready once all three are", play: playNop},
	{name: "2 claim results", expected: "claim: ImageReady NotFound, then AppReady Creating, then Ready; internal error detailed on the XR, friendly on the claim", play: playClaim},
	{name: "3 health scope", expected: "2 workloads patched into spec.workloadRefs; the scope Healthy once their children are ready", play: playScope},
	{name: "4 generic references", expected: "Subnet takes the VPC's CIDR and the ConfigMap's region; follows the region change (Always)", play: playExtref},
	{name: "5 direct resource", expected: "Ready: Updating (first field path), then UpToDate; an injected failure shows UpdateFailure", play: playDirect},
}

// Run starts every example's controllers in one manager, deletes what an
// earlier run left in the cluster, plays the scenarios one after the other
// while printing the timeline of condition transitions, prints the summary,
// deletes the tour's objects (unless o.Watch) and returns the results. It
// returns an error only when the tour could not run or clean up; a failed
// scenario is a Result.
func Run(ctx context.Context, o Options) ([]Result, error) {
	out := &syncWriter{w: o.Out}
	o.Out = out
	if o.Transcript == nil {
		o.Transcript = io.Discard
	} else if o.Transcript == out.w {
		o.Transcript = out
	}
	if o.CloudLatency <= 0 {
		o.CloudLatency = 300 * time.Millisecond
	}
	if o.ScenarioTimeout <= 0 {
		o.ScenarioTimeout = 3 * time.Minute
	}
	if o.CleanupTimeout <= 0 {
		o.CleanupTimeout = time.Minute
	}
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(o.Config)
	if cfg.QPS == 0 {
		cfg.QPS = -1 // rely on the API server's priority and fairness, as controller-runtime's GetConfig does
	}
	mo := o.Manager
	mo.Scheme = scheme
	if mo.Metrics.BindAddress == "" {
		mo.Metrics = metricsserver.Options{BindAddress: "0"}
	}
	// Run may run more than once in a process (its test does), and
	// controller names are only unique within one manager.
	mo.Controller.SkipNameValidation = ptr.To(true)
	// Its controllers start their watches before they are elected, and
	// /readyz waits for them (run.AddProbes).
	mo.Controller.EnableWarmup = ptr.To(true)
	// The controllers label what they create as the tour's, too.
	mo.NewClient = objects.NewClient
	// A Subnet names a kind the cache may not list: it says so at once.
	unreadable := &extref.UnreadableKinds{}
	mo.Cache.DefaultWatchErrorHandler = unreadable.WatchErrorHandler
	mgr, err := manager.New(cfg, mo)
	if err != nil {
		return nil, fmt.Errorf("cannot create the manager: %w", err)
	}
	probed, err := run.AddProbes(mgr)
	if err != nil {
		return nil, err
	}
	cloud, err := cloudapi.NewServer(o.CloudLatency)
	if err != nil {
		return nil, fmt.Errorf("cannot start the fake cloud: %w", err)
	}
	defer cloud.Close()
	e := &env{platform: compositedemo.Platform(), cloud: cloud, simulate: o.Simulate, transcript: o.Transcript, unreadable: unreadable}
	if err := setup(probed, e); err != nil {
		return nil, err
	}

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	stopManager := sync.OnceFunc(func() { cancel(); <-stopped })
	defer stopManager()

	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	e.c = objects.Label(c)
	// An earlier run against this cluster may have left its objects (with
	// --keep-running, or when interrupted), and the scenarios expect to create them.
	if n, err := objects.Clean(ctx, e.c, o.CleanupTimeout); err != nil {
		return nil, fmt.Errorf("cannot delete the objects an earlier tour left: %w", err)
	} else if n > 0 {
		fmt.Fprintf(o.Out, "deleted %d objects an earlier tour left\n\n", n)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if err := e.c.Create(ctx, ns); err != nil && !kerrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("cannot create the tour's namespace %s: %w", Namespace, err)
	}
	fmt.Fprintf(o.Out, "%-12s  %-7s  %-22s %-12s %-7s %-16s %s\n", "TIME", "SINCE", "OBJECT", "CONDITION", "STATUS", "REASON", "MESSAGE")
	e.timeline = NewTimeline(e.c, o.Out)
	wctx, wcancel := context.WithCancel(ctx)
	defer func() { wcancel(); e.timeline.Wait() }()
	for _, gvk := range watchedKinds {
		e.timeline.Watch(wctx, gvk)
	}

	var results []Result
	for _, s := range scenarios {
		fmt.Fprintf(o.Out, "\n== scenario %s: %s\n", s.name, s.expected)
		sctx, scancel := context.WithTimeout(ctx, o.ScenarioTimeout)
		observed, err := s.play(sctx, e)
		scancel()
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
		r := Result{Scenario: s.name, Expected: s.expected, Observed: observed, Passed: err == nil}
		if err != nil {
			r.Observed = strings.TrimSpace(observed + " " + err.Error())
		}
		results = append(results, r)
	}
	wcancel() // the summary is not interleaved with late transitions
	e.timeline.Wait()
	PrintSummary(o.Out, results)
	if o.OnSummary != nil {
		o.OnSummary()
	}
	if o.Watch {
		fmt.Fprintln(o.Out, "\nThe controllers keep running (--keep-running); Ctrl-C stops them. Try: kubectl get ctrlkit-example,nopresources -A")
		<-ctx.Done()
		stopManager()
		if !mo.LeaderElection {
			// No controller removes the kept objects' finalizers now,
			// and a deletion would wait for them; the next run deletes
			// the objects. With leader election another replica may lead.
			rctx, rcancel := context.WithTimeout(context.WithoutCancel(parent), 10*time.Second)
			defer rcancel()
			if _, err := objects.ReleaseFinalizers(rctx, c); err != nil {
				return results, fmt.Errorf("cannot remove the finalizers of the objects kept for kubectl: %w", err)
			}
		}
		return results, nil
	}
	n, err := objects.Clean(ctx, e.c, o.CleanupTimeout)
	if err != nil {
		return results, fmt.Errorf("cannot delete the tour's objects: %w", err)
	}
	fmt.Fprintf(o.Out, "\ndeleted the tour's %d objects (--keep-running keeps them, for kubectl)\n", n)
	return results, nil
}

// watchedKinds are the kinds whose conditions the timeline prints.
var watchedKinds = []schema.GroupVersionKind{
	nopv1alpha1.GroupVersion.WithKind(nopv1alpha1.NopResourceKind),
	compositev1alpha1.AppKind,
	compositev1alpha1.XAppKind,
	healthv1alpha1.GroupVersion.WithKind("HealthScope"),
	healthv1alpha1.GroupVersion.WithKind("Application"),
	extrefv1alpha1.GroupVersion.WithKind("VPC"),
	extrefv1alpha1.GroupVersion.WithKind("Subnet"),
	directv1alpha1.GroupVersion.WithKind("Dataset"),
}

// setup adds every example's controllers to mgr.
func setup(mgr manager.Manager, e *env) error {
	if err := nop.Setup(mgr, nop.Options{MaxConcurrentReconciles: 10}); err != nil {
		return fmt.Errorf("cannot set up the nop controllers: %w", err)
	}
	pipeline := core.Pipeline{{Name: "tour", Function: dispatch{app: &function.Function{Platform: e.platform}}}}
	if err := core.Setup(mgr, core.Options{
		Pipeline:      pipeline,
		ComposedKinds: []schema.GroupVersionKind{core.DeploymentKind, nopv1alpha1.GroupVersion.WithKind(nopv1alpha1.NopResourceKind)},
	}); err != nil {
		return fmt.Errorf("cannot set up the composite controllers: %w", err)
	}
	if err := controllers.Setup(mgr, controllers.Options{}); err != nil {
		return fmt.Errorf("cannot set up the healthscope controllers: %w", err)
	}
	if err := extrefcontroller.Setup(mgr, extrefcontroller.Options{Unreadable: e.unreadable}); err != nil {
		return fmt.Errorf("cannot set up the extref controllers: %w", err)
	}
	r := &directcontroller.Reconciler{
		Client: mgr.GetClient(),
		Cloud:  &cloudapi.Client{BaseURL: e.cloud.URL(), Project: "tour"},
		Status: directstatus.NewWriter(mgr.GetClient(), directstatus.ReadFrom(mgr.GetAPIReader())),
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("cannot set up the direct controller: %w", err)
	}
	return nil
}

// PrintSummary writes the results as a table.
func PrintSummary(out io.Writer, results []Result) {
	fmt.Fprintln(out, "\n== summary")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tRESULT\tEXPECTED\tOBSERVED")
	for _, r := range results {
		res := "PASS"
		if !r.Passed {
			res = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Scenario, res, r.Expected, r.Observed)
	}
	_ = tw.Flush()
}

// Passed reports whether every result passed.
func Passed(results []Result) bool {
	for _, r := range results {
		if !r.Passed {
			return false
		}
	}
	return len(results) == len(scenarios)
}

// poll calls f every 100ms until it reports done or fails, or ctx ends.
func poll(ctx context.Context, what string, f func(ctx context.Context) (bool, error)) error {
	for {
		done, err := f(ctx)
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// find returns the first transition of h matching typ, status and (when not
// empty) reason, at or after index from, and its index, or -1.
func find(h []Transition, from int, typ string, status metav1.ConditionStatus, reason string) (Transition, int) {
	for i := max(from, 0); i < len(h); i++ {
		c := h[i].Condition
		if c.Type == typ && c.Status == status && (reason == "" || c.Reason == reason) {
			return h[i], i
		}
	}
	return Transition{}, -1
}
