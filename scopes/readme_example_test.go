package scopes_test

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrl "sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/scopes"
)

// AppReconciler is the README's scopes example: an application controller
// that adds its workload to a scope.
type AppReconciler struct {
	client.Client
	RESTMapper meta.RESTMapper
}

func (r *AppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	web := &unstructured.Unstructured{}
	web.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err := r.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: "web"}, web); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	scope := scopes.ScopeRef{APIVersion: "core.oam.dev/v1alpha2", Kind: "HealthScope", Namespace: req.Namespace, Name: "example"}
	_, err := scopes.PatchWorkloadRefs(ctx, r.Client, r.RESTMapper, scope,
		scopes.Change{Add: []scopes.WorkloadRef{scopes.RefOf(web)}})
	return ctrl.Result{}, err // no write when the reference is already there
}

// Example_reconcile wires the README's AppReconciler to a manager. It needs
// an API server with the scope's ScopeDefinition, so it is compiled, not run;
// PatchWorkloadRefs is tested against a real one in apiserver_test.go.
func Example_reconcile() {
	var mgr interface {
		GetClient() client.Client
		GetRESTMapper() meta.RESTMapper
	} // a controller-runtime manager.Manager
	if mgr == nil {
		return
	}
	r := &AppReconciler{Client: mgr.GetClient(), RESTMapper: mgr.GetRESTMapper()}
	_, _ = r.Reconcile(context.Background(), ctrl.Request{})
}
