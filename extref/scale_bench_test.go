package extref

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/internal/testenv/writeslots"
)

// BenchmarkAPIServerSourceChange measures how fast referencers follow their
// sources on the real API server: EXTREF_BENCH_REFERENCERS Widgets (default
// 1,000), each reading data.value of one of EXTREF_BENCH_SOURCES ConfigMaps
// (default 100) with resolve: Always, into spec.forProvider.region. Once
// every referencer is resolved and the controller is quiet,
// EXTREF_BENCH_CHANGED of the ConfigMaps (default a tenth) are changed at
// once, and a watcher of its own records when each affected referencer
// first holds the new value. It reports the p50/p99/max of that time, the
// reconciles of affected and unaffected referencers, the API requests by
// verb and resource, and the process's CPU time, from the change until
// everything is quiet again.
//
// The floor mode runs no controller: a writer that knows the answers writes
// each affected referencer's target as soon as its ConfigMap's update has
// returned (a spec update, as the controller sends), with as many writes at
// once as the controller has workers (EXTREF_BENCH_WORKERS, default
// DefaultWorkers). With EXTREF_BENCH_CACHE=stripped the manager's cache
// drops managedFields (cache.TransformStripManagedFields). The floor-status
// mode sends, like the controller, the condition's new observedGeneration
// through the status subresource after each value, in the next free slot
// that no value write waits for. Every mode but the floor also reports when
// each affected referencer's condition caught up with its new value
// (settled). The controller mode reports its p99 as a multiple of the
// floor's. Each mode runs on a control plane of its own:
//
//	go test -run '^$' -bench BenchmarkAPIServerSourceChange -benchtime 1x ./extref
func BenchmarkAPIServerSourceChange(b *testing.B) {
	sc := sourceChange{
		referencers: benchEnv(b, "EXTREF_BENCH_REFERENCERS", 1000),
		sources:     benchEnv(b, "EXTREF_BENCH_SOURCES", 100),
		workers:     benchEnv(b, "EXTREF_BENCH_WORKERS", DefaultWorkers),
		strip:       os.Getenv("EXTREF_BENCH_CACHE") == "stripped",
	}
	sc.changed = benchEnv(b, "EXTREF_BENCH_CHANGED", max(sc.sources/10, 1))
	require.Positive(b, sc.sources)
	require.LessOrEqual(b, sc.changed, sc.sources)
	var floor sourceChangeResult
	for _, mode := range []string{"floor", "floor-status", "controller"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				r := sc.run(b, mode)
				if mode == "floor" {
					floor = r
				}
				r.report(b, sc, mode, floor)
			}
		})
	}
}

func benchEnv(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	i, err := strconv.Atoi(v)
	require.NoError(b, err, name)
	return i
}

// sourceChange is the size of one run of BenchmarkAPIServerSourceChange.
type sourceChange struct {
	referencers, sources, changed, workers int
	strip                                  bool // the manager's cache drops managedFields
}

// affected reports whether referencer i reads one of the changed sources.
func (sc sourceChange) affected(i int) bool { return i%sc.sources < sc.changed }

type sourceChangeResult struct {
	late                 []time.Duration // per affected referencer
	settled              []time.Duration // per affected referencer, until its condition says so too
	affected             int
	reconcilesAffected   int64
	reconcilesUnaffected int64
	requests             map[string]int64 // by verb and resource, watches left out
	cpu                  time.Duration    // of this process, from the change until quiet
	window               time.Duration
	heapPerReferencer    float64 // the controller's live heap per referencer held, in bytes
}

