package nop

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/lastwrite"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// Options configure the reconciler of both kinds.
type Options struct {
	// Clock tells the time. Nil means the real clock, moved by the offset
	// to the API server's clock that the reconciler's writes prove (see
	// the package doc, "Clock skew").
	Clock clock.PassiveClock

	// PollInterval, when positive, reconciles every object at least this
	// often, as a safety net. The reconciler does not need it: it requeues
	// each object at the moment its next entry falls due. Zero (the default)
	// turns it off.
	PollInterval time.Duration

	// MaxConcurrentReconciles is the number of objects of each kind
	// reconciled at once. Zero means the manager's default where its
	// options set one (manager.Options.Controller.MaxConcurrentReconciles),
	// and DefaultWorkers where they do not. docs/guide.md says how to size
	// it.
	MaxConcurrentReconciles int

	// OnTransition, if set, is called after each scheduled condition change
	// has been written, e.g. to print it. It must not block.
	OnTransition func(Transition)

	// Recorder records the reconciler's Warning events. Nil means the
	// manager's recorder, which writes events.k8s.io/v1 Events; a Crossplane
	// provider, whose ClusterRole grants core Events only, passes one that
	// writes core Events (cmd/provider-nop does).
	Recorder events.EventRecorder
}

// A Transition is a scheduled condition change that has landed: the status
// holding it was written.
type Transition struct {
	// Kind is NopResource or ClusterNopResource.
	Kind string
	// Object is the resource's namespace (empty for a ClusterNopResource) and
	// name.
	Object types.NamespacedName
	// Condition is the condition as written.
	Condition metav1.Condition
	// Entry is the index of the spec.forProvider.conditionAfter entry.
	Entry int
	// Due is when the schedule said the condition would change:
	// metadata.creationTimestamp plus the entry's time.
	Due time.Time
	// Created is the resource's metadata.creationTimestamp, which has a
	// precision of one second: an entry due within the first second may
	// be due before the resource was really created.
	Created time.Time
	// Landed is when the status write returned.
	Landed time.Time
}

// Lateness is how long after its deadline the transition landed.
func (t Transition) Lateness() time.Duration { return t.Landed.Sub(t.Due) }

// The reconciler's permissions, from which controller-gen's rbac generator
// writes a provider's ClusterRole: its two kinds (the finalizer is added with
// a patch), their status, and the Events it records. The connection Secrets'
// are beside publish.
//
// +kubebuilder:rbac:groups=nop.ctrlkit.dev,resources=nopresources;clusternopresources,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=nop.ctrlkit.dev,resources=nopresources/status;clusternopresources/status,verbs=update
// +kubebuilder:rbac:groups=nop.ctrlkit.dev,resources=nopresources/finalizers;clusternopresources/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// DefaultWorkers is how many objects of each kind Setup's controllers
// reconcile at once unless Options.MaxConcurrentReconciles or the
// manager's options say otherwise: enough for a two-core API server at its
// limit (docs/benchmarks.md), where controller-runtime's default of one
// worker is not, and Crossplane providers' default too.
const DefaultWorkers = 10

// Setup adds a controller for NopResources and one for ClusterNopResources to
// mgr, whose scheme must know the v1alpha1 types and whose API server must
// serve both CRDs (nop/crds).
func Setup(mgr manager.Manager, o Options) error {
	for _, k := range kinds {
		r := newReconciler(mgr, k, o)
		if err := setup(mgr, r, r); err != nil {
			return err
		}
	}
	return nil
}

// setup adds the controller of r's kind to mgr, reconciling with do: r
// itself, or a wrapper of it.
func setup(mgr manager.Manager, r *reconciler, do reconcile.Reconciler) error {
	err := builder.ControllerManagedBy(mgr).
		For(r.kind.newObject(), builder.WithPredicates(r.unreconciled())).
		// Names and versions of Secrets, never their data: a change of a
		// Secret that a resource could not write wakes that resource.
		WatchesMetadata(secretMetadata(), handler.EnqueueRequestsFromMapFunc(r.secretChanged)).
		Named(r.kind.controllerName()).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers(mgr, r.opts.MaxConcurrentReconciles)}).
		Complete(do)
	if err != nil {
		return fmt.Errorf("cannot set up the %s controller: %w", r.kind.name, err)
	}
	return nil
}

// workers returns how many objects of a kind are reconciled at once: n
// where it is set, else the manager's default where its options set one,
// else DefaultWorkers.
func workers(mgr manager.Manager, n int) int {
	if n > 0 {
		return n
	}
	if d := mgr.GetControllerOptions().MaxConcurrentReconciles; d > 0 {
		return d
	}
	return DefaultWorkers
}

