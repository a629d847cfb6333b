package nop

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/internal/testenv/writeslots"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func BenchmarkScheduleAt(b *testing.B) {
	s, err := parseSchedule(seed)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		s.at(12 * time.Second)
	}
}

// benchSchedule is the three-step schedule of BenchmarkAPIServer.
var benchSchedule = []v1alpha1.ConditionAfter{
	ca("1s", "Ready", "False"),
	ca("2s", "Ready", "True"),
	ca("3s", "Synced", "True"),
}

// BenchmarkAPIServer runs the reconciler against the real API server with
// NOP_BENCH_OBJECTS NopResources (default 1000) on the three-step
// benchSchedule, created at NOP_BENCH_RATE objects per second (default 50;
// 0 creates them as fast as possible). It reports, as seen by a separate
// watcher, the p50/p99 lateness of each transition after its deadline
// (creationTimestamp + time); status writes per transition; and the
// controller's API requests and reconciles, next to the same run with 1 s
// polling (what the provider-nop design suggests) and with provider-nop's
// behaviour (1 s polling, a status write on every poll).
//
// The floor mode runs no controller: a writer that knows every deadline in
// advance sends the same writes (the finalizer patch on creation, then each
// status write at its deadline with its body ready, or the latest due state
// once where it gets its turn late), with as many writes at once as the
// controller has workers (NOP_BENCH_FLOOR_CONCURRENCY sets it apart). Its
// lateness is the API server's alone, the least any controller can achieve at
// this load on this machine; the other modes report their p99 as a multiple
// of it (p99/floor).
//
// Each mode runs once (a b.Loop iteration takes longer than -benchtime); run
// it alone with
//
//	go test -run '^$' -bench BenchmarkAPIServer -benchtime 1x ./nop
//
// With NOP_BENCH_LATENESS_OUT set to a file name, each mode appends every
// transition's lateness to that file as CSV (mode,objects,rate,workers,
// lateness_us), the input of internal/cmd/benchcharts (make bench-charts).
func BenchmarkAPIServer(b *testing.B) {
	n := envInt(b, "NOP_BENCH_OBJECTS", 1000)
	rate := envInt(b, "NOP_BENCH_RATE", 50)
	workers := envInt(b, "NOP_BENCH_CONCURRENCY", 10)
	floorWorkers := envInt(b, "NOP_BENCH_FLOOR_CONCURRENCY", workers)
	latenessOut := os.Getenv("NOP_BENCH_LATENESS_OUT")
	modes := []struct {
		name  string
		opts  Options
		poll  bool // requeue every PollInterval, not at the next deadline
		write bool // write the status on every reconcile
		floor bool // no controller: each status write sent at its deadline
		peer  bool // provider-nop itself (runPeer)
	}{
		{name: "floor", opts: Options{MaxConcurrentReconciles: floorWorkers}, floor: true},
		{name: "deadline", opts: Options{MaxConcurrentReconciles: workers}},
		{name: "poll-1s", opts: Options{MaxConcurrentReconciles: workers, PollInterval: time.Second}, poll: true},
		{name: "provider-nop", opts: Options{MaxConcurrentReconciles: workers, PollInterval: time.Second}, poll: true, write: true},
		{name: "provider-nop-" + peerVersion, peer: true},
	}
	var floor benchResult
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			if m.peer {
				for b.Loop() {
					r := runPeer(b, fmt.Sprintf("bench-peer-%d", time.Now().UnixNano()), n, rate, workers)
					reportPeer(b, r, floor, n, rate, workers)
					if latenessOut != "" {
						require.NoError(b, appendLateness(latenessOut, m.name, n, rate, workers, r.withUnseen()))
					}
				}
				return
			}
			for b.Loop() {
				var wrap func(*reconciler) reconcile.Reconciler // nil: the floor
				switch {
				case m.poll:
					wrap = func(r *reconciler) reconcile.Reconciler {
						return newPollingReconciler(r, m.opts.PollInterval, m.write)
					}
				case !m.floor:
					wrap = func(r *reconciler) reconcile.Reconciler { return r }
				}
				r := runAPIServer(b, fmt.Sprintf("bench-%s-%d", m.name, time.Now().UnixNano()), n, rate, m.opts, wrap)
				if m.floor {
					floor = r
				}
				if latenessOut != "" {
					require.NoError(b, appendLateness(latenessOut, m.name, n, rate, workers, r.late))
				}
				b.ReportMetric(r.lateness(50).Seconds()*1000, "p50-ms")
				b.ReportMetric(r.lateness(99).Seconds()*1000, "p99-ms")
				b.ReportMetric(r.lateness(100).Seconds()*1000, "max-ms")
				b.ReportMetric(percentile(r.writeLatency, 50).Seconds()*1000, "write-p50-ms")
				b.ReportMetric(float64(r.transitionWrites)/float64(r.transitions), "writes/transition")
				b.ReportMetric(float64(r.statusWrites)/float64(n), "status-writes/object")
				b.ReportMetric(float64(r.requests), "requests")
				b.ReportMetric(float64(r.requestsAfter), "requests-after")
				b.Logf("%s: %d objects created at %d/s by %d workers; 3x%d transitions seen late by p50 %s, p99 %s, max %s (by the controller's clock: p50 %s, p99 %s); "+
					"%d status writes: %d carried %d transitions (%.3f writes per transition), %d others (%.2f per object: observedGeneration alone, when no entry is due within a second); "+
					"a status write took p50 %s, p99 %s; "+
					"%d API requests and %d reconciles in %s (%s), of which %d requests and %d reconciles in the %s after the last transition",
					m.name, n, rate, m.opts.MaxConcurrentReconciles, n, r.lateness(50), r.lateness(99), r.lateness(100), r.controllerLate(50), r.controllerLate(99),
					r.statusWrites, r.transitionWrites, r.transitions, float64(r.transitionWrites)/float64(r.transitions), r.statusWrites-r.transitionWrites, float64(r.statusWrites-r.transitionWrites)/float64(n),
					percentile(r.writeLatency, 50), percentile(r.writeLatency, 99),
					r.requests, r.reconciles, r.window.Round(time.Millisecond), r.byVerb, r.requestsAfter, r.reconcilesAfter, settleTime)
				if !m.floor && floor.late != nil {
					b.ReportMetric(r.lateness(99).Seconds()/floor.lateness(99).Seconds(), "p99/floor")
					b.Logf("%s: p50 and p99 lateness are %.2f and %.2f times the floor's (%s, %s)", m.name,
						r.lateness(50).Seconds()/floor.lateness(50).Seconds(), r.lateness(99).Seconds()/floor.lateness(99).Seconds(),
						floor.lateness(50), floor.lateness(99))
				}
			}
		})
	}
}

