package directstatus_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
	dsmetrics "github.com/ctrlkit/ctrlkit/directstatus/metrics"
	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	testapicrds "github.com/ctrlkit/ctrlkit/internal/testenv/testapi/crds"
	"github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDs(testapicrds.FS, kccCRDs()), testenv.WithScheme(v1alpha1.AddToScheme, addKCCWidget))
}

var (
	// t0 is the time of the fake clock; the API server stores seconds.
	t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

	ignoreTime = cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")
	equateTime = cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })
)

// countingClient wraps a real client and counts status writes.
type countingClient struct {
	client.WithWatch
	writes *atomic.Int64
}

func newCountingClient(t *testing.T, env *testenv.Env) countingClient {
	t.Helper()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)
	writes := &atomic.Int64{}
	return countingClient{
		WithWatch: interceptor.NewClient(c, interceptor.Funcs{
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				writes.Add(1)
				return c.SubResource(sub).Update(ctx, obj, opts...)
			},
		}),
		writes: writes,
	}
}

func newWidget(t *testing.T, env *testenv.Env, name string) *v1alpha1.Widget {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: v1alpha1.WidgetSpec{Size: "small"}}
	require.NoError(t, env.Client.Create(ctx, w))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), w) })
	return w
}

// readUnstructured reads w from the API server as unstructured content.
func readUnstructured(t *testing.T, env *testenv.Env, w *v1alpha1.Widget) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Widget"))
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(w), u))
	return u
}

func TestSetReadyTyped(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := newCountingClient(t, env)
	clk := clocktesting.NewFakeClock(t0)
	w := directstatus.NewWriter(c, directstatus.WithClock(clk))

	obj := newWidget(t, env, "typed")
	// Another controller's condition, which must be kept as it is.
	audited := metav1.Condition{Type: "example.com/Audited", Status: metav1.ConditionTrue, Reason: "Audited", Message: "ok", LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour)), ObservedGeneration: 1}
	obj.Status.Conditions = []metav1.Condition{audited}
	require.NoError(t, env.Client.Status().Update(ctx, obj))

	written, err := w.SetReady(ctx, obj, directstatus.Updating("spec.size"))
	require.NoError(t, err)
	if !written {
		t.Errorf("first SetReady(Updating): want written, got no write")
	}

	got := &v1alpha1.Widget{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	want := v1alpha1.WidgetStatus{
		ObservedGeneration: 1,
		Conditions: []metav1.Condition{audited, {
			Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating", Message: "Updating resource (first field path: spec.size)",
			LastTransitionTime: metav1.NewTime(t0), ObservedGeneration: 1,
		}, {
			// Reconciling goes with every Ready that is not True.
			Type: "Reconciling", Status: metav1.ConditionTrue, Reason: "Updating", Message: "Updating resource (first field path: spec.size)",
			LastTransitionTime: metav1.NewTime(t0), ObservedGeneration: 1,
		}},
	}
	if diff := cmp.Diff(want, got.Status, equateTime); diff != "" {
		t.Errorf("status after Updating: -want, +got:\n%s", diff)
	}

	// The same condition again: no write, not even of the same content.
	before := c.writes.Load()
	rv := obj.ResourceVersion
	written, err = w.SetReady(ctx, obj, directstatus.Updating("spec.size"))
	require.NoError(t, err)
	if written || c.writes.Load() != before || obj.ResourceVersion != rv {
		t.Errorf("SetReady of an unchanged condition: written %t, %d status writes, resourceVersion %s -> %s; want no write",
			written, c.writes.Load()-before, rv, obj.ResourceVersion)
	}

	// A new status moves lastTransitionTime; a new message alone does not.
	clk.Step(time.Minute)
	_, err = w.SetReady(ctx, obj, directstatus.UpToDate())
	require.NoError(t, err)
	clk.Step(time.Minute)
	_, err = w.SetReady(ctx, obj, directstatus.UpToDate(directstatus.OperationID("op-1")))
	require.NoError(t, err)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	ready := conditions.Get(got.Status.Conditions, "Ready")
	require.NotNil(t, ready)
	if !ready.LastTransitionTime.Time.Equal(t0.Add(time.Minute)) {
		t.Errorf("lastTransitionTime: want %v (when the status became True), got %v", t0.Add(time.Minute), ready.LastTransitionTime)
	}
	if rec := conditions.Get(got.Status.Conditions, "Reconciling"); rec != nil {
		t.Errorf("Reconciling must go once Ready is True, got %+v", rec)
	}

	// A new generation is observed, at the root and in the condition, even
	// with the same condition.
	got.Spec.Size = "large"
	require.NoError(t, env.Client.Update(ctx, got))
	require.Equal(t, int64(2), got.Generation)
	written, err = w.SetReady(ctx, got, directstatus.UpToDate(directstatus.OperationID("op-1")))
	require.NoError(t, err)
	if !written {
		t.Errorf("SetReady(UpToDate) of a new generation: want written, got no write")
	}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	if got.Status.ObservedGeneration != 2 || conditions.Get(got.Status.Conditions, "Ready").ObservedGeneration != 2 {
		t.Errorf("observedGeneration: want 2 at the root and in Ready, got %d and %d", got.Status.ObservedGeneration, conditions.Get(got.Status.Conditions, "Ready").ObservedGeneration)
	}
	if diff := cmp.Diff(audited, got.Status.Conditions[0], equateTime); diff != "" {
		t.Errorf("the other controller's condition changed: -want, +got:\n%s", diff)
	}
	requireOneReady(t, got.Status.Conditions)
}