// unreconciled lets through every event but an update to a version that a
// reconcile has already read or written (lastwrite.Tracker.Reconciled): the
// watch events of the reconciler's own writes (a finalizer patch, a status
// write), which would otherwise cost a reconcile each that finds nothing to
// do, while the next deadline is already queued. An update by anyone else
// makes a newer version and passes, or, when it comes during a reconcile of
// the object, makes Reconcile requeue at once. Every event passes while a
// reconcile waits for the cache to catch up, and so does a resync (the same
// version twice).
func (r *reconciler) unreconciled() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		rv := e.ObjectNew.GetResourceVersion()
		return rv == e.ObjectOld.GetResourceVersion() || !r.written.Reconciled(client.ObjectKeyFromObject(e.ObjectNew), rv)
	}}
}

// A kind is one of the two kinds the reconciler serves.
type kind struct {
	name      string
	newObject func() client.Object
}

func (k kind) controllerName() string { return "nop-" + k.name }

var kinds = []kind{
	{name: v1alpha1.NopResourceKind, newObject: func() client.Object { return &v1alpha1.NopResource{} }},
	{name: v1alpha1.ClusterNopResourceKind, newObject: func() client.Object { return &v1alpha1.ClusterNopResource{} }},
}

// parts returns the spec and status of a NopResource or ClusterNopResource.
func parts(o client.Object) (*v1alpha1.NopResourceSpec, *v1alpha1.NopResourceStatus) {
	switch o := o.(type) {
	case *v1alpha1.NopResource:
		return &o.Spec, &o.Status
	case *v1alpha1.ClusterNopResource:
		return &o.Spec, &o.Status
	}
	panic(fmt.Sprintf("nop: %T is not a nop resource", o)) // a programming error, not user input
}

// A reconciler makes one kind's status follow its schedule.
type reconciler struct {
	kind     kind
	client   client.Client // usually cached
	reader   client.Reader // the API server, after a conflict and for Secrets
	cache    client.Reader // the metadata of Secrets; nil: none
	scheme   *runtime.Scheme
	recorder events.EventRecorder // may be nil
	clock    clock.PassiveClock   // the server's time, as far as known
	local    clock.PassiveClock   // the clock of this process
	server   *serverClock         // nil when Options.Clock is set
	setter   conditions.Setter
	opts     Options
	metrics  kindMetrics
	managed  *managedMetrics

	// written is the resourceVersion of each object after this reconciler's
	// last write, so that a reconcile from a cache that has not seen that
	// write yet is skipped rather than computed from stale state.
	written lastwrite.Tracker

	// secrets holds the connection Secret failures that wait for a change,
	// and the back-off of the others.
	secrets secretGate
}

func newReconciler(mgr manager.Manager, k kind, o Options) *reconciler {
	r := &reconciler{
		kind:     k,
		client:   mgr.GetClient(),
		reader:   mgr.GetAPIReader(),
		cache:    mgr.GetCache(),
		scheme:   mgr.GetScheme(),
		recorder: o.Recorder,
		opts:     o,
	}
	if r.recorder == nil {
		r.recorder = mgr.GetEventRecorder("nop.ctrlkit.dev")
	}
	r.init()
	return r
}

func (r *reconciler) init() {
	r.metrics = metricsOf(r.kind.name)
	r.managed = newManagedMetrics(r.kind.name)
	if r.opts.Clock == nil {
		r.useLocalClock(clock.RealClock{})
		return
	}
	r.clock, r.local, r.server = r.opts.Clock, r.opts.Clock, nil
	r.setter = conditions.NewSetter(conditions.WithClock(r.clock))
}

// useLocalClock makes r tell the server's time from local, the clock of this
// process, and the offset its writes prove.
func (r *reconciler) useLocalClock(local clock.PassiveClock) {
	r.local = local
	r.server = &serverClock{local: local}
	r.clock = r.server
	r.setter = conditions.NewSetter(conditions.WithClock(r.clock))
}