// reportPeer reports a run of provider-nop: its lateness, against the floor's
// when there is one, and its watch events per object.
func reportPeer(b *testing.B, r, floor benchResult, n, rate, workers int) {
	b.ReportMetric(r.lateness(50).Seconds()*1000, "p50-ms")
	b.ReportMetric(r.lateness(99).Seconds()*1000, "p99-ms")
	b.ReportMetric(r.lateness(100).Seconds()*1000, "max-ms")
	b.ReportMetric(float64(r.events)/float64(n), "events/object")
	b.ReportMetric(float64(r.unseen), "unseen")
	b.Logf("provider-nop %s: %d objects created at %d/s, --max-reconcile-rate %d, 1 s poll; 2x%d Ready transitions seen late by p50 %s, p99 %s, max %s (%d not seen within 2 minutes, left out here, and in the lateness file at the least lateness they can have); %.1f watch events per object",
		peerVersion, n, rate, envInt(b, "NOP_BENCH_PEER_RATE", workers), n, r.lateness(50), r.lateness(99), r.lateness(100), r.unseen, float64(r.events)/float64(n))
	if floor.late != nil {
		b.ReportMetric(r.lateness(99).Seconds()/floor.lateness(99).Seconds(), "p99/floor")
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	i, err := strconv.Atoi(v)
	require.NoError(b, err, name)
	return i
}

// appendLateness appends one CSV row per lateness to the named file, with a
// header when the file is new.
func appendLateness(name, mode string, n, rate, workers int, late []time.Duration) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	var buf []byte
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		buf = append(buf, "mode,objects,rate,workers,lateness_us\n"...)
	}
	for _, d := range late {
		buf = fmt.Appendf(buf, "%s,%d,%d,%d,%d\n", mode, n, rate, workers, d.Microseconds())
	}
	if _, err := f.Write(buf); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// peerWait is how long the peer's run waits, after the last creation, for
