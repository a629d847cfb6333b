package results_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/results"
	fnv1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

// These tests apply function output to composite resources and claims whose
// CRDs have the status schema Crossplane generates (testdata/crds), on a real
// kube-apiserver: the API server prunes what the schema lacks.

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDDirs("testdata/crds"))
}

const group = "results.test.ctrlkit.dev"

var (
	xappKind    = schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: "XApp"}
	appKind     = schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: "App"}
	xseedKind   = schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: "XSeedApp"}
	xmodernKind = schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: "XModernApp"}
	xoldKind    = schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: "XOldApp"}
	oldKind     = schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: "OldApp"}
	errImage    = userMessage("The image provided does not exist or you are not authorized to use it.")
	friendlyMsg = "Internal error, the platform team has been alerted."
)

// The seed's scenarios, as function bodies written with function-sdk-go's
// response helpers.
func imageNotFound(rsp *fnv1.RunFunctionResponse) {
	response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
	response.Fatal(rsp, errImage).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim()
}

func progressing(rsp *fnv1.RunFunctionResponse) {
	response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
	response.ConditionTrue(rsp, "ImageReady", "Available").TargetCompositeAndClaim()
	response.ConditionFalse(rsp, "AppReady", "Creating").WithMessage("Waiting for the deployment to be available.").TargetCompositeAndClaim()
}

func success(rsp *fnv1.RunFunctionResponse) {
	response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
	response.ConditionTrue(rsp, "ImageReady", "Available").TargetCompositeAndClaim()
	response.ConditionTrue(rsp, "AppReady", "Available").TargetCompositeAndClaim()
}

func internalError(rsp *fnv1.RunFunctionResponse) {
	response.Fatal(rsp, errors.New("cannot read secret db-creds from vault: x509: certificate signed by unknown authority"))
	response.ConditionFalse(rsp, "DatabaseReady", "InternalError").WithMessage(friendlyMsg).TargetCompositeAndClaim()
}

// userMessage is a sentence for the claim's user where the API takes an
// error: shown as it is, capitalized and punctuated.
type userMessage string

func (m userMessage) Error() string { return string(m) }

func cond(typ string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg}
}

// reconcile does what a composite reconciler does with one pipeline step's
// response: read the XR and the claim, apply, write what changed. It returns
// the number of writes and the Outcome.
func reconcile(ctx context.Context, t *testing.T, c client.Client, a *results.Applier, body func(*fnv1.RunFunctionResponse), xr, claim *unstructured.Unstructured) (int, results.Outcome) {
	t.Helper()
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(xr), xr))
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(claim), claim))
	rsp := &fnv1.RunFunctionResponse{}
	body(rsp)
	out, err := a.Apply(results.FromCrossplane(rsp), xr, claim, results.Step("app"))
	require.NoError(t, err)
	writes := 0
	if out.CompositeChanged {
		require.NoError(t, c.Status().Update(ctx, xr))
		writes++
	}
	if out.ClaimChanged {
		require.NoError(t, c.Status().Update(ctx, claim))
		writes++
	}
	return writes, out
}

// reconcileXR is reconcile for an XR without a claim.
func reconcileXR(ctx context.Context, t *testing.T, c client.Client, a *results.Applier, body func(*fnv1.RunFunctionResponse), xr *unstructured.Unstructured) int {
	t.Helper()
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(xr), xr))
	rsp := &fnv1.RunFunctionResponse{}
	body(rsp)
	out, err := a.Apply(results.FromCrossplane(rsp), xr, nil, results.Step("app"))
	require.NoError(t, err)
	if !out.CompositeChanged {
		return 0
	}
	require.NoError(t, c.Status().Update(ctx, xr))
	return 1
}

func create(ctx context.Context, t *testing.T, c client.Client, gvk schema.GroupVersionKind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	require.NoError(t, c.Create(ctx, u))
	t.Cleanup(func() { _ = c.Delete(context.Background(), u) })
	return u
}