func TestSetReadyUnstructured(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := newCountingClient(t, env)
	w := directstatus.NewWriter(c, directstatus.WithClock(clocktesting.NewFakeClock(t0)))

	typed := newWidget(t, env, "unstructured")
	u := readUnstructured(t, env, typed)

	written, err := w.SetReady(ctx, u, directstatus.UpdateFailure("spec.size", errors.New("quota exceeded")))
	require.NoError(t, err)
	if !written {
		t.Errorf("SetReady(UpdateFailure) of an unstructured object: want written, got no write")
	}

	got := &v1alpha1.Widget{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(typed), got))
	want := v1alpha1.WidgetStatus{
		ObservedGeneration: 1,
		Conditions: []metav1.Condition{{
			Type: "Ready", Status: metav1.ConditionFalse, Reason: "UpdateFailure",
			Message:            "Failed to update resource (first field path: spec.size): quota exceeded",
			LastTransitionTime: metav1.NewTime(t0), ObservedGeneration: 1,
		}, {
			Type: "Reconciling", Status: metav1.ConditionTrue, Reason: "UpdateFailure",
			Message:            "Failed to update resource (first field path: spec.size): quota exceeded",
			LastTransitionTime: metav1.NewTime(t0), ObservedGeneration: 1,
		}},
	}
	if diff := cmp.Diff(want, got.Status, equateTime); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}

	before := c.writes.Load()
	written, err = w.SetReady(ctx, u, directstatus.UpdateFailure("spec.size", errors.New("quota exceeded")))
	require.NoError(t, err)
	if written || c.writes.Load() != before {
		t.Errorf("SetReady of an unchanged condition wrote %d times", c.writes.Load()-before)
	}
}

// TestSetReadyWholeFloatObservedGeneration reads status.observedGeneration as
// encoding/json decodes it into unstructured content, a float64: a whole
// float equal to the generation is not a change.
func TestSetReadyWholeFloatObservedGeneration(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := newCountingClient(t, env)
	w := directstatus.NewWriter(c, directstatus.WithClock(clocktesting.NewFakeClock(t0)))

	typed := newWidget(t, env, "float-generation")
	u := readUnstructured(t, env, typed)
	written, err := w.SetReady(ctx, u, directstatus.UpToDate())
	require.NoError(t, err)
	if !written {
		t.Errorf("first SetReady(UpToDate): want written, got no write")
	}

	require.NoError(t, unstructured.SetNestedField(u.Object, float64(u.GetGeneration()), "status", "observedGeneration"))
	before := c.writes.Load()
	written, err = w.SetReady(ctx, u, directstatus.UpToDate())
	require.NoError(t, err)
	if written || c.writes.Load() != before {
		t.Errorf("SetReady with observedGeneration %v for generation %d wrote %d times; want no write", float64(u.GetGeneration()), u.GetGeneration(), c.writes.Load()-before)
	}
}

