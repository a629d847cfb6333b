package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	sdkresponse "github.com/crossplane/function-sdk-go/response"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/results"
	"github.com/ctrlkit/ctrlkit/results/response"
)

const appFunction = "function-app"

// appManifests are a Crossplane v1 XRD with a claim and the pipeline
// Composition running the composite example's function.
const appManifests = `apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xapps.e2e.ctrlkit.dev
spec:
  group: e2e.ctrlkit.dev
  names:
    kind: XApp
    plural: xapps
  claimNames:
    kind: App
    plural: apps
  versions:
  - name: v1alpha1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              database:
                type: string
              image:
                type: string
            required: [database, image]
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xapps.e2e.ctrlkit.dev
spec:
  compositeTypeRef:
    apiVersion: e2e.ctrlkit.dev/v1alpha1
    kind: XApp
  mode: Pipeline
  pipeline:
  - step: check-and-compose
    functionRef:
      name: ` + appFunction

// sdkFunction serves a core.Function the supported way: function-sdk-go
// reads the request and writes the desired state (with the Ready field of
// the resources the function marks ready), and ctrlkit's results are added
// to the SDK's response with response.AddTo.
type sdkFunction struct {
	fnv1.UnimplementedFunctionRunnerServiceServer
	fn core.Function
}

func (f sdkFunction) RunFunction(ctx context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	rsp := sdkresponse.To(req, sdkresponse.DefaultTTL)
	xr, err := request.GetObservedCompositeResource(req)
	if err != nil {
		sdkresponse.Fatal(rsp, fmt.Errorf("cannot read the composite resource: %w", err))
		return rsp, nil
	}
	observed, err := request.GetObservedComposedResources(req)
	if err != nil {
		sdkresponse.Fatal(rsp, fmt.Errorf("cannot read the composed resources: %w", err))
		return rsp, nil
	}
	desired, err := request.GetDesiredComposedResources(req)
	if err != nil {
		sdkresponse.Fatal(rsp, fmt.Errorf("cannot read the desired resources: %w", err))
		return rsp, nil
	}
	in := &core.Request{
		Composite: &unstructured.Unstructured{Object: xr.Resource.Object},
		Observed:  map[string]*unstructured.Unstructured{},
		Desired:   map[string]*unstructured.Unstructured{},
	}
	for name, o := range observed {
		in.Observed[string(name)] = &unstructured.Unstructured{Object: o.Resource.Object}
	}
	for name, d := range desired {
		in.Desired[string(name)] = &unstructured.Unstructured{Object: d.Resource.Object}
	}
	out, err := f.fn.RunFunction(ctx, in)
	if err != nil {
		sdkresponse.Fatal(rsp, fmt.Errorf("cannot run the function: %w", err))
		return rsp, nil
	}
	if out.Desired != nil {
		want := map[resource.Name]*resource.DesiredComposed{}
		for name, u := range out.Desired {
			d := &resource.DesiredComposed{Resource: &composed.Unstructured{Unstructured: *u}}
			if slices.Contains(out.Ready, name) {
				d.Ready = resource.ReadyTrue
			}
			want[resource.Name(name)] = d
		}
		if err := sdkresponse.SetDesiredComposedResources(rsp, want); err != nil {
			sdkresponse.Fatal(rsp, fmt.Errorf("cannot set the desired resources: %w", err))
			return rsp, nil
		}
	}
	if err := response.AddTo(rsp, results.ToCrossplane(out.Results)); err != nil {
		sdkresponse.Fatal(rsp, err)
	}
	return rsp, nil
}

// platform is the composite example's database catalog and registry.
func platform() *function.StaticPlatform {
	return function.NewStaticPlatform().
		AddDatabase("orders", function.Database{Host: "orders.db", SecretName: "orders-db"}).
		FailDatabase("ledger", errors.New("dial tcp 10.0.0.7:5432: connect: connection refused")).
		AddImage("nginx:1.27")
}

// conds are an object's conditions as type: status/reason/message.
type conds map[string]string

func conditionsOf(o *unstructured.Unstructured, types ...string) conds {
	out := conds{}
	list, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range list {
		m, _ := c.(map[string]any)
		t, _ := m["type"].(string)
		if len(types) > 0 && !slices.Contains(types, t) {
			continue
		}
		msg, _ := m["message"].(string) // Crossplane omits an empty one
		out[t] = fmt.Sprintf("%v/%v/%s", m["status"], m["reason"], msg)
	}
	return out
}

// customTypes are the function's condition types.
var customTypes = []string{function.TypeDatabaseReady, function.TypeImageReady, function.TypeAppReady}

// appScenario is one claim of the fn-claim-conditions design.
type appScenario struct {
	name, database, image string
	// available makes the composed Deployment available, once it exists.
	available bool
	// wantXR and wantClaim are conditions (of customTypes, Ready and
	// Synced) the XR and the claim must end with; a value ending in "/"
	// matches any message.
	wantXR, wantClaim conds
	// notOnClaim must appear in no condition message of the claim.
	notOnClaim string
}

