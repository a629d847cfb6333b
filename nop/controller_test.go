package nop

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	testapi "github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func newNop(test, name string, entries ...v1alpha1.ConditionAfter) *v1alpha1.NopResource {
	return &v1alpha1.NopResource{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{testLabel: test}},
		Spec:       v1alpha1.NopResourceSpec{ForProvider: v1alpha1.NopResourceParameters{ConditionAfter: entries}},
	}
}

// describe prints the conditions of a status for a failure message.
func describe(s v1alpha1.NopResourceStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "observedGeneration=%d", s.ObservedGeneration)
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, " %s=%s(%s: %s, gen %d, at %s)", c.Type, c.Status, c.Reason, c.Message, c.ObservedGeneration, c.LastTransitionTime.UTC().Format(time.TimeOnly))
	}
	return b.String()
}

// addComposite adds a controller that plays a composite resource (XR): the
// Widget "xr" is Ready when the NopResources labelled composite=xr are.
func addComposite(mgr manager.Manager) error {
	c := mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).Named("xr").For(&testapi.Widget{}).
		Watches(&v1alpha1.NopResource{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if n := o.GetLabels()["composite"]; n != "" {
				return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: n}}}
			}
			return nil
		})).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			xr := &testapi.Widget{}
			if err := c.Get(ctx, req.NamespacedName, xr); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			nops := &v1alpha1.NopResourceList{}
			if err := c.List(ctx, nops, client.InNamespace(req.Namespace), client.MatchingLabels{"composite": req.Name}); err != nil {
				return reconcile.Result{}, err
			}
			var composed []metav1.Condition
			for _, n := range nops.Items {
				c := metav1.Condition{Type: n.Name, Status: metav1.ConditionUnknown, Reason: "NotReported"}
				if r := conditions.Get(n.Status.Conditions, conditions.TypeReady); r != nil && r.ObservedGeneration == n.Generation {
					c.Status, c.Reason = r.Status, r.Reason
				}
				composed = append(composed, c)
			}
			ready := conditions.Summarize(conditions.TypeReady, composed)
			if len(composed) < 3 {
				ready = metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionUnknown, Reason: "Composing"}
			}
			ready.ObservedGeneration = xr.Generation
			if !conditions.Set(&xr.Status.Conditions, ready) {
				return reconcile.Result{}, nil
			}
			xr.Status.ObservedGeneration = xr.Generation
			return reconcile.Result{}, c.Status().Update(ctx, xr)
		}))
}

// TestSeedScenario is the design's test scenario: three nops told to become
// Ready after 3 s all become Ready, not before, and the composite resource
// that waits on them then becomes Ready.
func TestSeedScenario(t *testing.T) {
	const test = "seed"
	env := testenv.Get(t)
	ctx := t.Context()
	startManager(t, test, Options{}, addComposite)

	xr := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "xr", Namespace: "default", Labels: map[string]string{testLabel: test}}}
	require.NoError(t, env.Client.Create(ctx, xr))
	cleanup(t, env.Client, xr)
	var nops []*v1alpha1.NopResource
	for i := range 3 {
		n := newNop(test, fmt.Sprintf("composed-%d", i), ca("0s", "Ready", "False"), ca("3s", "Ready", "True"))
		n.Labels["composite"] = "xr"
		require.NoError(t, env.Client.Create(ctx, n))
		cleanup(t, env.Client, n)
		nops = append(nops, n)
	}

	// Every poll notes when a nop was first seen Ready. A poll reads the
	// nops before the composite, so a nop can turn Ready, and the composite
	// after it, between the two reads: the order of nop and composite is
	// therefore checked on the composite's lastTransitionTime below, not on
	// what one poll happened to see.
	readySeen := map[string]time.Time{}
	xrGot := &testapi.Widget{}
	testenv.Eventually(t, 30*time.Second, "the composite resource to become Ready", func() error {
		var last []string
		for _, n := range nops {
			got := &v1alpha1.NopResource{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
			if _, seen := readySeen[n.Name]; !seen && conditions.IsTrue(got.Status.Conditions, "Ready") {
				readySeen[n.Name] = time.Now()
			}
			last = append(last, n.Name+": "+describe(got.Status))
		}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(xr), xrGot))
		if !conditions.IsTrue(xrGot.Status.Conditions, "Ready") {
			return errors.New(strings.Join(last, "; "))
		}
		return nil
	})
	xrReady := conditions.Get(xrGot.Status.Conditions, "Ready").LastTransitionTime.Time

	for _, n := range nops {
		got := &v1alpha1.NopResource{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
		due := got.CreationTimestamp.Add(3 * time.Second)
		if seen, ok := readySeen[n.Name]; ok {
			if seen.Before(due) {
				t.Errorf("%s: Ready=True seen at %s, before its deadline %s", n.Name, seen.Format(time.StampMilli), due.Format(time.StampMilli))
			}
			t.Logf("%s: Ready=True seen %s after its deadline", n.Name, seen.Sub(due).Round(time.Millisecond))
		}
		// Condition times have one-second precision: the composite's
		// transition, truncated, is not before the nop's deadline, truncated.
		if xrReady.Before(due.Truncate(time.Second)) {
			t.Errorf("%s: the composite became Ready at %s, before the nop's deadline %s", n.Name, xrReady.Format(time.StampMilli), due.Format(time.StampMilli))
		}
		want := v1alpha1.NopResourceStatus{ObservedGeneration: got.Generation, Conditions: []metav1.Condition{{
			Type: "Ready", Status: metav1.ConditionTrue, Reason: ReasonScheduled,
			Message:            "Ready=True 3s after creation (spec.forProvider.conditionAfter[1])",
			LastTransitionTime: metav1.NewTime(due), ObservedGeneration: got.Generation,
		}, {
			Type: "Synced", Status: metav1.ConditionTrue, Reason: ReasonReconcileSuccess, ObservedGeneration: got.Generation,
		}}}
		if diff := cmp.Diff(want, got.Status, timeEqual, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
			t.Errorf("%s: status: -want, +got:\n%s", n.Name, diff)
		}
	}
}