func (r sourceChangeResult) report(b *testing.B, sc sourceChange, mode string, floor sourceChangeResult) {
	p := func(q int) time.Duration { return durationPercentile(r.late, q) }
	b.ReportMetric(p(50).Seconds()*1000, "p50-ms")
	b.ReportMetric(p(99).Seconds()*1000, "p99-ms")
	b.ReportMetric(p(100).Seconds()*1000, "max-ms")
	if mode != "floor" {
		b.ReportMetric(durationPercentile(r.settled, 99).Seconds()*1000, "settled-p99-ms")
	}
	var total, referencerWrites int64
	keys := make([]string, 0, len(r.requests))
	for k, v := range r.requests {
		total += v
		if strings.HasPrefix(k, "PUT widgets") || strings.HasPrefix(k, "PATCH widgets") {
			referencerWrites += v
		}
		keys = append(keys, fmt.Sprintf("%s: %d", k, v))
	}
	sort.Strings(keys)
	b.ReportMetric(float64(referencerWrites)/float64(r.affected), "writes/affected")
	b.ReportMetric(float64(total)/float64(sc.changed), "requests/change")
	b.ReportMetric(r.cpu.Seconds(), "cpu-s")
	if !strings.HasPrefix(mode, "floor") {
		b.ReportMetric(float64(r.reconcilesAffected)/float64(r.affected), "reconciles/affected")
		b.ReportMetric(float64(r.reconcilesUnaffected), "reconciles-unaffected")
		b.ReportMetric(float64(r.reconcilesAffected+r.reconcilesUnaffected)/float64(sc.changed), "reconciles/change")
		b.ReportMetric(r.heapPerReferencer, "heap-B/referencer")
	}
	b.Logf("%s: %d referencers over %d ConfigMaps, %d changed at once (%d referencers affected), %d workers; "+
		"new value seen after p50 %s, p99 %s, max %s; %d reconciles of affected referencers (%.2f each), %d of unaffected; "+
		"%d API requests in %s (%s); %s of CPU (this process)",
		mode, sc.referencers, sc.sources, sc.changed, r.affected, sc.workers, p(50), p(99), p(100),
		r.reconcilesAffected, float64(r.reconcilesAffected)/float64(r.affected), r.reconcilesUnaffected,
		total, r.window.Round(time.Millisecond), strings.Join(keys, ", "), r.cpu.Round(time.Millisecond))
	if mode != "floor" {
		b.Logf("%s: new value and its condition's observedGeneration seen after p50 %s, p99 %s", mode, durationPercentile(r.settled, 50), durationPercentile(r.settled, 99))
	}
	if !strings.HasPrefix(mode, "floor") {
		b.Logf("%s: live heap %.0f bytes per referencer held (the manager's cache, the source cache, the Resolver and the Watcher)", mode, r.heapPerReferencer)
	}
	if mode != "floor" && floor.late != nil {
		b.ReportMetric(p(99).Seconds()/durationPercentile(floor.late, 99).Seconds(), "p99/floor")
		b.Logf("%s: p50 and p99 are %.2f and %.2f times the floor's (%s, %s)", mode,
			p(50).Seconds()/durationPercentile(floor.late, 50).Seconds(), p(99).Seconds()/durationPercentile(floor.late, 99).Seconds(),
			durationPercentile(floor.late, 50), durationPercentile(floor.late, 99))
	}
}

func durationPercentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)].Round(time.Millisecond)
}

// verbCounter counts the requests a rest.Config makes, by verb and
// resource (and subresource), leaving out watches.
type verbCounter struct {
	mu sync.Mutex
	n  map[string]int64
}

func (c *verbCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if req.URL.Query().Get("watch") != "true" {
				key := req.Method + " " + resourceOf(req.URL.Path)
				c.mu.Lock()
				if c.n == nil {
					c.n = map[string]int64{}
				}
				c.n[key]++
				c.mu.Unlock()
			}
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

func (c *verbCounter) take() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = nil
	return n
}

// resourceOf returns the resource of a request path, and its subresource:
// /apis/g/v/namespaces/ns/widgets/w/status gives "widgets/status".
func resourceOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:] // api/v1
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:] // apis/group/version
	default:
		return path // discovery
	}
	if len(parts) > 2 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	switch len(parts) {
	case 0:
		return path
	case 1, 2:
		return parts[0]
	}
	return parts[0] + "/" + parts[2]
}

