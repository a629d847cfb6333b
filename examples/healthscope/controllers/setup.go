package controllers

import (
	"context"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
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
	"github.com/ctrlkit/ctrlkit/internal/informers"
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

	// WatchKinds are the kinds of workloads and child resources that a
	// HealthScope may hold and so have read and watched, cluster-wide: a
	// reference to, or a WorkloadDefinition's child resource kind of, any
	// other kind is refused (scopes.ErrKindNotAllowed), and nothing of it
	// is read or watched. The kinds of ClusterScopedWorkloads are allowed
	// too. Default: DefaultWatchKinds.
	WatchKinds []schema.GroupKind

	// InformerIdle is how long the informer of a kind that no HealthScope
	// holds any more keeps running before it stops. Default:
	// DefaultInformerIdle.
	InformerIdle time.Duration

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
	if o.WatchKinds == nil {
		o.WatchKinds = DefaultWatchKinds
	}
	if o.InformerIdle <= 0 {
		o.InformerIdle = DefaultInformerIdle
	}
	if o.Definitions.ScopeDefinition.Empty() && o.Definitions.WorkloadDefinition.Empty() {
		o.Definitions.ScopeDefinition = v1alpha1.ScopeDefinitionKind
		o.Definitions.WorkloadDefinition = v1alpha1.WorkloadDefinitionKind
	}
	return o
}

// DefaultReconcileTimeout is Options.ReconcileTimeout's default.
const DefaultReconcileTimeout = 10 * time.Second

// DefaultWatchKinds are Options.WatchKinds' default: the workload kinds of
// package apps, which the example's workloads and their children are.
var DefaultWatchKinds = []schema.GroupKind{
	{Group: "apps", Kind: "Deployment"}, {Group: "apps", Kind: "StatefulSet"},
	{Group: "apps", Kind: "DaemonSet"}, {Group: "apps", Kind: "ReplicaSet"},
}

// DefaultInformerIdle is Options.InformerIdle's default.
const DefaultInformerIdle = time.Minute

// allows reports whether o lets a HealthScope read and watch objects of
// kind gk.
func (o Options) allows(gk schema.GroupKind) bool {
	return slices.Contains(o.WatchKinds, gk) || slices.Contains(o.ClusterScopedWorkloads, gk)
}

// EventRecorderName is the reporting controller of the Application
// controller's events.
const EventRecorderName = "healthscope-example"

// The controllers' permissions: HealthScopes (whose workload references the
// Application controller patches) and their status; Applications (finalizer
// patches) and their status; the definitions; the workloads the demo's
// Applications create (Deployments, StatefulSets) and every kind of
// DefaultWatchKinds (ReplicaSets and DaemonSets too), listed and watched
// cluster-wide; the Events of the Application controller. Another
// --watch-kinds kind takes rules of its own.
//
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=healthscopes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=healthscopes/status,verbs=update
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=applications,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=applications/status,verbs=update
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=applications/finalizers,verbs=update
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=scopedefinitions;workloaddefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=apps,resources=replicasets;daemonsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Setup adds the Application and HealthScope controllers to mgr.
func Setup(mgr manager.Manager, o Options) error {
	o = o.withDefaults()
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &v1alpha1.HealthScope{}, workloadIndex, indexWorkloads); err != nil {
		return err
	}

	// Workloads and their children are read through a cache of their own,
	// whose informers stop when no scope holds their kind any more; the
	// definitions through the manager's, which watches them.
	workloads, err := informers.NewCache(mgr, "HealthScopes' workloads", nil)
	if err != nil {
		return err
	}
	hs := NewHealthScopeReconciler(mgr.GetClient(), nil, mgr.GetRESTMapper(), o)
	w := &kindWatcher{mapper: mgr.GetRESTMapper(), scopesOf: hs.scopesOf, users: map[types.NamespacedName][]informers.Kind{}}
	w.set = informers.New(workloads, informers.Options{Idle: o.InformerIdle, Allows: o.allows, Handler: w.handler})
	hs.reader = definitionsReader{defs: o.Definitions, definitions: mgr.GetCache(), workloads: w.set.Reader(workloads, mgr.GetScheme())}
	hs.track = w.track
	if err := builder.ControllerManagedBy(mgr).
		Named("healthscope").
		For(&v1alpha1.HealthScope{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.WorkloadDefinition{}, handler.EnqueueRequestsFromMapFunc(every(mgr.GetClient(), &v1alpha1.HealthScopeList{}))).
		WatchesRawSource(w).
		Complete(hs); err != nil {
		return err
	}

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
