package nop

import (
	"context"
	"fmt"
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
			reason:  "Without a schedule the status only records the observed generation, and nothing is requeued.",
			elapsed: time.Minute,
			want:    want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1}},
		},
		"AllFuture": {
			reason:  "Before the first deadline no condition is set, and the object is requeued exactly at it.",
			entries: seed,
			elapsed: 1500 * time.Millisecond,
			want:    want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1}, requeue: 3500 * time.Millisecond},
		},
		"GenerationWaitsForNextEntry": {
			reason:  "A write that would change observedGeneration alone waits for the next entry when it is due within a second; that write carries it.",
			entries: []v1alpha1.ConditionAfter{ca("1s", "Ready", "False")},
			elapsed: 200 * time.Millisecond,
			want:    want{requeue: 800 * time.Millisecond},
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
			reason:  "On equal times the later entry in the list wins.",
			entries: []v1alpha1.ConditionAfter{ca("1s", "Ready", "True"), ca("1s", "Ready", "False")},
			elapsed: 2 * time.Second,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "False", 1, time.Second, 1),
			}}},
		},
		"UnorderedEntries": {
			reason:  "Entries need not be sorted by time.",
			entries: []v1alpha1.ConditionAfter{ca("10s", "Ready", "True"), ca("5s", "Ready", "False")},
			elapsed: 7 * time.Second,
			want: want{
				status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
					scheduled("Ready", "False", 1, 5*time.Second, 1),
				}},
				requeue: 3 * time.Second,
			},
		},
		"RemovedTypes": {
			reason:     "Conditions whose entries were removed from the spec are removed; the others observe the new generation.",
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
			}}},
		},
		"InvalidEntry": {
			reason:     "A bad entry sets Synced=False naming its index, keeps the other conditions as they were and requeues nothing.",
			entries:    []v1alpha1.ConditionAfter{ca("1s", "Ready", "True"), ca("5", "Ready", "False")},
			generation: 2,
			status: v1alpha1.NopResourceStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 0, time.Second, 1),
			}},
			elapsed: time.Minute,
			want: want{status: v1alpha1.NopResourceStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{
				scheduled("Ready", "True", 0, time.Second, 1),
				cond("Synced", "False", ReasonInvalidSpec, `spec.forProvider.conditionAfter[1].time: cannot parse "5" as a Go duration such as "5s" or "1m30s": missing unit`, time.Minute, 2),
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

			res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
			require.NoError(t, err)
			got := &v1alpha1.NopResource{}
			require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(obj), got))
			if diff := cmp.Diff(tc.want, want{status: got.Status, requeue: res.RequeueAfter}, cmp.AllowUnexported(want{}), timeEqual); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

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
	require.NoError(t, c.Get(context.Background(), key, obj))
	r.written.Record(key, obj.ResourceVersion+"0") // a write the cache has not seen

	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
	require.NoError(t, err)
	require.Equal(t, staleRetry, res.RequeueAfter)
	got := &v1alpha1.NopResource{}
	require.NoError(t, c.Get(context.Background(), key, got))
	require.Equal(t, obj.ResourceVersion, got.ResourceVersion, "nothing written")

	r.written.Forget(key)
	res, err = r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
	require.NoError(t, err)
	require.Zero(t, res.RequeueAfter)
	require.NoError(t, c.Get(context.Background(), key, got))
	require.Len(t, got.Status.Conditions, 2, "the schedule applies once the cache caught up")
}