func testClaimConditions(t *testing.T, s *suite) {
	env := s.env
	ctx := context.Background()
	fn := &function.Function{Platform: platform()}
	if err := s.xp.ServeFunction(ctx, appFunction, sdkFunction{fn: fn}); err != nil {
		t.Fatal(err)
	}
	env.ApplyStrict(t, "", appManifests)
	waitEstablished(t, env, "apiextensions.crossplane.io/v1", "xapps.e2e.ctrlkit.dev")

	scenarios := []appScenario{{
		name: "image-not-found", database: "orders", image: "nginx:nope",
		wantXR: conds{
			function.TypeDatabaseReady: "True/Available/",
			function.TypeImageReady:    "False/NotFound/" + function.MessageImageNotFound,
			"Synced":                   "False/ReconcileError/",
		},
		wantClaim: conds{
			function.TypeDatabaseReady: "True/Available/",
			function.TypeImageReady:    "False/NotFound/" + function.MessageImageNotFound,
		},
	}, {
		name: "progressing-then-success", database: "orders", image: "nginx:1.27", available: true,
		wantXR: conds{
			function.TypeDatabaseReady: "True/Available/",
			function.TypeImageReady:    "True/Available/",
			function.TypeAppReady:      "True/Available/",
			"Ready":                    "True/Available/",
			"Synced":                   "True/ReconcileSuccess/",
		},
		wantClaim: conds{
			function.TypeDatabaseReady: "True/Available/",
			function.TypeImageReady:    "True/Available/",
			function.TypeAppReady:      "True/Available/",
			"Ready":                    "True/Available/",
		},
	}, {
		name: "internal-error", database: "ledger", image: "nginx:1.27",
		wantXR: conds{
			function.TypeDatabaseReady: "False/InternalError/" + function.MessageInternalError,
			"Synced":                   "False/ReconcileError/",
		},
		wantClaim: conds{
			function.TypeDatabaseReady: "False/InternalError/" + function.MessageInternalError,
		},
		notOnClaim: "connection refused",
	}}

	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			ns := env.Namespace(t, sc.name)
			claim := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "e2e.ctrlkit.dev/v1alpha1",
				"kind":       "App",
				"metadata":   map[string]any{"namespace": ns, "name": "shop"},
				"spec":       map[string]any{"database": sc.database, "image": sc.image},
			}}
			testenv.Eventually(t, 30*time.Second, "the claim is created", func() error {
				return env.Client.Create(ctx, claim.DeepCopy())
			})

			if sc.available {
				// Progressing: the Deployment is composed and not available.
				xr := waitConditions(t, env, claim, conds{function.TypeAppReady: "False/Creating/" + function.MessageCreating}, conds{function.TypeAppReady: "False/Creating/" + function.MessageCreating})
				if c := condition(xr, "Ready"); c == nil || c["status"] == "True" {
					t.Errorf("XR Ready while its Deployment is not available:%s", conditionSummary(xr))
				}
				makeAvailable(t, env, ns)
			}
			xr := waitConditions(t, env, claim, sc.wantXR, sc.wantClaim)
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(claim.GroupVersionKind())
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(claim), got); err != nil {
				t.Fatal(err)
			}
			if sc.notOnClaim != "" && strings.Contains(conditionSummary(got), sc.notOnClaim) {
				t.Errorf("the claim shows the internal error %q:%s", sc.notOnClaim, conditionSummary(got))
			}

			// The same function, its responses applied by ctrlkit's
			// results.Applier and conditions.Propagate, ends with the same
			// conditions of the function's types on the XR and the claim,
			// and the same Synced on the XR. Ready and the claim's own
			// Synced are the core's, not the Applier's (docs/design/results.md).
			oursXR, oursClaim := applyOurselves(t, fn, sc)
			xrTypes := append([]string{conditions.TypeSynced}, customTypes...)
			if diff := cmp.Diff(conditionsOf(xr, xrTypes...), conditionsOf(oursXR, xrTypes...)); diff != "" {
				t.Errorf("XR conditions: -crossplane, +ctrlkit:\n%s", diff)
			}
			if diff := cmp.Diff(conditionsOf(got, customTypes...), conditionsOf(oursClaim, customTypes...)); diff != "" {
				t.Errorf("claim conditions: -crossplane, +ctrlkit:\n%s", diff)
			}
			t.Logf("crossplane XR:%s\ncrossplane claim:%s\nctrlkit XR:%s\nctrlkit claim:%s",
				conditionSummary(xr), conditionSummary(got), conditionSummary(oursXR), conditionSummary(oursClaim))
		})
	}
}

