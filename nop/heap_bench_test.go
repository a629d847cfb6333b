package nop

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// lastApplied is the annotation in which kubectl apply (client-side) keeps
// the configuration it applied: a copy of the object's spec and metadata.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// stripLastApplied drops managedFields and the last-applied-configuration
// annotation from objects before the cache stores them.
func stripLastApplied(obj any) (any, error) {
	obj, err := cache.TransformStripManagedFields()(obj)
	if o, ok := obj.(client.Object); ok && err == nil {
		if a := o.GetAnnotations(); a[lastApplied] != "" {
			delete(a, lastApplied)
			o.SetAnnotations(a)
		}
	}
	return obj, err
}

// BenchmarkAPIServerHeap measures the live heap the nop controller keeps per
// object it holds: NOP_BENCH_OBJECTS settled NopResources (default 1,000; on
// benchSchedule, with the last-applied-configuration annotation that
// kubectl apply writes), held by a manager whose cache keeps them whole, or
// drops their managedFields (cache.TransformStripManagedFields), or drops
// those and the annotation. It reports the heap after a full collection,
// once the manager has reconciled every object and gone quiet, less the
// heap before the manager started, per object; and the API requests the
// settled objects took (there must be no write):
//
//	go test -run '^$' -bench BenchmarkAPIServerHeap -benchtime 1x ./nop
func BenchmarkAPIServerHeap(b *testing.B) {
	n := envInt(b, "NOP_BENCH_OBJECTS", 1000)
	env := testenv.Fresh(b)
	ctx := context.Background()
	const label = "heap"

	// The objects, settled by a controller of their own before any is
	// measured.
	create := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range create {
				obj := newNop(label, fmt.Sprintf("heap-%05d", i), benchSchedule...)
				applied, err := json.Marshal(map[string]any{"apiVersion": v1alpha1.GroupVersion.String(), "kind": v1alpha1.NopResourceKind,
					"metadata": map[string]any{"name": obj.Name, "namespace": obj.Namespace, "labels": obj.Labels}, "spec": obj.Spec})
				if err != nil {
					b.Errorf("%s: %v", obj.Name, err)
					continue
				}
				obj.Annotations = map[string]string{lastApplied: string(applied)}
				if err := env.Client.Create(ctx, obj); err != nil {
					b.Errorf("cannot create %s: %v", obj.Name, err)
				}
			}
		})
	}
	for i := range n {
		create <- i
	}
	close(create)
	wg.Wait()
	settle, _ := heapManager(b, env, label, nil, n)
	testenv.Eventually(b, 5*time.Minute, "every object synced by its schedule", func() error {
		list := &v1alpha1.NopResourceList{}
		if err := env.Client.List(ctx, list, client.MatchingLabels{testLabel: label}); err != nil {
			return err
		}
		done := 0
		for _, o := range list.Items {
			if c := conditions.Get(o.Status.Conditions, "Synced"); c != nil && c.Reason == ReasonScheduled {
				done++
			}
		}
		if done < n {
			return fmt.Errorf("%d of %d", done, n)
		}
		return nil
	})
	settle()

	for _, m := range []struct {
		name      string
		transform toolscache.TransformFunc
	}{
		{"whole", nil},
		{"stripped-managedFields", cache.TransformStripManagedFields()},
		{"stripped-managedFields-last-applied", stripLastApplied},
	} {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				before := liveHeap()
				stop, requests := heapManager(b, env, label, m.transform, n)
				after := liveHeap()
				stop()
				per := (float64(after) - float64(before)) / float64(n)
				b.ReportMetric(per, "heap-B/object")
				b.ReportMetric(float64(requests.writes.Load()), "writes")
				b.Logf("%s: %d settled objects held: %.0f bytes of live heap each; %d reads, %d writes (%s)", m.name, n, per, requests.reads.Load(), requests.writes.Load(), requests)
				if w := requests.writes.Load(); w != 0 {
					b.Errorf("%s: settled objects took %d writes: want none", m.name, w)
				}
			}
		})
	}
}

// heapManager starts the nop controllers on the objects labelled label,
// with transform on the manager's cache, and returns once they have
// reconciled n objects and gone quiet.
func heapManager(b *testing.B, env *testenv.Env, label string, transform toolscache.TransformFunc, n int) (stop func(), requests *requestCounter) {
	b.Helper()
	stop, requests, reconciles := managerWithCache(b, env, label, transform, nil)
	testenv.Eventually(b, 5*time.Minute, "every object reconciled", func() error {
		if got := reconciles.Load(); got < int64(n) {
			return fmt.Errorf("%d of %d", got, n)
		}
		return nil
	})
	for last := int64(-1); last != reconciles.Load(); {
		last = reconciles.Load()
		time.Sleep(time.Second)
	}
	return stop, requests
}

// managerWithCache runs the nop controllers on the objects labelled label,
// with transform on the manager's cache, counting their reconciles; tweak,
// when not nil, is called with each kind's reconciler before it is set up.
func managerWithCache(t testing.TB, env *testenv.Env, label string, transform toolscache.TransformFunc, tweak func(*reconciler)) (stop func(), requests *requestCounter, reconciles *atomic.Int64) {
	t.Helper()
	requests = &requestCounter{}
	cfg := requests.wrap(env.Config)
	cfg.QPS = -1
	mo := env.ManagerOptions()
	mo.Cache = cache.Options{DefaultLabelSelector: labels.SelectorFromSet(labels.Set{testLabel: label}), DefaultTransform: transform}
	mgr, err := ctrl.NewManager(cfg, mo)
	require.NoError(t, err)
	reconciles = &atomic.Int64{}
	for _, k := range kinds {
		r := newReconciler(mgr, k, Options{})
		if tweak != nil {
			tweak(r)
		}
		require.NoError(t, setup(mgr, r, reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			reconciles.Add(1)
			return r.Reconcile(ctx, req)
		})))
	}
	return testenv.StartManager(t, mgr), requests, reconciles
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
