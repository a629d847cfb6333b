package extref

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/internal/lastwrite"
	"github.com/ctrlkit/ctrlkit/internal/message"
)

// UnknownResourceRetry is how long the reconciler waits before trying a
// resource the RESTMapper does not know again, in case no CRD event comes
// (an aggregated API, or no RBAC to watch CRDs).
const UnknownResourceRetry = 30 * time.Second

// Options configure SetupReconciler.
type Options struct {
	// Policy says which sources referencers may read; the zero
	// SourcePolicy is NewResolver's default.
	Policy SourcePolicy

	// Resolver options: WithAccessReview, Path, ReadTimeout,
	// ProtectedFields.
	// SetupReconciler adds WithWatcher itself.
	Resolver []ResolverOption

	// Name of the controller; defaults to "extref-" and the lower-case kind.
	Name string

	// Clock stamps condition transitions and times the write budget, and
	// is the Resolver's and the Watcher's (WithClock; a WithClock in
	// Resolver wins for the Resolver); nil means the real clock.
	Clock clock.PassiveClock

	// Writes bounds the writes to each referencer; the zero value is
	// DefaultBudgetWrites in DefaultBudgetWindow.
	Writes WriteBudget

	// InformerIdle is how long an informer of sources that no referencer
	// needs any more keeps running; 0 means DefaultInformerIdle.
	InformerIdle time.Duration

	// Workers is how many referencers are reconciled at once; 0 means
	// DefaultWorkers.
	Workers int
}

// DefaultWorkers is how many referencers SetupReconciler's controller
// reconciles at once unless Options.Workers says otherwise.
const DefaultWorkers = 4

// SetupReconciler adds to mgr a controller that resolves the external
// values of every object of kind gvk, which it handles as unstructured
// content: any kind whose schema embeds the external values (see
// v1alpha1.ExternalValuesSchema), such as a Crossplane composite resource,
// needs no Go type and no other code. The kind needs a status subresource
// for the ReferencesResolved condition.
//
// Each reconcile resolves the referencer and writes it only when a value
// changed, and writes the condition through the status subresource only
// when it changed, so a settled referencer costs no write. After a value
// write the condition (its observedGeneration) waits for the reconcile that
// the write's own watch event brings, behind the reconciles already queued:
// when many sources change at once, every referencer gets its values before
// any gets its condition, at the cost of a second reconcile, which reads
// nothing from the API server. A failure is
// reported by the condition and a Warning event, and so is a write the API
// server rejects (422 Invalid, 400 Bad Request: the resolved values do not
// fit the referencer's schema), as ReasonWriteRejected; the controller retries
// when a source changes (through a Watcher), not on a timer, except for a
// transient read error (with backoff) and an unknown resource (after
// UnknownResourceRetry unless its CRD appears first). Obscure values
// (makeAvailableAs) are resolved, so that their failures show, and
// discarded: a controller that uses them calls Resolve itself.
//
// Sources are read through a cache of the controller's own
// (NewSourceCache), with the manager's credentials, which must be able to
// list and watch every kind the referencers read. An informer is started
// only for a kind a referencer's read was allowed, and stopped when no
// referencer has needed it for Options.InformerIdle.
func SetupReconciler(mgr manager.Manager, gvk schema.GroupVersionKind, o Options) error {
	r, err := newReconciler(mgr, gvk, o)
	if err != nil {
		return err
	}
	return r.controller(mgr).Complete(r)
}