// the transitions it has not made yet.
const peerWait = 2 * time.Minute

// withUnseen returns the peer's lateness per transition with each transition
// it had not made when its run stopped waiting at the least lateness it can
// have: peerWait less the last Ready step's time (due at the latest then),
// so that a chart of the peer does not leave its worst transitions out.
func (r benchResult) withUnseen() []time.Duration {
	least := peerWait - 2*time.Second // benchSchedule's Ready=True
	late := slices.Clone(r.late)
	for range r.unseen {
		late = append(late, least)
	}
	return late
}

type benchResult struct {
	late             []time.Duration // per transition, as seen by the watcher
	landed           []time.Duration // per transition, by OnTransition
	transitions      int             // landed
	transitionWrites int64           // status writes that carried transitions
	statusWrites     int64
	requests         int64
	reconciles       int64
	requestsAfter    int64 // in the settleTime after the last transition
	reconcilesAfter  int64
	writeLatency     []time.Duration
	window           time.Duration
	byVerb           string
	events           int64 // the peer's: watch events of its objects
	unseen           int   // the peer's: transitions not seen 2 minutes after the last creation
}

// settleTime is how long a run goes on after the last transition, to show
// what the controller costs once the schedule is over.
const settleTime = 2 * time.Second

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)].Round(time.Millisecond)
}

func (r benchResult) lateness(p int) time.Duration       { return percentile(r.late, p) }
func (r benchResult) controllerLate(p int) time.Duration { return percentile(r.landed, p) }

