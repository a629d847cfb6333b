package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestNopDeletion asks every tool about NopResources and ClusterNopResources
// whose deletion the spec holds (deleteAfter: Ready=False, Deleting) or fails
// (deleteError: Stalled=True, DeleteFailed). kstatus answers Terminating for
// any object with a deletionTimestamp before it reads a condition, and Argo
// CD answers Progressing ("Pending deletion") before it runs a health check,
// which ctrlkit.lua does as well; kubectl wait does not see Ready=True.
func TestNopDeletion(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	const ns = "health-deletion"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	stop := startControllers(t, env)
	defer stop()

	terminating := verdict{KStatus: "Terminating", Flux: "pass", Argo: "Progressing", Wait: "waits"}
	cases := map[string]struct {
		reason string
		spec   string
		// the condition that shows the deletion
		cond, condStatus, condReason string
		want                         verdict
	}{
		"Held": {
			reason: "deleteAfter holds the deletion: Ready=False (Deleting).",
			spec:   `{forProvider: {conditionAfter: [{conditionType: Ready, conditionStatus: "True", time: 0s}], deleteAfter: 1h}}`,
			cond:   "Ready", condStatus: "False", condReason: "Deleting",
			want: terminating,
		},
		"Failing": {
			reason: "deleteError fails the deletion: Stalled=True (DeleteFailed), which kstatus does not read on an object being deleted.",
			spec:   `{forProvider: {conditionAfter: [{conditionType: Ready, conditionStatus: "True", time: 0s}], deleteError: the cloud says no}}`,
			cond:   "Stalled", condStatus: "True", condReason: "DeleteFailed",
			want: terminating,
		},
	}
	for _, k := range nopKinds {
		for name, tc := range cases {
			t.Run(k.name+"/"+name, func(t *testing.T) {
				u := parse(t, fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata: {name: deletion-%s}\nspec: %s", k.apiVersion, k.name, strings.ToLower(name), tc.spec))
				if k.namespaced {
					u.SetNamespace(ns)
				}
				if err := env.Client.Create(ctx, u); err != nil {
					t.Fatalf("cannot create %s %s: %v", k.name, u.GetName(), err)
				}
				defer func() {
					_ = env.Client.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
				}()
				await(t, env.Client, u, "Ready", "True", "Scheduled")
				if err := env.Client.Delete(ctx, u); err != nil {
					t.Fatal(err)
				}
				await(t, env.Client, u, tc.cond, tc.condStatus, tc.condReason)
				got, err := judge(u, k.script, fluxFull)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s\n%s %s: -want, +got:\n%s", tc.reason, k.name, u.GetName(), diff)
				}
			})
		}
	}
}

// await waits until u, read again, has a condition of type typ with status
// and reason at its current generation.
func await(t *testing.T, c client.Client, u *unstructured.Unstructured, typ, status, reason string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, fmt.Sprintf("%s: %s=%s (%s)", u.GetName(), typ, status, reason), func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(u), u); err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, raw := range conds {
			cond, _ := raw.(map[string]any)
			og, _, _ := unstructured.NestedInt64(cond, "observedGeneration")
			if cond["type"] == typ && cond["status"] == status && cond["reason"] == reason && og == u.GetGeneration() {
				return nil
			}
		}
		return fmt.Errorf("status %s", statusYAML(u))
	})
}