// newReconciler builds the reconciler that SetupReconciler registers, with
// its Watcher over a SourceCache of its own.
func newReconciler(mgr manager.Manager, gvk schema.GroupVersionKind, o Options) (*reconciler, error) {
	name := o.Name
	if name == "" {
		name = "extref-" + strings.ToLower(gvk.Kind)
	}
	kinds := &unreadableKinds{}
	sources, err := newSourceCache(mgr, kinds)
	if err != nil {
		return nil, err
	}
	idle := o.InformerIdle
	if idle <= 0 {
		idle = DefaultInformerIdle
	}
	w := NewWatcher(sources, InformerIdle(idle), WithClock(o.Clock))
	workers := o.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	return &reconciler{
		name:     name,
		workers:  workers,
		gvk:      gvk,
		cache:    mgr.GetCache(),
		api:      mgr.GetAPIReader(),
		client:   mgr.GetClient(),
		resolver: NewResolver(sources, mgr.GetRESTMapper(), o.Policy, append(append([]ResolverOption{WithClock(o.Clock)}, o.Resolver...), WithWatcher(w), sharedKinds{kinds})...),
		watcher:  w,
		recorder: mgr.GetEventRecorder(name),
		setter:   conditions.NewSetter(conditions.WithClock(o.Clock)),
		guard:    newWriteGuard(o.Writes, o.Clock),
	}, nil
}

// controller is the controller of r's referencers, watching them and r's
// sources, short of the reconciler that Complete takes.
func (r *reconciler) controller(mgr manager.Manager) *builder.Builder {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.gvk)
	return builder.ControllerManagedBy(mgr).Named(r.name).For(u, builder.WithPredicates(r.unreconciled())).WatchesRawSource(r.watcher).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.workers})
}

// reconciler resolves the external values of one kind of referencer.
type reconciler struct {
	name     string // of the controller
	workers  int    // reconciles at once
	gvk      schema.GroupVersionKind
	cache    client.Reader // the manager's cache
	api      client.Reader // the API server, after a conflict
	client   client.Client // writes
	resolver *Resolver
	watcher  *Watcher
	recorder events.EventRecorder // may be nil
	setter   conditions.Setter
	guard    *writeGuard

	// written is the resourceVersion of each referencer after this
	// reconciler's last write, so that a reconcile from a cache that has
	// not seen the write yet is skipped instead of writing again.
	written lastwrite.Tracker
}

// maxEventNote is the longest note the API server accepts in an
// events.k8s.io/v1 Event; a longer one is refused, and the event lost.
const maxEventNote = 1024

// staleRetry is a safety net for a reconcile skipped because the cache was
// behind: the watch event of the write it missed normally comes first, and
// the retry after lastwrite.MaxBehind reads from the API server.
const staleRetry = time.Second

// unreconciled lets through every event of a referencer but an update to a
// version that a reconcile has already read or written
// (lastwrite.Tracker.Reconciled): the watch events of the reconciler's own
// writes, which would otherwise cost a reconcile each that finds nothing to
// do. An update by anyone else makes a newer version and passes, or, when it
// comes during a reconcile of the referencer, makes Reconcile requeue at
// once. Every event passes while a reconcile waits for the cache to catch
// up or for the event of its value write to bring the condition's turn
// (lastwrite.Tracker.Await), and so does a resync (the same version
// twice). A referencer that reads its own fields is woken by the Watcher,
// which this filter does not touch.
func (r *reconciler) unreconciled() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		rv := e.ObjectNew.GetResourceVersion()
		return rv == e.ObjectOld.GetResourceVersion() || !r.written.Reconciled(client.ObjectKeyFromObject(e.ObjectNew), rv)
	}}
}

// Reconcile resolves one referencer, noting which versions of it the
// reconcile saw, for unreconciled.
func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.written.Begin(req.NamespacedName)
	res, err := r.reconcileRequest(ctx, req)
	if r.written.End(req.NamespacedName) && err == nil {
		// An update came meanwhile that this reconcile did not see, and
		// unreconciled dropped its event.
		res.RequeueAfter, res.Priority = time.Nanosecond, nil
	}
	return res, err
}

