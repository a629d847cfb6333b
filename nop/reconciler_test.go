package nop

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// t0 is when the objects of the unit tests were created.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func cond(typ, status, reason, msg string, at time.Duration, gen int64) metav1.Condition {
	return metav1.Condition{
		Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg,
		LastTransitionTime: metav1.NewTime(t0.Add(at)), ObservedGeneration: gen,
	}
}

func scheduled(typ, status string, index int, at time.Duration, gen int64) metav1.Condition {
	return cond(typ, status, ReasonScheduled, fmt.Sprintf("%s=%s %s after creation (spec.forProvider.conditionAfter[%d])", typ, status, at, index), at, gen)
}

// awaiting is Ready=Unknown before the schedule sets Ready.
func awaiting(msg string, at time.Duration, gen int64) metav1.Condition {
	return cond("Ready", "Unknown", ReasonAwaitingSchedule, msg, at, gen)
}

// reconciling is the Reconciling=True that goes with awaiting.
func reconciling(msg string, at time.Duration, gen int64) metav1.Condition {
	return cond("Reconciling", "True", ReasonAwaitingSchedule, msg, at, gen)
}

// synced is the default Synced=True.
func synced(at time.Duration, gen int64) metav1.Condition {
	return cond("Synced", "True", ReasonReconcileSuccess, "", at, gen)
}

const noReady = "spec.forProvider.conditionAfter schedules no Ready condition"