// TestCrossplaneShapedScenarios runs the seed's three scenarios and an
// internal error, in turn, against an XR and a claim with Crossplane's
// status schemas, with the default Applier: the claim shows the conditions,
// the XR lists them in status.claimConditionTypes, and a second reconcile
// writes nothing.
func TestCrossplaneShapedScenarios(t *testing.T) {
	ctx := t.Context()
	env := testenv.Get(t)
	xr := create(ctx, t, env.Client, xappKind, "", "shop-x7k2p")
	claim := create(ctx, t, env.Client, appKind, "default", "shop")
	a := results.NewApplier(nil)

	const T, F, U = metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	fatalMsg := func(msg string) string {
		return `cannot compose resources: pipeline step "app" returned a fatal result: ` + msg
	}
	steps := []struct {
		name       string
		body       func(*fnv1.RunFunctionResponse)
		wantClaim  []metav1.Condition
		wantTypes  []string
		wantSynced *metav1.Condition
	}{
		{
			name: "ImageNotFound", body: imageNotFound,
			wantClaim: []metav1.Condition{
				cond("DatabaseReady", T, "Available", ""),
				cond("ImageReady", F, "NotFound", errImage.Error()),
			},
			wantTypes:  []string{"DatabaseReady", "ImageReady"},
			wantSynced: &metav1.Condition{Type: "Synced", Status: F, Reason: "ReconcileError", Message: fatalMsg(errImage.Error())},
		},
		{
			name: "Progressing", body: progressing,
			wantClaim: []metav1.Condition{
				cond("DatabaseReady", T, "Available", ""),
				cond("ImageReady", T, "Available", ""),
				cond("AppReady", F, "Creating", "Waiting for the deployment to be available."),
			},
			wantTypes: []string{"DatabaseReady", "ImageReady", "AppReady"},
		},
		{
			name: "Success", body: success,
			wantClaim: []metav1.Condition{
				cond("DatabaseReady", T, "Available", ""),
				cond("ImageReady", T, "Available", ""),
				cond("AppReady", T, "Available", ""),
			},
			wantTypes: []string{"DatabaseReady", "ImageReady", "AppReady"},
		},
		{
			// The schema keeps no record of what results set, so the fatal
			// run marks every other condition Unknown, as Crossplane does.
			name: "InternalError", body: internalError,
			wantClaim: []metav1.Condition{
				cond("DatabaseReady", F, "InternalError", friendlyMsg),
				cond("ImageReady", U, results.ReasonFatalError, results.MessageFatalError),
				cond("AppReady", U, results.ReasonFatalError, results.MessageFatalError),
			},
			wantTypes: []string{"DatabaseReady", "ImageReady", "AppReady"},
			wantSynced: &metav1.Condition{Type: "Synced", Status: F, Reason: "ReconcileError",
				Message: fatalMsg("cannot read secret db-creds from vault: x509: certificate signed by unknown authority")},
		},
	}
	ignore := cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime", "ObservedGeneration")
	for _, s := range steps {
		writes, _ := reconcile(ctx, t, env.Client, a, s.body, xr, claim)
		if writes == 0 {
			t.Errorf("%s: the first reconcile wrote nothing", s.name)
		}

		// What the API server kept.
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(xr), xr))
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim))
		got, err := conditions.FromUnstructured(claim)
		require.NoError(t, err)
		if diff := cmp.Diff(s.wantClaim, got, ignore); diff != "" {
			t.Errorf("%s: claim conditions: -want, +got:\n%s", s.name, diff)
		}
		types, _, err := unstructured.NestedStringSlice(xr.Object, "status", "claimConditionTypes")
		require.NoError(t, err)
		if diff := cmp.Diff(s.wantTypes, types); diff != "" {
			t.Errorf("%s: XR status.claimConditionTypes: -want, +got:\n%s", s.name, diff)
		}
		xrConds, err := conditions.FromUnstructured(xr)
		require.NoError(t, err)
		if s.wantSynced != nil {
			if diff := cmp.Diff(s.wantSynced, conditions.Get(xrConds, "Synced"), ignore); diff != "" {
				t.Errorf("%s: XR Synced: -want, +got:\n%s", s.name, diff)
			}
		}

		// Settled: the same response writes nothing.
		if writes, out := reconcile(ctx, t, env.Client, a, s.body, xr, claim); writes != 0 {
			t.Errorf("%s: second reconcile: %d write(s), want none (Outcome %+v)", s.name, writes, out)
		}
	}
}

