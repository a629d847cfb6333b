package results_test

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/results"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// A function builds results and adds them to its response. AddResult
// rejects a result the control plane could not apply.
func Example() {
	rsp := &resultsv1.Response{}

	r := results.Fatal(errors.New("You are unauthorized to access this resource.")).
		TargetCompositeAndClaim().
		ConditionFalse("DatabaseReady", "Unauthorized").
		Build()
	fmt.Println(results.AddResult(rsp, r))

	ready := results.Normal("all good").ConditionTrue("Ready", "Available").Build()
	fmt.Println(results.AddResult(rsp, ready))

	fmt.Println(len(rsp.GetResults()), "result(s)")
	// Output:
	// <nil>
	// cannot add result: invalid result: condition type "Ready" is reserved for the control plane
	// 1 result(s)
}

// The control plane applies a function's results to the composite resource
// and its claim, and writes each only when it changed.
func ExampleApplier_Apply() {
	xr := &unstructured.Unstructured{}
	xr.SetKind("XApp")
	xr.SetName("shop-xyz12")
	xr.SetGeneration(1)
	claim := &unstructured.Unstructured{}
	claim.SetKind("App")
	claim.SetNamespace("team-a")
	claim.SetName("shop")
	claim.SetGeneration(1)

	rsp := &resultsv1.Response{Results: []*resultsv1.Result{
		results.Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
		results.Fatal(errors.New("The image provided does not exist or you are not authorized to use it.")).
			ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().Build(),
	}}

	a := results.NewApplier(nil) // a manager's GetEventRecorder("...") in a controller
	out, err := a.Apply(rsp, xr, claim, results.Step("check-image"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("write XR: %t, write claim: %t, fatal: %v\n", out.CompositeChanged, out.ClaimChanged, out.Fatal)

	for _, obj := range []*unstructured.Unstructured{xr, claim} {
		conds, _ := conditions.FromUnstructured(obj)
		fmt.Println(obj.GetKind() + ":")
		for _, c := range conds {
			fmt.Printf("  %s=%s %s %q\n", c.Type, c.Status, c.Reason, c.Message)
		}
	}

	out, _ = a.Apply(rsp, xr, claim, results.Step("check-image"))
	fmt.Printf("again: write XR: %t, write claim: %t\n", out.CompositeChanged, out.ClaimChanged)
	// Output:
	// write XR: true, write claim: true, fatal: cannot compose resources: pipeline step "check-image" returned a fatal result: The image provided does not exist or you are not authorized to use it.
	// XApp:
	//   DatabaseReady=True Available ""
	//   ImageReady=False NotFound "The image provided does not exist or you are not authorized to use it."
	//   Synced=False ReconcileError "cannot compose resources: pipeline step \"check-image\" returned a fatal result: The image provided does not exist or you are not authorized to use it."
	// App:
	//   DatabaseReady=True Available ""
	//   ImageReady=False NotFound "The image provided does not exist or you are not authorized to use it."
	// again: write XR: false, write claim: false
}

// The fn-claim-conditions design's sketch compiles as written: the builder
// keeps its spelling of the condition methods.
func ExampleBuilder_WithConditionFalse() {
	r := results.Fatal(errors.New("You are unauthorized to access this resource.")).
		TargetCompositeAndClaim().
		WithConditionFalse("DatabaseReady", "Unauthorized").
		Build()
	fmt.Println(r.GetSeverity(), r.GetCondition().GetType(), r.GetCondition().GetStatus(), r.GetCondition().GetReason())
	// Output:
	// SEVERITY_FATAL DatabaseReady STATUS_FALSE Unauthorized
}

// A fatal result's claim message is what the claim shows of the failure:
// the Applier records it on the XR as a False CompositeSynced, which
// conditions.PropagateSynced shows on the claim. The XR's Synced keeps the
// detail.
func ExampleApplier_Apply_claimMessage() {
	xr := &unstructured.Unstructured{}
	xr.SetKind("XApp")
	xr.SetName("ledger-q8w2e")
	xr.SetGeneration(2)
	claim := &unstructured.Unstructured{}
	claim.SetKind("App")
	claim.SetNamespace("team-a")
	claim.SetName("ledger")
	claim.SetGeneration(1)

	rsp := &resultsv1.Response{Results: []*resultsv1.Result{
		results.Fatal(errors.New("cannot read secret vault/ledger: x509: certificate signed by unknown authority")).
			TargetCompositeAndClaim().
			WithClaimMessage("Internal error, the platform team has been alerted.").
			Build(),
	}}
	if _, err := results.NewApplier(nil).Apply(rsp, xr, claim, results.Step("app")); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := conditions.PropagateSynced(xr, claim); err != nil {
		fmt.Println(err)
		return
	}
	for _, obj := range []*unstructured.Unstructured{xr, claim} {
		conds, _ := conditions.FromUnstructured(obj)
		fmt.Println(obj.GetKind() + ":")
		for _, c := range conds {
			fmt.Printf("  %s=%s %s %q\n", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	// Output:
	// XApp:
	//   Synced=False ReconcileError "cannot compose resources: pipeline step \"app\" returned a fatal result: cannot read secret vault/ledger: x509: certificate signed by unknown authority"
	//   CompositeSynced=False ReconcileError "Internal error, the platform team has been alerted."
	// App:
	//   CompositeSynced=False ReconcileError "Internal error, the platform team has been alerted."
}