// TestDeletion holds a deletion for deleteAfter, and fails it while
// deleteError is set.
func TestDeletion(t *testing.T) {
	const test = "deletion"
	env := testenv.Get(t)
	ctx := t.Context()
	startManager(t, test, Options{})

	held := newNop(test, "held", ca("0s", "Ready", "True"))
	held.Spec.ForProvider.DeleteAfter = "2s"
	failing := newNop(test, "failing", ca("0s", "Ready", "True"))
	failing.Spec.ForProvider.DeleteError = "the cloud says no"
	long := newNop(test, "long", ca("0s", "Ready", "True"))
	long.Spec.ForProvider.DeleteError = strings.Repeat("x", conditions.MaxMessageLength) // the longest the CRD admits
	// held last: its two seconds start at its deletion, and the test must
	// see it Deleting before they pass.
	for _, n := range []*v1alpha1.NopResource{failing, long, held} {
		require.NoError(t, env.Client.Create(ctx, n))
		cleanup(t, env.Client, n)
		waitForCondition(t, env.Client, n, "Ready", metav1.ConditionTrue, ReasonScheduled)
		require.NoError(t, env.Client.Delete(ctx, n))
	}

	// deleteAfter: Ready=False (Deleting) until the deadline, then gone.
	got := waitForCondition(t, env.Client, held, "Ready", metav1.ConditionFalse, ReasonDeleting)
	require.NotNil(t, got.DeletionTimestamp)
	holdUntil := got.DeletionTimestamp.Add(2 * time.Second)
	if !strings.Contains(conditions.Get(got.Status.Conditions, "Ready").Message, "deletion is held by spec.forProvider.deleteAfter (2s) until") {
		t.Errorf("conditions.Get(got.Status.Conditions, \"Ready\").Message = %q, want it to contain %q", conditions.Get(got.Status.Conditions, "Ready").Message, "deletion is held by spec.forProvider.deleteAfter (2s) until")
	}
	waitForGone(t, env.Client, held)
	if gone := time.Now(); gone.Before(holdUntil) {
		t.Errorf("held: gone at %s, before deletionTimestamp + deleteAfter = %s", gone.Format(time.StampMilli), holdUntil.Format(time.StampMilli))
	} else {
		t.Logf("held: gone %s after deletionTimestamp + deleteAfter", gone.Sub(holdUntil).Round(time.Millisecond))
	}

	// deleteError: Synced=False (DeleteFailed) and an event; the resource
	// stays until deleteError is cleared.
	got = waitForCondition(t, env.Client, failing, "Synced", metav1.ConditionFalse, ReasonDeleteFailed)
	if diff := cmp.Diff("cannot delete: the cloud says no", conditions.Get(got.Status.Conditions, "Synced").Message); diff != "" {
		t.Errorf("Synced message: -want, +got:\n%s", diff)
	}
	if r := conditions.Get(got.Status.Conditions, "Ready"); r == nil || r.Reason != ReasonDeleting {
		t.Errorf("Ready: want reason %s while deleting, got %+v", ReasonDeleting, r)
	}
	if s := conditions.Get(got.Status.Conditions, conditions.TypeStalled); s == nil || s.Status != metav1.ConditionTrue || s.Reason != ReasonDeleteFailed {
		t.Errorf("Stalled: want True (%s) while deleteError is set, got %+v", ReasonDeleteFailed, s)
	}
	waitForEvent(t, env.Client, "failing", ReasonDeleteFailed, "cannot delete: the cloud says no")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(failing), got), "the resource must stay while deleteError is set")
	require.NoError(t, env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"forProvider":{"deleteError":null}}}`))))
	waitForGone(t, env.Client, failing)

	// A deleteError as long as a message may be: the message is cut, so
	// that the status write is accepted.
	got = waitForCondition(t, env.Client, long, "Synced", metav1.ConditionFalse, ReasonDeleteFailed)
	msg := conditions.Get(got.Status.Conditions, "Synced").Message
	if len(msg) > conditions.MaxMessageLength {
		t.Errorf("len(msg) = %v, want at most %v", len(msg), conditions.MaxMessageLength)
	}
	if !(strings.HasPrefix(msg, "cannot delete: xx") && strings.HasSuffix(msg, "x...")) {
		t.Errorf("message cut: %.40q...%q", msg, msg[len(msg)-10:])
	}
	require.NoError(t, env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"forProvider":{"deleteError":null}}}`))))
	waitForGone(t, env.Client, long)
}