// TestReconcileSchedule runs the reconciler against a fake client with a fake
// clock: what the status holds, and when the object is requeued, at a given
// moment of its schedule. The envtest tests run the same reconciler against a
// real API server.
func TestReconcileSchedule(t *testing.T) {
	type want struct {
		status  v1alpha1.NopResourceStatus
		requeue time.Duration
	}
	cases := map[string]struct {
		reason     string
		entries    []v1alpha1.ConditionAfter
		generation int64
		status     v1alpha1.NopResourceStatus // before the reconcile
		elapsed    time.Duration
		want       want
	}{
		"NoEntries": {
			reason:  "Without a schedule Ready is Unknown and Synced True, and nothing is requeued.",
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				awaiting(noReady, time.Minute, 1), synced(time.Minute, 1), reconciling(noReady, time.Minute, 1),
			}}},
		},
		"AllFuture": {
			reason:  "Before the first deadline Ready is Unknown, naming the entry that sets it, and the object is requeued exactly at that deadline.",
			entries: seed,
			elapsed: 1500 * time.Millisecond,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				awaiting("Ready is scheduled 5s after creation (spec.forProvider.conditionAfter[0])", time.Second, 1),
				synced(time.Second, 1),
				reconciling("Ready is scheduled 5s after creation (spec.forProvider.conditionAfter[0])", time.Second, 1),
			}}, requeue: 3500 * time.Millisecond},
		},
		"GenerationWaitsForNextEntry": {
			reason:  "The first status write waits for the next entry when it is due within a second; that write is the first.",
			entries: []v1alpha1.ConditionAfter{ca("1s", "Ready", "False")},
			elapsed: 200 * time.Millisecond,
			want:    want{requeue: 800 * time.Millisecond},
		},
		"FirstWriteCarriesDueEntry": {
			reason:  "A first write that carries a due entry is not held back for the next one, even when that is due within a second.",
			entries: []v1alpha1.ConditionAfter{ca("1s", "Ready", "False"), ca("2s", "Ready", "True")},
			elapsed: 1200 * time.Millisecond,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "False", 0, time.Second, 1),
				synced(time.Second, 1),
			}}, requeue: 800 * time.Millisecond},
		},
		"Due": {
			reason:  "Each type takes its latest due entry, with the deadline as lastTransitionTime; the requeue is at the next deadline.",
			entries: seed,
			elapsed: 17*time.Second + 250*time.Millisecond,
			want: want{
				status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
					scheduled("Ready", "True", 1, 10*time.Second, 1),
					scheduled("Synced", "False", 2, 15*time.Second, 1),
				}},
				requeue: 2750 * time.Millisecond,
			},
		},
		"Done": {
			reason:  "After the last deadline nothing is requeued.",
			entries: seed,
			elapsed: time.Hour,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 1, 10*time.Second, 1),
				scheduled("Synced", "True", 3, 20*time.Second, 1),
			}}},
		},
		"EqualTimes": {
			reason:  "On equal times the earlier entry in the list wins, as in provider-nop.",
			entries: []v1alpha1.ConditionAfter{ca("1s", "Ready", "True"), ca("1s", "Ready", "False")},
			elapsed: 2 * time.Second,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 0, time.Second, 1),
				synced(2*time.Second, 1),
			}}},
		},
		"UnorderedEntries": {
			reason:  "Entries need not be sorted by time.",
			entries: []v1alpha1.ConditionAfter{ca("10s", "Ready", "True"), ca("5s", "Ready", "False")},
			elapsed: 7 * time.Second,
			want: want{
				status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
					scheduled("Ready", "False", 1, 5*time.Second, 1),
					synced(7*time.Second, 1),
				}},
				requeue: 3 * time.Second,
			},
		},
		"RemovedTypes": {
			reason:     "Conditions whose entries were removed from the spec are removed, Synced returns to its default, and all observe the new generation.",
			entries:    []v1alpha1.ConditionAfter{ca("5s", "Ready", "False"), ca("10s", "Ready", "True")},
			generation: 2,
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Healthy", "True", 4, time.Second, 1),
				scheduled("Ready", "True", 1, 10*time.Second, 1),
				scheduled("Synced", "True", 3, 20*time.Second, 1),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 1, 10*time.Second, 2),
				synced(20*time.Second, 2),
			}}},
		},
		"LongestTime": {
			reason:  "An entry due at the longest duration Go has is awaited, and requeued for, without overflow.",
			entries: []v1alpha1.ConditionAfter{ca("2562047h47m16.854775807s", "Ready", "True")},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				awaiting("Ready is scheduled 2562047h47m16.854775807s after creation (spec.forProvider.conditionAfter[0])", time.Minute, 1),
				synced(time.Minute, 1),
				reconciling("Ready is scheduled 2562047h47m16.854775807s after creation (spec.forProvider.conditionAfter[0])", time.Minute, 1),
			}}, requeue: time.Duration(math.MaxInt64) - time.Minute},
		},
		"OthersConditionKept": {
			reason:  "A condition another writer added, of a type the reconciler neither sets nor schedules, stays: removing it would start a write loop with that writer.",
			entries: []v1alpha1.ConditionAfter{ca("1s", "Ready", "True"), ca("1h", "Healthy", "True")},
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 0, time.Second, 1),
				synced(time.Second, 1),
				cond("example.org/Audited", "True", "Audited", "", 2*time.Second, 1),
				cond("Healthy", "False", "Probe", "", 2*time.Second, 1),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 0, time.Second, 1),
				synced(time.Second, 1),
				cond("example.org/Audited", "True", "Audited", "", 2*time.Second, 1),
			}}, requeue: time.Hour - time.Minute},
		},
		"OthersConditionKeptOnANewGeneration": {
			reason:     "On a new generation a condition of another writer's type stays when it gives no observedGeneration or observes the new one.",
			entries:    []v1alpha1.ConditionAfter{ca("1s", "Ready", "True")},
			generation: 2,
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				cond("example.org/Audited", "True", "Audited", "", 2*time.Second, 0),
				cond("example.org/Checked", "True", "Checked", "", 2*time.Second, 2),
				scheduled("Ready", "True", 0, time.Second, 1),
				synced(time.Second, 1),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{
				cond("example.org/Audited", "True", "Audited", "", 2*time.Second, 0),
				cond("example.org/Checked", "True", "Checked", "", 2*time.Second, 2),
				scheduled("Ready", "True", 0, time.Second, 2),
				synced(time.Second, 2),
			}}},
		},
		"ScheduledStatusTooLarge": {
			reason: "A scheduled Stalled=True with reason StatusTooLarge is not taken for the reconciler's own: the schedule goes on.",
			entries: []v1alpha1.ConditionAfter{
				{Time: "1s", ConditionType: "Stalled", ConditionStatus: "True", ConditionReason: ReasonStatusTooLarge, ConditionMessage: "spoofed"},
				ca("10s", "Ready", "True"),
			},
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				awaiting("Ready is scheduled 10s after creation (spec.forProvider.conditionAfter[1])", time.Second, 1),
				synced(time.Second, 1),
				cond("Stalled", "True", ReasonStatusTooLarge, "spoofed", time.Second, 1),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 1, 10*time.Second, 1),
				synced(time.Second, 1),
				cond("Stalled", "True", ReasonStatusTooLarge, "spoofed", time.Second, 1),
			}}},
		},
		"LateTransition": {
			reason:  "A transition applied late (the controller was down) still carries its deadline as lastTransitionTime.",
			entries: seed,
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "False", 0, 5*time.Second, 1),
			}},
			elapsed: 18 * time.Second,
			want: want{
				status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
					scheduled("Ready", "True", 1, 10*time.Second, 1),
					scheduled("Synced", "False", 2, 15*time.Second, 1),
				}},
				requeue: 2 * time.Second,
			},
		},
		"AfterOverride": {
			reason:  "A scheduled status that replaces one set after its deadline (an override that ended) transitions now.",
			entries: []v1alpha1.ConditionAfter{ca("1s", "Synced", "True")},
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				cond("Synced", "False", ReasonInvalidSpec, "bad", 30*time.Second, 1),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				func() metav1.Condition {
					c := scheduled("Synced", "True", 0, time.Second, 1)
					c.LastTransitionTime = metav1.NewTime(t0.Add(time.Minute))
					return c
				}(),
				awaiting(noReady, time.Minute, 1),
				reconciling(noReady, time.Minute, 1),
			}}},
		},
		"InvalidEntry": {
			reason:     "A bad entry sets Stalled=True, Synced=False and Ready=False naming its index, keeps the other conditions as they were and requeues nothing.",
			entries:    []v1alpha1.ConditionAfter{ca("1s", "Ready", "True"), ca("5", "Ready", "False")},
			generation: 2,
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 0, time.Second, 1),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{
				cond("Ready", "False", ReasonInvalidSpec, badTime, time.Minute, 2),
				cond("Synced", "False", ReasonInvalidSpec, badTime, time.Minute, 2),
				cond("Stalled", "True", ReasonInvalidSpec, badTime, time.Minute, 2),
			}}},
		},
		"InvalidKeepsOthers": {
			reason:     "A bad spec leaves the schedule's other conditions as they were, with the generation they observed.",
			entries:    []v1alpha1.ConditionAfter{ca("1s", "Green", "True"), ca("5", "Ready", "False")},
			generation: 2,
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Green", "True", 0, time.Second, 1),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{
				scheduled("Green", "True", 0, time.Second, 1),
				cond("Ready", "False", ReasonInvalidSpec, badTime, time.Minute, 2),
				cond("Synced", "False", ReasonInvalidSpec, badTime, time.Minute, 2),
				cond("Stalled", "True", ReasonInvalidSpec, badTime, time.Minute, 2),
			}}},
		},
		"StalledEnds": {
			reason:     "Once the spec is fixed, Stalled is removed (not set False) and the schedule's conditions return.",
			entries:    []v1alpha1.ConditionAfter{ca("1s", "Ready", "True")},
			generation: 3,
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{
				cond("Ready", "False", ReasonInvalidSpec, badTime, 30*time.Second, 2),
				cond("Synced", "False", ReasonInvalidSpec, badTime, 30*time.Second, 2),
				cond("Stalled", "True", ReasonInvalidSpec, badTime, 30*time.Second, 2),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 3, Conditions: []metav1.Condition{
				func() metav1.Condition {
					c := scheduled("Ready", "True", 0, time.Second, 3)
					c.LastTransitionTime = metav1.NewTime(t0.Add(time.Minute))
					return c
				}(),
				synced(time.Minute, 3),
			}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			gen := tc.generation
			if gen == 0 {
				gen = 1
			}
			obj := &v1alpha1.NopResource{
				ObjectMeta: metav1.ObjectMeta{
					Name: "nop", Namespace: "default", Generation: gen,
					CreationTimestamp: metav1.NewTime(t0), Finalizers: []string{Finalizer},
				},
				Spec:   v1alpha1.NopResourceSpec{ForProvider: v1alpha1.NopResourceParameters{ConditionAfter: tc.entries}},
				Status: tc.status,
			}
			clk := clocktesting.NewFakePassiveClock(t0.Add(tc.elapsed))
			r, c := newFakeReconciler(t, clk, obj)

			res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
			require.NoError(t, err)
			got := &v1alpha1.NopResource{}
			require.NoError(t, c.Get(t.Context(), client.ObjectKeyFromObject(obj), got))
			if diff := cmp.Diff(tc.want, want{status: got.Status, requeue: res.RequeueAfter}, cmp.AllowUnexported(want{}), timeEqual); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

const badTime = `spec.forProvider.conditionAfter[1].time: cannot parse "5" as a Go duration such as "5s" or "1m30s": missing unit`

var timeEqual = cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })

func testScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	require.NoError(t, v1alpha1.AddToScheme(s))
	return s
}

// newFakeReconciler returns a NopResource reconciler with a fake client
// holding objs and the clock clk.
func newFakeReconciler(t testing.TB, clk *clocktesting.FakePassiveClock, objs ...client.Object) (*reconciler, client.Client) {
	s := testScheme(t)
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(objs...).Build()
	r := &reconciler{kind: kinds[0], client: c, reader: c, scheme: s, opts: Options{Clock: clk}}
	r.init()
	return r, c
}

// TestStaleCacheSkipped: a reconcile that reads an object older than the
// reconciler's last write of it computes nothing and writes nothing.
func TestStaleCacheSkipped(t *testing.T) {
	obj := &v1alpha1.NopResource{
		ObjectMeta: metav1.ObjectMeta{Name: "nop", Namespace: "default", Generation: 1, CreationTimestamp: metav1.NewTime(t0), Finalizers: []string{Finalizer}},
		Spec:       v1alpha1.NopResourceSpec{ForProvider: v1alpha1.NopResourceParameters{ConditionAfter: seed}},
	}
	r, c := newFakeReconciler(t, clocktesting.NewFakePassiveClock(t0.Add(time.Minute)), obj)
	key := client.ObjectKeyFromObject(obj)
	require.NoError(t, c.Get(t.Context(), key, obj))
	r.written.Record(key, obj.ResourceVersion+"0") // a write the cache has not seen

	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: key})
	require.NoError(t, err)
	if diff := cmp.Diff(staleRetry, res.RequeueAfter); diff != "" {
		t.Errorf("res.RequeueAfter: -want, +got:\n%s", diff)
	}
	got := &v1alpha1.NopResource{}
	require.NoError(t, c.Get(t.Context(), key, got))
	if diff := cmp.Diff(obj.ResourceVersion, got.ResourceVersion); diff != "" {
		t.Errorf("nothing written: -want, +got:\n%s", diff)
	}

	r.written.Forget(key)
	res, err = r.Reconcile(t.Context(), ctrl.Request{NamespacedName: key})
	require.NoError(t, err)
	if res.RequeueAfter != 0 {
		t.Errorf("RequeueAfter = %v, want 0", res.RequeueAfter)
	}
	require.NoError(t, c.Get(t.Context(), key, got))
	if len(got.Status.Conditions) != 2 {
		t.Errorf("the schedule applies once the cache caught up: want 2 conditions, got %s", describe(got.Status))
	}
}

