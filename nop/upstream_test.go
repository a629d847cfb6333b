package nop

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// aheadClock tells the time d from now.
type aheadClock struct{ d time.Duration }

func (c aheadClock) Now() time.Time                  { return time.Now().Add(c.d) }
func (c aheadClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// TestManifestShapes applies our manifests of every shape in which
// provider-nop's example and Crossplane's end-to-end tests write a
// NopResource (testdata/shapes: composition bases without a name, reasons,
// labels, a foreign finalizer, connection details, a providerConfigRef) and
// the one that sets every managed-resource field (testdata/managed), with
// client-side apply and with server-side apply,
// both with strict field validation as kubectl does. Each is admitted,
// reaches the conditions its schedule names at the current generation (what
// kubectl wait --for=condition=... waits for), has Synced, shows Deleting
// when deleted, and goes.
//
// The test gives a manifest without a name (a composition's base) one, and
// labels every object so that the test's manager sees it. The schedules run
// up to 90 s, so the controller's clock runs 100 s ahead: every entry is due
// at the first reconcile.
func TestManifestShapes(t *testing.T) {
	const test = "upstream"
	env := testenv.Get(t)
	ctx := t.Context()
	startManager(t, test, Options{Clock: aheadClock{100 * time.Second}})

	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "crossplane-system"}}}
	if err := env.Client.Create(ctx, ns); err != nil {
		if !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("create namespace crossplane-system: %v", err)
		}
	}

	shapes, err := filepath.Glob("testdata/shapes/*.yaml")
	require.NoError(t, err)
	require.Len(t, shapes, 8, "the shapes in testdata/shapes")
	managed, err := filepath.Glob("testdata/managed/*.yaml")
	require.NoError(t, err)
	for _, file := range append(shapes, managed...) {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		for _, mode := range []string{"client-side", "server-side"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				b, err := os.ReadFile(file)
				require.NoError(t, err)
				u := &unstructured.Unstructured{}
				require.NoError(t, yaml.Unmarshal(b, &u.Object))
				if u.GetName() == "" {
					u.SetName(strings.TrimRight(name[:min(len(name), 63)], "-"))
				}
				labels := u.GetLabels()
				if labels == nil {
					labels = map[string]string{}
				}
				labels[testLabel] = test
				u.SetLabels(labels)

				switch mode {
				case "client-side":
					// kubectl apply: the manifest in an annotation, a create
					// with strict field validation.
					last, err := json.Marshal(u.Object)
					require.NoError(t, err)
					ann := u.GetAnnotations()
					if ann == nil {
						ann = map[string]string{}
					}
					ann["kubectl.kubernetes.io/last-applied-configuration"] = string(last)
					u.SetAnnotations(ann)
					require.NoError(t, env.Client.Create(ctx, u, client.FieldValidation("Strict")), "client-side apply")
				case "server-side":
					// client.Client.Apply takes no field validation option;
					// kubectl's server-side apply validates strictly.
					//lint:ignore SA1019 the apply patch type is the way to send fieldValidation=Strict
					require.NoError(t, env.Client.Patch(ctx, u, client.Apply, client.FieldOwner("kubectl"), client.ForceOwnership, client.FieldValidation("Strict")), "server-side apply")
				}
				key := client.ObjectKeyFromObject(u)
				cleanup(t, env.Client, u)
				defer deleteConnectionSecret(t, u)

				// What the schedule says once every entry is due.
				typed := &v1alpha1.ClusterNopResource{}
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed))
				s, err := parseSchedule(typed.Spec.ForProvider.ConditionAfter)
				require.NoError(t, err)
				final, _, _ := s.at(time.Duration(math.MaxInt64))
				want := map[string]metav1.ConditionStatus{"Synced": metav1.ConditionTrue, "Ready": metav1.ConditionUnknown}
				for _, e := range final {
					want[e.cond.Type] = e.cond.Status
				}

				got := u.DeepCopy()
				testenv.Eventually(t, 30*time.Second, fmt.Sprintf("conditions %v at the current generation", want), func() error {
					require.NoError(t, env.Client.Get(ctx, key, got))
					conds, err := conditions.FromUnstructured(got)
					require.NoError(t, err)
					og, _, _ := unstructured.NestedInt64(got.Object, "status", "observedGeneration")
					ok := og == got.GetGeneration()
					for typ, status := range want {
						c := conditions.Get(conds, typ)
						ok = ok && c != nil && c.Status == status && c.ObservedGeneration == got.GetGeneration()
					}
					if !ok {
						return fmt.Errorf("observedGeneration %d of %d, %v", og, got.GetGeneration(), conds)
					}
					return nil
				})
				if !slices.Contains(got.GetFinalizers(), Finalizer) {
					t.Errorf("got.GetFinalizers() = %q, want it to contain %q", got.GetFinalizers(), Finalizer)
				}
				if typed.Spec.PublishConnectionDetailsTo != nil {
					conds, _ := conditions.FromUnstructured(got)
					if diff := cmp.Diff(notePublish, conditions.Get(conds, "Synced").Message); diff != "" {
						t.Errorf("conditions.Get(conds, \"Synced\").Message: -want, +got:\n%s", diff)
					}
				}

				// Deleted: Ready=False (Deleting) before it goes. A finalizer
				// of the manifest's own (Crossplane's e2e tests hold a
				// deletion with one) is removed once Deleting shows.
				require.NoError(t, env.Client.Delete(ctx, got))
				foreign := len(got.GetFinalizers()) > 1
				if foreign {
					testenv.Eventually(t, 30*time.Second, "Ready=False (Deleting)", func() error {
						require.NoError(t, env.Client.Get(ctx, key, got))
						conds, _ := conditions.FromUnstructured(got)
						if r := conditions.Get(conds, "Ready"); r == nil || r.Reason != ReasonDeleting {
							return fmt.Errorf("conditions %v", conds)
						}
						return nil
					})
					require.NoError(t, env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))))
				}
				waitForGone(t, env.Client, got)
			})
		}
	}
}