func (r *reconciler) reconcileRequest(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var (
		out          Outcome
		resolveErr   error
		fresh, stale bool
		obj          *unstructured.Unstructured
		condChanged  bool
		rejected     error // the API server rejected the resolved values
		cond         metav1.Condition
		held         verdict // the write budget's, when it holds the referencer
	)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rejected = nil
		obj = &unstructured.Unstructured{}
		obj.SetGroupVersionKind(r.gvk)
		var err error
		if stale, err = r.written.Get(ctx, r.cache, r.api, req.NamespacedName, obj, fresh); err != nil || stale {
			return err
		}
		fresh = true
		r.written.Record(req.NamespacedName, obj.GetResourceVersion())
		if obj.GetDeletionTimestamp() != nil {
			return nil
		}
		out, resolveErr = r.resolver.Resolve(ctx, obj)
		if held, err = r.admit(ctx, obj, out, resolveErr); err != nil || held.held {
			return err
		}
		if resolveErr == nil && out.Changed {
			// A write the API server rejects (e.g. a string for an
			// integer field) would be rejected again: report it, through
			// the status subresource, instead of retrying it.
			switch err := r.client.Update(ctx, obj); {
			case WriteRejected(err):
				rejected = err
			case err != nil:
				return withheld(out, err)
			default:
				r.written.Record(req.NamespacedName, obj.GetResourceVersion())
				r.guard.wrote(req.NamespacedName)
				if conditionDiffers(obj, Condition(out, nil, obj.GetGeneration())) {
					// The condition follows in the reconcile that this
					// write's watch event brings, queued behind the wakes
					// already waiting: a burst of source changes lands
					// every value before the conditions.
					r.written.Await(req.NamespacedName)
					return nil
				}
			}
		}
		cond = Condition(out, resolveErr, obj.GetGeneration())
		if rejected != nil {
			cond = RejectedCondition(out, rejected, obj.GetGeneration())
		}
		condChanged, err = r.setter.SetUnstructured(obj, cond)
		if err != nil {
			return fmt.Errorf("cannot set the %s condition: %w", TypeReferencesResolved, err)
		}
		if condChanged {
			if err := r.updateStatus(ctx, obj); err != nil {
				return withheld(out, err)
			}
			r.written.Record(req.NamespacedName, obj.GetResourceVersion())
			r.guard.wrote(req.NamespacedName)
		}
		return nil
	})
	switch {
	case apierrors.IsNotFound(err):
		r.written.Forget(req.NamespacedName)
		r.watcher.Forget(req.NamespacedName)
		r.resolver.entries.remove(referencerKey{gvk: r.gvk, NamespacedName: req.NamespacedName})
		r.guard.forget(req.NamespacedName)
		return reconcile.Result{}, nil
	case err != nil:
		return reconcile.Result{}, err
	case stale:
		return reconcile.Result{RequeueAfter: staleRetry}, nil
	case held.held:
		if held.report {
			holdsTotal.Inc()
		}
		if held.report && r.recorder != nil {
			r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, ReasonOscillating, "ResolveExternalValues", "%s", message.Truncate(oscillatingCondition(held, r.guard.budget.Window, obj.GetGeneration()).Message, maxEventNote))
		}
		return reconcile.Result{RequeueAfter: held.wait}, nil
	case resolveErr == nil && rejected == nil:
		return reconcile.Result{}, nil
	}
	if condChanged && r.recorder != nil {
		r.recorder.Eventf(obj, nil, corev1.EventTypeWarning, cond.Reason, "ResolveExternalValues", "%s", message.Truncate(cond.Message, maxEventNote))
	}
	if rejected != nil {
		// A spec or source change, seen by the watches, brings the next
		// attempt; retrying the same values would be rejected again.
		return reconcile.Result{}, nil
	}
	if transient(out.Failed) {
		return reconcile.Result{}, resolveErr
	}
	if errors.Is(resolveErr, ErrUnknownResource) {
		return reconcile.Result{RequeueAfter: UnknownResourceRetry}, nil
	}
	return reconcile.Result{}, nil
}

