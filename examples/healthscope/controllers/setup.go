package controllers

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/scopes"
)

// Options configure the controllers.
type Options struct {
	// Clock stamps lastTransitionTime. Default: the real clock.
	Clock clock.PassiveClock

	// Definitions are where ScopeDefinitions and WorkloadDefinitions live.
	// Default: this example's kinds, in healthscope.example.ctrlkit.dev.
	Definitions scopes.Definitions

	// ClusterScopedWorkloads are the cluster-scoped kinds a HealthScope may
	// hold (see scopes.ClusterScopedWorkloads). Default: none; a reference
	// to a cluster-scoped kind is refused, and nothing outside the scope's
	// namespace is read or reported.
	ClusterScopedWorkloads []schema.GroupKind

	// ReconcileTimeout bounds one reconcile of an Application: when it
	// passes, the scope writes still retrying give up and the Application
	// is requeued with back-off, so that a tenant whose scopes keep
	// changing cannot hold the controller's worker from other tenants.
	// Default: 10s.
	ReconcileTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.ReconcileTimeout <= 0 {
		o.ReconcileTimeout = DefaultReconcileTimeout
	}
	if o.Definitions.ScopeDefinition.Empty() && o.Definitions.WorkloadDefinition.Empty() {
		o.Definitions.ScopeDefinition = v1alpha1.ScopeDefinitionKind
		o.Definitions.WorkloadDefinition = v1alpha1.WorkloadDefinitionKind
	}
	return o
}

// DefaultReconcileTimeout is Options.ReconcileTimeout's default.
const DefaultReconcileTimeout = 10 * time.Second

// EventRecorderName is the reporting controller of the Application
// controller's events.
const EventRecorderName = "healthscope-example"

// Setup adds the Application and HealthScope controllers to mgr.
func Setup(mgr manager.Manager, o Options) error {
	o = o.withDefaults()
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.HealthScope{}, workloadIndex, indexWorkloads); err != nil {
		return err
	}

	hs := NewHealthScopeReconciler(mgr.GetClient(), mgr.GetCache(), mgr.GetRESTMapper(), o)
	ctrl, err := builder.ControllerManagedBy(mgr).
		Named("healthscope").
		For(&v1alpha1.HealthScope{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.WorkloadDefinition{}, handler.EnqueueRequestsFromMapFunc(every(mgr.GetClient(), &v1alpha1.HealthScopeList{}))).
		Build(hs)
	if err != nil {
		return err
	}
	w := &kindWatcher{
		ctrl: ctrl, cache: mgr.GetCache(), mapper: mgr.GetRESTMapper(),
		handler: handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, u *unstructured.Unstructured) []reconcile.Request {
			return hs.scopesOf(ctx, u)
		}),
		watched: map[schema.GroupVersionKind]bool{},
	}
	hs.watch = w.watch

	app := NewApplicationReconciler(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetRESTMapper(), mgr.GetScheme(), mgr.GetEventRecorder(EventRecorderName), o)
	return builder.ControllerManagedBy(mgr).
		Named("application").
		For(&v1alpha1.Application{}).
		// The default worker count; each reconcile bounded in time.
		WithOptions(controller.Options{ReconciliationTimeout: o.ReconcileTimeout}).
		Watches(&v1alpha1.ScopeDefinition{}, handler.EnqueueRequestsFromMapFunc(every(mgr.GetClient(), &v1alpha1.ApplicationList{}))).
		Complete(app)
}

// every maps any event to every object of a list kind: a definition changes
// rarely, and may matter to any of them.
func every(c client.Reader, list client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, _ client.Object) []reconcile.Request {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, l); err != nil {
			log.FromContext(ctx).Error(err, "cannot list objects to requeue")
			return nil
		}
		var reqs []reconcile.Request
		_ = meta.EachListItem(l, func(o runtime.Object) error {
			if co, ok := o.(client.Object); ok {
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(co)})
			}
			return nil
		})
		return reqs
	}
}