// deleteConnectionSecret deletes the connection Secret of u, if it names
// one: the test control plane has no garbage collector, and the next object
// of the same name must not find a Secret it does not control.
func deleteConnectionSecret(t *testing.T, u *unstructured.Unstructured) {
	name, _, _ := unstructured.NestedString(u.Object, "spec", "writeConnectionSecretToRef", "name")
	if name == "" {
		return
	}
	ns, _, _ := unstructured.NestedString(u.Object, "spec", "writeConnectionSecretToRef", "namespace")
	if ns == "" {
		ns = u.GetNamespace()
	}
	s := newSecret()
	s.SetNamespace(ns)
	s.SetName(name)
	if err := testenv.Get(t).Client.Delete(context.Background(), s); client.IgnoreNotFound(err) != nil {
		t.Errorf("cannot delete connection secret %s/%s: %v", ns, name, err)
	}
}

// readProviderNopExample reads our manifest with every field of
// provider-nop's example and the same schedule.
func readProviderNopExample(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile("testdata/shapes/provider-nop-style.yaml")
	require.NoError(t, err)
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal(b, &u.Object))
	return u
}

// TestProviderNopExampleSchedule: at each age provider-nop's example passes
// through, each condition type has the status provider-nop's controller
// gives it (Ready True at 30s, False at 60s, True with Green True at 90s).
func TestProviderNopExampleSchedule(t *testing.T) {
	typed := &v1alpha1.ClusterNopResource{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(readProviderNopExample(t).Object, typed))
	s, err := parseSchedule(typed.Spec.ForProvider.ConditionAfter)
	require.NoError(t, err)
	cases := map[string]struct {
		age  time.Duration
		want map[string]metav1.ConditionStatus
	}{
		"Created":       {age: 0, want: map[string]metav1.ConditionStatus{}},
		"BeforeReady":   {age: 29 * time.Second, want: map[string]metav1.ConditionStatus{}},
		"Ready":         {age: 30 * time.Second, want: map[string]metav1.ConditionStatus{"Ready": "True"}},
		"NotReady":      {age: 60 * time.Second, want: map[string]metav1.ConditionStatus{"Ready": "False"}},
		"StillNot":      {age: 89 * time.Second, want: map[string]metav1.ConditionStatus{"Ready": "False"}},
		"ReadyAndGreen": {age: 90 * time.Second, want: map[string]metav1.ConditionStatus{"Ready": "True", "Green": "True"}},
		"LongAfter":     {age: time.Hour, want: map[string]metav1.ConditionStatus{"Ready": "True", "Green": "True"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			due, _, _ := s.at(tc.age)
			got := map[string]metav1.ConditionStatus{}
			for _, e := range due {
				got[e.cond.Type] = e.cond.Status
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("at(%s): -want, +got:\n%s", tc.age, diff)
			}
		})
	}
}

