package controllers

import (
	"context"
	"errors"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/conflict"
	"github.com/ctrlkit/ctrlkit/scopes"
)

// HealthScopeRefPath is where a HealthScope takes workload references. Its
// ScopeDefinition declares the same path for application controllers; the
// HealthScope controller knows its own schema.
const HealthScopeRefPath = "spec.workloadRefs"

// A HealthScopeReconciler reports the health of a HealthScope's workloads.
type HealthScopeReconciler struct {
	client client.Client // reads HealthScopes, writes their status
	reader client.Reader // what Locate reads: workloads, definitions, children
	mapper meta.RESTMapper
	setter conditions.Setter
	defs   scopes.Definitions
	// kinds are the kinds Locate may read, and so the kinds watched; nil
	// is Locate's default, any kind but Secrets.
	kinds scopes.ReadKinds
	// cluster are the cluster-scoped kinds a scope may hold.
	cluster scopes.LocateOption

	// watch, when set, makes sure that changes to objects of a kind
	// requeue the scopes that hold them or their owners.
	watch func(schema.GroupVersionKind)
}

// NewHealthScopeReconciler returns a reconciler that reads HealthScopes and
// writes their status through c, and reads everything else through r (a
// manager's cache, so that the kinds it reads are the kinds it watches).
func NewHealthScopeReconciler(c client.Client, r client.Reader, mapper meta.RESTMapper, o Options) *HealthScopeReconciler {
	o = o.withDefaults()
	return &HealthScopeReconciler{client: c, reader: r, mapper: mapper, setter: conditions.NewSetter(conditions.WithClock(o.Clock)), defs: o.Definitions,
		cluster: scopes.ClusterScopedWorkloads(o.ClusterScopedWorkloads...)}
}

// Reconcile computes the HealthScope's status from its workloads and writes
// it when it changed.
func (r *HealthScopeReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	hs := &v1alpha1.HealthScope{}
	if err := r.client.Get(ctx, req.NamespacedName, hs); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hs)
	if err != nil {
		return reconcile.Result{}, err
	}
	scope := &unstructured.Unstructured{Object: content}
	scope.SetGroupVersionKind(v1alpha1.HealthScopeKind)

	located, locateErr := scopes.Locate(ctx, r.reader, r.mapper, scope, scopes.AtPath(HealthScopeRefPath), r.defs, r.kinds, r.cluster)
	r.watchKinds(located)

	status := v1alpha1.HealthScopeStatus{ObservedGeneration: hs.Generation, Conditions: slices.Clone(hs.Status.Conditions)}
	var ready metav1.Condition
	progress := conditions.Done
	switch {
	case located == nil && locateErr != nil && stalled(locateErr):
		// The references cannot be read as they are: only a change of
		// the scope helps.
		status.ScopeHealthCondition, status.HealthConditions = hs.Status.ScopeHealthCondition, hs.Status.HealthConditions
		ready = metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionFalse, Reason: ReasonLocateFailed, Message: locateErr.Error(), ObservedGeneration: hs.Generation}
		progress = conditions.Stalled
	case located == nil && locateErr != nil:
		// The references themselves could not be read: keep the last
		// health seen, and say why it may be stale.
		status.ScopeHealthCondition, status.HealthConditions = hs.Status.ScopeHealthCondition, hs.Status.HealthConditions
		ready = metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionUnknown, Reason: ReasonLocateFailed, Message: locateErr.Error(), ObservedGeneration: hs.Generation}
	default:
		status.ScopeHealthCondition, status.HealthConditions = Assess(located)
		ready = readyCondition(status.ScopeHealthCondition, hs.Generation)
	}
	if ready.Status == metav1.ConditionUnknown {
		progress = conditions.Working
	}
	r.setter.Set(&status.Conditions, ready)
	r.setter.SetProgress(&status.Conditions, hs.Generation, progress, ready.Reason, ready.Message)

	if !equality.Semantic.DeepEqual(hs.Status, status) {
		hs.Status = status
		if err := r.client.Status().Update(ctx, hs); err != nil {
			return reconcile.Result{}, conflict.Ignore(err)
		}
	}
	// A workload that does not exist yet is seen through its kind's watch,
	// and a kind Locate may not read, or a reference to another namespace,
	// waits for a change of the scope or of a definition; any other failure
	// (a kind not installed, an API error) is retried with backoff.
	for _, l := range located {
		if l.Err != nil && !apierrors.IsNotFound(l.Err) && !errors.Is(l.Err, scopes.ErrKindNotAllowed) && !errors.Is(l.Err, scopes.ErrInvalidRef) {
			return reconcile.Result{}, l.Err
		}
	}
	if located == nil {
		return reconcile.Result{}, locateErr
	}
	return reconcile.Result{}, nil
}