// TestSetReadyConflict writes from a stale copy: the write meets a conflict,
// is retried on a fresh read, and keeps what the other writer wrote.
func TestSetReadyConflict(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := newCountingClient(t, env)
	w := directstatus.NewWriter(c, directstatus.WithClock(clocktesting.NewFakeClock(t0)), dsmetrics.CountWrites())

	obj := newWidget(t, env, "conflict")
	stale := obj.DeepCopy()

	// Another writer adds its condition after our read.
	other := metav1.Condition{Type: "example.com/Other", Status: metav1.ConditionTrue, Reason: "Set", Message: "by someone else", LastTransitionTime: metav1.NewTime(t0), ObservedGeneration: 1}
	obj.Status.Conditions = append(obj.Status.Conditions, other)
	require.NoError(t, env.Client.Status().Update(ctx, obj))

	before := writeMetrics(t)
	written, err := w.SetReady(ctx, stale, directstatus.UpToDate())
	require.NoError(t, err)
	if !written {
		t.Errorf("SetReady(UpToDate) of a stale object: want written, got no write")
	}
	if got := c.writes.Load(); got != 2 {
		t.Errorf("status writes: want 2 (a conflict, then the retry), got %d", got)
	}
	after := writeMetrics(t)
	for result, want := range map[string]float64{"success": 1, "conflict": 1, "error": 0} {
		if d := after[result] - before[result]; d != want {
			t.Errorf("ctrlkit_directstatus_writes_total{result=%q} grew by %v, want %v", result, d, want)
		}
	}

	got := &v1alpha1.Widget{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	want := []metav1.Condition{other, {Type: "Ready", Status: metav1.ConditionTrue, Reason: "UpToDate", Message: "Resource is up to date", ObservedGeneration: 1}}
	if diff := cmp.Diff(want, got.Status.Conditions, ignoreTime); diff != "" {
		t.Errorf("conditions after a conflict: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(got.Status, stale.Status, equateTime); diff != "" {
		t.Errorf("the object passed in should hold what the server returned: -server, +object:\n%s", diff)
	}
}

// TestSetReadyRereadFails meets a conflict, then fails to read the object
// again: the error names the object and the cause, and the object passed in
// keeps its identity and spec.
func TestSetReadyRereadFails(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, v1alpha1.AddToScheme(scheme))
	gr := v1alpha1.GroupVersion.WithResource("widgets").GroupResource()
	c := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme).Build(), interceptor.Funcs{
		SubResourceUpdate: func(_ context.Context, _ client.Client, _ string, obj client.Object, _ ...client.SubResourceUpdateOption) error {
			return apierrors.NewConflict(gr, obj.GetName(), errors.New("the object has been modified"))
		},
		Get: func(_ context.Context, _ client.WithWatch, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
			return apierrors.NewNotFound(gr, key.Name)
		},
	})
	w := directstatus.NewWriter(c)

	typed := &v1alpha1.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "reread", Namespace: "default", Generation: 3},
		Spec:       v1alpha1.WidgetSpec{Size: "small"},
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Widget"))
	u.SetName("reread")
	u.SetNamespace("default")
	u.SetGeneration(3)
	u.Object["spec"] = map[string]any{"size": "small"}

	cases := map[string]struct {
		obj           client.Object
		withoutStatus func(client.Object) any
	}{
		"Typed": {
			obj: typed,
			withoutStatus: func(o client.Object) any {
				c := o.(*v1alpha1.Widget).DeepCopy()
				c.Status = v1alpha1.WidgetStatus{}
				return c
			},
		},
		"Unstructured": {
			obj: u,
			withoutStatus: func(o client.Object) any {
				c := o.(*unstructured.Unstructured).DeepCopy()
				delete(c.Object, "status")
				return c.Object
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := tc.withoutStatus(tc.obj)
			written, err := w.SetReady(t.Context(), tc.obj, directstatus.Updating("spec.size"))
			if written {
				t.Errorf("SetReady after a conflict whose re-read finds nothing: want no write, got written")
			}
			if !apierrors.IsNotFound(err) {
				t.Errorf("SetReady: want an error wrapping the re-read's NotFound, got %v", err)
			}
			if err == nil || !strings.Contains(err.Error(), "Widget default/reread") {
				t.Errorf("SetReady: want an error naming Widget default/reread, got %v", err)
			}
			if diff := cmp.Diff(before, tc.withoutStatus(tc.obj)); diff != "" {
				t.Errorf("the object passed in after a failed re-read: -before, +after:\n%s", diff)
			}
		})
	}
}

