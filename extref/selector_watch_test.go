package extref

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestWatcherSelections: a change of an object wakes the referencers whose
// selection it changes (it starts or stops matching, or a field they read
// or sort by changes while it matches), and no other; a settled Resolve
// leaves the index as it was.
func TestWatcherSelections(t *testing.T) {
	informers := &informertest.FakeInformers{Scheme: runtime.NewScheme()}
	w := NewWatcher(informers)
	w.wakeEvery = 0
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	require.NoError(t, w.Start(t.Context(), q))

	objs := teamConfigs()
	r := NewResolver(listingReader(objs...), testMapper(), SourcePolicy{}, WithWatcher(w))
	web := widget(t, "team-a", "web", `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {mode: Multiple, sortByFieldPath: data.rank, matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.out
  policy: {resolve: Always}`)
	db := widget(t, "team-a", "db", `
app: db
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, valueFromFieldPath: spec.app}]}, fieldPath: data.region}
  toFieldPath: spec.out
  policy: {resolve: Always}`)
	for _, ref := range []*unstructured.Unstructured{web, db} {
		_, err := r.Resolve(t.Context(), ref)
		require.NoError(t, err)
	}
	w.mu.Lock()
	entries, selections := len(w.bySource), len(w.selections)
	w.mu.Unlock()
	if entries != 2 || selections != 1 {
		t.Fatalf("index: want 2 selections of one kind and namespace, got %d entries in %d scopes", entries, selections)
	}

	cms, err := informers.FakeInformerFor(t.Context(), configMap("", "", nil))
	require.NoError(t, err)
	rv := 10
	version := func(u *unstructured.Unstructured) *unstructured.Unstructured {
		rv++
		c := u.DeepCopy()
		c.SetResourceVersion(fmt.Sprint(rv))
		return c
	}
	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byName[o.GetNamespace()+"/"+o.GetName()] = version(o)
	}
	update := func(key string, change func(u *unstructured.Unstructured)) {
		old := byName[key]
		now := version(old)
		change(now)
		cms.Update(old, now)
		byName[key] = now
	}

	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"a read field of a match", func() {
			update("team-a/a", func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "eu-central-1", "data", "region")
			})
		}, []string{"team-a/web"}},
		{"a field nobody reads", func() {
			update("team-a/a", func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, "x", "data", "other") })
		}, nil},
		{"the sort field of a match", func() {
			update("team-a/b", func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, "9", "data", "rank") })
		}, []string{"team-a/web"}},
		{"a label nobody selects by", func() {
			update("team-a/b", func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"app": "web", "tier": "iron"}) })
		}, nil},
		{"a label change moves an object between selections", func() {
			update("team-a/db", func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"app": "web"}) })
		}, []string{"team-a/db", "team-a/web"}},
		{"a field of an object no selection matches", func() {
			update("team-a/db", func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"app": "none"}) })
			drain(q)
			update("team-a/db", func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, "x", "data", "region") })
		}, nil},
		{"an object created that matches", func() {
			cms.Add(version(labelled("team-a", "new", map[string]string{"app": "db"}, nil)))
		}, []string{"team-a/db"}},
		{"an object created that does not match", func() {
			cms.Add(version(labelled("team-a", "other", map[string]string{"app": "cache"}, nil)))
		}, nil},
		{"a match in another namespace", func() {
			update("team-b/web", func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, "x", "data", "region") })
		}, nil},
		{"a match deleted", func() { cms.Delete(byName["team-a/c"]) }, []string{"team-a/web"}},
	}
	for _, s := range steps {
		s.do()
		if diff := cmp.Diff(s.want, drain(q)); diff != "" {
			t.Errorf("%s: referencers woken: -want, +got:\n%s", s.name, diff)
		}
	}

	// Settled: the same selections again change nothing in the index.
	_, err = r.Resolve(t.Context(), web)
	require.NoError(t, err)
	w.mu.Lock()
	if len(w.bySource) != entries || len(w.selections) != selections {
		t.Errorf("index after a settled Resolve: want %d in %d, got %d entries in %d scopes", entries, selections, len(w.bySource), len(w.selections))
	}
	w.mu.Unlock()

	// Forgotten referencers leave no selection behind.
	w.Forget(types.NamespacedName{Namespace: "team-a", Name: "web"})
	w.Forget(types.NamespacedName{Namespace: "team-a", Name: "db"})
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.bySource) != 0 || len(w.selections) != 0 {
		t.Errorf("index after Forget: want none, got %d entries in %d scopes", len(w.bySource), len(w.selections))
	}
}