// TestProviderNopExample applies provider-nop's example as kubectl apply
// --server-side would and checks what provider-nop's controller would also
// give it: the managed-resource defaults of the CRD (deletionPolicy Delete,
// managementPolicies ["*"]), its conditions with Synced=True
// (ReconcileSuccess), and a connection Secret of Crossplane's type,
// controlled by the resource, holding exactly the connection details. It
// also checks what nop adds: status.atProvider.fields mirrors the spec's.
func TestProviderNopExample(t *testing.T) {
	const test = "nopexample"
	env := testenv.Get(t)
	ctx := t.Context()
	startManager(t, test, Options{Clock: aheadClock{100 * time.Second}})

	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "crossplane-system"}}}
	if err := env.Client.Create(ctx, ns); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("create namespace crossplane-system: %v", err)
	}

	u := readProviderNopExample(t)
	u.SetName("provider-nop-example")
	u.SetLabels(map[string]string{testLabel: test})
	//lint:ignore SA1019 the apply patch type is the way to send fieldValidation=Strict
	require.NoError(t, env.Client.Patch(ctx, u, client.Apply, client.FieldOwner("kubectl"), client.ForceOwnership, client.FieldValidation("Strict")))
	cleanup(t, env.Client, u)
	defer deleteConnectionSecret(t, u)

	n := &v1alpha1.ClusterNopResource{ObjectMeta: metav1.ObjectMeta{Name: u.GetName()}}
	waitForCondition(t, env.Client, n, "Green", metav1.ConditionTrue, ReasonScheduled)
	got := waitForCondition(t, env.Client, n, "Ready", metav1.ConditionTrue, ReasonScheduled)
	if s := conditions.Get(got.Status.Conditions, "Synced"); s == nil || s.Status != metav1.ConditionTrue || s.Reason != ReasonReconcileSuccess {
		t.Errorf("Synced: want True, got %+v (ReconcileSuccess)", s)
	}

	if diff := cmp.Diff(v1alpha1.DeletionDelete, got.Spec.DeletionPolicy); diff != "" {
		t.Errorf("spec.deletionPolicy defaults as in provider-nop's CRD: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]v1alpha1.ManagementAction{v1alpha1.ManagementActionAll}, got.Spec.ManagementPolicies); diff != "" {
		t.Errorf("spec.managementPolicies defaults as in provider-nop's CRD: -want, +got:\n%s", diff)
	}

	var specFields, atFields any
	require.NotNil(t, got.Spec.ForProvider.Fields)
	require.NoError(t, json.Unmarshal(got.Spec.ForProvider.Fields.Raw, &specFields))
	if got.Status.AtProvider.Fields != nil {
		require.NoError(t, json.Unmarshal(got.Status.AtProvider.Fields.Raw, &atFields))
	}
	if diff := cmp.Diff(specFields, atFields); diff != "" {
		t.Errorf("status.atProvider.fields mirrors spec.forProvider.fields: -want, +got:\n%s", diff)
	}

	secret := newSecret()
	require.NoError(t, env.Client.Get(ctx, types.NamespacedName{Namespace: "crossplane-system", Name: "shape-provider-nop-style-conn"}, secret))
	if diff := cmp.Diff(SecretTypeConnection, secret.Object["type"]); diff != "" {
		t.Errorf("secret type: -want, +got:\n%s", diff)
	}
	wantData := map[string]any{"user": b64("nop-user"), "token": b64("not-a-real-token"), "host": b64("nop.example.org")}
	if diff := cmp.Diff(wantData, secret.Object["data"]); diff != "" {
		t.Errorf("secret data: -want, +got:\n%s", diff)
	}
	wantOwners := []metav1.OwnerReference{{
		APIVersion: v1alpha1.GroupVersion.String(), Kind: v1alpha1.ClusterNopResourceKind,
		Name: got.Name, UID: got.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}}
	if diff := cmp.Diff(wantOwners, secret.GetOwnerReferences()); diff != "" {
		t.Errorf("secret owner references: -want, +got:\n%s", diff)
	}
}

// TestEmptyConditionReason: provider-nop's CRD admits conditionReason: "",
// and so does ours; the condition then has the default reason.
func TestEmptyConditionReason(t *testing.T) {
	const test = "emptyreason"
	env := testenv.Get(t)
	ctx := t.Context()
	startManager(t, test, Options{})

	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(), "kind": v1alpha1.ClusterNopResourceKind,
		"metadata": map[string]any{"name": "empty-reason", "labels": map[string]any{testLabel: test}},
		"spec": map[string]any{"forProvider": map[string]any{"conditionAfter": []any{
			map[string]any{"time": "0s", "conditionType": "Ready", "conditionStatus": "True", "conditionReason": ""},
		}}},
	}}
	require.NoError(t, env.Client.Create(ctx, u, client.FieldValidation("Strict")))
	cleanup(t, env.Client, u)
	waitForCondition(t, env.Client, &v1alpha1.ClusterNopResource{ObjectMeta: metav1.ObjectMeta{Name: u.GetName()}}, "Ready", metav1.ConditionTrue, ReasonScheduled)
}