// watchKinds watches the kinds of the located workloads and of their child
// resources: the kinds Locate read, never one it may not read, so that a
// scope's references cannot make the cache watch Secrets.
func (r *HealthScopeReconciler) watchKinds(located []scopes.Located) {
	if r.watch == nil {
		return
	}
	watch := func(apiVersion, kind string) {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if gvk := gv.WithKind(kind); err == nil && r.kinds.Allows(gvk.GroupKind()) {
			r.watch(gvk)
		}
	}
	for _, l := range located {
		if errors.Is(l.Err, scopes.ErrInvalidRef) {
			continue // refused: nothing of it is read
		}
		watch(l.Ref.APIVersion, l.Ref.Kind)
		kinds, _ := scopes.ChildResourceKinds(l.Definition)
		for _, k := range kinds {
			watch(k.APIVersion, k.Kind)
		}
	}
}

// scopesOf maps an object to the HealthScopes that hold it or one of its
// owners, through the workload index.
func (r *HealthScopeReconciler) scopesOf(ctx context.Context, obj client.Object) []reconcile.Request {
	apiVersion, kind := obj.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
	keys := []string{workloadKey(apiVersion, kind, obj.GetName())}
	for _, o := range obj.GetOwnerReferences() {
		keys = append(keys, workloadKey(o.APIVersion, o.Kind, o.Name))
	}
	var reqs []reconcile.Request
	for _, k := range keys {
		list := &v1alpha1.HealthScopeList{}
		if err := r.client.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{workloadIndex: k}); err != nil {
			log.FromContext(ctx).Error(err, "cannot list the HealthScopes of a workload", "workload", k)
			continue
		}
		for _, hs := range list.Items {
			req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&hs)}
			if !slices.Contains(reqs, req) {
				reqs = append(reqs, req)
			}
		}
	}
	return reqs
}

// workloadIndex indexes HealthScopes by the workloads they hold.
const workloadIndex = "healthscope.example.ctrlkit.dev/workload"

// workloadKey is a workload's key in workloadIndex: group, kind and name,
// so that any version of the kind finds it.
func workloadKey(apiVersion, kind, name string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.Group + "/" + kind + "/" + name
}

func indexWorkloads(o client.Object) []string {
	hs, ok := o.(*v1alpha1.HealthScope)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(hs.Spec.WorkloadRefs))
	for _, r := range hs.Spec.WorkloadRefs {
		keys = append(keys, workloadKey(r.APIVersion, r.Kind, r.Name))
	}
	return keys
}

// A kindWatcher adds a watch to a running controller the first time it meets
// a kind: a scope's workloads and their children may be of any kind, known
// only once a scope holds them.
type kindWatcher struct {
	ctrl    controller.Controller
	cache   cache.Cache
	mapper  meta.RESTMapper
	handler handler.TypedEventHandler[*unstructured.Unstructured, reconcile.Request]

	mu      sync.Mutex
	watched map[schema.GroupVersionKind]bool
}

func (w *kindWatcher) watch(gvk schema.GroupVersionKind) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[gvk] {
		return
	}
	// A kind that is not installed would make the source retry and log
	// forever; Locate reports it, and the scope is retried.
	if _, err := w.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		return
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	if err := w.ctrl.Watch(source.Kind(w.cache, obj, w.handler)); err != nil {
		return
	}
	w.watched[gvk] = true
}

// stalled reports whether a scope's references cannot be read without a
// change of the scope: an entry that is not a reference, or a definition
// that declares no reference path. Anything else (a definition not yet
// installed, an API error) may pass.
func stalled(err error) bool {
	return errors.Is(err, scopes.ErrMalformed) || errors.Is(err, scopes.ErrInvalidRef) || errors.Is(err, scopes.ErrNoRefPath)
}
