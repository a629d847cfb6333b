package extref

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerMerge merges two ConfigMaps' data, in list order, into a
// Widget's tags that hold a tag of their own, under SetupReconciler on the
// real API server: the CRD's schema takes policy.toFieldPath, the result
// is written once and a reconcile of it writes nothing, and when the
// second source (Optional) is deleted its tags go, the first's and the
// Widget's own stay, and the next reconcile writes nothing either.
func TestAPIServerMerge(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	defaults := configMap("merge", "defaults", map[string]any{"team": "a", "tier": "bronze"})
	overrides := configMap("merge", "overrides", map[string]any{"tier": "gold", "zone": "b"})
	h.create(t, defaults, overrides)
	w := widget(t, "merge", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: defaults, fieldPath: data}
  toFieldPath: spec.forProvider.tags
  policy: {toFieldPath: ForceMergeObjects}
- fromObject: {version: v1, resource: configmaps, name: overrides, fieldPath: data}
  toFieldPath: spec.forProvider.tags
  policy: {toFieldPath: ForceMergeObjects, resolution: Optional}
forProvider:
  tags: {own: mine, tier: silver}`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	tags := func(u *unstructured.Unstructured) map[string]string {
		m, _, _ := unstructured.NestedStringMap(u.Object, "spec", "forProvider", "tags")
		return m
	}
	if diff := cmp.Diff(map[string]string{"own": "mine", "team": "a", "tier": "gold", "zone": "b"}, tags(got)); diff != "" {
		t.Errorf("spec.forProvider.tags: -want, +got:\n%s", diff)
	}
	if _, ok := got.GetAnnotations()[MergedAnnotation]; !ok {
		t.Errorf("no annotation %s on the referencer", MergedAnnotation)
	}
	h.settledOnPoke(t, w)

	// The overrides go: their tags go with them, and silver, which gold
	// replaced, was the Widget's before defaults forced bronze over it.
	require.NoError(t, h.env.Client.Delete(t.Context(), overrides))
	want := map[string]string{"own": "mine", "team": "a", "tier": "bronze"}
	testenv.Eventually(t, 30*time.Second, "the overrides' tags gone", func() error {
		if diff := cmp.Diff(want, tags(h.get(t, w))); diff != "" {
			return fmt.Errorf("spec.forProvider.tags: -want, +got:\n%s", diff)
		}
		return nil
	})
	h.settledOnPoke(t, w)
}

// settledOnPoke waits for the referencer's reconciles to finish, then
// changes an annotation of it, which reconciles it, and checks that the
// reconcile writes nothing.
func (h *harness) settledOnPoke(t *testing.T, w *unstructured.Unstructured) {
	t.Helper()
	var writes, reconciles int64
	quiet := func(what string) {
		testenv.Eventually(t, 30*time.Second, what, func() error {
			w0, r0 := h.writes.writes.Load(), h.reconciles.n.Load()
			time.Sleep(300 * time.Millisecond)
			writes, reconciles = h.writes.writes.Load(), h.reconciles.n.Load()
			if writes != w0 || reconciles != r0 {
				return fmt.Errorf("still busy: %d writes, %d reconciles", writes, reconciles)
			}
			return nil
		})
	}
	quiet("settle")
	w0 := writes
	cur := h.get(t, w)
	a := cur.GetAnnotations()
	a["example.org/poked"] = fmt.Sprint(time.Now().UnixNano())
	cur.SetAnnotations(a)
	require.NoError(t, h.env.Client.Update(context.Background(), cur))
	r0 := reconciles
	testenv.Eventually(t, 30*time.Second, "a reconcile of the poke", func() error {
		if h.reconciles.n.Load() == r0 {
			return fmt.Errorf("no reconcile yet")
		}
		return nil
	})
	quiet("settle after the poke")
	if got := writes - w0; got != 0 {
		h.writes.mu.Lock()
		defer h.writes.mu.Unlock()
		t.Errorf("writes by the reconcile of a settled merged referencer: want 0, got %d: %v", got, h.writes.log[w0:])
	}
}