// runAPIServer runs one mode of BenchmarkAPIServer: the controller with
// each kind's reconciler wrapped by wrap, or the floor writer when wrap is
// nil.
func runAPIServer(b *testing.B, label string, n, rate int, o Options, wrap func(*reconciler) reconcile.Reconciler) benchResult {
	// A control plane of its own: the API server's CPU per write grows with
	// its heap, which holds the watch-cache history of earlier runs' objects,
	// so a shared one would make each mode slower than the one before.
	env := testenv.Fresh(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// A watcher of its own records when each step is first visible.
	type steps [3]time.Time
	var mu sync.Mutex
	seen := make(map[string]*steps, n)
	remaining := 3 * n
	done := make(chan struct{})
	var late []time.Duration
	observe := func(obj any) {
		nr, ok := obj.(*v1alpha1.NopResource)
		if !ok || len(nr.Spec.ForProvider.ConditionAfter) == 0 {
			return
		}
		now := time.Now()
		ready := conditions.Get(nr.Status.Conditions, "Ready")
		synced := conditions.Get(nr.Status.Conditions, "Synced")
		// Ready and Synced are there from the first write (Unknown and
		// True by default); a step is visible once its scheduled condition is.
		visible := [3]bool{
			ready != nil && ready.Reason == ReasonScheduled,
			ready != nil && ready.Reason == ReasonScheduled && ready.Status == metav1.ConditionTrue,
			synced != nil && synced.Reason == ReasonScheduled && synced.Status == metav1.ConditionTrue,
		}
		mu.Lock()
		defer mu.Unlock()
		s := seen[nr.Name]
		if s == nil {
			s = &steps{}
			seen[nr.Name] = s
		}
		for i, v := range visible {
			if v && s[i].IsZero() {
				s[i] = now
				late = append(late, now.Sub(nr.CreationTimestamp.Add(time.Duration(i+1)*time.Second)))
				if remaining--; remaining == 0 {
					close(done)
				}
			}
		}
	}
	watcher, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme, DefaultLabelSelector: labels.SelectorFromSet(labels.Set{testLabel: label})})
	require.NoError(b, err)
	inf, err := watcher.GetInformer(ctx, &v1alpha1.NopResource{})
	require.NoError(b, err)
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: observe, UpdateFunc: func(_, o any) { observe(o) }})
	require.NoError(b, err)
	go func() { _ = watcher.Start(ctx) }()
	require.True(b, watcher.WaitForCacheSync(ctx))

	var landedMu sync.Mutex
	var landed []time.Duration
	writes := map[Transition]bool{} // keyed by object and landing time
	o.OnTransition = func(t Transition) {
		landedMu.Lock()
		defer landedMu.Unlock()
		landed = append(landed, t.Lateness())
		writes[Transition{Object: t.Object, Landed: t.Landed}] = true
	}
	var reconciles atomic.Int64
	var requests *requestCounter
	var stop func()
	var writeAtDeadlines func(*v1alpha1.NopResource)
	if wrap == nil {
		requests = &requestCounter{}
		writeAtDeadlines = floorWriter(ctx, b, env, requests, o.MaxConcurrentReconciles, o.OnTransition)
		stop = func() {}
	} else {
		stop, requests = startManagerOn(b, env, label, o, func(r *reconciler) reconcile.Reconciler {
			inner := wrap(r)
			return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				reconciles.Add(1)
				return inner.Reconcile(ctx, req)
			})
		})

		// Wait until the controller runs, with an object of no schedule.
		warmup := newNop(label, label+"-warmup")
		require.NoError(b, env.Client.Create(ctx, warmup))
		for got := (&v1alpha1.NopResource{}); got.Status.ObservedGeneration == 0; time.Sleep(10 * time.Millisecond) {
			require.NoError(b, env.Client.Get(ctx, client.ObjectKeyFromObject(warmup), got))
		}
	}
	requests.reset()
	reconciles.Store(0)

	start := time.Now()
	var interval time.Duration
	if rate > 0 {
		interval = time.Second / time.Duration(rate)
	}
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range n {
		if interval > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			obj := newNop(label, fmt.Sprintf("%s-%04d", label, i), benchSchedule...)
			if err := env.Client.Create(ctx, obj); err != nil {
				b.Errorf("cannot create %s: %v", obj.Name, err)
			} else if writeAtDeadlines != nil {
				writeAtDeadlines(obj)
			}
		})
	}
	wg.Wait()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		mu.Lock()
		b.Fatalf("%d of %d transitions not seen after 2 minutes", remaining, 3*n)
	}
	requestsBefore, reconcilesBefore := requests.reads.Load()+requests.writes.Load(), reconciles.Load()
	time.Sleep(settleTime)
	window := time.Since(start)
	stop()

	mu.Lock()
	defer mu.Unlock()
	landedMu.Lock()
	defer landedMu.Unlock()
	return benchResult{
		late:             late,
		landed:           landed,
		transitions:      len(landed),
		transitionWrites: int64(len(writes)),
		statusWrites:     requests.get("PUT nopresources/status"),
		requests:         requests.reads.Load() + requests.writes.Load(),
		reconciles:       reconciles.Load(),
		requestsAfter:    requests.reads.Load() + requests.writes.Load() - requestsBefore,
		reconcilesAfter:  reconciles.Load() - reconcilesBefore,
		window:           window,
		byVerb:           requests.String(),
		writeLatency:     requests.statusWrites,
	}
}

