package testenv_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

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
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	w := &v1alpha1.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke", Namespace: "default"},
		Spec:       v1alpha1.WidgetSpec{Size: "small"},
		Status:     v1alpha1.WidgetStatus{ObservedGeneration: 99},
	}
	require.NoError(t, env.Client.Create(ctx, w))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), w) })
	if w.ResourceVersion == "" {
		t.Errorf("the server assigns a resourceVersion: got none")
	}
	if w.Generation != 1 {
		t.Errorf("generation after create: want 1 (the server assigns it), got %d", w.Generation)
	}

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
	if got.Generation != 2 {
		t.Errorf("generation after a spec change: want 2, got %d", got.Generation)
	}
	if got.Status.ObservedGeneration != 1 {
		t.Errorf("status.observedGeneration after an update of the main resource: want 1 (status unchanged), got %d", got.Status.ObservedGeneration)
	}

	// The REST mapper knows the CRD.
	mapping, err := env.Mapper.RESTMapping(v1alpha1.GroupVersion.WithKind("Widget").GroupKind(), "v1alpha1")
	require.NoError(t, err)
	if mapping.Resource.Resource != "widgets" {
		t.Errorf("RESTMapping(Widget).Resource.Resource: want %q, got %q", "widgets", mapping.Resource.Resource)
	}
}

// TestFresh: a fresh control plane has the package's CRDs and scheme, and
// none of the shared one's objects.
func TestFresh(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	shared := testenv.Get(t)
	w := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "only-in-shared", Namespace: "default"}, Spec: v1alpha1.WidgetSpec{Size: "small"}}
	require.NoError(t, shared.Client.Create(ctx, w))
	t.Cleanup(func() { _ = shared.Client.Delete(context.Background(), w) })

	fresh := testenv.Fresh(t)
	if fresh.Config.Host == shared.Config.Host {
		t.Errorf("Fresh(t).Config.Host: %s, the shared control plane's; want another", fresh.Config.Host)
	}
	err := fresh.Client.Get(ctx, client.ObjectKeyFromObject(w), &v1alpha1.Widget{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the shared control plane's Widget is not in the fresh one: %v", err)
	}
	again := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace}, Spec: w.Spec}
	require.NoError(t, fresh.Client.Create(ctx, again), "the fresh control plane serves the Widget CRD")
}

// TestStartManager: a started manager's cache serves reads as soon as
// StartManager returns, and stop ends the manager's runnables.
func TestStartManager(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ns := env.Namespace(t, "start-manager")
	w := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "cached", Namespace: ns}, Spec: v1alpha1.WidgetSpec{Size: "small"}}
	require.NoError(t, env.Client.Create(ctx, w))

	mgr, err := manager.New(env.Config, env.ManagerOptions())
	require.NoError(t, err)
	ran := make(chan struct{})
	stopped := make(chan struct{})
	require.NoError(t, mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		close(ran)
		<-ctx.Done()
		close(stopped)
		return nil
	})))
	// Ask for the informer before the manager starts, so that the cache has
	// something to sync.
	_, err = mgr.GetCache().GetInformer(ctx, &v1alpha1.Widget{})
	require.NoError(t, err)

	stop := testenv.StartManager(t, mgr)
	got := &v1alpha1.Widget{}
	if err := mgr.GetCache().Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
		t.Errorf("cache Get after StartManager: %v", err)
	}
	<-ran
	stop()
	select {
	case <-stopped:
	default:
		t.Errorf("the manager's runnable still runs after stop")
	}
	stop() // a second call does nothing
}

// TestNamespace: each call makes a new namespace named after the prefix.
func TestNamespace(t *testing.T) {
	env := testenv.Get(t)
	a, b := env.Namespace(t, "prefix"), env.Namespace(t, "prefix")
	if a == b || !strings.HasPrefix(a, "prefix-") || !strings.HasPrefix(b, "prefix-") {
		t.Errorf("Namespace(t, %q) twice: want two names starting prefix-, got %q and %q", "prefix", a, b)
	}
	ns := &corev1.Namespace{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Name: a}, ns), "the namespace exists")
}

// TestRestartAPIServer stops kube-apiserver and starts it again: in between
// a client cannot reach it; after, the same client (same address and
// certificates) reads what was written before, which etcd kept.
func TestRestartAPIServer(t *testing.T) {
	env := testenv.Fresh(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	require.NoError(t, env.Client.Create(ctx, cm))

	require.NoError(t, env.StopAPIServer())
	down, cancelDown := context.WithTimeout(ctx, 2*time.Second)
	err := env.Client.Get(down, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{})
	cancelDown()
	if err == nil {
		t.Fatalf("a read while kube-apiserver is stopped succeeded")
	}

	require.NoError(t, env.StartAPIServer())
	got := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cm), got))
	if got.Data["k"] != "v" || got.UID != cm.UID {
		t.Errorf("after the restart: want the object written before, got data %v uid %s (uid %s)", got.Data, got.UID, cm.UID)
	}
}