func (sc sourceChange) run(b *testing.B, mode string) sourceChangeResult {
	floorMode := strings.HasPrefix(mode, "floor")
	env := testenv.Fresh(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const ns, label = "scale", "source-change"
	old := func(s int) string { return fmt.Sprintf("old-%d", s) }
	now := func(s int) string { return fmt.Sprintf("new-%d", s) }

	nsObj := &unstructured.Unstructured{}
	nsObj.SetAPIVersion("v1")
	nsObj.SetKind("Namespace")
	nsObj.SetName(ns)
	require.NoError(b, env.Client.Create(ctx, nsObj))
	for s := range sc.sources {
		require.NoError(b, env.Client.Create(ctx, configMap(ns, fmt.Sprintf("src-%d", s), map[string]any{"value": old(s)})))
	}

	// A watcher of its own records when each referencer first holds the new
	// value of its source, and when it is resolved.
	var mu sync.Mutex
	changeStart := time.Time{}
	var late, settledLate []time.Duration
	seen := make(map[string]bool)
	settled := make(map[string]bool)
	resolved := make(map[string]bool)
	source := func(name string) int {
		i, _ := strconv.Atoi(strings.TrimPrefix(name, "w"))
		return i % sc.sources
	}
	observe := func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		at := time.Now()
		s := source(u.GetName())
		region, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "region")
		ok = false
		if conds, err := conditions.FromUnstructured(u); err == nil {
			c := conditions.Get(conds, TypeReferencesResolved)
			ok = c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == u.GetGeneration()
		}
		mu.Lock()
		defer mu.Unlock()
		if ok {
			resolved[u.GetName()] = true
		}
		if !changeStart.IsZero() && region == now(s) && !seen[u.GetName()] {
			seen[u.GetName()] = true
			late = append(late, at.Sub(changeStart))
		}
		if !changeStart.IsZero() && region == now(s) && ok && !settled[u.GetName()] {
			settled[u.GetName()] = true
			settledLate = append(settledLate, at.Sub(changeStart))
		}
	}
	watcher, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme, DefaultLabelSelector: labels.SelectorFromSet(labels.Set{testLabel: label})})
	require.NoError(b, err)
	referencer := &unstructured.Unstructured{}
	referencer.SetGroupVersionKind(testapi.WidgetKind)
	inf, err := watcher.GetInformer(ctx, referencer)
	require.NoError(b, err)
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: observe, UpdateFunc: func(_, o any) { observe(o) }})
	require.NoError(b, err)
	go func() { _ = watcher.Start(ctx) }()
	require.True(b, watcher.WaitForCacheSync(ctx))

	// The referencers, created with the value they will resolve to, so that
	// the controller's first reconcile writes only the condition.
	create := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range create {
				s := i % sc.sources
				w := widget(b, ns, fmt.Sprintf("w%d", i), fmt.Sprintf(`
externalValues:
- fromObject: {version: v1, resource: configmaps, name: src-%d, fieldPath: data.value}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}
forProvider: {region: %s}`, s, old(s)))
				w.SetLabels(map[string]string{testLabel: label})
				if err := env.Client.Create(ctx, w); err != nil {
					b.Errorf("cannot create %s: %v", w.GetName(), err)
				}
			}
		})
	}
	for i := range sc.referencers {
		create <- i
	}
	close(create)
	wg.Wait()

	requests := &verbCounter{}
	var reconcilesAffected, reconcilesUnaffected atomic.Int64
	var heapBefore uint64
	var write func(i int)
	if floorMode {
		write = sc.floorWriter(ctx, b, env, requests, watcher, now, mode == "floor-status")
	} else {
		heapBefore = liveHeap()
		mo := env.ManagerOptions()
		referencers := &unstructured.Unstructured{}
		referencers.SetGroupVersionKind(testapi.WidgetKind)
		mo.Cache = cache.Options{SyncPeriod: ptr.To(10 * time.Hour), ByObject: map[client.Object]cache.ByObject{referencers: {Label: labels.SelectorFromSet(labels.Set{testLabel: label})}}}
		if sc.strip {
			mo.Cache.DefaultTransform = cache.TransformStripManagedFields()
		}
		mgr, err := manager.New(requests.wrap(env.Config), mo)
		require.NoError(b, err)
		r, err := newReconciler(mgr, testapi.WidgetKind, Options{Name: "extref-bench", Workers: sc.workers})
		require.NoError(b, err)
		counted := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			i, _ := strconv.Atoi(strings.TrimPrefix(req.Name, "w"))
			if sc.affected(i) {
				reconcilesAffected.Add(1)
			} else {
				reconcilesUnaffected.Add(1)
			}
			return r.Reconcile(ctx, req)
		})
		require.NoError(b, r.controller(mgr).Complete(counted))
		testenv.StartManager(b, mgr)
		testenv.Eventually(b, 5*time.Minute, "every referencer resolved", func() error {
			mu.Lock()
			defer mu.Unlock()
			if len(resolved) < sc.referencers {
				return fmt.Errorf("%d of %d", len(resolved), sc.referencers)
			}
			return nil
		})
	}
	quiet := func() {
		last := reconcilesAffected.Load() + reconcilesUnaffected.Load()
		for {
			time.Sleep(2 * wakeInterval)
			n := reconcilesAffected.Load() + reconcilesUnaffected.Load()
			if n == last {
				return
			}
			last = n
		}
	}
	quiet()
	var heapPer float64
	if !floorMode {
		heapPer = float64(liveHeap()-heapBefore) / float64(sc.referencers)
	}
	requests.take()
	reconcilesAffected.Store(0)
	reconcilesUnaffected.Store(0)

	affected := 0
	for i := range sc.referencers {
		if sc.affected(i) {
			affected++
		}
	}
	cpu := cpuTime()
	mu.Lock()
	changeStart = time.Now()
	mu.Unlock()
	for s := range sc.changed {
		wg.Go(func() {
			cm := configMap(ns, fmt.Sprintf("src-%d", s), map[string]any{"value": now(s)})
			if err := env.Client.Update(ctx, cm); err != nil {
				b.Errorf("cannot change %s: %v", cm.GetName(), err)
				return
			}
			if write != nil {
				for i := s; i < sc.referencers; i += sc.sources {
					write(i)
				}
			}
		})
	}
	wg.Wait()
	all := func(what string, seen *[]time.Duration) {
		testenv.Eventually(b, 5*time.Minute, "every affected referencer's "+what, func() error {
			mu.Lock()
			defer mu.Unlock()
			if len(*seen) < affected {
				return fmt.Errorf("%d of %d", len(*seen), affected)
			}
			return nil
		})
	}
	all("new value", &late)
	if mode != "floor" {
		all("condition at its generation", &settledLate)
	}
	quiet()
	cpuUsed := cpuTime() - cpu
	window := time.Since(changeStart)

	mu.Lock()
	defer mu.Unlock()
	return sourceChangeResult{
		late:                 late,
		settled:              settledLate,
		affected:             affected,
		reconcilesAffected:   reconcilesAffected.Load(),
		reconcilesUnaffected: reconcilesUnaffected.Load(),
		requests:             requests.take(),
		cpu:                  cpuUsed,
		window:               window,
		heapPerReferencer:    heapPer,
	}
}

