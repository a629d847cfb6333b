package conditions_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	testapicrds "github.com/ctrlkit/ctrlkit/internal/testenv/testapi/crds"
	"github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
)

// These tests run against a real kube-apiserver and etcd: the status
// subresource, structural-schema pruning and list-map validation are the
// API server's, not a fake's.

func TestMain(m *testing.M) {
	testenv.Main(m,
		testenv.CRDDirs("testdata/crds"),
		testenv.CRDs(testapicrds.FS),
		testenv.WithScheme(v1alpha1.AddToScheme))
}

var (
	xrGVK    = schema.GroupVersionKind{Group: "conditions.test.ctrlkit.dev", Version: "v1alpha1", Kind: "XDatabase"}
	claimGVK = schema.GroupVersionKind{Group: "conditions.test.ctrlkit.dev", Version: "v1alpha1", Kind: "Database"}
	oldGVK   = schema.GroupVersionKind{Group: "conditions.test.ctrlkit.dev", Version: "v1alpha1", Kind: "OldDatabase"}
)

func newObject(gvk schema.GroupVersionKind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// get reads the object named like u, fresh from the API server.
func get(ctx context.Context, t *testing.T, c client.Client, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out := &unstructured.Unstructured{}
	out.SetGroupVersionKind(u.GroupVersionKind())
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(u), out))
	return out
}

// create creates u and cleans it up after the test.
func create(ctx context.Context, t *testing.T, c client.Client, u *unstructured.Unstructured) {
	t.Helper()
	require.NoError(t, c.Create(ctx, u))
	t.Cleanup(func() { _ = c.Delete(context.Background(), u) })
}

// setStatus writes the status fields given, through the status subresource.
func setStatus(ctx context.Context, t *testing.T, c client.Client, u *unstructured.Unstructured, status map[string]any) {
	t.Helper()
	u = get(ctx, t, c, u)
	st, _, _ := unstructured.NestedMap(u.Object, "status")
	if st == nil {
		st = map[string]any{}
	}
	for k, v := range status {
		if v == nil {
			delete(st, k)
			continue
		}
		st[k] = v
	}
	u.Object["status"] = st
	require.NoError(t, c.Status().Update(ctx, u))
}

// propagate is what a claim reconciler does: read both objects, propagate,
// and write the claim's status only when it changed. It returns the claim as
// the API server then has it, and whether it wrote.
func propagate(ctx context.Context, t *testing.T, c client.Client, xr, claim *unstructured.Unstructured) (*unstructured.Unstructured, bool) {
	t.Helper()
	x, cl := get(ctx, t, c, xr), get(ctx, t, c, claim)
	changed, err := conditions.Propagate(x, cl)
	require.NoError(t, err)
	if changed {
		require.NoError(t, c.Status().Update(ctx, cl))
	}
	return get(ctx, t, c, claim), changed
}

var condCmp = []cmp.Option{
	cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime"),
}

// conditionsOf reads status.conditions of u, failing the test on error.
func conditionsOf(t *testing.T, u *unstructured.Unstructured) []metav1.Condition {
	t.Helper()
	conds, err := conditions.FromUnstructured(u)
	require.NoError(t, err)
	return conds
}

func recordOf(u *unstructured.Unstructured) []string {
	l, _, _ := unstructured.NestedStringSlice(u.Object, "status", "claimConditions")
	return l
}

func TestPropagateAgainstAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := env.Client

	ltt := "2026-03-01T12:00:00Z"
	xrCond := func(typ, status, reason, msg string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg, "lastTransitionTime": ltt, "observedGeneration": int64(1)}
	}

	xr := newObject(xrGVK, "", "orders-x7k2p")
	xr.Object["spec"] = map[string]any{"engine": "postgres"}
	create(ctx, t, c, xr)
	setStatus(ctx, t, c, xr, map[string]any{
		"claimConditions": []any{"DatabaseReady", "ImageReady", "Ready", "Synced"},
		"conditions": []any{
			xrCond("Ready", "False", "Creating", ""),
			xrCond("Synced", "True", "ReconcileSuccess", ""),
			xrCond("DatabaseReady", "True", "Available", ""),
			xrCond("ImageReady", "False", "NotFound", "image not found"),
		},
	})

	claim := newObject(claimGVK, "default", "orders")
	claim.Object["spec"] = map[string]any{"engine": "postgres"}
	create(ctx, t, c, claim)
	// The claim's own controller sets Ready and another status field.
	setStatus(ctx, t, c, claim, map[string]any{
		"address":    "10.0.0.1",
		"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "Waiting", "message": "waiting for the XR", "lastTransitionTime": ltt}},
	})
	claimReady := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Waiting", Message: "waiting for the XR"}

	// First pass: DatabaseReady and ImageReady reach the claim, with the
	// claim's generation; Ready and Synced do not.
	got, wrote := propagate(ctx, t, c, xr, claim)
	if !wrote {
		t.Errorf("the first pass should write the claim")
	}
	gen := got.GetGeneration()
	want := []metav1.Condition{
		claimReady,
		{Type: "DatabaseReady", Status: metav1.ConditionTrue, Reason: "Available", ObservedGeneration: gen},
		{Type: "ImageReady", Status: metav1.ConditionFalse, Reason: "NotFound", Message: "image not found", ObservedGeneration: gen},
	}
	if diff := cmp.Diff(want, conditionsOf(t, got), condCmp...); diff != "" {
		t.Errorf("claim conditions after the first pass: -want, +got:\n%s", diff)
	}
	if lt := conditions.Get(conditionsOf(t, got), "ImageReady").LastTransitionTime.UTC().Format(time.RFC3339); lt != ltt {
		t.Errorf("ImageReady lastTransitionTime on the claim: want the XR's %s, got %s", ltt, lt)
	}
	if diff := cmp.Diff([]string{"DatabaseReady", "ImageReady"}, recordOf(got)); diff != "" {
		t.Errorf("status.claimConditions on the claim (the record survives the schema): -want, +got:\n%s", diff)
	}
	if addr, _, _ := unstructured.NestedString(got.Object, "status", "address"); addr != "10.0.0.1" {
		t.Errorf("status.address: the claim's own status field should survive, got %q", addr)
	}

	// Second pass: nothing to do, and nothing written.
	rv := got.GetResourceVersion()
	got, wrote = propagate(ctx, t, c, xr, claim)
	if wrote {
		t.Errorf("the second pass should report no change and make no write")
	}
	if got.GetResourceVersion() != rv {
		t.Errorf("resourceVersion moved from %s to %s: something wrote the claim", rv, got.GetResourceVersion())
	}

	// The XR drops ImageReady from claimConditions: it disappears from the
	// claim, whose own Ready survives. Each pass reads fresh objects, as a
	// restarted controller would, so the record on the claim is what tells
	// Propagate that ImageReady was its own.
	setStatus(ctx, t, c, xr, map[string]any{"claimConditions": []any{"DatabaseReady"}})
	got, wrote = propagate(ctx, t, c, xr, claim)
	if !wrote {
		t.Errorf("dropping a type should write the claim")
	}
	if diff := cmp.Diff(want[:2], conditionsOf(t, got), condCmp...); diff != "" {
		t.Errorf("claim conditions after ImageReady was dropped: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"DatabaseReady"}, recordOf(got)); diff != "" {
		t.Errorf("record after ImageReady was dropped: -want, +got:\n%s", diff)
	}

	// The claim's spec changes: observedGeneration follows.
	cl := get(ctx, t, c, claim)
	cl.Object["spec"] = map[string]any{"engine": "mysql"}
	require.NoError(t, c.Update(ctx, cl))
	got, wrote = propagate(ctx, t, c, xr, claim)
	if !wrote {
		t.Errorf("a new claim generation should write the claim")
	}
	require.Greater(t, got.GetGeneration(), gen)
	if og := conditions.Get(conditionsOf(t, got), "DatabaseReady").ObservedGeneration; og != got.GetGeneration() {
		t.Errorf("DatabaseReady observedGeneration: want the claim's generation %d, got %d", got.GetGeneration(), og)
	}

	// The XR loses DatabaseReady while still listing it: it disappears too,
	// the record field goes, and the claim's Ready stays.
	setStatus(ctx, t, c, xr, map[string]any{"conditions": []any{xrCond("Ready", "True", "Available", "")}})
	got, wrote = propagate(ctx, t, c, xr, claim)
	if !wrote {
		t.Errorf("a dropped record field should write the claim")
	}
	if diff := cmp.Diff([]metav1.Condition{claimReady}, conditionsOf(t, got), condCmp...); diff != "" {
		t.Errorf("claim conditions after the XR lost DatabaseReady: -want, +got:\n%s", diff)
	}
	if r := recordOf(got); r != nil {
		t.Errorf("status.claimConditions: want none once nothing is propagated, got %v", r)
	}
	_, wrote = propagate(ctx, t, c, xr, claim)
	if wrote {
		t.Errorf("a settled claim should not be written")
	}
}

func TestPropagateCrossplaneFieldAgainstAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := env.Client

	xr := newObject(xrGVK, "", "cache-q9z")
	create(ctx, t, c, xr)
	setStatus(ctx, t, c, xr, map[string]any{
		"claimConditionTypes": []any{"CacheReady"},
		"conditions": []any{map[string]any{
			"type": "CacheReady", "status": "Unknown", "reason": "Provisioning", "message": "", "lastTransitionTime": "2026-03-01T12:00:00Z",
		}},
	})
	claim := newObject(claimGVK, "default", "cache")
	create(ctx, t, c, claim)

	got, wrote := propagate(ctx, t, c, xr, claim)
	if !wrote {
		t.Errorf("the first pass should write the claim")
	}
	want := []metav1.Condition{{Type: "CacheReady", Status: metav1.ConditionUnknown, Reason: "Provisioning", ObservedGeneration: got.GetGeneration()}}
	if diff := cmp.Diff(want, conditionsOf(t, got), condCmp...); diff != "" {
		t.Errorf("claim conditions from claimConditionTypes: -want, +got:\n%s", diff)
	}
	_, wrote = propagate(ctx, t, c, xr, claim)
	if wrote {
		t.Errorf("a settled claim should not be written")
	}
}

// TestPropagateClaimWithoutObservedGenerationAgainstAPIServer: a claim whose
// schema has no observedGeneration in its conditions (Crossplane's before
// v2.0) loses the one Propagate writes; the next pass must still find the
// claim settled, and a change of the XR's condition must still reach it.
func TestPropagateClaimWithoutObservedGenerationAgainstAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := env.Client

	xr := newObject(xrGVK, "", "old-q9z")
	create(ctx, t, c, xr)
	xrStatus := func(status, reason string) map[string]any {
		return map[string]any{
			"claimConditionTypes": []any{"CacheReady"},
			"conditions": []any{map[string]any{
				"type": "CacheReady", "status": status, "reason": reason, "message": "", "lastTransitionTime": "2026-03-01T12:00:00Z",
			}},
		}
	}
	setStatus(ctx, t, c, xr, xrStatus("Unknown", "Provisioning"))
	claim := newObject(oldGVK, "default", "old")
	create(ctx, t, c, claim)

	for _, step := range []struct {
		status, reason string
	}{{"Unknown", "Provisioning"}, {"True", "Available"}} {
		setStatus(ctx, t, c, xr, xrStatus(step.status, step.reason))
		got, wrote := propagate(ctx, t, c, xr, claim)
		if !wrote {
			t.Errorf("%s: the first pass should write the claim", step.reason)
		}
		want := []metav1.Condition{{Type: "CacheReady", Status: metav1.ConditionStatus(step.status), Reason: step.reason}}
		if diff := cmp.Diff(want, conditionsOf(t, got), condCmp...); diff != "" {
			t.Errorf("%s: claim conditions (observedGeneration pruned): -want, +got:\n%s", step.reason, diff)
		}
		if _, wrote = propagate(ctx, t, c, xr, claim); wrote {
			t.Errorf("%s: a settled claim should not be written", step.reason)
		}
	}
}