// TestWriterOptions: ConflictBackoff bounds the attempts of a write that
// keeps meeting conflicts, and ReadFrom's reader, not the client, reads the
// object again after each.
func TestWriterOptions(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, v1alpha1.AddToScheme(scheme))
	gr := v1alpha1.GroupVersion.WithResource("widgets").GroupResource()
	obj := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "opts", Namespace: "default", Generation: 1}}
	var writes, clientReads, readerReads atomic.Int32
	c := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme).Build(), interceptor.Funcs{
		SubResourceUpdate: func(_ context.Context, _ client.Client, _ string, obj client.Object, _ ...client.SubResourceUpdateOption) error {
			writes.Add(1)
			return apierrors.NewConflict(gr, obj.GetName(), errors.New("the object has been modified"))
		},
		Get: func(_ context.Context, _ client.WithWatch, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
			clientReads.Add(1)
			return apierrors.NewNotFound(gr, key.Name)
		},
	})
	reader := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme).WithObjects(obj.DeepCopy()).Build(), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			readerReads.Add(1)
			return c.Get(ctx, key, obj, opts...)
		},
	})
	w := directstatus.NewWriter(c,
		directstatus.ConflictBackoff(wait.Backoff{Steps: 3, Duration: time.Millisecond}),
		directstatus.ReadFrom(reader))

	_, err := w.SetReady(t.Context(), obj, directstatus.Updating("spec.size"))
	if !apierrors.IsConflict(err) {
		t.Errorf("SetReady: want the last conflict, got %v", err)
	}
	if got := writes.Load(); got != 3 {
		t.Errorf("writes: want 3 (ConflictBackoff's Steps), got %d", got)
	}
	if got := readerReads.Load(); got == 0 {
		t.Errorf("reads through ReadFrom's reader: want some, got none")
	}
	if got := clientReads.Load(); got != 0 {
		t.Errorf("reads through the client: want none, got %d", got)
	}

	// Steps of 0 still make one attempt, and report its conflict.
	writes.Store(0)
	w = directstatus.NewWriter(c, directstatus.ConflictBackoff(wait.Backoff{}), directstatus.ReadFrom(reader))
	if _, err := w.SetReady(t.Context(), obj, directstatus.Updating("spec.colour")); !apierrors.IsConflict(err) {
		t.Errorf("SetReady with Steps 0: want the conflict, got %v", err)
	}
	if got := writes.Load(); got != 1 {
		t.Errorf("writes with Steps 0: want 1, got %d", got)
	}
}

