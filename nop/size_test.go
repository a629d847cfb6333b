package nop

import (
	"fmt"
	"github.com/google/go-cmp/cmp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// TestStatusTooLargeAPIServer: against the real API server, a status of
// exactly MaxStatusBytes is stored whole; a hostile spec (100
// entries with 8 KiB messages) and a spec just past the limit make the
// resource Stalled with reason StatusTooLarge; so does a spec whose status
// is within the limit but whose object etcd refuses ("request is too
// large"). Then the reconciler sends nothing more until the spec changes.
func TestStatusTooLargeAPIServer(t *testing.T) {
	const test = "too-large"
	env := testenv.Get(t)
	ctx := t.Context()
	_, requests := startManager(t, test, Options{})

	labelled := func(n *v1alpha1.NopResource) *v1alpha1.NopResource {
		n.ObjectMeta = metav1.ObjectMeta{Name: n.Name, Namespace: "default", Labels: map[string]string{testLabel: test}}
		return n
	}
	n := paddingAtLimit(t)
	at := labelled(padded("at-limit", n))
	past := labelled(padded("past-limit", n+1))

	hostile := newNop(test, "hostile")
	for i := range 100 {
		e := ca(fmt.Sprintf("%dms", i), fmt.Sprintf("T%02d", i), "True")
		e.ConditionMessage = strings.Repeat("m", 8<<10)
		hostile.Spec.ForProvider.ConditionAfter = append(hostile.Spec.ForProvider.ConditionAfter, e)
	}

	// Within the limit, but the object with its status is beyond etcd's
	// 1.5 MiB: a status of 500 kB and a spec of 1.2 MB, most of it
	// entries of one type, of which the status holds only one.
	etcd := labelled(padded("beyond-etcd", 500_000))
	for i := range 80 {
		e := ca(fmt.Sprintf("%dms", i), "Ready", "True")
		e.ConditionMessage = strings.Repeat("e", 8<<10)
		etcd.Spec.ForProvider.ConditionAfter = append(etcd.Spec.ForProvider.ConditionAfter, e)
	}

	for _, o := range []*v1alpha1.NopResource{at, past, hostile, etcd} {
		require.NoError(t, env.Client.Create(ctx, o), o.Name)
		cleanup(t, env.Client, o)
	}

	got := waitForCondition(t, env.Client, at, "Synced", metav1.ConditionTrue, ReasonReconcileSuccess)
	if diff := cmp.Diff(MaxStatusBytes, jsonSize(&got.Status)); diff != "" {
		t.Errorf("the status at the limit is stored whole: -want, +got:\n%s", diff)
	}
	if conditions.Get(got.Status.Conditions, conditions.TypeStalled) != nil {
		t.Errorf("conditions.Get(got.Status.Conditions, conditions.TypeStalled) = %v, want nil", conditions.Get(got.Status.Conditions, conditions.TypeStalled))
	}

	for _, o := range []*v1alpha1.NopResource{past, hostile, etcd} {
		got := waitForCondition(t, env.Client, o, conditions.TypeStalled, metav1.ConditionTrue, ReasonStatusTooLarge)
		for _, typ := range []string{"Ready", "Synced"} {
			if !conditionsHave(got.Status.Conditions, typ, "False", ReasonStatusTooLarge) {
				t.Errorf("%s: %s", o.Name, describe(got.Status))
			}
		}
		t.Logf("%s: %s", o.Name, conditions.Get(got.Status.Conditions, conditions.TypeStalled).Message)
	}
	msg := func(o *v1alpha1.NopResource) string {
		got := &v1alpha1.NopResource{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(o), got))
		return conditions.Get(got.Status.Conditions, conditions.TypeStalled).Message
	}
	if !strings.Contains(msg(past), fmt.Sprintf("it takes %d bytes", MaxStatusBytes+1)) {
		t.Errorf("msg(past) = %q, want it to contain %q", msg(past), fmt.Sprintf("it takes %d bytes", MaxStatusBytes+1))
	}
	if !strings.Contains(msg(etcd), "the API server refused it as too large") {
		t.Errorf("msg(etcd) = %q, want it to contain %q", msg(etcd), "the API server refused it as too large")
	}

	// Settled: no request at all, also for the one etcd refused.
	requests.reset()
	time.Sleep(3 * time.Second)
	if n := requests.writes.Load(); n != 0 {
		t.Errorf("writes while stalled: want 0, got %d: %s", n, requests)
	}

	// A spec change is reconciled again.
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(etcd), etcd))
	etcd.Spec.ForProvider.Fields = &runtime.RawExtension{Raw: []byte(`{"pad":"small"}`)}
	require.NoError(t, env.Client.Update(ctx, etcd))
	got = waitForCondition(t, env.Client, etcd, "Ready", metav1.ConditionTrue, ReasonScheduled)
	if conditions.Get(got.Status.Conditions, conditions.TypeStalled) != nil {
		t.Errorf("%s: conditions.Get(got.Status.Conditions, conditions.TypeStalled) = %v, want nil", describe(got.Status), conditions.Get(got.Status.Conditions, conditions.TypeStalled))
	}
}