// padded is a NopResource whose spec.forProvider.fields, mirrored to the
// status, holds a string of n bytes.
func padded(name string, n int) *v1alpha1.NopResource {
	return &v1alpha1.NopResource{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Generation: 1, CreationTimestamp: metav1.NewTime(t0), Finalizers: []string{Finalizer}},
		Spec: v1alpha1.NopResourceSpec{ForProvider: v1alpha1.NopResourceParameters{
			Fields: &runtime.RawExtension{Raw: []byte(`{"pad":"` + strings.Repeat("x", n) + `"}`)},
		}},
	}
}

// paddingAtLimit returns the padding of padded whose status takes exactly
// MaxStatusBytes: the status grows by one byte per byte of padding.
func paddingAtLimit(t *testing.T) int {
	const probe = 1000
	obj := padded("probe", probe)
	r, c := newFakeReconciler(t, clocktesting.NewFakePassiveClock(t0.Add(time.Minute)), obj)
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	require.NoError(t, err)
	require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
	require.NotNil(t, obj.Status.AtProvider.Fields)
	return probe + MaxStatusBytes - jsonSize(&obj.Status)
}

// TestStatusSizeLimit: a status of exactly MaxStatusBytes is written; one
// byte more makes the resource Stalled (StatusTooLarge) with a small status,
// and the reconciler leaves it alone until its spec changes.
func TestStatusSizeLimit(t *testing.T) {
	n := paddingAtLimit(t)
	ctx := t.Context()
	clk := clocktesting.NewFakePassiveClock(t0.Add(time.Minute))

	at, past := padded("at", n), padded("past", n+1)
	r, c := newFakeReconciler(t, clk, at, past)
	for _, o := range []*v1alpha1.NopResource{at, past} {
		_, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(o)})
		require.NoError(t, err)
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(o), o))
	}
	if diff := cmp.Diff(MaxStatusBytes, jsonSize(&at.Status)); diff != "" {
		t.Errorf("the status at the limit is written whole: -want, +got:\n%s", diff)
	}
	if !conditionsHave(at.Status.Conditions, "Synced", "True", ReasonReconcileSuccess) {
		t.Errorf("conditionsHave(at.Status.Conditions, \"Synced\", \"True\", ReasonReconcileSuccess): want true, got false: %s", describe(at.Status))
	}
	if conditions.Get(at.Status.Conditions, conditions.TypeStalled) != nil {
		t.Errorf("conditions.Get(at.Status.Conditions, conditions.TypeStalled) = %v, want nil", conditions.Get(at.Status.Conditions, conditions.TypeStalled))
	}

	for _, typ := range []string{"Ready", "Synced"} {
		if !conditionsHave(past.Status.Conditions, typ, "False", ReasonStatusTooLarge) {
			t.Errorf("conditionsHave(past.Status.Conditions, typ, \"False\", ReasonStatusTooLarge): want true, got false: %s", describe(past.Status))
		}
	}
	if !conditionsHave(past.Status.Conditions, conditions.TypeStalled, "True", ReasonStatusTooLarge) {
		t.Errorf("conditionsHave(past.Status.Conditions, conditions.TypeStalled, \"True\", ReasonStatusTooLarge): want true, got false: %s", describe(past.Status))
	}
	msg := conditions.Get(past.Status.Conditions, conditions.TypeStalled).Message
	if !strings.Contains(msg, fmt.Sprintf("it takes %d bytes", MaxStatusBytes+1)) {
		t.Errorf("msg = %q, want it to contain %q", msg, fmt.Sprintf("it takes %d bytes", MaxStatusBytes+1))
	}
	if past.Status.AtProvider.Fields != nil {
		t.Errorf("the status holds nothing that could make it too large: past.Status.AtProvider.Fields = %v, want nil", past.Status.AtProvider.Fields)
	}
	if jsonSize(&past.Status) >= 4096 {
		t.Errorf("jsonSize(&past.Status) = %v, want less than %v", jsonSize(&past.Status), 4096)
	}

	// Stalled until the spec changes: no write, no requeue.
	rv := past.ResourceVersion
	res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(past)})
	require.NoError(t, err)
	if diff := cmp.Diff(ctrl.Result{}, res); diff != "" {
		t.Errorf("Reconcile result: -want, +got:\n%s", diff)
	}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(past), past))
	if diff := cmp.Diff(rv, past.ResourceVersion); diff != "" {
		t.Errorf("nothing written while the spec is unchanged: -want, +got:\n%s", diff)
	}

	// A smaller spec (a new generation) is reconciled again; Stalled goes.
	past.Spec.ForProvider.Fields = &runtime.RawExtension{Raw: []byte(`{"pad":"x"}`)}
	past.Generation = 2
	require.NoError(t, c.Update(ctx, past))
	_, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(past)})
	require.NoError(t, err)
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(past), past))
	if conditions.Get(past.Status.Conditions, conditions.TypeStalled) != nil {
		t.Errorf("%s: conditions.Get(past.Status.Conditions, conditions.TypeStalled) = %v, want nil", describe(past.Status), conditions.Get(past.Status.Conditions, conditions.TypeStalled))
	}
	if !conditionsHave(past.Status.Conditions, "Synced", "True", ReasonReconcileSuccess) {
		t.Errorf("conditionsHave(past.Status.Conditions, \"Synced\", \"True\", ReasonReconcileSuccess): want true, got false: %s", describe(past.Status))
	}
	if past.Status.AtProvider.Fields == nil {
		t.Errorf("status.atProvider.fields is nil, want the spec's fields mirrored again")
	}
}