// applyOurselves runs fn for the scenario as Crossplane did, twice when the
// Deployment becomes available, and applies each response with
// results.Applier (which propagates to the claim with conditions.Propagate).
func applyOurselves(t *testing.T, fn core.Function, sc appScenario) (xr, claim *unstructured.Unstructured) {
	t.Helper()
	xr = &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "e2e.ctrlkit.dev/v1alpha1", "kind": "XApp",
		"metadata": map[string]any{"name": "shop-x", "generation": int64(1)},
		"spec": map[string]any{"database": sc.database, "image": sc.image,
			"claimRef": map[string]any{"namespace": "ns", "name": "shop"}},
	}}
	claim = &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "e2e.ctrlkit.dev/v1alpha1", "kind": "App",
		"metadata": map[string]any{"namespace": "ns", "name": "shop", "generation": int64(1)},
	}}
	applier := results.NewApplier(events.NewFakeRecorder(100))
	runs := []map[string]*unstructured.Unstructured{nil}
	if sc.available {
		d := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Available", "status": "True"},
		}}}}
		runs = append(runs, map[string]*unstructured.Unstructured{function.ResourceName: d})
	}
	for _, observed := range runs {
		out, err := fn.RunFunction(context.Background(), &core.Request{Composite: xr.DeepCopy(), Observed: observed})
		if err != nil {
			t.Fatal(err)
		}
		outcome, err := applier.Apply(out.Results, xr, claim, results.Step("check-and-compose"))
		if err != nil {
			t.Fatal(err)
		}
		if outcome.Fatal == nil {
			// The caller of a run that succeeded sets Synced, as
			// Crossplane does.
			if _, err := conditions.SetUnstructured(xr, metav1.Condition{
				Type: conditions.TypeSynced, Status: metav1.ConditionTrue, Reason: "ReconcileSuccess", ObservedGeneration: 1,
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return xr, claim
}

// waitConditions waits for the claim's XR and the claim to show want.
func waitConditions(t *testing.T, env *testenv.Env, claim *unstructured.Unstructured, wantXR, wantClaim conds) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	xr := &unstructured.Unstructured{}
	testenv.Eventually(t, 90*time.Second, "the XR and the claim show the function's conditions", func() error {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(claim.GroupVersionKind())
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(claim), got); err != nil {
			return err
		}
		name, _, _ := unstructured.NestedString(got.Object, "spec", "resourceRef", "name")
		if name == "" {
			return fmt.Errorf("the claim names no XR yet:%s", conditionSummary(got))
		}
		xr.SetAPIVersion("e2e.ctrlkit.dev/v1alpha1")
		xr.SetKind("XApp")
		if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, xr); err != nil {
			return err
		}
		if err := match(conditionsOf(xr), wantXR); err != nil {
			return fmt.Errorf("XR %s: %w", name, err)
		}
		if err := match(conditionsOf(got), wantClaim); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		return nil
	})
	return xr
}

// match checks got against want, a value ending in "/" matching any message.
func match(got, want conds) error {
	var bad []string
	for typ, w := range want {
		g, ok := got[typ]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("no %s (want %s)", typ, w))
		case strings.HasSuffix(w, "/") && !strings.HasPrefix(g, w):
			bad = append(bad, fmt.Sprintf("%s=%s, want %s…", typ, g, w))
		case !strings.HasSuffix(w, "/") && g != w:
			bad = append(bad, fmt.Sprintf("%s=%s, want %s", typ, g, w))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// makeAvailable plays the Deployment controller: the composed Deployment
// of namespace ns reports Available.
func makeAvailable(t *testing.T, env *testenv.Env, ns string) {
	t.Helper()
	ctx := context.Background()
	testenv.Eventually(t, 30*time.Second, "the composed Deployment is made available", func() error {
		l := &appsv1.DeploymentList{}
		if err := env.Client.List(ctx, l, client.InNamespace(ns)); err != nil {
			return err
		}
		if len(l.Items) != 1 {
			return fmt.Errorf("%d Deployments in %s, want 1", len(l.Items), ns)
		}
		d := &l.Items[0]
		d.Status.Conditions = []appsv1.DeploymentCondition{{
			Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
			LastTransitionTime: metav1.Now(), LastUpdateTime: metav1.Now(),
		}}
		return env.Client.Status().Update(ctx, d)
	})
}

// waitEstablished waits for an XRD to be Established.
func waitEstablished(t *testing.T, env *testenv.Env, apiVersion, name string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "XRD "+name+" is established", func() error {
		xrd := &unstructured.Unstructured{}
		xrd.SetAPIVersion(apiVersion)
		xrd.SetKind("CompositeResourceDefinition")
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, xrd); err != nil {
			return err
		}
		if c := condition(xrd, "Established"); c == nil || c["status"] != "True" {
			return fmt.Errorf("not established:%s", conditionSummary(xrd))
		}
		return nil
	})
}