// TestSetReadyGenerationChanged writes a condition decided for an old spec:
// the conflict's re-read finds a new generation, and nothing is written.
func TestSetReadyGenerationChanged(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := newCountingClient(t, env)
	w := directstatus.NewWriter(c)

	obj := newWidget(t, env, "generation")
	stale := obj.DeepCopy()
	obj.Spec.Size = "large"
	require.NoError(t, env.Client.Update(ctx, obj))
	require.Equal(t, int64(2), obj.Generation)

	written, err := w.SetReady(ctx, stale, directstatus.Updating("spec.size"))
	if !errors.Is(err, directstatus.ErrGenerationChanged) {
		t.Errorf("SetReady of a stale generation: want ErrGenerationChanged, got error %v", err)
	}
	if written {
		t.Errorf("SetReady of a stale generation: want no write, got written")
	}
	got := &v1alpha1.Widget{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	if len(got.Status.Conditions) != 0 || got.Status.ObservedGeneration != 0 {
		t.Errorf("status after a refused write: want it empty, got %+v", got.Status)
	}
}

// TestReconcilePattern runs the design's flow against the API server while a
// watch records every Ready condition the object shows.
func TestReconcilePattern(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := newCountingClient(t, env)
	w := directstatus.NewWriter(c, directstatus.WithClock(clocktesting.NewFakeClock(t0)))

	obj := newWidget(t, env, "pattern")
	seen := watchReady(t, ctx, c, obj)

	type spec struct {
		Size string `json:"size"`
	}
	// The external resource, and a call to update it that the test controls.
	external := spec{Size: "small"}
	var calls int
	var inCall []string // the Ready reasons the server held while the call ran
	update := func(desired spec, fail error) error {
		calls++
		got := &v1alpha1.Widget{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
		inCall = append(inCall, conditions.Get(got.Status.Conditions, "Ready").Reason)
		if fail != nil {
			return fail
		}
		external = desired
		return nil
	}
	// reconcile is the design's flow.
	reconcile := func(fail error) error {
		desired := spec{Size: obj.Spec.Size}
		first, changed, err := fielddiff.FirstChangedField(desired, external, fielddiff.Prefix("spec"))
		require.NoError(t, err)
		if !changed {
			_, err := w.SetReady(ctx, obj, directstatus.UpToDate())
			return err
		}
		op, err := w.StartUpdate(ctx, obj, first)
		if err != nil {
			return err
		}
		if err := update(desired, fail); err != nil {
			return op.Failed(ctx, err)
		}
		return op.Succeeded(ctx)
	}

	// A spec change: Updating, written before the call, then UpToDate.
	obj.Spec.Size = "large"
	require.NoError(t, env.Client.Update(ctx, obj))
	require.NoError(t, reconcile(nil))
	// A failing call: UpdateFailure keeps the first field path.
	obj.Spec.Size = "huge"
	require.NoError(t, env.Client.Update(ctx, obj))
	cloudErr := errors.New("size huge is not available")
	err := reconcile(cloudErr)
	if !errors.Is(err, cloudErr) {
		t.Errorf("reconcile of a failing call: want the cause %v, got error %v (for the reconciler's backoff)", cloudErr, err)
	}
	// The retry succeeds.
	require.NoError(t, reconcile(nil))

	// A periodic sync with nothing to change writes nothing at all.
	before := c.writes.Load()
	require.NoError(t, reconcile(nil))
	require.NoError(t, reconcile(nil))
	if n := c.writes.Load() - before; n != 0 {
		t.Errorf("a periodic sync with no diff wrote the status %d times, want 0", n)
	}
	if calls != 3 {
		t.Errorf("external calls: want 3, got %d", calls)
	}
	if diff := cmp.Diff([]string{"Updating", "Updating", "Updating"}, inCall); diff != "" {
		t.Errorf("the Ready reason the object showed during each external call: -want, +got:\n%s", diff)
	}

	want := []metav1.Condition{
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating", Message: "Updating resource (first field path: spec.size)", ObservedGeneration: 2},
		{Type: "Ready", Status: metav1.ConditionTrue, Reason: "UpToDate", Message: "Resource is up to date", ObservedGeneration: 2},
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating", Message: "Updating resource (first field path: spec.size)", ObservedGeneration: 3},
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "UpdateFailure", Message: "Failed to update resource (first field path: spec.size): size huge is not available", ObservedGeneration: 3},
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating", Message: "Updating resource (first field path: spec.size)", ObservedGeneration: 3},
		{Type: "Ready", Status: metav1.ConditionTrue, Reason: "UpToDate", Message: "Resource is up to date", ObservedGeneration: 3},
	}
	if diff := cmp.Diff(want, seen(len(want)), ignoreTime); diff != "" {
		t.Errorf("Ready conditions a watcher saw: -want, +got:\n%s", diff)
	}
}

// watchReady watches obj and returns a function that waits for n changes of
// its Ready condition and returns them in order. Every object the watch
// delivers must have at most one Ready condition.
func watchReady(t *testing.T, ctx context.Context, c client.WithWatch, obj *v1alpha1.Widget) func(n int) []metav1.Condition {
	t.Helper()
	list := &v1alpha1.WidgetList{}
	wi, err := c.Watch(ctx, list, client.InNamespace(obj.Namespace), client.MatchingFields{"metadata.name": obj.Name}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: obj.ResourceVersion}})
	require.NoError(t, err)
	t.Cleanup(wi.Stop)
	var got []metav1.Condition
	return func(n int) []metav1.Condition {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for len(got) < n {
			select {
			case ev, ok := <-wi.ResultChan():
				if !ok {
					t.Fatalf("the watch ended after %d Ready changes: %v", len(got), got)
				}
				if ev.Type != watch.Modified && ev.Type != watch.Added {
					continue
				}
				w, ok := ev.Object.(*v1alpha1.Widget)
				if !ok {
					t.Fatalf("watch event holds %T", ev.Object)
				}
				requireOneReady(t, w.Status.Conditions)
				r := conditions.Get(w.Status.Conditions, "Ready")
				if r == nil {
					continue
				}
				if len(got) > 0 && cmp.Equal(got[len(got)-1], *r, ignoreTime) {
					continue // another field changed
				}
				got = append(got, *r)
			case <-deadline:
				t.Fatalf("waited for %d Ready changes, saw %d: %v", n, len(got), got)
			}
		}
		return got
	}
}

