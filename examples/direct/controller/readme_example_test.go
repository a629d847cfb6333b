package controller_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
)

// Reconciler is the README's conditions example.
type Reconciler struct {
	client.Client
}

// v1alpha1 is github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ds := &v1alpha1.Dataset{}
	if err := r.Get(ctx, req.NamespacedName, ds); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	changed := conditions.Set(&ds.Status.Conditions, metav1.Condition{
		Type: "SourceReady", Status: metav1.ConditionFalse, Reason: "NotFound",
		Message: "source table orders does not exist", ObservedGeneration: ds.Generation,
	})
	if !changed {
		return ctrl.Result{}, nil // no write without a change
	}
	return ctrl.Result{}, r.Status().Update(ctx, ds)
}

// Example_conditions runs the README's conditions reconciler twice on a fake
// client: the second run writes nothing.
func Example_conditions() {
	scheme := runtime.NewScheme()
	_ = v1alpha1.AddToScheme(scheme)
	ds := &v1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "orders", Generation: 1}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ds).WithStatusSubresource(ds).Build()
	r := &Reconciler{Client: c}
	ctx := context.Background()
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "orders"}}

	for range 2 {
		if _, err := r.Reconcile(ctx, req); err != nil {
			fmt.Println(err)
			return
		}
		got := &v1alpha1.Dataset{}
		_ = c.Get(ctx, req.NamespacedName, got)
		cond := conditions.Get(got.Status.Conditions, "SourceReady")
		fmt.Println(got.ResourceVersion, cond.Status, cond.Reason)
	}
	// Output:
	// 1000 False NotFound
	// 1000 False NotFound
}