// TestDeletingSeenByWatcher: every resource carries the finalizer from its
// first reconcile, and a watcher sees it Ready=False (reason Deleting)
// before it goes, also when nothing holds its deletion, and also when its
// deletion policy skips deleteAfter and deleteError.
func TestDeletingSeenByWatcher(t *testing.T) {
	const test = "deleting"
	env := testenv.Get(t)
	ctx := t.Context()
	startManager(t, test, Options{})

	plain := newNop(test, "plain", ca("0s", "Ready", "True"))
	orphan := newNop(test, "orphan", ca("0s", "Ready", "True"))
	orphan.Spec.DeletionPolicy = v1alpha1.DeletionOrphan
	orphan.Spec.ForProvider.DeleteAfter = "1h"
	orphan.Spec.ForProvider.DeleteError = "never"
	observe := newNop(test, "observe-only", ca("0s", "Ready", "True"))
	observe.Spec.ManagementPolicies = []v1alpha1.ManagementAction{"Observe"}
	observe.Spec.ForProvider.DeleteAfter = "1h"
	objs := []*v1alpha1.NopResource{plain, orphan, observe}

	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)
	w, err := wc.Watch(ctx, &v1alpha1.NopResourceList{}, client.InNamespace("default"), client.MatchingLabels{testLabel: test})
	require.NoError(t, err)
	defer w.Stop()

	for _, n := range objs {
		require.NoError(t, env.Client.Create(ctx, n))
		cleanup(t, env.Client, n)
		got := waitForCondition(t, env.Client, n, "Ready", metav1.ConditionTrue, ReasonScheduled)
		if diff := cmp.Diff([]string{Finalizer}, got.Finalizers); diff != "" {
			t.Errorf("%s: the finalizer from the first reconcile: -want, +got:\n%s", n.Name, diff)
		}
		require.NoError(t, env.Client.Delete(ctx, n))
	}

	deleting := map[string]string{} // name -> Ready's message while deleting
	gone := map[string]bool{}
	timeout := time.After(30 * time.Second)
	for len(gone) < len(objs) {
		select {
		case ev := <-w.ResultChan():
			n, ok := ev.Object.(*v1alpha1.NopResource)
			if !ok {
				continue
			}
			if ev.Type == watch.Deleted {
				gone[n.Name] = true
				continue
			}
			if r := conditions.Get(n.Status.Conditions, "Ready"); n.DeletionTimestamp != nil && r != nil && r.Status == metav1.ConditionFalse && r.Reason == ReasonDeleting {
				deleting[n.Name] = r.Message
			}
		case <-timeout:
			t.Fatalf("not all gone after 30s: gone %v, seen deleting %v", gone, deleting)
		}
	}
	want := map[string]string{
		"plain":        "the resource is being deleted",
		"orphan":       "the resource is being deleted; spec.deletionPolicy is Orphan",
		"observe-only": "the resource is being deleted; spec.managementPolicies do not include Delete",
	}
	if diff := cmp.Diff(want, deleting); diff != "" {
		t.Errorf("Ready=False (Deleting) seen by the watcher before each resource went: -want, +got:\n%s", diff)
	}
}

