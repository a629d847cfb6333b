package nop

import (
	"strings"
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
	ctx := t.Context()
	r, counter := countedReconciler(t, env, kinds[0])

	n := newNop("others", "others", ca("0s", "Ready", "True"), ca("1h", "Healthy", "True"))
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(n)}
	_, err := r.Reconcile(ctx, req)
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

// TestConnectionSecretRefused: a connection Secret the API server refuses
// (over its 1 MiB), or one that another NopResource controls, makes Synced
// False with a message naming the Secret and the problem, never a value;
// the other resource's Secret is left as it is, and the retries write no
// status.
func TestConnectionSecretRefused(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	r, counter := countedReconciler(t, env, kinds[0])
	const value = "s3cr3t-value"
	reconcile := func(n *v1alpha1.NopResource) *v1alpha1.NopResource {
		t.Helper()
		_, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(n)})
		require.NoError(t, err)
		got := &v1alpha1.NopResource{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
		return got
	}
	withSecret := func(name, secret, v string) *v1alpha1.NopResource {
		n := newNop("refused", name, ca("0s", "Ready", "True"))
		n.Spec.ForProvider.ConnectionDetails = []v1alpha1.ConnectionDetail{{Name: "password", Value: v}}
		n.Spec.WriteConnectionSecretToRef = &v1alpha1.SecretReference{Name: secret}
		require.NoError(t, env.Client.Create(ctx, n))
		cleanup(t, env.Client, n)
		s := newSecret()
		s.SetNamespace("default")
		s.SetName(secret)
		cleanup(t, env.Client, s)
		return n
	}

	cases := map[string]struct {
		nop  *v1alpha1.NopResource
		want string // the start of Synced's message
	}{
		"TooLarge": {
			nop: withSecret("refused-large", "refused-large-conn", value+strings.Repeat("x", 1100<<10)),
			// Refused before any request: no attempt can write it.
			want: `spec.forProvider.connectionDetails: cannot write 1126412 bytes of values to Secret default/refused-large-conn: a Secret holds at most 1048576`,
		},
		"AnotherResourcesSecret": {
			nop:  withSecret("refused-other", "refused-owner-conn", value),
			want: "cannot write connection secret default/refused-owner-conn: it exists and is not controlled by this NopResource",
		},
	}
	owner := reconcile(withSecret("refused-owner", "refused-owner-conn", "owner's"))
	require.True(t, conditions.IsTrue(owner.Status.Conditions, "Synced"), describe(owner.Status))
	ownerSecret := newSecret()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "refused-owner-conn"}, ownerSecret))

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := reconcile(tc.nop)
			synced := conditions.Get(got.Status.Conditions, "Synced")
			require.NotNil(t, synced, describe(got.Status))
			if !strings.HasPrefix(synced.Message, tc.want) {
				t.Errorf("Synced message: want it to start with %q, got %q", tc.want, synced.Message)
			}
			if strings.Contains(describe(got.Status), value) {
				t.Errorf("the status shows a connection detail's value: %s", describe(got.Status))
			}
			counter.reset()
			reconcile(tc.nop)
			if n := counter.get("PUT nopresources/status"); n != 0 {
				t.Errorf("the retry wrote the status %d times, want 0: %s", n, counter)
			}
		})
	}
	after := newSecret()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(ownerSecret), after))
	if diff := cmp.Diff(ownerSecret.GetResourceVersion(), after.GetResourceVersion()); diff != "" {
		t.Errorf("the other resource's Secret: resourceVersion: -want, +got:\n%s", diff)
	}
}

// countedReconciler returns a reconciler of k on env, not started, whose
// requests counter counts.
func countedReconciler(t *testing.T, env *testenv.Env, k kind) (*reconciler, *requestCounter) {
	t.Helper()
	counter := &requestCounter{}
	c, err := client.New(counter.wrap(env.Config), client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)
	r := &reconciler{kind: k, client: c, reader: c, scheme: env.Scheme}
	r.init()
	return r, counter
}