// floorWriter returns what stands in for the controller in the floor mode of
// BenchmarkAPIServer: given a NopResource just created, it sends the writes
// the reconciler would send: the finalizer patch at once, then the status
// the reconciler would write at each of the object's deadlines, with every
// body computed in advance, at most workers writes at once, a due status
// write ahead of a finalizer patch, each in the order they fall due. A
// write that gets its turn after a later deadline of the same object has
// passed sends the latest due state instead, once, as a late controller
// may, and a status write already due when the finalizer patch returns
// goes at once, in the patch's slot, as a late first reconcile sends both:
// at saturation the floor coalesces and holds its turn as well as any
// controller can.
// Unlimited writes at once do worse: the API server then shares its CPU
// among all of them, and all finish late. No controller with that many
// workers can do better: what lateness remains is the API server's, at
// this load on this machine.
func floorWriter(ctx context.Context, b *testing.B, env *testenv.Env, requests *requestCounter, workers int, onTransition func(Transition)) func(*v1alpha1.NopResource) {
	slots := writeslots.New(workers, 2)
	cfg := requests.wrap(env.Config)
	cfg.QPS = -1
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	require.NoError(b, err)
	setter := conditions.NewSetter()
	return func(obj *v1alpha1.NopResource) {
		s, err := parseSchedule(obj.Spec.ForProvider.ConditionAfter)
		if err != nil {
			b.Errorf("%s: %v", obj.Name, err) // called off the benchmark's goroutine: no FailNow
			return
		}
		created := obj.CreationTimestamp.Time
		deadlines := make([]time.Time, len(s))
		states := make([][]metav1.Condition, len(s)) // the status after each entry
		var conds []metav1.Condition
		for i, e := range s {
			deadlines[i] = created.Add(e.after)
			due, _, _ := s.at(e.after)
			apply(setter, &conds, desired(conds, created, due, defaults(s, e.after, ""), nil, obj.Generation, deadlines[i]), nil)
			states[i] = slices.Clone(conds)
		}
		go func() {
			// The finalizer patch the reconciler sends on creation, sent
			// at once: any controller of this kind must hold the object.
			patch := client.MergeFromWithOptions(obj.DeepCopy(), client.MergeFromWithOptimisticLock{})
			obj.Finalizers = append(obj.Finalizers, Finalizer)
			if !slots.Acquire(ctx, patchWrite) {
				return
			}
			// A slot is held as a reconcile holds its worker: from the
			// patch on to a status write already due, without queueing
			// again.
			held := true
			defer func() {
				if held {
					slots.Release()
				}
			}()
			err := c.Patch(ctx, obj, patch)
			if err != nil {
				if ctx.Err() == nil {
					b.Errorf("cannot add the finalizer to %s: %v", obj.Name, err)
				}
				return
			}
			rv := obj.ResourceVersion
			for i := 0; i < len(s); {
				if held && time.Now().Before(deadlines[i]) {
					slots.Release()
					held = false
				}
				if !held {
					select {
					case <-ctx.Done():
						return
					case <-time.After(time.Until(deadlines[i])):
					}
					if !slots.Acquire(ctx, statusWrite) {
						return
					}
					held = true
				}
				// The latest entry due by the time of the write.
				last := i
				for now := time.Now(); last+1 < len(s) && !deadlines[last+1].After(now); {
					last++
				}
				body := &v1alpha1.NopResource{ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace, Name: obj.Name, UID: obj.UID, ResourceVersion: rv}}
				body.Status.ObservedGeneration = obj.Generation
				body.Status.Conditions = states[last]
				err := c.Status().Update(ctx, body)
				if err != nil {
					if ctx.Err() == nil {
						b.Errorf("cannot write the status of %s: %v", obj.Name, err)
					}
					return
				}
				rv = body.ResourceVersion
				if onTransition != nil {
					landed := time.Now()
					for ; i <= last; i++ {
						onTransition(Transition{Object: client.ObjectKeyFromObject(obj), Due: deadlines[i], Landed: landed})
					}
				}
				i = last + 1
			}
		}()
	}
}

// The classes of floorWriter's writes, in the order its slots serve them
// (as nop's requeues at a deadline go ahead of new objects in its priority
// queue).
const (
	statusWrite = iota // a transition that has fallen due
	patchWrite         // the finalizer of a new object
)
