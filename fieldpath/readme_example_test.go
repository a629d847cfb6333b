package fieldpath_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	ctrl "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// Reconciler copies an object's region label into its status.
type Reconciler struct {
	client.Client
	GVK schema.GroupVersionKind
}

func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.GVK)
	if err := r.Get(ctx, req.NamespacedName, u); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	p := fieldpath.Pave(u.Object)
	region, err := p.GetString("metadata.labels[topology.kubernetes.io/region]")
	if err != nil && !fieldpath.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	if err := p.SetValue("status.atProvider.region", region); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.Status().Update(ctx, u)
}

// Example_reconcile runs the README's fieldpath reconciler on a fake client.
func Example_reconcile() {
	gvk := schema.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "Database"}
	db := &unstructured.Unstructured{}
	db.SetGroupVersionKind(gvk)
	db.SetNamespace("default")
	db.SetName("orders")
	db.SetLabels(map[string]string{"topology.kubernetes.io/region": "eu-west-1"})
	c := fake.NewClientBuilder().WithObjects(db).WithStatusSubresource(db).Build()

	r := &Reconciler{Client: c, GVK: gvk}
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "orders"}}
	if _, err := r.Reconcile(context.Background(), req); err != nil {
		fmt.Println(err)
		return
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(gvk)
	_ = c.Get(context.Background(), req.NamespacedName, got)
	region, _, _ := unstructured.NestedString(got.Object, "status", "atProvider", "region")
	fmt.Println(region)
	// Output:
	// eu-west-1
}