// TestSeedShapedSettles: on an XR whose schema has the design's
// status.claimConditions and not claimConditionTypes, the default Applier
// and one told to use claimConditions both settle.
func TestSeedShapedSettles(t *testing.T) {
	ctx := t.Context()
	env := testenv.Get(t)
	for name, a := range map[string]*results.Applier{
		"Default":              results.NewApplier(nil),
		"ClaimConditionsField": results.NewApplier(nil, results.ClaimConditionsField{"status", "claimConditions"}),
	} {
		t.Run(name, func(t *testing.T) {
			xr := create(ctx, t, env.Client, xseedKind, "", "seed-"+map[string]string{"Default": "a", "ClaimConditionsField": "b"}[name])
			claim := create(ctx, t, env.Client, appKind, "default", xr.GetName())
			if writes, _ := reconcile(ctx, t, env.Client, a, progressing, xr, claim); writes == 0 {
				t.Fatal("the first reconcile wrote nothing")
			}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(xr), xr))
			types, _, err := unstructured.NestedStringSlice(xr.Object, "status", "claimConditions")
			require.NoError(t, err)
			if diff := cmp.Diff([]string{"DatabaseReady", "ImageReady", "AppReady"}, types); diff != "" {
				t.Errorf("XR status.claimConditions: -want, +got:\n%s", diff)
			}
			if writes, out := reconcile(ctx, t, env.Client, a, progressing, xr, claim); writes != 0 {
				t.Errorf("second reconcile: %d write(s), want none (Outcome %+v)", writes, out)
			}
		})
	}
}

// TestModernXRSettles: Crossplane v2's modern XRs have no claim and no
// status field that lists the claim's condition types, so the API server
// prunes both lists; a function that targets the claim anyway (a common
// habit) must still leave a settled XR alone.
func TestModernXRSettles(t *testing.T) {
	ctx := t.Context()
	env := testenv.Get(t)
	xr := create(ctx, t, env.Client, xmodernKind, "default", "modern")
	a := results.NewApplier(nil)
	for i, body := range []func(*fnv1.RunFunctionResponse){progressing, success} {
		if writes := reconcileXR(ctx, t, env.Client, a, body, xr); writes == 0 {
			t.Errorf("response %d: the first reconcile wrote nothing", i)
		}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(xr), xr))
		got, err := conditions.FromUnstructured(xr)
		require.NoError(t, err)
		if diff := cmp.Diff(3, len(got)); diff != "" {
			t.Errorf("response %d: conditions on the XR: -want, +got:\n%s", i, diff)
		}
		for _, f := range []string{"claimConditionTypes", "claimConditions"} {
			if _, found, _ := unstructured.NestedFieldNoCopy(xr.Object, "status", f); found {
				t.Errorf("response %d: the API server kept status.%s, which the schema lacks", i, f)
			}
		}
		if writes := reconcileXR(ctx, t, env.Client, a, body, xr); writes != 0 {
			t.Errorf("response %d: second reconcile: %d write(s), want none", i, writes)
		}
	}
}

// TestCrossplaneBeforeV2Settles: the XR and claim schemas Crossplane
// generated before v2.0 have conditions without observedGeneration, which
// the API server prunes; the Applier and the propagation to the claim still
// settle, and the conditions are written with every other field.
func TestCrossplaneBeforeV2Settles(t *testing.T) {
	ctx := t.Context()
	env := testenv.Get(t)
	xr := create(ctx, t, env.Client, xoldKind, "", "old-x7k2p")
	claim := create(ctx, t, env.Client, oldKind, "default", "old")
	a := results.NewApplier(nil)
	const T, F = metav1.ConditionTrue, metav1.ConditionFalse
	for _, s := range []struct {
		name      string
		body      func(*fnv1.RunFunctionResponse)
		wantClaim []metav1.Condition
	}{
		{name: "Progressing", body: progressing, wantClaim: []metav1.Condition{
			cond("DatabaseReady", T, "Available", ""),
			cond("ImageReady", T, "Available", ""),
			cond("AppReady", F, "Creating", "Waiting for the deployment to be available."),
		}},
		{name: "Success", body: success, wantClaim: []metav1.Condition{
			cond("DatabaseReady", T, "Available", ""),
			cond("ImageReady", T, "Available", ""),
			cond("AppReady", T, "Available", ""),
		}},
	} {
		if writes, _ := reconcile(ctx, t, env.Client, a, s.body, xr, claim); writes != 2 {
			t.Errorf("%s: the first reconcile wrote %d object(s), want 2", s.name, writes)
		}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim))
		got, err := conditions.FromUnstructured(claim)
		require.NoError(t, err)
		if diff := cmp.Diff(s.wantClaim, got, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
			t.Errorf("%s: claim conditions (no observedGeneration kept): -want, +got:\n%s", s.name, diff)
		}
		if writes, out := reconcile(ctx, t, env.Client, a, s.body, xr, claim); writes != 0 {
			t.Errorf("%s: second reconcile: %d write(s), want none (Outcome %+v)", s.name, writes, out)
		}
	}
}