func requireOneReady(t *testing.T, conds []metav1.Condition) {
	t.Helper()
	n := 0
	for _, c := range conds {
		if c.Type == "Ready" {
			n++
		}
	}
	if n > 1 {
		t.Fatalf("%d Ready conditions, want at most one: %v", n, conds)
	}
}

// noStatus is a typed object without the status fields the Writer needs.
type noStatus struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status,omitempty"`
}

func (n *noStatus) DeepCopyObject() runtime.Object { c := *n; return &c }

func TestSetReadyErrors(t *testing.T) {
	w := directstatus.NewWriter(nil)
	cases := map[string]struct {
		reason string
		obj    client.Object
		cond   metav1.Condition
		want   error
	}{
		"NoStatusFields": {
			reason: "A typed object without status.conditions and status.observedGeneration cannot be written.",
			obj:    &noStatus{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, cond: directstatus.UpToDate(),
			want: directstatus.ErrNoStatus,
		},
		"InvalidCondition": {
			reason: "A condition the API server would reject is refused before any call.",
			obj:    &v1alpha1.Widget{}, cond: metav1.Condition{Status: "Maybe", Reason: "not a reason!"},
			want: conditions.ErrInvalid,
		},
		"NilObject": {
			reason: "A nil object is an error, not a panic.",
			obj:    (*v1alpha1.Widget)(nil), cond: directstatus.UpToDate(),
			want: conditions.ErrNilObject,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := w.SetReady(t.Context(), tc.obj, tc.cond)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s\nSetReady: want an error wrapping %v, got %v", tc.reason, tc.want, err)
			}
		})
	}
}

// writeMetrics reads ctrlkit_directstatus_writes_total by result from
// controller-runtime's registry, which a manager's metrics endpoint serves.
func writeMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "ctrlkit_directstatus_writes_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" {
					got[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return got
}
