package nop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// TestOneReconcilePerTransition: against the real API server, a resource
// takes one reconcile when it is created and one per transition, and at most
// one status write per transition; the watch events of the reconciler's own
// writes (the finalizer patch, each status write) cost no reconcile. A
// status or spec change by someone else is still reconciled.
func TestOneReconcilePerTransition(t *testing.T) {
	const (
		test = "reconciles"
		n    = 20
	)
	env := testenv.Get(t)
	ctx := t.Context()
	var mu sync.Mutex
	reconciles := map[types.NamespacedName]int{}
	// A reconcile that finds the cache behind the reconciler's own last
	// write skips and retries (staleRetry): on a loaded machine a deadline
	// can come before the watch event of the previous write. Those are
	// counted apart; they compute and write nothing.
	staleSkips := map[types.NamespacedName]int{}
	requeues := map[types.NamespacedName][]time.Duration{} // each reconcile's RequeueAfter, for the failure message
	count := func(r *reconciler) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			res, err := r.Reconcile(ctx, req)
			mu.Lock()
			reconciles[req.NamespacedName]++
			requeues[req.NamespacedName] = append(requeues[req.NamespacedName], res.RequeueAfter)
			if err == nil && res.RequeueAfter == staleRetry {
				staleSkips[req.NamespacedName]++
			}
			mu.Unlock()
			return res, err
		})
	}
	_, requests := startManagerWith(t, test, Options{MaxConcurrentReconciles: 4}, count)

	schedule := []v1alpha1.ConditionAfter{ca("1s", "Ready", "False"), ca("2s", "Ready", "True"), ca("3s", "Synced", "True")}
	objs := make([]*v1alpha1.NopResource, n)
	for i := range objs {
		objs[i] = newNop(test, fmt.Sprintf("reconciles-%02d", i), schedule...)
		require.NoError(t, env.Client.Create(ctx, objs[i]))
		cleanup(t, env.Client, objs[i])
	}
	settled := func(o *v1alpha1.NopResource) bool {
		s := conditions.Get(o.Status.Conditions, "Synced")
		return s != nil && s.Reason == ReasonScheduled && s.Status == metav1.ConditionTrue
	}
	for _, o := range objs {
		got := &v1alpha1.NopResource{}
		testenv.Eventually(t, 30*time.Second, o.Name+" to reach the end of its schedule", func() error {
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(o), got))
			if !settled(got) {
				return errors.New(describe(got.Status))
			}
			return nil
		})
	}
	// The watch events of the last status writes arrive within this.
	time.Sleep(time.Second)

	// A transition that lands more than a second late shares its write, and
	// its reconcile, with the next: on a busy machine an object may take
	// fewer, never more.
	mu.Lock()
	for _, o := range objs {
		k := client.ObjectKeyFromObject(o)
		if got, most := reconciles[k]-staleSkips[k], 1+len(schedule); got > most {
			t.Errorf("%s took %d reconciles (and %d skipped from a stale cache), want at most %d: creation and one per transition; their requeues: %v", k, got, staleSkips[k], most, requeues[k])
		}
		if staleSkips[k] > 0 {
			t.Logf("%s: %d reconciles skipped from a stale cache", k, staleSkips[k])
		}
	}
	mu.Unlock()
	if got, most := requests.get("PUT nopresources/status"), int64(n*len(schedule)); got > most {
		t.Errorf("status writes: want at most %d, one per transition, got %d (%s)", most, got, requests)
	}

	// A status change by someone else is undone; a spec change is reconciled.
	o := &v1alpha1.NopResource{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(objs[0]), o))
	conditions.Set(&o.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Meddled", ObservedGeneration: o.Generation})
	require.NoError(t, env.Client.Status().Update(ctx, o))
	testenv.Eventually(t, 30*time.Second, "the status written by someone else to be undone", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
		if !conditions.IsTrue(o.Status.Conditions, "Ready") {
			return errors.New(describe(o.Status))
		}
		return nil
	})
	o.Spec.ForProvider.PatchReceiverField = "changed"
	require.NoError(t, env.Client.Update(ctx, o))
	testenv.Eventually(t, 30*time.Second, "the spec change to be reconciled", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
		if o.Status.ObservedGeneration != o.Generation || o.Status.AtProvider.PatchReceiverField != "changed" {
			return errors.New(describe(o.Status))
		}
		return nil
	})
}