// floorWriter returns what stands in for the controller in the floor mode:
// given an affected referencer, it writes the new value to its target, from
// the copy watcher holds, and with status its condition after it, with at
// most workers referencers written at once.
func (sc sourceChange) floorWriter(ctx context.Context, b *testing.B, env *testenv.Env, requests *verbCounter, watcher cache.Cache, value func(int) string, status bool) func(int) {
	c, err := client.New(requests.wrap(env.Config), client.Options{Scheme: env.Scheme})
	require.NoError(b, err)
	slots := writeslots.New(sc.workers, 2) // values (0) before conditions (1)
	setter := conditions.NewSetter()
	var wg sync.WaitGroup
	return func(i int) {
		wg.Go(func() {
			if !slots.Acquire(ctx, 0) {
				return
			}
			w := &unstructured.Unstructured{}
			w.SetGroupVersionKind(testapi.WidgetKind)
			if err := watcher.Get(ctx, client.ObjectKey{Namespace: "scale", Name: fmt.Sprintf("w%d", i)}, w); err != nil {
				b.Errorf("cannot read w%d: %v", i, err)
				return
			}
			if err := unstructured.SetNestedField(w.Object, value(i%sc.sources), "spec", "forProvider", "region"); err != nil {
				b.Errorf("w%d: %v", i, err)
				return
			}
			err := c.Update(ctx, w)
			slots.Release()
			if err != nil {
				if ctx.Err() == nil {
					b.Errorf("cannot write w%d: %v", i, err)
				}
				return
			}
			if !status {
				return
			}
			if _, err := setter.SetUnstructured(w, Condition(Outcome{}, nil, w.GetGeneration())); err != nil {
				b.Errorf("w%d: %v", i, err)
				return
			}
			if !slots.Acquire(ctx, 1) {
				return
			}
			defer slots.Release()
			if err := c.Status().Update(ctx, w); err != nil && ctx.Err() == nil {
				b.Errorf("cannot write the status of w%d: %v", i, err)
			}
		})
	}
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
