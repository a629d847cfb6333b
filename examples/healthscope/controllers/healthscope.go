package controllers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/conflict"
	"github.com/ctrlkit/ctrlkit/internal/informers"
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
	// kinds are the kinds Locate may read: Options.WatchKinds, and
	// cluster-scoped kinds, which Locate refuses for a namespaced scope
	// unless ClusterScopedWorkloads allows them.
	kinds scopes.ReadKinds
	// cluster are the cluster-scoped kinds a scope may hold.
	cluster scopes.LocateOption

	// track, when set, is told the kinds each scope's workloads and their
	// children are of, so that changes to objects of those kinds requeue
	// the scopes that hold them or their owners.
	track func(types.NamespacedName, []schema.GroupVersionKind)
}

// NewHealthScopeReconciler returns a reconciler that reads HealthScopes and
// writes their status through c, and reads everything else through r (a
// cache, so that the kinds it reads are the kinds it watches). It reads
// workloads and child resources only of the kinds Options.WatchKinds
// allows.
func NewHealthScopeReconciler(c client.Client, r client.Reader, mapper meta.RESTMapper, o Options) *HealthScopeReconciler {
	o = o.withDefaults()
	kinds := func(gk schema.GroupKind) bool {
		if o.allows(gk) {
			return true
		}
		// Refused by Locate's namespace rule, naming the entry, before
		// anything is read.
		m, err := mapper.RESTMapping(gk)
		return err == nil && m.Scope.Name() == meta.RESTScopeNameRoot
	}
	return &HealthScopeReconciler{client: c, reader: r, mapper: mapper, setter: conditions.NewSetter(conditions.WithClock(o.Clock)), defs: o.Definitions,
		kinds: kinds, cluster: scopes.ClusterScopedWorkloads(o.ClusterScopedWorkloads...)}
}

// Reconcile computes the HealthScope's status from its workloads and writes
// it when it changed.
func (r *HealthScopeReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	hs := &v1alpha1.HealthScope{}
	if err := r.client.Get(ctx, req.NamespacedName, hs); err != nil {
		if apierrors.IsNotFound(err) && r.track != nil {
			r.track(req.NamespacedName, nil)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hs)
	if err != nil {
		return reconcile.Result{}, err
	}
	scope := &unstructured.Unstructured{Object: content}
	scope.SetGroupVersionKind(v1alpha1.HealthScopeKind)

	located, locateErr := scopes.Locate(ctx, r.reader, r.mapper, scope, scopes.AtPath(HealthScopeRefPath), r.defs, r.kinds, r.cluster)
	r.trackKinds(req.NamespacedName, located)

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
		ready = readyCondition(status.ScopeHealthCondition, status.HealthConditions, hs.Generation)
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
		if l.Err != nil && !apierrors.IsNotFound(l.Err) && !errors.Is(l.Err, scopes.ErrKindNotAllowed) && !errors.Is(l.Err, scopes.ErrInvalidRef) && !errors.Is(l.Err, informers.ErrNotAllowed) {
			return reconcile.Result{}, l.Err
		}
	}
	if located == nil {
		return reconcile.Result{}, locateErr
	}
	return reconcile.Result{}, nil
}