// TestSetUnstructuredAgainstAPIServer writes conditions set with
// SetUnstructured through the status subresource and reads them back:
// observedGeneration survives the structural schema's pruning (a key unknown
// to the schema does not), other status fields stay, and setting the same
// condition on what was read back changes nothing.
func TestSetUnstructuredAgainstAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := env.Client

	claim := newObject(claimGVK, "default", "set-unstructured")
	create(ctx, t, c, claim)
	setStatus(ctx, t, c, claim, map[string]any{
		"address": "10.0.0.2",
		"conditions": []any{map[string]any{
			"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "message": "", "lastTransitionTime": "2026-03-01T12:00:00Z",
			"severity": "not in the schema",
		}},
	})

	u := get(ctx, t, c, claim)
	if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions"); !found {
		t.Fatalf("status.conditions missing after write")
	}
	if entry := u.Object["status"].(map[string]any)["conditions"].([]any)[0].(map[string]any); entry["severity"] != nil {
		t.Errorf("the API server should prune a condition key the schema does not know, got %v", entry)
	}
	ready := metav1.Condition{
		Type: "Ready", Status: metav1.ConditionFalse, Reason: "Creating", Message: "creating the database",
		ObservedGeneration: u.GetGeneration(),
	}
	changed, err := conditions.SetUnstructured(u, ready)
	require.NoError(t, err)
	if !changed {
		t.Errorf("SetUnstructured of a new condition: want changed, got unchanged")
	}
	require.NoError(t, c.Status().Update(ctx, u))

	back := get(ctx, t, c, claim)
	want := []metav1.Condition{
		{Type: "Synced", Status: metav1.ConditionTrue, Reason: "ReconcileSuccess"},
		ready,
	}
	if diff := cmp.Diff(want, conditionsOf(t, back), condCmp...); diff != "" {
		t.Errorf("conditions read back: -want, +got:\n%s", diff)
	}
	if addr, _, _ := unstructured.NestedString(back.Object, "status", "address"); addr != "10.0.0.2" {
		t.Errorf("status.address: want it kept, got %q", addr)
	}
	changed, err = conditions.SetUnstructured(back, ready)
	require.NoError(t, err)
	if changed {
		t.Errorf("setting the condition read back should change nothing")
	}

	// The API server also rejects what Validate rejects: a list with a
	// repeated type (list-type map), here written around this package.
	bad := back.DeepCopy()
	list := bad.Object["status"].(map[string]any)["conditions"].([]any)
	bad.Object["status"].(map[string]any)["conditions"] = append(list, list[0])
	require.Error(t, c.Status().Update(ctx, bad), "the API server should reject a repeated condition type")
}

// typedWidget makes the typed Widget test API a conditions.Object.
type typedWidget struct{ *v1alpha1.Widget }

func (w typedWidget) GetConditions() []metav1.Condition  { return w.Status.Conditions }
func (w typedWidget) SetConditions(c []metav1.Condition) { w.Status.Conditions = c }

// TestObjectAgainstAPIServer uses a typed object through the Object adapter,
// with no unstructured conversion.
func TestObjectAgainstAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := env.Client

	w := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "typed", Namespace: "default"}, Spec: v1alpha1.WidgetSpec{Size: "small"}}
	require.NoError(t, c.Create(ctx, w))
	t.Cleanup(func() { _ = c.Delete(context.Background(), w) })

	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available", ObservedGeneration: w.Generation}
	if !conditions.SetObject(typedWidget{w}, ready) {
		t.Errorf("SetObject of a new condition: want changed, got unchanged")
	}
	require.NoError(t, c.Status().Update(ctx, w))

	got := &v1alpha1.Widget{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(w), got))
	if diff := cmp.Diff([]metav1.Condition{ready}, got.Status.Conditions, condCmp...); diff != "" {
		t.Errorf("typed conditions read back: -want, +got:\n%s", diff)
	}
	if conditions.SetObject(typedWidget{got}, ready) {
		t.Errorf("setting the condition read back should change nothing")
	}
	if got.Status.Conditions[0].LastTransitionTime.IsZero() {
		t.Errorf("the condition read back has no lastTransitionTime")
	}
}