// TestHostileResponseStaysWritable: a response that sets many conditions
// with the longest messages a condition may have leaves the XR and the claim
// writable: MaxConditions conditions of 32 KiB each would take 8 MiB, more
// than the API server takes in a request, and no reconcile would write.
func TestHostileResponseStaysWritable(t *testing.T) {
	ctx := t.Context()
	env := testenv.Get(t)
	xr := create(ctx, t, env.Client, xappKind, "", "hostile-x7k2p")
	claim := create(ctx, t, env.Client, appKind, "default", "hostile")
	long := strings.Repeat("x", conditions.MaxMessageLength)
	hostile := func(rsp *fnv1.RunFunctionResponse) {
		for i := range 2 * results.MaxConditions {
			response.ConditionFalse(rsp, fmt.Sprintf("Broken%d", i), "Broken").WithMessage(long).TargetCompositeAndClaim()
		}
	}
	a := results.NewApplier(nil)
	writes, _ := reconcile(ctx, t, env.Client, a, hostile, xr, claim)
	if diff := cmp.Diff(2, writes); diff != "" {
		t.Errorf("writes of the first reconcile: -want, +got:\n%s", diff)
	}
	writes, _ = reconcile(ctx, t, env.Client, a, hostile, xr, claim)
	if diff := cmp.Diff(0, writes); diff != "" {
		t.Errorf("writes of the second reconcile: -want, +got:\n%s", diff)
	}
	got, err := conditions.FromUnstructured(claim)
	require.NoError(t, err)
	if diff := cmp.Diff(results.MaxConditions, len(got)); diff != "" {
		t.Errorf("conditions on the claim: -want, +got:\n%s", diff)
	}
}

// TestInvalidUTF8Settles: a function's messages, event reasons and condition
// types and reasons may hold bytes that are not valid UTF-8; the API server
// stores U+FFFD for each of them. Applying the same response again after the write changes
// nothing, on the XR and on the claim, whatever the schema keeps.
func TestInvalidUTF8Settles(t *testing.T) {
	ctx := t.Context()
	env := testenv.Get(t)
	bodies := map[string]func(*fnv1.RunFunctionResponse){
		"Message": func(rsp *fnv1.RunFunctionResponse) {
			response.ConditionFalse(rsp, "DatabaseReady", "Unreachable").WithMessage("cannot reach db-\xff\xfe: \xe2\x82").TargetCompositeAndClaim()
		},
		"Warning": func(rsp *fnv1.RunFunctionResponse) {
			response.Warning(rsp, errors.New("image \xed\xa0\x80 missing \xf0\x9f\x98")).WithReason("Image\xffMissing").
				ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim()
		},
		"LongMessage": func(rsp *fnv1.RunFunctionResponse) {
			// Three bytes stored for each: past the condition's limit.
			response.ConditionFalse(rsp, "AppReady", "Creating").WithMessage(strings.Repeat("\xff", conditions.MaxMessageLength)).TargetCompositeAndClaim()
		},
		"Reason": func(rsp *fnv1.RunFunctionResponse) {
			response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
			response.Normal(rsp, "ok").ConditionFalse("Cache\xffReady", "Miss\xff").TargetCompositeAndClaim()
		},
		"Fatal": func(rsp *fnv1.RunFunctionResponse) {
			response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
			response.Fatal(rsp, errors.New("cannot read \xff\xfe"))
		},
	}
	for _, kinds := range []struct {
		name      string
		xr, claim schema.GroupVersionKind
	}{
		{name: "Crossplane", xr: xappKind, claim: appKind},
		{name: "BeforeV2", xr: xoldKind, claim: oldKind},
	} {
		for name, body := range bodies {
			t.Run(kinds.name+"/"+name, func(t *testing.T) {
				n := strings.ToLower(kinds.name + "-" + name)
				xr := create(ctx, t, env.Client, kinds.xr, "", n+"-x7k2p")
				claim := create(ctx, t, env.Client, kinds.claim, "default", n)
				a := results.NewApplier(nil)
				if writes, _ := reconcile(ctx, t, env.Client, a, body, xr, claim); writes == 0 {
					t.Fatal("the first reconcile wrote nothing")
				}
				if writes, out := reconcile(ctx, t, env.Client, a, body, xr, claim); writes != 0 {
					t.Errorf("second reconcile: %d write(s), want none (Outcome %+v)", writes, out)
				}
			})
		}
	}
}