// TestSettledObjectTakesNoWrites reconciles a settled ClusterNopResource, with
// a connection Secret and mirrored fields, and counts the API requests that
// write: none. A spec change then takes exactly one status write.
func TestSettledObjectTakesNoWrites(t *testing.T) {
	const test = "settled"
	env := testenv.Get(t)
	ctx := t.Context()
	stop, _ := startManager(t, test, Options{})

	obj := &v1alpha1.ClusterNopResource{
		ObjectMeta: metav1.ObjectMeta{Name: "settled", Labels: map[string]string{testLabel: test}},
		Spec: v1alpha1.NopResourceSpec{
			ForProvider: v1alpha1.NopResourceParameters{
				ConditionAfter:     []v1alpha1.ConditionAfter{ca("0s", "Ready", "True"), ca("0s", "Synced", "True")},
				Fields:             &runtime.RawExtension{Raw: []byte(`{"b":{"c":[1,2.5,"x"]},"a":true}`)},
				PatchReceiverField: "patched",
				ObservableArrays:   []string{"one", "two"},
				ConnectionDetails:  []v1alpha1.ConnectionDetail{{Name: "username", Value: "admin"}, {Name: "endpoint", Value: "nop.example.org"}},
			},
			WriteConnectionSecretToRef: &v1alpha1.SecretReference{Name: "settled-conn", Namespace: "default"},
		},
	}
	require.NoError(t, env.Client.Create(ctx, obj))
	cleanup(t, env.Client, obj)
	secret := newSecret()
	secret.SetNamespace("default")
	secret.SetName("settled-conn")
	cleanup(t, env.Client, secret) // no garbage collector in the test control plane

	got := &v1alpha1.ClusterNopResource{}
	testenv.Eventually(t, 30*time.Second, "the status to settle", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
		if !conditions.IsTrue(got.Status.Conditions, "Synced") || got.Status.AtProvider.PatchReceiverField == "" {
			return errors.New(describe(got.Status))
		}
		return nil
	})
	// Status writes send the status alone; the spec and labels stay.
	if diff := cmp.Diff(obj.Spec, got.Spec, cmp.Comparer(sameJSON)); diff != "" {
		t.Errorf("spec after status writes: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(test, got.Labels[testLabel]); diff != "" {
		t.Errorf("got.Labels[testLabel]: -want, +got:\n%s", diff)
	}
	want := v1alpha1.NopResourceObservation{
		Fields:             &runtime.RawExtension{Raw: []byte(`{"a":true,"b":{"c":[1,2.5,"x"]}}`)},
		PatchReceiverField: "patched",
		ObservableArrays:   []string{"one", "two"},
	}
	if diff := cmp.Diff(want, got.Status.AtProvider, cmp.Comparer(sameJSON)); diff != "" {
		t.Errorf("status.atProvider: -want, +got:\n%s", diff)
	}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(secret), secret))
	data, _, _ := unstructured.NestedStringMap(secret.Object, "data")
	if diff := cmp.Diff(map[string]string{"username": b64("admin"), "endpoint": b64("nop.example.org")}, data); diff != "" {
		t.Errorf("connection secret data: -want, +got:\n%s", diff)
	}
	if !metav1.IsControlledBy(secret, got) {
		t.Errorf("the connection secret is controlled by its resource")
	}
	stop()

	// The next reconcile of the settled object writes nothing.
	r, counter := countedReconciler(t, env, kinds[1])
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
	reconcileOnce := func() {
		t.Helper()
		res, err := r.Reconcile(ctx, req)
		require.NoError(t, err)
		if res.RequeueAfter != 0 {
			t.Errorf("nothing is left to schedule: RequeueAfter = %v, want 0", res.RequeueAfter)
		}
	}
	rv, secretRV := got.ResourceVersion, secret.GetResourceVersion()
	reconcileOnce()
	if n := counter.writes.Load(); n != 0 {
		t.Errorf("a settled object took %d writes, want 0: %s", n, counter)
	}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(secret), secret))
	if diff := cmp.Diff(rv, got.ResourceVersion); diff != "" {
		t.Errorf("resourceVersion of the settled object: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(secretRV, secret.GetResourceVersion()); diff != "" {
		t.Errorf("resourceVersion of the connection secret: -want, +got:\n%s", diff)
	}

	// A spec change (a mirrored field, an entry removed) takes one write,
	// and the reconcile after it none.
	got.Spec.ForProvider.PatchReceiverField = "patched again"
	got.Spec.ForProvider.ConditionAfter = got.Spec.ForProvider.ConditionAfter[:1]
	require.NoError(t, env.Client.Update(ctx, got))
	counter.writes.Store(0)
	reconcileOnce()
	if n := counter.get("PUT clusternopresources/status"); n != 1 || counter.writes.Load() != 1 {
		t.Errorf("a spec change took %d writes, want exactly 1 status write: %s", counter.writes.Load(), counter)
	}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	if diff := cmp.Diff(int64(2), got.Status.ObservedGeneration); diff != "" {
		t.Errorf("got.Status.ObservedGeneration: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff("patched again", got.Status.AtProvider.PatchReceiverField); diff != "" {
		t.Errorf("got.Status.AtProvider.PatchReceiverField: -want, +got:\n%s", diff)
	}
	if !conditionsHave(got.Status.Conditions, "Synced", "True", ReasonReconcileSuccess) {
		t.Errorf("Synced's entry was removed, so Synced is the default: %s", describe(got.Status))
	}
	if diff := cmp.Diff(int64(2), conditions.Get(got.Status.Conditions, "Ready").ObservedGeneration); diff != "" {
		t.Errorf("conditions.Get(got.Status.Conditions, \"Ready\").ObservedGeneration: -want, +got:\n%s", diff)
	}
	counter.writes.Store(0)
	reconcileOnce()
	if n := counter.writes.Load(); n != 0 {
		t.Errorf("the reconcile after a spec change took %d writes, want 0: %s", n, counter)
	}
}

// TestRestartMidSchedule stops the controller between two deadlines and
// starts a new one: the missed transition lands at once, with its deadline as
// lastTransitionTime, and the next one lands at its deadline, triggered by
// nothing but the requeue.
func TestRestartMidSchedule(t *testing.T) {
	const test = "restart"
	env := testenv.Get(t)
	ctx := t.Context()
	landed := make(chan Transition, 16)
	o := Options{OnTransition: func(tr Transition) { landed <- tr }}
	stop, _ := startManager(t, test, o)

	n := newNop(test, "restart", ca("1s", "Ready", "False"), ca("4s", "Ready", "True"), ca("6s", "Green", "True"))
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	select {
	case first := <-landed:
		if diff := cmp.Diff(0, first.Entry); diff != "" {
			t.Errorf("first.Entry: -want, +got:\n%s", diff)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("entry 0 did not land")
	}
	stop()

	// Wait, controller-less, until the second deadline has passed.
	created := n.CreationTimestamp.Time
	testenv.Eventually(t, 30*time.Second, "the second deadline to pass", func() error {
		if now := time.Now(); !now.After(created.Add(4500 * time.Millisecond)) {
			return errors.New("now " + now.Format(time.StampMilli))
		}
		return nil
	})
	got := &v1alpha1.NopResource{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
	if !conditions.IsFalse(got.Status.Conditions, "Ready") {
		t.Errorf("no controller ran: %s", describe(got.Status))
	}

	startManager(t, test, o)
	for _, want := range []struct {
		entry int
		typ   string
	}{{1, "Ready"}, {2, "Green"}} {
		var tr Transition
		select {
		case tr = <-landed:
		case <-time.After(30 * time.Second):
			t.Fatalf("entry %d (%s) did not land", want.entry, want.typ)
		}
		if diff := cmp.Diff(want.entry, tr.Entry); diff != "" {
			t.Errorf("tr.Entry: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(want.typ, tr.Condition.Type); diff != "" {
			t.Errorf("tr.Condition.Type: -want, +got:\n%s", diff)
		}
		if !tr.Condition.LastTransitionTime.Equal(&metav1.Time{Time: tr.Due}) {
			t.Errorf("lastTransitionTime %s, want the deadline %s", tr.Condition.LastTransitionTime, tr.Due)
		}
		if tr.Lateness() < 0 {
			t.Errorf("entry %d landed %s before its deadline", tr.Entry, -tr.Lateness())
		}
		t.Logf("entry %d (%s=%s) landed %s after its deadline", tr.Entry, tr.Condition.Type, tr.Condition.Status, tr.Lateness().Round(time.Millisecond))
	}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
	if !conditions.IsTrue(got.Status.Conditions, "Ready") || !conditions.IsTrue(got.Status.Conditions, "Green") {
		t.Errorf("after the schedule: %s", describe(got.Status))
	}
}

// TestInvalidSpec: a value that bypassed admission (here: a connection
// Secret in another namespace, created while the admission policy was not
// bound) makes the resource Stalled, with Synced=False and Ready=False
// (reason InvalidSpec) at the current generation, and records an event.
func TestInvalidSpec(t *testing.T) {
	const test = "invalid"
	env := testenv.Get(t)
	ctx := t.Context()
	startManager(t, test, Options{})

	n := newNop(test, "invalid", ca("0s", "Ready", "True"))
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	waitForCondition(t, env.Client, n, "Ready", metav1.ConditionTrue, ReasonScheduled)

	withoutAdmissionPolicy(t, func() error {
		return env.Client.Patch(ctx, n, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"writeConnectionSecretToRef":{"name":"conn","namespace":"kube-system"}}}`)))
	})
	got := waitForCondition(t, env.Client, n, "Synced", metav1.ConditionFalse, ReasonInvalidSpec)
	msg := `spec.writeConnectionSecretToRef.namespace: cannot use "kube-system": a namespaced resource writes its Secret in its own namespace "default"`
	for _, typ := range []string{"Synced", "Ready", conditions.TypeStalled} {
		c := conditions.Get(got.Status.Conditions, typ)
		require.NotNil(t, c, "%s: %s", typ, describe(got.Status))
		if diff := cmp.Diff(msg, c.Message); diff != "" || c.Reason != ReasonInvalidSpec || c.ObservedGeneration != got.Generation {
			t.Errorf("%s: reason %s, generation %d of %d; message -want, +got:\n%s", typ, c.Reason, c.ObservedGeneration, got.Generation, diff)
		}
	}
	if !conditions.IsFalse(got.Status.Conditions, "Ready") {
		t.Errorf("Ready no longer claims True for a generation not reconciled")
	}
	if !conditions.IsTrue(got.Status.Conditions, conditions.TypeStalled) {
		t.Errorf("conditions.IsTrue(got.Status.Conditions, conditions.TypeStalled): want true, got false")
	}
	if diff := cmp.Diff(got.Generation, got.Status.ObservedGeneration); diff != "" {
		t.Errorf("got.Status.ObservedGeneration: -want, +got:\n%s", diff)
	}
	waitForEvent(t, env.Client, "invalid", ReasonInvalidSpec, msg)

	// Fixing the spec brings the schedule back; Stalled is removed, and
	// Synced returns to its default.
	require.NoError(t, env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"writeConnectionSecretToRef":null}}`))))
	got = waitForCondition(t, env.Client, n, "Ready", metav1.ConditionTrue, ReasonScheduled)
	testenv.Eventually(t, 10*time.Second, "Stalled to be removed", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
		if conditions.Get(got.Status.Conditions, conditions.TypeStalled) != nil || !conditionsHave(got.Status.Conditions, "Synced", "True", ReasonReconcileSuccess) {
			return errors.New(describe(got.Status))
		}
		return nil
	})
}

