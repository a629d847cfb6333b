package results_test

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	ctrl "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/results"
	v1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

// xrReconciler is the control plane side of the README's results example.
type xrReconciler struct {
	client.Client
	applier *results.Applier
}

// apply applies a pipeline step's response to xr and its claim and writes
// each that changed.
func (r *xrReconciler) apply(ctx context.Context, rsp *v1.RunFunctionResponse, xr, claim *unstructured.Unstructured) (ctrl.Result, error) {
	out, err := r.applier.Apply(results.FromCrossplane(rsp), xr, claim, results.Step("check-image"))
	if err != nil {
		return ctrl.Result{}, err // malformed status; nothing changed
	}
	if out.CompositeChanged {
		if err := r.Status().Update(ctx, xr); err != nil {
			return ctrl.Result{}, err
		}
	}
	if out.ClaimChanged {
		err = r.Status().Update(ctx, claim)
	}
	return ctrl.Result{}, err
}

// Example_controlPlane runs the README's control plane side on a fake client:
// the claim is written and shows the condition the function set for it.
func Example_controlPlane() {
	xr := &unstructured.Unstructured{}
	xr.SetAPIVersion("example.org/v1")
	xr.SetKind("XApp")
	xr.SetName("shop-xyz12")
	xr.SetGeneration(1)
	claim := &unstructured.Unstructured{}
	claim.SetAPIVersion("example.org/v1")
	claim.SetKind("App")
	claim.SetNamespace("team-a")
	claim.SetName("shop")
	claim.SetGeneration(1)
	c := fake.NewClientBuilder().WithObjects(xr, claim).WithStatusSubresource(xr, claim).Build()
	ctx := context.Background()
	_ = c.Get(ctx, client.ObjectKeyFromObject(xr), xr)
	_ = c.Get(ctx, client.ObjectKeyFromObject(claim), claim)

	rsp := &v1.RunFunctionResponse{}
	response.Fatal(rsp, errors.New("The image provided does not exist or you are not authorized to use it.")).
		ConditionFalse("ImageReady", "NotFound").
		TargetCompositeAndClaim()

	r := &xrReconciler{Client: c, applier: results.NewApplier(nil)}
	if _, err := r.apply(ctx, rsp, xr, claim); err != nil {
		fmt.Println(err)
		return
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(claim.GroupVersionKind())
	_ = c.Get(ctx, client.ObjectKeyFromObject(claim), stored)
	conds, _ := conditions.FromUnstructured(stored)
	for _, c := range conds {
		fmt.Printf("%s=%s %s %q\n", c.Type, c.Status, c.Reason, c.Message)
	}
	// Output:
	// ImageReady=False NotFound "The image provided does not exist or you are not authorized to use it."
}
