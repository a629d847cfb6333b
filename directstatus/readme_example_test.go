package directstatus_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	ctrl "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/fielddiff"
)

const syncPeriod = 10 * time.Minute

// cloud is the API a direct controller calls.
type cloud interface {
	Update(ctx context.Context, desired map[string]any) error
}

// reconciler is the README's directstatus example.
type reconciler struct {
	status *directstatus.Writer
	cloud  cloud
}

// sync brings the cloud resource actual to desired, obj's spec, and says so
// in obj's Ready condition.
func (r *reconciler) sync(ctx context.Context, obj client.Object, desired, actual map[string]any) (ctrl.Result, error) {
	// r.status = directstatus.NewWriter(mgr.GetClient())
	first, changed, err := fielddiff.FirstChangedField(desired, actual, fielddiff.Prefix("spec"))
	if err != nil {
		return ctrl.Result{}, err
	}
	if !changed { // a periodic sync with nothing to do writes nothing
		_, err := r.status.SetReady(ctx, obj, directstatus.UpToDate())
		return ctrl.Result{RequeueAfter: syncPeriod}, err
	}
	op, err := r.status.StartUpdate(ctx, obj, first) // Ready=False Updating, before the call
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.cloud.Update(ctx, desired); err != nil {
		return ctrl.Result{}, op.Failed(ctx, err) // Ready=False UpdateFailure, same first field
	}
	return ctrl.Result{RequeueAfter: syncPeriod}, op.Succeeded(ctx) // Ready=True UpToDate
}

// failingCloud refuses every update.
type failingCloud struct{}

func (failingCloud) Update(context.Context, map[string]any) error {
	return errors.New("quota exceeded")
}

// Example_sync runs the README's directstatus example on a fake client: an
// update that the cloud refuses, then a sync with nothing to change.
func Example_sync() {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("example.org/v1")
	obj.SetKind("Dataset")
	obj.SetNamespace("default")
	obj.SetName("orders")
	obj.SetGeneration(1)
	c := fake.NewClientBuilder().WithObjects(obj).WithStatusSubresource(obj).Build()
	ctx := context.Background()
	_ = c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	r := &reconciler{status: directstatus.NewWriter(c), cloud: failingCloud{}}

	show := func() {
		stored := &unstructured.Unstructured{}
		stored.SetGroupVersionKind(obj.GroupVersionKind())
		_ = c.Get(ctx, client.ObjectKeyFromObject(obj), stored)
		conds, _ := conditions.FromUnstructured(stored)
		if ready := conditions.Get(conds, "Ready"); ready != nil {
			fmt.Printf("Ready=%s %s: %s\n", ready.Status, ready.Reason, ready.Message)
		}
	}

	desired := map[string]any{"description": "orders, v2", "location": "EU"}
	actual := map[string]any{"description": "orders", "location": "EU"}
	_, err := r.sync(ctx, obj, desired, actual)
	fmt.Println("error:", err)
	show()

	_, err = r.sync(ctx, obj, actual, actual)
	fmt.Println("error:", err)
	show()
	// Output:
	// error: quota exceeded
	// Ready=False UpdateFailure: Failed to update resource (first field path: spec.description): quota exceeded
	// error: <nil>
	// Ready=True UpToDate: Resource is up to date
}