// TestClaimMessageSettles: on Crossplane's schemas before v2.0 (conditions
// without observedGeneration) and on the design's, a fatal result with a
// claim message reaches the claim as CompositeSynced (through
// conditions.PropagateSynced, as a claim reconciler calls it), the XR's
// Synced keeps the detail, a second reconcile writes nothing, and a run
// that succeeds clears the claim's failure.
func TestClaimMessageSettles(t *testing.T) {
	ctx := t.Context()
	env := testenv.Get(t)
	const friendly = "Internal error, the platform team has been alerted."
	fatal := &resultsv1.Response{Results: []*resultsv1.Result{
		results.Fatal(errors.New("cannot read secret db-creds: x509: certificate signed by unknown authority")).
			TargetCompositeAndClaim().WithClaimMessage(friendly).Build(),
	}}
	ok := &resultsv1.Response{Results: []*resultsv1.Result{
		results.Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
	}}
	for name, kinds := range map[string][2]schema.GroupVersionKind{
		"CrossplaneBeforeV2": {xoldKind, oldKind},
		"Seed":               {xseedKind, appKind},
	} {
		t.Run(name, func(t *testing.T) {
			xr := create(ctx, t, env.Client, kinds[0], "", "msg-"+strings.ToLower(name))
			claim := create(ctx, t, env.Client, kinds[1], "default", "msg-"+strings.ToLower(name))
			a := results.NewApplier(nil)
			// run is one XR reconcile: apply, set Synced=True on success as
			// the caller does, show Synced on the claim, write what changed.
			run := func(rsp *resultsv1.Response) int {
				require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(xr), xr))
				require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim))
				out, err := a.Apply(rsp, xr, claim, results.Step("app"))
				require.NoError(t, err)
				conds, err := conditions.FromUnstructured(xr)
				require.NoError(t, err)
				// Crossplane's schema before v2.0 prunes observedGeneration:
				// a True Synced is left as it is.
				if out.Fatal == nil && !conditions.IsTrue(conds, "Synced") {
					c, err := conditions.SetUnstructured(xr, metav1.Condition{Type: "Synced", Status: metav1.ConditionTrue, Reason: "ReconcileSuccess", ObservedGeneration: xr.GetGeneration()})
					require.NoError(t, err)
					out.CompositeChanged = out.CompositeChanged || c
				}
				c, err := conditions.PropagateSynced(xr, claim)
				require.NoError(t, err)
				writes := 0
				if out.CompositeChanged {
					require.NoError(t, env.Client.Status().Update(ctx, xr))
					writes++
				}
				if out.ClaimChanged || c {
					require.NoError(t, env.Client.Status().Update(ctx, claim))
					writes++
				}
				return writes
			}
			for _, step := range []struct {
				name, status, msg string
				rsp               *resultsv1.Response
			}{
				{"Fatal", "False", friendly, fatal},
				{"Recovered", "True", "", ok},
			} {
				if writes := run(step.rsp); writes != 2 {
					t.Errorf("%s: the first reconcile wrote %d object(s), want 2", step.name, writes)
				}
				require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim))
				got, err := conditions.FromUnstructured(claim)
				require.NoError(t, err)
				cs := conditions.Get(got, conditions.TypeCompositeSynced)
				if cs == nil || string(cs.Status) != step.status || cs.Message != step.msg {
					t.Errorf("%s: claim CompositeSynced %+v, want %s %q", step.name, cs, step.status, step.msg)
				}
				if writes := run(step.rsp); writes != 0 {
					t.Errorf("%s: second reconcile: %d write(s), want none", step.name, writes)
				}
			}
		})
	}
}
