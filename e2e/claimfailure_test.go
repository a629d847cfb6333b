package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// testClaimFailure shows, with Crossplane core, an XR that cannot be synced
// on its claim: Crossplane's claim stays Ready=False "Waiting" and Synced
// True while the XR's Synced is False; conditions.PropagateSynced, run as a
// claim reconciler beside Crossplane's would run it, shows the failure on
// the claim as CompositeSynced, on the claim schema Crossplane generated,
// without the XR's message; Crossplane's own claim writes keep it; a settled
// claim takes no write; and it clears once the XR recovers. Two failures:
// no Composition matches the claim's selector, and the function returns a
// fatal result for the XR alone (an internal error). Its XRD and
// Composition are ClaimConditions's in a group of their own, with the same
// function served under another name.
func testClaimFailure(t *testing.T, s *suite) {
	env := s.env
	ctx := context.Background()
	const group, fnName = "fail.e2e.ctrlkit.dev", "function-app-failure"
	if err := s.xp.ServeFunction(ctx, fnName, sdkFunction{fn: &function.Function{Platform: platform()}}); err != nil {
		t.Fatal(err)
	}
	manifests := strings.ReplaceAll(strings.ReplaceAll(appManifests, "e2e.ctrlkit.dev", group), "name: "+appFunction, "name: "+fnName)
	env.ApplyStrict(t, "", manifests)
	waitEstablished(t, env, "apiextensions.crossplane.io/v1", "xapps."+group)
	for _, sc := range []struct {
		name, database string
		selector       map[string]any
		detail         string // in the XR's Synced, never on the claim
		fix            string // a merge patch of the claim that recovers
	}{{
		name: "no-matching-composition", database: "orders",
		selector: map[string]any{"matchLabels": map[string]any{"tier": "none"}},
		detail:   "Composition",
		fix:      `{"spec":{"compositionSelector":null,"compositionRef":{"name":"xapps.fail.e2e.ctrlkit.dev"}}}`,
	}, {
		name: "internal-error", database: "ledger",
		detail: "connection refused",
		fix:    `{"spec":{"database":"orders"}}`,
	}} {
		t.Run(sc.name, func(t *testing.T) {
			start := time.Now()
			ns := env.Namespace(t, "fail-"+sc.name)
			claim := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": group + "/v1alpha1",
				"kind":       "App",
				"metadata":   map[string]any{"namespace": ns, "name": "shop"},
				"spec":       map[string]any{"database": sc.database, "image": "nginx:1.27"},
			}}
			if sc.selector != nil {
				claim.Object["spec"].(map[string]any)["compositionSelector"] = sc.selector
			}
			if err := env.Client.Create(ctx, claim.DeepCopy()); err != nil {
				t.Fatal(err)
			}
			key := client.ObjectKeyFromObject(claim)

			// show is one pass of a claim reconciler beside Crossplane's:
			// read the claim and its XR, show the XR's Synced, write the
			// claim's status when it changed.
			show := func() (got, xr *unstructured.Unstructured, wrote bool, err error) {
				got = &unstructured.Unstructured{}
				got.SetGroupVersionKind(claim.GroupVersionKind())
				if err := env.Client.Get(ctx, key, got); err != nil {
					return nil, nil, false, err
				}
				name, _, _ := unstructured.NestedString(got.Object, "spec", "resourceRef", "name")
				if name == "" {
					return got, nil, false, fmt.Errorf("the claim names no XR yet:%s", conditionSummary(got))
				}
				xr = &unstructured.Unstructured{}
				xr.SetAPIVersion(group + "/v1alpha1")
				xr.SetKind("XApp")
				if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, xr); err != nil {
					return got, nil, false, err
				}
				changed, err := conditions.PropagateSynced(xr, got)
				if err != nil {
					return got, xr, false, err
				}
				if changed {
					if err := env.Client.Status().Update(ctx, got); err != nil {
						return got, xr, false, err
					}
				}
				return got, xr, changed, nil
			}
			// await passes until the XR's Synced and the claim's
			// CompositeSynced are status, and returns the claim.
			await := func(what, status string) *unstructured.Unstructured {
				var got *unstructured.Unstructured
				testenv.Eventually(t, 60*time.Second, what, func() error {
					var xr *unstructured.Unstructured
					var err error
					got, xr, _, err = show()
					if err != nil {
						return err
					}
					if c := condition(xr, "Synced"); c == nil || c["status"] != status {
						return fmt.Errorf("XR Synced is not %s:%s", status, conditionSummary(xr))
					}
					if c := condition(got, conditions.TypeCompositeSynced); c == nil || c["status"] != status {
						return fmt.Errorf("claim CompositeSynced is not %s:%s", status, conditionSummary(got))
					}
					if status == "False" && !strings.Contains(fmt.Sprint(condition(xr, "Synced")["message"]), sc.detail) {
						return fmt.Errorf("XR Synced does not say %q yet:%s", sc.detail, conditionSummary(xr))
					}
					return nil
				})
				return got
			}

			got := await("the claim shows the XR's failure", "False")
			c := condition(got, conditions.TypeCompositeSynced)
			if msg := fmt.Sprint(c["message"]); !strings.HasPrefix(msg, "The composite resource could not be synced.") || strings.Contains(msg, sc.detail) {
				t.Errorf("claim CompositeSynced message %q: want the generic sentence, without %q", msg, sc.detail)
			}
			if r := condition(got, "Ready"); r == nil || r["reason"] != "Waiting" {
				t.Errorf("Crossplane's claim Ready: want Waiting:%s", conditionSummary(got))
			}
			t.Logf("claim with Crossplane's conditions and CompositeSynced:%s", conditionSummary(got))

			// Crossplane's claim reconciler writes the claim again (a
			// label here); CompositeSynced stays, and the claim settles.
			if err := env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"touched":"yes"}}}`))); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second)
			for i := range 2 {
				got, _, wrote, err := show()
				if err != nil {
					t.Fatal(err)
				}
				if wrote {
					t.Errorf("pass %d of a settled claim wrote it:%s", i, conditionSummary(got))
				}
			}

			if err := env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(sc.fix))); err != nil {
				t.Fatal(err)
			}
			got = await("the claim shows the XR's recovery", "True")
			if c := condition(got, conditions.TypeCompositeSynced); c["message"] != "" && c["message"] != nil {
				t.Errorf("recovered: CompositeSynced keeps a message:%s", conditionSummary(got))
			}
			t.Logf("%s: failure shown and cleared in %s", sc.name, time.Since(start).Round(time.Millisecond))
		})
	}
}