// admit asks the write budget whether the reconcile of obj, which Resolve
// returned out and resolveErr for, may write what it would. When the
// budget holds the referencer nothing is written, but the Oscillating
// condition once.
func (r *reconciler) admit(ctx context.Context, obj *unstructured.Unstructured, out Outcome, resolveErr error) (verdict, error) {
	cond := Condition(out, resolveErr, obj.GetGeneration())
	need := 0
	if resolveErr == nil && out.Changed {
		// The spec, then (in the next reconcile) the condition's
		// observedGeneration: both, or the spec would run ahead of it.
		need = 2
	} else if conditionDiffers(obj, cond) {
		need = 1
	}
	if need == 0 {
		return verdict{}, nil
	}
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	v := r.guard.admit(key, obj.GetGeneration(), need)
	if !v.held || !v.report {
		return v, nil
	}
	// obj holds the resolved values, which the status subresource ignores.
	changed, err := r.setter.SetUnstructured(obj, oscillatingCondition(v, r.guard.budget.Window, obj.GetGeneration()))
	if err != nil {
		return v, fmt.Errorf("cannot set the %s condition: %w", TypeReferencesResolved, err)
	}
	if changed {
		if err := r.updateStatus(ctx, obj); err != nil {
			return v, withheld(out, err)
		}
		r.written.Record(key, obj.GetResourceVersion())
		r.guard.wrote(key)
	}
	r.guard.reported(key)
	return v, nil
}

// updateStatus writes obj's status through the status subresource with a
// body that holds only what such a write reads: the referencer's identity,
// its resourceVersion (the optimistic lock) and its status. The API server
// takes every other field from the stored object, so sending the spec, the
// metadata and the managedFields would only cost their encoding here and
// their decoding there. obj takes the new resourceVersion.
func (r *reconciler) updateStatus(ctx context.Context, obj *unstructured.Unstructured) error {
	body := &unstructured.Unstructured{Object: map[string]any{"status": obj.Object["status"]}}
	body.SetGroupVersionKind(obj.GroupVersionKind())
	body.SetNamespace(obj.GetNamespace())
	body.SetName(obj.GetName())
	body.SetUID(obj.GetUID())
	body.SetResourceVersion(obj.GetResourceVersion())
	if err := r.client.Status().Update(ctx, body); err != nil {
		return err
	}
	obj.SetResourceVersion(body.GetResourceVersion())
	return nil
}

// withheld returns err, from a write of a referencer that holds the values
// resolved in out, with the API server's message replaced by its code,
// reason and the external values or fields it refused (as
// RejectedCondition gives them): an admission webhook's or
// policy's denial may quote the values, which may come from a Secret, and
// the manager logs the error. errors.Is and errors.As still find err, so a
// conflict is retried.
func withheld(out Outcome, err error) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err
	}
	return render.Failf(err, "cannot write the referencer: %s", rejectedMessage(out, err))
}

// conditionDiffers reports whether obj's ReferencesResolved condition is
// not c.
func conditionDiffers(obj *unstructured.Unstructured, c metav1.Condition) bool {
	conds, err := conditions.FromUnstructured(obj)
	if err != nil {
		return true
	}
	old := conditions.Get(conds, c.Type)
	return old == nil || old.Status != c.Status || old.Reason != c.Reason || old.Message != c.Message || old.ObservedGeneration != c.ObservedGeneration
}

// transient reports whether a failure may go away without any change that a
// watch would see: a read that failed for a reason of its own.
func transient(failed []*ReferenceError) bool {
	for _, f := range failed {
		if transientErr(f.Err) {
			return true
		}
	}
	return false
}

// transientErr reports whether err, or any of the failing sources it
// joins, failed for a reason of its own rather than a sentinel.
func transientErr(err error) bool {
	switch e := err.(type) {
	case errorList:
		for _, s := range e {
			if transientErr(s) {
				return true
			}
		}
		return false
	case *ReferenceError:
		return transientErr(e.Err)
	}
	switch {
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrUnknownResource), errors.Is(err, ErrSourceNotFound),
		errors.Is(err, ErrFieldNotFound), errors.Is(err, ErrDenied), errors.Is(err, ErrTransform),
		errors.Is(err, ErrTarget), errors.Is(err, ErrAmbiguous):
		return false
	}
	return true
}