// Reconcile makes one object's status what its schedule says now, and
// requeues it when the next entry falls due.
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
	var out outcome
	fresh, stale := false, false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj := r.kind.newObject()
		var err error
		if stale, err = r.written.Get(ctx, r.client, r.reader, req.NamespacedName, obj, fresh); err != nil || stale {
			return err
		}
		fresh = true
		_, status := parts(obj)
		unsynced := conditions.Get(status.Conditions, conditions.TypeSynced) == nil
		out, err = r.reconcile(ctx, obj)
		if err == nil {
			r.written.Record(req.NamespacedName, obj.GetResourceVersion())
			if out.released {
				r.managed.deleted(obj, r.clock.Now())
				r.managed.forget(req.NamespacedName)
			} else {
				r.managed.seen(obj, unsynced, r.clock.Now())
			}
		}
		return err
	})
	if apierrors.IsNotFound(err) {
		r.written.Forget(req.NamespacedName)
		r.secrets.forget(req.NamespacedName)
		r.managed.forget(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	if stale {
		log.FromContext(ctx).V(1).Info("skipped a reconcile from a stale cache")
		return reconcile.Result{RequeueAfter: staleRetry}, nil
	}
	if out.wrote {
		landed := r.clock.Now()
		for _, t := range out.transitions {
			t.Landed = landed
			r.metrics.landed(t)
			if r.opts.OnTransition != nil {
				r.opts.OnTransition(t)
			}
		}
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	res := r.result(out)
	var permanent *permanentError
	switch {
	case out.err == nil:
		r.secrets.succeeded(req.NamespacedName)
	case errors.As(out.err, &permanent):
		// Recorded in Synced; not retried until the spec or the Secret
		// changes (see secretGate), only the schedule's deadlines come.
	default:
		// Recorded in Synced and an event; retried with back-off, without
		// losing the next deadline, which an error's backoff would.
		log.FromContext(ctx).Error(out.err, "cannot publish the connection secret")
		if wait := r.secrets.failed(req.NamespacedName); res.RequeueAfter == 0 || res.RequeueAfter > wait {
			res.RequeueAfter, res.Priority = wait, nil
		}
	}
	return res, nil
}

// retryAfterError is how soon a reconcile whose error is recorded in the
// status is first retried; each failure in a row doubles it, up to
// maxRetryAfterError.
const (
	retryAfterError    = 10 * time.Second
	maxRetryAfterError = 5 * time.Minute
)

// staleRetry is a safety net for a reconcile skipped because the cache was
// behind: the watch event of the write it missed normally comes first, and
// the retry after lastwrite.MaxBehind reads from the API server.
const staleRetry = time.Second

// An outcome is what one reconcile did and when the object is next due.
type outcome struct {
	wrote       bool         // the status was written
	transitions []Transition // scheduled changes in that write
	next        time.Time    // the next deadline; zero for none
	err         error        // an error the status records, retried after retryAfterError
	released    bool         // the finalizer was removed: the object goes
}

// result turns the next deadline into a requeue, measured from the end of the
// reconcile.
//
// A requeue at a deadline takes priorityDue, so that an object falling due is
// reconciled before queued work that has no deadline (new objects, watch
// events of the reconciler's own writes, objects listed at start-up).
func (r *reconciler) result(out outcome) reconcile.Result {
	var res reconcile.Result
	if !out.next.IsZero() {
		res.RequeueAfter = max(out.next.Sub(r.clock.Now()), time.Nanosecond)
		res.Priority = ptr.To(priorityDue)
	}
	if p := r.opts.PollInterval; p > 0 && (res.RequeueAfter == 0 || p < res.RequeueAfter) {
		res.RequeueAfter, res.Priority = p, nil
	}
	return res
}

// priorityDue is the work queue priority of an object requeued at its next
// deadline (controller-runtime's priority queue, on by default; events have
// priority 0, objects listed at start-up handler.LowPriority).
const priorityDue = 10

func (r *reconciler) reconcile(ctx context.Context, obj client.Object) (outcome, error) {
	spec, _ := parts(obj)
	now := r.clock.Now()
	p, specErr := parseSpec(obj.GetNamespace(), spec)

	if paused(obj) {
		return r.pause(ctx, obj, now)
	}
	if obj.GetDeletionTimestamp() != nil {
		return r.delete(ctx, obj, p, specErr, now)
	}
	if err := r.addFinalizer(ctx, obj); err != nil {
		return outcome{}, err
	}
	if specErr != nil {
		return r.invalid(ctx, obj, specErr)
	}
	return r.observe(ctx, obj, p, now)
}

// observe writes the connection Secret and the status the schedule asks for.
func (r *reconciler) observe(ctx context.Context, obj client.Object, p parsedSpec, now time.Time) (outcome, error) {
	spec, _ := parts(obj)

	var overrides []metav1.Condition
	var secretErr error
	if p.secret != nil {
		blocked := false
		if secretErr, blocked = r.secrets.blockedOn(obj, *p.secret); !blocked {
			secretErr = r.publish(ctx, obj, *p.secret, spec.ForProvider.ConnectionDetails)
		}
		var permanent *permanentError
		if errors.As(secretErr, &permanent) && !blocked {
			if r.settledSince(ctx, *p.secret, permanent.version) {
				r.secrets.block(obj, *p.secret, secretErr)
			} else {
				// A change may have come meanwhile: retry with back-off.
				secretErr = permanent.err
			}
		}
		if secretErr != nil {
			if apierrors.IsConflict(secretErr) {
				return outcome{}, secretErr // retried from a fresh read
			}
			overrides = append(overrides, metav1.Condition{
				Type: conditions.TypeSynced, Status: metav1.ConditionFalse,
				Reason: ReasonConnectionSecretFailed, Message: secretErr.Error(),
			})
		}
	}
	out, err := r.write(ctx, obj, p, overrides, now, nil)
	if err == nil && secretErr != nil {
		out.err = secretErr
		if out.wrote {
			r.event(obj, ReasonConnectionSecretFailed, "PublishConnectionSecret", secretErr.Error())
		}
	}
	return out, err
}