// withoutAdmissionPolicy runs write, which the admission policy of
// nop/crds would refuse, with the policy's binding removed, and restores the
// binding. The policy takes effect asynchronously, so write is retried until
// it passes, and the restored binding is awaited.
func withoutAdmissionPolicy(t *testing.T, write func() error) {
	t.Helper()
	env := testenv.Get(t)
	ctx := context.Background()
	binding := &unstructured.Unstructured{}
	binding.SetAPIVersion("admissionregistration.k8s.io/v1")
	binding.SetKind("ValidatingAdmissionPolicyBinding")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "nopresources.nop.ctrlkit.dev"}, binding))
	require.NoError(t, env.Client.Delete(ctx, binding))
	restore := func() {
		b := binding.DeepCopy()
		b.SetResourceVersion("")
		b.SetUID("")
		b.SetCreationTimestamp(metav1.Time{})
		b.SetManagedFields(nil)
		if err := env.Client.Create(ctx, b); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Errorf("cannot restore the admission policy binding: %v", err)
		}
	}
	defer restore()
	testenv.Eventually(t, 30*time.Second, "a write the admission policy refuses to pass without it", write)
}

// TestForeignSecret: a connection Secret that exists and is not controlled by
// the resource is left alone, and the resource says why.
func TestForeignSecret(t *testing.T) {
	const test = "foreign"
	env := testenv.Get(t)
	ctx := t.Context()
	startManager(t, test, Options{})

	foreign := newSecret()
	foreign.SetNamespace("default")
	foreign.SetName("foreign-conn")
	foreign.Object["stringData"] = map[string]any{"password": "not yours"}
	require.NoError(t, env.Client.Create(ctx, foreign))
	cleanup(t, env.Client, foreign)
	rv := foreign.GetResourceVersion()

	n := newNop(test, "foreign", ca("0s", "Ready", "True"))
	n.Spec.ForProvider.ConnectionDetails = []v1alpha1.ConnectionDetail{{Name: "password", Value: "mine"}}
	n.Spec.WriteConnectionSecretToRef = &v1alpha1.SecretReference{Name: "foreign-conn"}
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	got := waitForCondition(t, env.Client, n, "Synced", metav1.ConditionFalse, ReasonConnectionSecretFailed)
	msg := "cannot write connection secret default/foreign-conn: it exists and is not controlled by this NopResource"
	if diff := cmp.Diff(msg, conditions.Get(got.Status.Conditions, "Synced").Message); diff != "" {
		t.Errorf("Synced message: -want, +got:\n%s", diff)
	}
	if !conditions.IsTrue(got.Status.Conditions, "Ready") {
		t.Errorf("the schedule goes on: %s", describe(got.Status))
	}
	waitForEvent(t, env.Client, "foreign", ReasonConnectionSecretFailed, msg)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(foreign), foreign))
	if diff := cmp.Diff(rv, foreign.GetResourceVersion()); diff != "" {
		t.Errorf("the foreign secret is left alone: -want, +got:\n%s", diff)
	}
}

