package extref_test

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/extref"
	v1alpha1 "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
)

// WidgetReconciler resolves the references of a Widget, a namespaced kind
// with spec.externalValues and status.conditions.
type WidgetReconciler struct {
	client.Client
	resolver *extref.Resolver
}

// setupWidgets adds the Widget controller to mgr. The Watcher enqueues a
// Widget when a source it reads changes. A namespaced Widget may read
// sources in its own namespace; a SourcePolicy passed to NewResolver allows
// more.
func setupWidgets(mgr manager.Manager) error {
	w := extref.NewWatcher(mgr.GetCache())
	r := &WidgetReconciler{Client: mgr.GetClient(),
		resolver: extref.NewResolver(mgr.GetCache(), mgr.GetRESTMapper(), extref.SourcePolicy{}, extref.WithWatcher(w))}
	return builder.ControllerManagedBy(mgr).For(&v1alpha1.Widget{}).WatchesRawSource(w).Complete(r)
}

func (r *WidgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	widget := &v1alpha1.Widget{}
	if err := r.Get(ctx, req.NamespacedName, widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	out, err := r.resolver.Resolve(ctx, widget)
	if err == nil && out.Changed {
		return ctrl.Result{}, r.Update(ctx, widget) // only when a value changed
	}
	conditions.Set(&widget.Status.Conditions, extref.Condition(out, err, widget.Generation))
	return ctrl.Result{}, r.Status().Update(ctx, widget)
}

// Example_controller shows a controller for a kind with references; see
// setupWidgets and WidgetReconciler.Reconcile.
func Example_controller() {
	var mgr manager.Manager // e.g. from ctrl.NewManager
	if mgr != nil {
		_ = setupWidgets(mgr)
	}
}
