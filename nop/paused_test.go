package nop

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// TestPaused: a NopResource created with crossplane.io/paused: "true" gets
// Synced=False (ReconcilePaused) in one status write and nothing else (no
// finalizer, no transition, though one falls due), and a reconcile of it
// then writes nothing; removing the annotation resumes it, the missed
// transition landing at once. Paused later, a Ready resource keeps its
// status past its next deadline, and its deletion waits for the finalizer
// until the annotation goes.
func TestPaused(t *testing.T) {
	const test = "paused"
	env := testenv.Get(t)
	ctx := t.Context()
	_, requests := startManager(t, test, Options{})

	obj := newNop(test, "paused-at-creation", ca("1s", "Ready", "True"))
	obj.Annotations = map[string]string{AnnotationPaused: "true"}
	require.NoError(t, env.Client.Create(ctx, obj))
	cleanup(t, env.Client, obj)
	got := &v1alpha1.NopResource{}
	testenv.Eventually(t, 30*time.Second, "Synced=False (ReconcilePaused)", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
		if !conditionsHave(got.Status.Conditions, "Synced", "False", ReasonReconcilePaused) {
			return errors.New(describe(got.Status))
		}
		return nil
	})
	rv := got.ResourceVersion
	time.Sleep(2 * time.Second) // past the Ready entry's deadline
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	if got.ResourceVersion != rv {
		t.Errorf("a paused resource was written after its paused status: %s", describe(got.Status))
	}
	if controllerutil.ContainsFinalizer(got, Finalizer) {
		t.Errorf("a paused resource got the finalizer")
	}
	if len(got.Status.Conditions) != 1 {
		t.Errorf("a paused resource got conditions besides Synced: %s", describe(got.Status))
	}
	if n := requests.get("PUT nopresources/status"); n != 1 {
		t.Errorf("%d status writes, want 1 (the paused condition): %s", n, requests)
	}
	if n := requests.get("PATCH nopresources"); n != 0 {
		t.Errorf("%d patches of a paused resource, want 0: %s", n, requests)
	}

	// Reconciled again, the paused resource takes no write.
	r, counter := countedReconciler(t, env, kinds[0])
	res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	require.NoError(t, err)
	if n := counter.writes.Load(); n != 0 || res.RequeueAfter != 0 {
		t.Errorf("a paused resource's reconcile took %d writes and requeued after %v, want none: %s", n, res.RequeueAfter, counter)
	}

	// Resumed: the missed transition lands at once.
	resumed := time.Now()
	require.NoError(t, env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"crossplane.io/paused":null}}}`))))
	testenv.Eventually(t, 30*time.Second, "Ready and Synced once resumed", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
		if !conditions.IsTrue(got.Status.Conditions, "Ready") {
			return errors.New(describe(got.Status))
		}
		if !conditionsHave(got.Status.Conditions, "Synced", "True", ReasonReconcileSuccess) {
			return errors.New(describe(got.Status))
		}
		return nil
	})
	if d := time.Since(resumed); d > 5*time.Second {
		t.Errorf("the missed transition took %s to land once resumed", d)
	}
	if !controllerutil.ContainsFinalizer(got, Finalizer) {
		t.Errorf("a resumed resource has no finalizer")
	}

	// Paused once Ready: the next entry does not land, and deletion waits.
	run := newNop(test, "paused-later", ca("0s", "Ready", "True"), ca("3s", "Ready", "False"))
	require.NoError(t, env.Client.Create(ctx, run))
	cleanup(t, env.Client, run)
	testenv.Eventually(t, 30*time.Second, "Ready with the finalizer", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(run), got))
		if !conditions.IsTrue(got.Status.Conditions, "Ready") || !controllerutil.ContainsFinalizer(got, Finalizer) {
			return errors.New(describe(got.Status))
		}
		return nil
	})
	require.NoError(t, env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"crossplane.io/paused":"true"}}}`))))
	testenv.Eventually(t, 30*time.Second, "Synced=False (ReconcilePaused)", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(run), got))
		if !conditionsHave(got.Status.Conditions, "Synced", "False", ReasonReconcilePaused) {
			return errors.New(describe(got.Status))
		}
		return nil
	})
	require.NoError(t, env.Client.Delete(ctx, got))
	wait := time.Until(got.CreationTimestamp.Add(4 * time.Second))
	time.Sleep(max(wait, time.Second))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(run), got), "a paused resource's deletion waits for its finalizer")
	if !conditions.IsTrue(got.Status.Conditions, "Ready") || !conditionsHave(got.Status.Conditions, "Synced", "False", ReasonReconcilePaused) {
		t.Errorf("a paused resource changed past its next deadline or on deletion: %s", describe(got.Status))
	}
	require.NoError(t, env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"crossplane.io/paused":"false"}}}`))))
	testenv.Eventually(t, 30*time.Second, "the resumed resource is deleted", func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(run), got); !apierrors.IsNotFound(err) {
			return errors.New("still there: " + describe(got.Status))
		}
		return nil
	})
}
