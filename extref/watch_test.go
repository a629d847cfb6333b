package extref

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// drain returns the requests in q, sorted.
func drain(q workqueue.TypedRateLimitingInterface[reconcile.Request]) []string {
	var out []string
	for q.Len() > 0 {
		r, _ := q.Get()
		out = append(out, r.String())
		q.Done(r)
	}
	sort.Strings(out)
	return out
}

func TestWatcher(t *testing.T) {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(crdKind, &metav1.PartialObjectMetadata{})
	informers := &informertest.FakeInformers{Scheme: scheme}
	w := NewWatcher(informers)
	w.wakeEvery = 0 // events follow each other at once here
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()

	settings := watchKey{gk: configMapKind.GroupKind(), gvk: configMapKind, namespace: "team-a", name: "settings"}
	later := watchKey{gk: configMapKind.GroupKind(), gvk: configMapKind, namespace: "team-a", name: "later"}
	things := watchKey{crd: schemaGR("example.org", "things")}
	a := types.NamespacedName{Namespace: "team-a", Name: "a"}
	b := types.NamespacedName{Namespace: "team-a", Name: "b"}

	metricsBefore := gatherMetrics(t)
	// Tracked before the controller starts: handlers are added on Start.
	w.track(a, []watchKey{settings, things})
	if got := len(informers.InformersByGVK); got != 0 {
		t.Errorf("informers before Start: want none, got %d", got)
	}
	require.NoError(t, w.Start(t.Context(), q))
	if err := w.Start(t.Context(), q); err == nil {
		t.Errorf("a second Start: want one, got no error")
	}
	w.track(b, []watchKey{settings, later})
	if got := len(informers.InformersByGVK); got != 2 {
		t.Fatalf("informers: want 2 (ConfigMaps and CRD metadata), got %d", got)
	}
	if diff := cmp.Diff(map[string]float64{"ctrlkit_extref_informers": 2}, grew(metricsBefore, gatherMetrics(t))); diff != "" {
		t.Errorf("metrics after two informers started: -want, +got:\n%s", diff)
	}

	cms, err := informers.FakeInformerFor(t.Context(), configMap("", "", nil))
	require.NoError(t, err)
	cm := func(name, rv string) *unstructured.Unstructured {
		u := configMap("team-a", name, nil)
		u.SetResourceVersion(rv)
		return u
	}

	cms.Add(cm("settings", "1"))
	if diff := cmp.Diff([]string{"team-a/a", "team-a/b"}, drain(q)); diff != "" {
		t.Errorf("referencers of settings: -want, +got:\n%s", diff)
	}
	cms.Update(cm("later", "1"), cm("later", "2"))
	if diff := cmp.Diff([]string{"team-a/b"}, drain(q)); diff != "" {
		t.Errorf("referencers of later: -want, +got:\n%s", diff)
	}
	cms.Update(cm("later", "2"), cm("later", "2"))
	if got := drain(q); len(got) != 0 {
		t.Errorf("a resync enqueues nothing, got %v", got)
	}
	cms.Add(cm("unrelated", "1"))
	if got := drain(q); len(got) != 0 {
		t.Errorf("an unreferenced source enqueues nothing, got %v", got)
	}

	pm := &metav1.PartialObjectMetadata{}
	pm.SetGroupVersionKind(crdKind)
	crds, err := informers.FakeInformerFor(t.Context(), pm)
	require.NoError(t, err)
	crd := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "things.example.org", ResourceVersion: "1"}}
	crds.Add(crd)
	if diff := cmp.Diff([]string{"team-a/a"}, drain(q)); diff != "" {
		t.Errorf("referencers waiting for the CRD: -want, +got:\n%s", diff)
	}

	// A referencer that stops reading a source, or is forgotten, is not enqueued.
	w.track(b, []watchKey{later})
	w.Forget(a)
	cms.Delete(cm("settings", "3"))
	if got := drain(q); len(got) != 0 {
		t.Errorf("after Forget: want nothing enqueued, got %v", got)
	}
	cms.Delete(cm("later", "3"))
	if diff := cmp.Diff([]string{"team-a/b"}, drain(q)); diff != "" {
		t.Errorf("deletion of later: -want, +got:\n%s", diff)
	}
	if got := len(informers.InformersByGVK); got != 2 {
		t.Errorf("informers: want still 2, got %d", got)
	}
}

// racingReader is a reader before which a source is created just after the
// read found it missing, before Resolve returns.
type racingReader struct {
	*memReader
	after func()
}

func (r *racingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := r.memReader.Get(ctx, key, obj, opts...)
	if r.after != nil {
		r.after()
	}
	return err
}