// TestAdmission: the CRDs accept the design's sample unchanged but for its
// apiVersion, and refuse bad schedules with a message naming the field.
func TestAdmission(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()

	b, err := os.ReadFile("testdata/seed.yaml")
	require.NoError(t, err)
	sample := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal(b, &sample.Object))
	sample.SetNamespace("default")
	sample.SetName("admission-sample")
	require.NoError(t, env.Client.Create(ctx, sample), "the design's sample")
	require.NoError(t, env.Client.Delete(ctx, sample)) // no finalizer: no controller runs here

	cases := map[string]struct {
		reason string
		obj    client.Object
		want   []string // substrings of the API server's error
	}{
		"UnparsableTime": {
			reason: "time must be a Go duration.",
			obj:    newNop("admission", "bad-time", ca("5x", "Ready", "True")),
			want:   []string{"spec.forProvider.conditionAfter[0].time", "must be a non-negative Go duration"},
		},
		"NegativeTime": {
			reason: "time must not be negative.",
			obj:    newNop("admission", "negative-time", ca("5s", "Ready", "True"), ca("-1s", "Ready", "True")),
			want:   []string{"spec.forProvider.conditionAfter[1].time", "must be a non-negative Go duration"},
		},
		"OverflowingTime": {
			reason: "time must fit a Go duration.",
			obj:    newNop("admission", "overflow-time", ca("9999999999h", "Ready", "True")),
			want:   []string{"spec.forProvider.conditionAfter[0].time"},
		},
		"BadStatus": {
			reason: "conditionStatus must be True, False or Unknown.",
			obj:    newNop("admission", "bad-status", ca("5s", "Ready", "Maybe")),
			want:   []string{"spec.forProvider.conditionAfter[0].conditionStatus", `supported values: "True", "False", "Unknown"`},
		},
		"BadType": {
			reason: "conditionType must be a valid condition type.",
			obj:    newNop("admission", "bad-type", ca("5s", "not ready", "True")),
			want:   []string{"spec.forProvider.conditionAfter[0].conditionType", "should match"},
		},
		"LongTypeName": {
			reason: "The name part of conditionType has at most 63 characters.",
			obj:    newNop("admission", "long-type", ca("5s", strings.Repeat("a", 64), "True")),
			want:   []string{"spec.forProvider.conditionAfter[0].conditionType", "should match"},
		},
		"BadDeleteAfter": {
			reason: "deleteAfter must be a Go duration.",
			obj: func() client.Object {
				n := newNop("admission", "bad-delete-after")
				n.Spec.ForProvider.DeleteAfter = "soon"
				return n
			}(),
			want: []string{"spec.forProvider.deleteAfter", "must be a non-negative Go duration"},
		},
		"NamespacedSecretElsewhere": {
			reason: "A NopResource writes its Secret in its own namespace, as a v2 managed resource does (the admission policy).",
			obj: func() client.Object {
				n := newNop("admission", "secret-elsewhere")
				n.Spec.WriteConnectionSecretToRef = &v1alpha1.SecretReference{Name: "conn", Namespace: "kube-system"}
				return n
			}(),
			want: []string{`spec.writeConnectionSecretToRef.namespace: cannot use "kube-system": a NopResource writes its connection Secret in its own namespace "default"`},
		},
		"BadDeletionPolicy": {
			reason: "deletionPolicy is Delete or Orphan.",
			obj: func() client.Object {
				n := newNop("admission", "bad-deletion-policy")
				n.Spec.DeletionPolicy = "Keep"
				return n
			}(),
			want: []string{"spec.deletionPolicy", `supported values: "Orphan", "Delete"`},
		},
		"BadManagementPolicy": {
			reason: "managementPolicies name Crossplane's management actions.",
			obj: func() client.Object {
				n := newNop("admission", "bad-management-policy")
				n.Spec.ManagementPolicies = []v1alpha1.ManagementAction{"*", "Destroy"}
				return n
			}(),
			want: []string{"spec.managementPolicies[1]", "supported values"},
		},
		"ClusterSecretWithoutNamespace": {
			reason: "A cluster-scoped resource must say where its Secret goes.",
			obj: &v1alpha1.ClusterNopResource{
				ObjectMeta: metav1.ObjectMeta{Name: "no-secret-namespace"},
				Spec:       v1alpha1.NopResourceSpec{WriteConnectionSecretToRef: &v1alpha1.SecretReference{Name: "conn"}},
			},
			want: []string{"spec.writeConnectionSecretToRef: Required value: namespace is required for a cluster-scoped resource"},
		},
		"ClusterSecretWithEmptyNamespace": {
			reason: "An empty namespace does not say where the Secret goes either.",
			obj: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": v1alpha1.GroupVersion.String(), "kind": v1alpha1.ClusterNopResourceKind,
				"metadata": map[string]any{"name": "empty-secret-namespace"},
				"spec":     map[string]any{"writeConnectionSecretToRef": map[string]any{"name": "conn", "namespace": ""}},
			}},
			want: []string{"spec.writeConnectionSecretToRef: Required value: namespace is required for a cluster-scoped resource"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// An admission policy takes effect a moment after it is
			// installed: a create it lets through before then is undone
			// and tried again.
			var err error
			testenv.Eventually(t, 10*time.Second, "the API server to refuse "+tc.obj.GetName(), func() error {
				o := tc.obj.DeepCopyObject().(client.Object)
				if err = env.Client.Create(ctx, o); err == nil {
					_ = env.Client.Delete(ctx, o)
					_ = env.Client.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
					return errors.New("accepted")
				}
				return nil
			})
			t.Logf("%v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s\nerror %q does not contain %q", tc.reason, err, w)
				}
			}
		})
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// waitForCondition waits until obj has a condition of type t with status and
// reason, and returns obj as last read.
func waitForCondition[T interface {
	*v1alpha1.NopResource | *v1alpha1.ClusterNopResource
	client.Object
}](t *testing.T, c client.Client, obj T, typ string, status metav1.ConditionStatus, reason string) T {
	t.Helper()
	got := obj.DeepCopyObject().(T)
	testenv.Eventually(t, 30*time.Second, fmt.Sprintf("%s: %s=%s (%s)", obj.GetName(), typ, status, reason), func() error {
		require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(obj), got))
		_, st := parts(got)
		cond := conditions.Get(st.Conditions, typ)
		if cond == nil || cond.Status != status || cond.Reason != reason || cond.ObservedGeneration != got.GetGeneration() {
			return errors.New(describe(*st))
		}
		return nil
	})
	return got
}