// trackKinds tells track the kinds of the located workloads and of their
// child resources: the kinds Locate read, never one it refused.
func (r *HealthScopeReconciler) trackKinds(scope types.NamespacedName, located []scopes.Located) {
	if r.track == nil {
		return
	}
	var gvks []schema.GroupVersionKind
	add := func(apiVersion, kind string) {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if gvk := gv.WithKind(kind); err == nil && r.kinds.Allows(gvk.GroupKind()) && !slices.Contains(gvks, gvk) {
			gvks = append(gvks, gvk)
		}
	}
	for _, l := range located {
		if errors.Is(l.Err, scopes.ErrInvalidRef) || errors.Is(l.Err, scopes.ErrKindNotAllowed) && l.Workload == nil {
			continue // refused: nothing of it is read
		}
		add(l.Ref.APIVersion, l.Ref.Kind)
		kinds, _ := scopes.ChildResourceKinds(l.Definition)
		for _, k := range kinds {
			add(k.APIVersion, k.Kind)
		}
	}
	r.track(scope, gvks)
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

// A kindWatcher watches the kinds a scope's workloads and their children
// are of, known only once a scope holds them, and stops watching a kind
// once no scope has held it for Options.InformerIdle. It is the
// controller's source of events for those objects.
type kindWatcher struct {
	set      *informers.Set
	mapper   meta.RESTMapper
	scopesOf func(context.Context, client.Object) []reconcile.Request

	mu    sync.Mutex
	ctx   context.Context
	queue workqueue.TypedRateLimitingInterface[reconcile.Request]
	users map[types.NamespacedName][]informers.Kind // the kinds of each scope
}

// Start implements source.Source.
func (w *kindWatcher) Start(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	w.mu.Lock()
	w.ctx, w.queue = ctx, q
	w.mu.Unlock()
	w.set.Start(ctx)
	return nil
}

// track records the kinds scope holds, replacing those it held before.
// Kinds that are not installed are left out: their informer could not
// start, and Locate reports them.
func (w *kindWatcher) track(scope types.NamespacedName, gvks []schema.GroupVersionKind) {
	var kinds []informers.Kind
	for _, gvk := range gvks {
		if _, err := w.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
			kinds = append(kinds, informers.Kind{GVK: gvk})
		}
	}
	w.mu.Lock()
	old := w.users[scope]
	if slices.Equal(old, kinds) {
		w.mu.Unlock()
		return
	}
	if len(kinds) == 0 {
		delete(w.users, scope)
	} else {
		w.users[scope] = kinds
	}
	w.mu.Unlock()
	w.set.Update(old, kinds)
}

// handler enqueues the scopes that hold an object of kind k, or one of its
// owners, when it changes.
func (w *kindWatcher) handler(informers.Kind) toolscache.ResourceEventHandler {
	enqueue := func(obj any) {
		if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		o, ok := obj.(client.Object)
		if !ok {
			return
		}
		w.mu.Lock()
		ctx, q := w.ctx, w.queue
		w.mu.Unlock()
		if q == nil {
			return
		}
		for _, req := range w.scopesOf(ctx, o) {
			q.Add(req)
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: enqueue,
		UpdateFunc: func(old, obj any) {
			o, err1 := meta.Accessor(old)
			n, err2 := meta.Accessor(obj)
			if err1 == nil && err2 == nil && o.GetResourceVersion() == n.GetResourceVersion() {
				return // a resync
			}
			enqueue(obj)
		},
		DeleteFunc: enqueue,
	}
}

// definitionsReader reads definitions through the manager's cache, and
// workloads and their children through the kindWatcher's.
type definitionsReader struct {
	defs                   scopes.Definitions
	definitions, workloads client.Reader
}

func (r definitionsReader) reader(obj runtime.Object) client.Reader {
	gk := obj.GetObjectKind().GroupVersionKind().GroupKind()
	gk.Kind = strings.TrimSuffix(gk.Kind, "List")
	if gk == r.defs.ScopeDefinition.GroupKind() || gk == r.defs.WorkloadDefinition.GroupKind() {
		return r.definitions
	}
	return r.workloads
}

func (r definitionsReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return r.reader(obj).Get(ctx, key, obj, opts...)
}

func (r definitionsReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return r.reader(list).List(ctx, list, opts...)
}

// stalled reports whether a scope's references cannot be read without a
// change of the scope: an entry that is not a reference, or a definition
// that declares no reference path. Anything else (a definition not yet
// installed, an API error) may pass.
func stalled(err error) bool {
	return errors.Is(err, scopes.ErrMalformed) || errors.Is(err, scopes.ErrInvalidRef) || errors.Is(err, scopes.ErrNoRefPath)
}
