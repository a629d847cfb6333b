package testenv_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/internal/testenv/testapi/crds"
	"github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDs(crds.FS), testenv.WithScheme(v1alpha1.AddToScheme))
}

// TestSmoke proves the harness talks to a real API server: the status
// subresource ignores spec changes, the main resource ignores status changes,
// and the structural schema prunes unknown status fields. A fake client does
// none of this.
func TestSmoke(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	w := &v1alpha1.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke", Namespace: "default"},
		Spec:       v1alpha1.WidgetSpec{Size: "small"},
		Status:     v1alpha1.WidgetStatus{ObservedGeneration: 99},
	}
	require.NoError(t, env.Client.Create(ctx, w))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), w) })
	require.NotEmpty(t, w.ResourceVersion, "the server assigns a resourceVersion")
	require.Equal(t, int64(1), w.Generation, "the server assigns generation 1")

	// Status on create is dropped when the status subresource is enabled.
	got := &v1alpha1.Widget{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(w), got))
	if diff := cmp.Diff(v1alpha1.WidgetStatus{}, got.Status); diff != "" {
		t.Errorf("status after create: -want, +got:\n%s", diff)
	}

	// Write status through the subresource, with an unknown field and a spec
	// change that the subresource must ignore.
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Widget"))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(w), u))
	require.NoError(t, unstructured.SetNestedField(u.Object, "large", "spec", "size"))
	require.NoError(t, unstructured.SetNestedField(u.Object, int64(1), "status", "observedGeneration"))
	require.NoError(t, unstructured.SetNestedField(u.Object, "not in the schema", "status", "bogus"))
	require.NoError(t, unstructured.SetNestedSlice(u.Object, []any{map[string]any{
		"type": "Ready", "status": "True", "reason": "Smoke", "message": "ok",
		"lastTransitionTime": "2026-01-02T03:04:05Z", "observedGeneration": int64(1),
	}}, "status", "conditions"))
	require.NoError(t, env.Client.Status().Update(ctx, u))

	u = &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Widget"))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(w), u))
	if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "bogus"); found {
		t.Errorf("status.bogus: the API server should have pruned a field the schema does not know")
	}
	if size, _, _ := unstructured.NestedString(u.Object, "spec", "size"); size != "small" {
		t.Errorf("spec.size: want %q (a status update must not change spec), got %q", "small", size)
	}

	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(w), got))
	want := v1alpha1.WidgetStatus{
		ObservedGeneration: 1,
		Conditions: []metav1.Condition{{
			Type: "Ready", Status: metav1.ConditionTrue, Reason: "Smoke", Message: "ok",
			LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), ObservedGeneration: 1,
		}},
	}
	if diff := cmp.Diff(want, got.Status, cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })); diff != "" {
		t.Errorf("status after status update: -want, +got:\n%s", diff)
	}

	// An update of the main resource ignores status.
	got.Spec.Size = "medium"
	got.Status.ObservedGeneration = 7
	require.NoError(t, env.Client.Update(ctx, got))
	require.Equal(t, int64(2), got.Generation, "a spec change bumps generation")
	require.Equal(t, int64(1), got.Status.ObservedGeneration, "an update of the main resource must not change status")

	// The REST mapper knows the CRD.
	mapping, err := env.Mapper.RESTMapping(v1alpha1.GroupVersion.WithKind("Widget").GroupKind(), "v1alpha1")
	require.NoError(t, err)
	require.Equal(t, "widgets", mapping.Resource.Resource)
}

// TestFresh: a fresh control plane has the package's CRDs and scheme, and
// none of the shared one's objects.
func TestFresh(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shared := testenv.Get(t)
	w := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "only-in-shared", Namespace: "default"}, Spec: v1alpha1.WidgetSpec{Size: "small"}}
	require.NoError(t, shared.Client.Create(ctx, w))
	t.Cleanup(func() { _ = shared.Client.Delete(context.Background(), w) })

	fresh := testenv.Fresh(t)
	require.NotEqual(t, shared.Config.Host, fresh.Config.Host)
	err := fresh.Client.Get(ctx, client.ObjectKeyFromObject(w), &v1alpha1.Widget{})
	require.True(t, apierrors.IsNotFound(err), "the shared control plane's Widget is not in the fresh one: %v", err)
	again := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace}, Spec: w.Spec}
	require.NoError(t, fresh.Client.Create(ctx, again), "the fresh control plane serves the Widget CRD")
}
