package controller_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/extref"
)

// SubnetReconciler is the README's extref example.
type SubnetReconciler struct {
	client.Client
	resolver *extref.Resolver
}

// setup adds the Subnet controller to mgr. v1alpha1 is
// github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1. Subnets are
// cluster-scoped, so the default SourcePolicy allows them nothing: say what
// they may read (examples/extref/controller.Policy is the complete one).
func setup(mgr manager.Manager) error {
	policy := extref.SourcePolicy{Allow: []extref.SourceRule{
		{Name: "vpcs", Group: v1alpha1.GroupVersion.Group, Resource: "vpcs"}}}
	w := extref.NewWatcher(mgr.GetCache())
	r := &SubnetReconciler{Client: mgr.GetClient(),
		resolver: extref.NewResolver(mgr.GetCache(), mgr.GetRESTMapper(), policy, extref.WithWatcher(w))}
	return builder.ControllerManagedBy(mgr).For(&v1alpha1.Subnet{}).WatchesRawSource(w).Complete(r)
}

func (r *SubnetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	subnet := &v1alpha1.Subnet{}
	if err := r.Get(ctx, req.NamespacedName, subnet); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	out, err := r.resolver.Resolve(ctx, subnet)
	if err == nil && out.Changed {
		return ctrl.Result{}, r.Update(ctx, subnet) // only when a value changed
	}
	conditions.Set(&subnet.Status.Conditions, extref.Condition(out, err, subnet.Generation))
	return ctrl.Result{}, r.Status().Update(ctx, subnet)
}

// unstructuredFrom decodes a YAML manifest.
func unstructuredFrom(doc string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		panic(err)
	}
	return u
}

// Example_subnetReconciler runs the README's extref reconciler on a fake
// client with the README's policy: the first reconcile copies the VPC's CIDR
// into the Subnet, the second reports the references resolved.
func Example_subnetReconciler() {
	scheme := runtime.NewScheme()
	_ = v1alpha1.AddToScheme(scheme)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(v1alpha1.GroupVersion.WithKind("VPC"), meta.RESTScopeRoot)
	mapper.Add(v1alpha1.GroupVersion.WithKind("Subnet"), meta.RESTScopeRoot)
	vpc := unstructuredFrom(`
apiVersion: ` + v1alpha1.GroupVersion.String() + `
kind: VPC
metadata: {name: main}
spec: {forProvider: {cidrBlock: 10.0.0.0/16}}`)
	subnet := unstructuredFrom(`
apiVersion: ` + v1alpha1.GroupVersion.String() + `
kind: Subnet
metadata: {name: a, generation: 1}
spec:
  externalValues:
  - fromObject: {group: ` + v1alpha1.GroupVersion.Group + `, version: ` + v1alpha1.GroupVersion.Version + `, resource: vpcs, name: main, fieldPath: spec.forProvider.cidrBlock}
    toFieldPath: spec.cidrBlock`)
	c := fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(mapper).
		WithObjects(vpc, subnet).WithStatusSubresource(&v1alpha1.Subnet{}).Build()

	policy := extref.SourcePolicy{Allow: []extref.SourceRule{
		{Name: "vpcs", Group: v1alpha1.GroupVersion.Group, Resource: "vpcs"}}}
	r := &SubnetReconciler{Client: c, resolver: extref.NewResolver(c, mapper, policy)}
	ctx := context.Background()
	req := ctrl.Request{NamespacedName: client.ObjectKey{Name: "a"}}
	for range 2 {
		if _, err := r.Reconcile(ctx, req); err != nil {
			fmt.Println(err)
			return
		}
		got := &v1alpha1.Subnet{}
		_ = c.Get(ctx, req.NamespacedName, got)
		resolved := "not yet reported"
		if cond := conditions.Get(got.Status.Conditions, extref.TypeReferencesResolved); cond != nil {
			resolved = string(cond.Status) + " " + cond.Reason
		}
		fmt.Printf("cidrBlock %s, ReferencesResolved: %s\n", got.Spec.CIDRBlock, resolved)
	}
	_ = setup // setup needs a manager, that is an API server; Setup in controller.go is tested on one
	// Output:
	// cidrBlock 10.0.0.0/16, ReferencesResolved: not yet reported
	// cidrBlock 10.0.0.0/16, ReferencesResolved: True Resolved
}
