package nop

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// TestOthersConditionKept: a condition another writer adds to a settled
// resource's status stays, and the reconcile that the write triggers writes
// nothing, so the two writers do not take turns for ever.
func TestOthersConditionKept(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	counter := &requestCounter{}
	c, err := client.New(counter.wrap(env.Config), client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)
	r := &reconciler{kind: kinds[0], client: c, reader: c, scheme: env.Scheme}
	r.init()

	n := newNop("others", "others", ca("0s", "Ready", "True"), ca("1h", "Healthy", "True"))
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(n)}
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)

	got := &v1alpha1.NopResource{}
	require.NoError(t, env.Client.Get(ctx, req.NamespacedName, got))
	audited := metav1.Condition{Type: "example.org/Audited", Status: metav1.ConditionTrue, Reason: "Audited", Message: "checked by another controller"}
	conditions.Set(&got.Status.Conditions, audited)
	require.NoError(t, env.Client.Status().Update(ctx, got))
	rv := got.ResourceVersion

	counter.reset()
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	if n := counter.writes.Load(); n != 0 {
		t.Errorf("the reconcile after another writer's status write took %d writes, want 0: %s", n, counter)
	}
	require.NoError(t, env.Client.Get(ctx, req.NamespacedName, got))
	if diff := cmp.Diff(rv, got.ResourceVersion); diff != "" {
		t.Errorf("resourceVersion: -want, +got:\n%s", diff)
	}
	if !conditions.IsTrue(got.Status.Conditions, audited.Type) {
		t.Errorf("another writer's condition %s was removed: %s", audited.Type, describe(got.Status))
	}
}