func waitForGone(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, obj.GetName()+" to be gone", func() error {
		err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object))
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("finalizers %v, err %v", obj.GetFinalizers(), err)
		}
		return nil
	})
}

// waitForEvent waits for an events.k8s.io/v1 Event about the object named
// regarding, with reason and note.
func waitForEvent(t *testing.T, c client.Client, regarding, reason, note string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "event "+reason+" on "+regarding, func() error {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion("events.k8s.io/v1")
		list.SetKind("EventList")
		require.NoError(t, c.List(context.Background(), list, client.InNamespace("default")))
		var seen []string
		for _, e := range list.Items {
			name, _, _ := unstructured.NestedString(e.Object, "regarding", "name")
			r, _, _ := unstructured.NestedString(e.Object, "reason")
			n, _, _ := unstructured.NestedString(e.Object, "note")
			if name == regarding && r == reason && n == note {
				return nil
			}
			if name == regarding {
				seen = append(seen, r+": "+n)
			}
		}
		return fmt.Errorf("seen %v", seen)
	})
}

// TestMetrics checks that each scheduled change that lands is counted, its
// lateness observed, and each status write counted, in the registry a
// manager's metrics endpoint serves.
func TestMetrics(t *testing.T) {
	const test = "metrics"
	env := testenv.Get(t)
	ctx := t.Context()
	before := gatherNop(t)
	startManager(t, test, Options{})
	n := newNop(test, "metrics", ca("0s", "Ready", "False"), ca("2s", "Ready", "True"))
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	testenv.Eventually(t, 30*time.Second, "the nop to become Ready", func() error {
		got := &v1alpha1.NopResource{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
		if !conditions.IsTrue(got.Status.Conditions, "Ready") {
			return errors.New(describe(got.Status))
		}
		return nil
	})
	after := gatherNop(t)
	for name, atLeast := range map[string]float64{
		"ctrlkit_nop_transitions_total":                     2, // Ready=False, Ready=True
		"ctrlkit_nop_transition_lateness_seconds_count":     2,
		`ctrlkit_nop_status_writes_total{result="success"}`: 2,
	} {
		if d := after[name] - before[name]; d < atLeast {
			t.Errorf("%s for NopResource grew by %v, want at least %v (before %v, after %v)", name, d, atLeast, before[name], after[name])
		}
	}
}

// gatherNop reads nop's metrics for kind NopResource from controller-runtime's
// registry: counters by name (and result), histograms' sample counts as
// <name>_count.
func gatherNop(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "ctrlkit_nop_") {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["kind"] != v1alpha1.NopResourceKind {
				continue
			}
			name := f.GetName()
			if r, ok := labels["result"]; ok {
				name += `{result="` + r + `"}`
			}
			if h := m.GetHistogram(); h != nil {
				got[name+"_count"] += float64(h.GetSampleCount())
				continue
			}
			got[name] += m.GetCounter().GetValue()
		}
	}
	return got
}