// TestInvalidUTF8SettlesAgainstAPIServer: the API server stores U+FFFD for
// each byte of a string that is not valid UTF-8, so a condition set with such
// bytes must be recorded as stored, or setting it again, and propagating it
// from an XR held in memory, would write on every reconcile. Typed (SetObject),
// unstructured (SetUnstructured) and Propagate settle after one write.
func TestInvalidUTF8SettlesAgainstAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := env.Client
	msgs := map[string]string{
		"OneByte":  "cannot reach db-\xff: timeout",
		"Sequence": "\xe2\x82\xed\xa0\x80\xf0\x9f\x98 truncated runes and a surrogate",
		// Each invalid byte grows to three: past MaxMessageLength once stored.
		"AtTheLimit": strings.Repeat("\xff", conditions.MaxMessageLength),
	}
	for name, msg := range msgs {
		t.Run(name, func(t *testing.T) {
			cond := metav1.Condition{Type: "DatabaseReady", Status: metav1.ConditionFalse, Reason: "Unreachable", Message: msg}

			// Unstructured.
			claim := newObject(claimGVK, "default", "utf8-"+strings.ToLower(name))
			create(ctx, t, c, claim)
			for i := range 2 {
				u := get(ctx, t, c, claim)
				cond.ObservedGeneration = u.GetGeneration()
				changed, err := conditions.SetUnstructured(u, cond)
				require.NoError(t, err)
				if changed != (i == 0) {
					t.Fatalf("SetUnstructured, reconcile %d: changed = %v, want %v", i+1, changed, i == 0)
				}
				if changed {
					require.NoError(t, c.Status().Update(ctx, u))
				}
			}

			// Typed.
			w := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "utf8-" + strings.ToLower(name), Namespace: "default"}, Spec: v1alpha1.WidgetSpec{Size: "small"}}
			require.NoError(t, c.Create(ctx, w))
			t.Cleanup(func() { _ = c.Delete(context.Background(), w) })
			for i := range 2 {
				got := &v1alpha1.Widget{}
				require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(w), got))
				cond.ObservedGeneration = got.Generation
				changed := conditions.SetObject(typedWidget{got}, cond)
				if changed != (i == 0) {
					t.Fatalf("SetObject, reconcile %d: changed = %v, want %v", i+1, changed, i == 0)
				}
				if changed {
					require.NoError(t, c.Status().Update(ctx, got))
				}
			}

			// Propagate from an XR whose conditions were written around this
			// package, in memory: what a composite reconciler holds before
			// its write.
			xr := newObject(xrGVK, "", "utf8-x-"+strings.ToLower(name))
			create(ctx, t, c, xr)
			pclaim := newObject(claimGVK, "default", "utf8-p-"+strings.ToLower(name))
			create(ctx, t, c, pclaim)
			for i := range 2 {
				x, cl := get(ctx, t, c, xr), get(ctx, t, c, pclaim)
				x.Object["status"] = map[string]any{
					"claimConditions": []any{"DatabaseReady"},
					"conditions": []any{map[string]any{
						"type": "DatabaseReady", "status": "False", "reason": "Unreachable", "message": msg,
						"lastTransitionTime": "2026-03-01T12:00:00Z",
					}},
				}
				changed, err := conditions.Propagate(x, cl)
				require.NoError(t, err)
				if changed != (i == 0) {
					t.Fatalf("Propagate, reconcile %d: changed = %v, want %v", i+1, changed, i == 0)
				}
				if changed {
					require.NoError(t, c.Status().Update(ctx, cl))
				}
			}
		})
	}
}

// TestPatchTwoWritersAgainstAPIServer: two controllers share one Widget's
// conditions, each owning one type, and write in turn as fast as they can.
// Each computes its change on the copy it read and, when the API server
// refuses the write as stale (409), applies its Patch to the latest copy and
// writes again: neither ever undoes the other's last change.
func TestPatchTwoWritersAgainstAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c := env.Client
	w := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "two-writers", Namespace: "default"}}
	require.NoError(t, c.Create(ctx, w))
	t.Cleanup(func() { _ = c.Delete(context.Background(), w) })

	const rounds = 25
	conflicts := make(chan int, 2)
	writer := func(own string) error {
		n := 0
		for i := range rounds {
			got := &v1alpha1.Widget{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
				return err
			}
			before := append([]metav1.Condition(nil), got.Status.Conditions...)
			conditions.Set(&got.Status.Conditions, metav1.Condition{Type: own, Status: metav1.ConditionTrue, Reason: "Round", Message: fmt.Sprintf("round %d", i)})
			patch := conditions.NewPatch(before, got.Status.Conditions)
			for {
				err := c.Status().Update(ctx, got)
				if err == nil {
					break
				}
				if !apierrors.IsConflict(err) {
					return err
				}
				n++
				if err := c.Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
					return err
				}
				if _, err := patch.Apply(&got.Status.Conditions, conditions.Owned{own}); err != nil {
					return err
				}
			}
		}
		conflicts <- n
		return nil
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, own := range []string{"AReady", "BReady"} {
		wg.Go(func() { errs[i] = writer(own) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	t.Logf("stale writes retried with the patch: %d and %d", <-conflicts, <-conflicts)

	got := &v1alpha1.Widget{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(w), got))
	for _, typ := range []string{"AReady", "BReady"} {
		cnd := conditions.Get(got.Status.Conditions, typ)
		if want := fmt.Sprintf("round %d", rounds-1); cnd == nil || cnd.Message != want {
			t.Errorf("%s: %v, want the writer's last change, %q", typ, cnd, want)
		}
	}
}
