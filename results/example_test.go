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