// TestStatusSizeLimitCountsTheWholeSchedule: a schedule whose conditions,
// once all due, could not be stored is refused from its first reconcile,
// not when its last entry falls due.
func TestStatusSizeLimitCountsTheWholeSchedule(t *testing.T) {
	// The shape of an attack: 100 entries of distinct types with 8 KiB
	// messages, the last due in an hour.
	var entries []v1alpha1.ConditionAfter
	for i := range 100 {
		e := ca(fmt.Sprintf("%dm", i), fmt.Sprintf("T%02d", i), "True")
		e.ConditionMessage = strings.Repeat("m", 8<<10)
		entries = append(entries, e)
	}
	obj := &v1alpha1.NopResource{
		ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "default", Generation: 1, CreationTimestamp: metav1.NewTime(t0), Finalizers: []string{Finalizer}},
		Spec:       v1alpha1.NopResourceSpec{ForProvider: v1alpha1.NopResourceParameters{ConditionAfter: entries}},
	}
	r, c := newFakeReconciler(t, clocktesting.NewFakePassiveClock(t0.Add(30*time.Second)), obj)
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	require.NoError(t, err)
	if diff := cmp.Diff(ctrl.Result{}, res); diff != "" {
		t.Errorf("no requeue: nothing changes until the spec does: -want, +got:\n%s", diff)
	}
	require.NoError(t, c.Get(t.Context(), client.ObjectKeyFromObject(obj), obj))
	if !conditionsHave(obj.Status.Conditions, conditions.TypeStalled, "True", ReasonStatusTooLarge) {
		t.Errorf("conditionsHave(obj.Status.Conditions, conditions.TypeStalled, \"True\", ReasonStatusTooLarge): want true, got false: %s", describe(obj.Status))
	}
	if conditions.Get(obj.Status.Conditions, "T00") != nil {
		t.Errorf("no scheduled condition is written: conditions.Get(obj.Status.Conditions, \"T00\") = %v, want nil", conditions.Get(obj.Status.Conditions, "T00"))
	}
}

// conditionsHave says whether conds hold a condition of type typ with status
// and reason.
func conditionsHave(conds []metav1.Condition, typ, status, reason string) bool {
	c := conditions.Get(conds, typ)
	return c != nil && string(c.Status) == status && c.Reason == reason
}