// TestWatcherSourceCreatedDuringResolve creates a missing source between
// the read and the end of Resolve: its event must still wake the
// referencer.
func TestWatcherSourceCreatedDuringResolve(t *testing.T) {
	scheme := runtime.NewScheme()
	informers := &informertest.FakeInformers{Scheme: scheme}
	w := NewWatcher(informers)
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	require.NoError(t, w.Start(t.Context(), q))
	// Another referencer already reads ConfigMaps, so their handler is there.
	w.track(types.NamespacedName{Namespace: "team-a", Name: "other"}, []watchKey{{gk: configMapKind.GroupKind(), gvk: configMapKind, namespace: "team-a", name: "settings"}})
	cms, err := informers.FakeInformerFor(t.Context(), configMap("", "", nil))
	require.NoError(t, err)

	reader := &racingReader{memReader: newReader()}
	reader.after = func() {
		reader.after = nil
		created := configMap("team-a", "later", map[string]any{"region": "eu-west-1"})
		reader.put(created)
		cms.Add(created)
	}
	ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: later, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`)
	if _, err := NewResolver(reader, testMapper(), SourcePolicy{}, WithWatcher(w)).Resolve(t.Context(), ref); !errors.Is(err, ErrSourceNotFound) {
		t.Fatalf("Resolve(...): want ErrSourceNotFound from the read before the source was created, got %v", err)
	}
	if diff := cmp.Diff([]string{"team-a/w"}, drain(q)); diff != "" {
		t.Errorf("referencers woken by the source created during Resolve: -want, +got:\n%s", diff)
	}
}

// An update wakes only the referencers whose fields of the source changed,
// and one referencer at most once per wake interval.
func TestWatcherWakesOnReadFieldsOnly(t *testing.T) {
	informers := &informertest.FakeInformers{Scheme: runtime.NewScheme()}
	w := NewWatcher(informers)
	w.wakeEvery = 200 * time.Millisecond
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	require.NoError(t, w.Start(t.Context(), q))
	field := func(p string) *fieldpath.Path {
		f, err := fieldpath.Compile(p)
		require.NoError(t, err)
		return f
	}
	key := func(f *fieldpath.Path) watchKey {
		return watchKey{gk: configMapKind.GroupKind(), gvk: configMapKind, namespace: "team-a", name: "hot", field: f}
	}
	a := types.NamespacedName{Namespace: "team-a", Name: "a"}
	b := types.NamespacedName{Namespace: "team-a", Name: "b"}
	w.track(a, []watchKey{key(field("data.a"))})
	w.track(b, []watchKey{key(field("data.b")), key(field("data.c"))})
	cms, err := informers.FakeInformerFor(t.Context(), configMap("", "", nil))
	require.NoError(t, err)
	rv := 0
	cm := func(data map[string]any) *unstructured.Unstructured {
		rv++
		u := configMap("team-a", "hot", data)
		u.SetResourceVersion(fmt.Sprint(rv))
		return u
	}

	old := cm(map[string]any{"a": "1", "b": "1", "noise": "1"})
	next := cm(map[string]any{"a": "1", "b": "1", "noise": "2"})
	cms.Update(old, next)
	if got := drain(q); len(got) != 0 {
		t.Errorf("a change of a field nobody reads: want nothing enqueued, got %v", got)
	}
	old, next = next, cm(map[string]any{"a": "1", "b": "1", "c": "new"})
	cms.Update(old, next)
	if diff := cmp.Diff([]string{"team-a/b"}, drain(q)); diff != "" {
		t.Errorf("a field that appears: -want, +got:\n%s", diff)
	}
	old, next = next, cm(map[string]any{"a": "2", "b": "1", "c": "new"})
	cms.Update(old, next)
	if diff := cmp.Diff([]string{"team-a/a"}, drain(q)); diff != "" {
		t.Errorf("a changed field: -want, +got:\n%s", diff)
	}
	old, next = next, cm(map[string]any{"a": "3", "b": "1", "c": "new"})
	cms.Update(old, next)
	if got := drain(q); len(got) != 0 {
		t.Errorf("a second change within the wake interval: want nothing enqueued yet, got %v", got)
	}
	time.Sleep(300 * time.Millisecond)
	if diff := cmp.Diff([]string{"team-a/a"}, drain(q)); diff != "" {
		t.Errorf("after the wake interval: -want, +got:\n%s", diff)
	}
}

// TestWatcherWakesByItsClock: the wake interval is measured by the
// Watcher's clock (WithClock): a second change at the same instant waits,
// one a wake interval later is enqueued at once.
func TestWatcherWakesByItsClock(t *testing.T) {
	informers := &informertest.FakeInformers{Scheme: runtime.NewScheme()}
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w := NewWatcher(informers, WithClock(clk))
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	require.NoError(t, w.Start(t.Context(), q))
	f, err := fieldpath.Compile("data.a")
	require.NoError(t, err)
	w.track(types.NamespacedName{Namespace: "team-a", Name: "a"}, []watchKey{{gk: configMapKind.GroupKind(), gvk: configMapKind, namespace: "team-a", name: "hot", field: f}})
	cms, err := informers.FakeInformerFor(t.Context(), configMap("", "", nil))
	require.NoError(t, err)
	rv := 0
	cm := func(a string) *unstructured.Unstructured {
		rv++
		u := configMap("team-a", "hot", map[string]any{"a": a})
		u.SetResourceVersion(fmt.Sprint(rv))
		return u
	}

	old, next := cm("1"), cm("2")
	cms.Update(old, next)
	if diff := cmp.Diff([]string{"team-a/a"}, drain(q)); diff != "" {
		t.Errorf("a first change: -want, +got:\n%s", diff)
	}
	old, next = next, cm("3")
	cms.Update(old, next)
	if got := drain(q); len(got) != 0 {
		t.Errorf("a second change at the same instant: want nothing enqueued yet, got %v", got)
	}
	clk.SetTime(clk.Now().Add(wakeInterval))
	old, next = next, cm("4")
	cms.Update(old, next)
	if diff := cmp.Diff([]string{"team-a/a"}, drain(q)); diff != "" {
		t.Errorf("a change a wake interval later by the Watcher's clock: -want, +got:\n%s", diff)
	}
}
