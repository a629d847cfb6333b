package nop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/lastwrite"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// Finalizer holds every NopResource and ClusterNopResource until the
// reconciler has shown it Deleting and honoured spec.forProvider.deleteAfter
// and deleteError.
const Finalizer = "nop.ctrlkit.dev/finalizer"

// SecretTypeConnection is the type of the connection Secrets the reconciler
// writes, the one Crossplane uses.
const SecretTypeConnection = "connection.crossplane.io/v1alpha1"

// Options configure the reconciler of both kinds.
type Options struct {
	// Clock tells the time. Nil means the real clock.
	Clock clock.PassiveClock

	// PollInterval, when positive, reconciles every object at least this
	// often, as a safety net. The reconciler does not need it: it requeues
	// each object at the moment its next entry falls due. Zero (the default)
	// turns it off.
	PollInterval time.Duration

	// MaxConcurrentReconciles is the number of objects of each kind
	// reconciled at once. Zero means the manager's default (1 unless set).
	MaxConcurrentReconciles int

	// OnTransition, if set, is called after each scheduled condition change
	// has been written, e.g. to print it. It must not block.
	OnTransition func(Transition)
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

// Setup adds a controller for NopResources and one for ClusterNopResources to
// mgr, whose scheme must know the v1alpha1 types and whose API server must
// serve both CRDs (nop/crds).
func Setup(mgr manager.Manager, o Options) error {
	for _, k := range kinds {
		if err := setup(mgr, k, o, newReconciler(mgr, k, o)); err != nil {
			return err
		}
	}
	return nil
}

func setup(mgr manager.Manager, k kind, o Options, r reconcile.Reconciler) error {
	err := builder.ControllerManagedBy(mgr).
		For(k.newObject()).
		Named(k.controllerName()).
		WithOptions(controller.Options{MaxConcurrentReconciles: o.MaxConcurrentReconciles}).
		Complete(r)
	if err != nil {
		return fmt.Errorf("cannot set up the %s controller: %w", k.name, err)
	}
	return nil
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
	scheme   *runtime.Scheme
	recorder events.EventRecorder // may be nil
	clock    clock.PassiveClock
	setter   conditions.Setter
	opts     Options

	// written is the resourceVersion of each object after this reconciler's
	// last write, so that a reconcile from a cache that has not seen that
	// write yet is skipped rather than computed from stale state.
	written lastwrite.Tracker

	// For the benchmark's comparison with provider-nop: requeue every
	// PollInterval instead of at the next deadline, and write the status on
	// every reconcile.
	pollOnly, alwaysWrite bool
}

func newReconciler(mgr manager.Manager, k kind, o Options) *reconciler {
	r := &reconciler{
		kind:     k,
		client:   mgr.GetClient(),
		reader:   mgr.GetAPIReader(),
		scheme:   mgr.GetScheme(),
		recorder: mgr.GetEventRecorder("nop.ctrlkit.dev"),
		opts:     o,
	}
	r.init()
	return r
}

func (r *reconciler) init() {
	r.clock = r.opts.Clock
	if r.clock == nil {
		r.clock = clock.RealClock{}
	}
	r.setter = conditions.Setter{Clock: r.clock}
}

// Reconcile makes one object's status what its schedule says now, and
// requeues it when the next entry falls due.
func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var out outcome
	fresh, stale := false, false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj := r.kind.newObject()
		var err error
		if stale, err = r.written.Get(ctx, r.client, r.reader, req.NamespacedName, obj, fresh); err != nil || stale {
			return err
		}
		fresh = true
		out, err = r.reconcile(ctx, obj)
		if err == nil {
			r.written.Record(req.NamespacedName, obj.GetResourceVersion())
		}
		return err
	})
	if apierrors.IsNotFound(err) {
		r.written.Forget(req.NamespacedName)
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
			if r.opts.OnTransition != nil {
				r.opts.OnTransition(t)
			}
		}
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	res := r.result(out)
	if out.err != nil {
		// Recorded in Synced and an event; retried without losing the next
		// deadline, which an error's backoff would.
		log.FromContext(ctx).Error(out.err, "cannot publish the connection secret")
		if res.RequeueAfter == 0 || res.RequeueAfter > retryAfterError {
			res.RequeueAfter, res.Priority = retryAfterError, nil
		}
	}
	return res, nil
}

// retryAfterError is how soon a reconcile whose error is recorded in the
// status is retried.
const retryAfterError = 10 * time.Second

// staleRetry is a safety net for a reconcile skipped because the cache was
// behind: the watch event of the write it missed normally comes first.
const staleRetry = time.Second

// An outcome is what one reconcile did and when the object is next due.
type outcome struct {
	wrote       bool         // the status was written
	transitions []Transition // scheduled changes in that write
	next        time.Time    // the next deadline; zero for none
	err         error        // an error the status records, retried after retryAfterError
}

// result turns the next deadline into a requeue, measured from the end of the
// reconcile.
//
// A requeue at a deadline takes priorityDue, so that an object falling due is
// reconciled before queued work that has no deadline (new objects, watch
// events of the reconciler's own writes, objects listed at start-up).
func (r *reconciler) result(out outcome) reconcile.Result {
	var res reconcile.Result
	if !out.next.IsZero() && !r.pollOnly {
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

// addFinalizer adds the Finalizer to obj, with one patch, unless it is there.
func (r *reconciler) addFinalizer(ctx context.Context, obj client.Object) error {
	if controllerutil.ContainsFinalizer(obj, Finalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(obj, Finalizer)
	return r.client.Patch(ctx, obj, patch)
}

// removeFinalizer removes the Finalizer from obj, with one patch.
func (r *reconciler) removeFinalizer(ctx context.Context, obj client.Object) error {
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(obj, Finalizer)
	return r.client.Patch(ctx, obj, patch)
}

// observe writes the connection Secret and the status the schedule asks for.
func (r *reconciler) observe(ctx context.Context, obj client.Object, p parsedSpec, now time.Time) (outcome, error) {
	spec, _ := parts(obj)

	var overrides []metav1.Condition
	var secretErr error
	if p.secret != nil {
		if secretErr = r.publish(ctx, obj, *p.secret, spec.ForProvider.ConnectionDetails); secretErr != nil {
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

// write computes the object's status at now, writes it if it changed, and
// says which scheduled transitions the write carried. keep, if set, says
// which conditions to leave alone when the computed status lacks them.
func (r *reconciler) write(ctx context.Context, obj client.Object, p parsedSpec, overrides []metav1.Condition, now time.Time, keep func(string) bool) (outcome, error) {
	spec, status := parts(obj)
	created := obj.GetCreationTimestamp().Time
	gen := obj.GetGeneration()
	var out outcome
	if tooLarge(status, gen) {
		return out, nil // until the spec changes
	}

	elapsed := now.Sub(created)
	due, next, ok := p.schedule.at(elapsed)
	if ok {
		out.next = created.Add(next)
	}

	old := status.DeepCopy()
	status.ObservedGeneration = gen
	apply(r.setter, &status.Conditions, desired(old.Conditions, created, due, defaults(p.schedule, elapsed, p.note), overrides, gen, now), keep)
	if keep == nil {
		mirror(&status.AtProvider, &spec.ForProvider)
	}
	if statusEqual(old, status) && !r.alwaysWrite {
		return out, nil
	}
	if !r.alwaysWrite && len(due) == 0 && !out.next.IsZero() && out.next.Sub(now) <= generationGrace && len(overrides) == 0 && unobserved(old) {
		// Nothing scheduled is due yet, and the write of the next entry,
		// due within generationGrace, is the first.
		return out, nil
	}
	if n := r.largestStatus(obj, p, overrides, keep, now); n > MaxStatusBytes {
		return r.tooLarge(ctx, obj, old, fmt.Sprintf("cannot store the status: it takes %d bytes by the end of the schedule, more than the %d a status may take; shorten spec.forProvider (conditionAfter messages, fields)", n, MaxStatusBytes), now)
	}

	for _, e := range due {
		c := conditions.Get(status.Conditions, e.cond.Type)
		if c == nil || c.Reason != e.cond.Reason || c.Message != e.cond.Message || c.Status != e.cond.Status {
			continue // overridden
		}
		if was := conditions.Get(old.Conditions, c.Type); was != nil && was.Status == c.Status && was.Reason == c.Reason && was.Message == c.Message {
			continue // not a transition
		}
		out.transitions = append(out.transitions, Transition{
			Kind: r.kind.name, Object: client.ObjectKeyFromObject(obj), Condition: *c,
			Entry: e.index, Due: created.Add(e.after), Created: created,
		})
	}
	if err := r.updateStatus(ctx, obj); err != nil {
		if refusedAsTooLarge(err) {
			return r.tooLarge(ctx, obj, old, "cannot store the status: the API server refused it as too large ("+conditions.Truncate(err.Error(), 200)+"); shorten spec.forProvider (conditionAfter messages, fields)", now)
		}
		return outcome{}, err
	}
	out.wrote = true
	log.FromContext(ctx).V(1).Info("status written", "conditions", len(status.Conditions), "transitions", len(out.transitions))
	return out, nil
}

// MaxStatusBytes is the most a resource's status may take, as JSON, at any
// time of its schedule. A spec that needs more makes the resource Stalled
// (reason StatusTooLarge) until it changes: etcd refuses an object above
// 1.5 MiB by default, and the spec takes about as much as its status.
const MaxStatusBytes = 512 << 10

// largestStatus returns the size, as JSON, of obj's status once every entry
// of the schedule has fallen due, or of the status at hand if that is larger.
func (r *reconciler) largestStatus(obj client.Object, p parsedSpec, overrides []metav1.Condition, keep func(string) bool, now time.Time) int {
	_, status := parts(obj)
	n := jsonSize(status)
	if len(p.schedule) == 0 {
		return n
	}
	end := status.DeepCopy()
	created := obj.GetCreationTimestamp().Time
	due, _, _ := p.schedule.at(time.Duration(math.MaxInt64))
	apply(r.setter, &end.Conditions, desired(status.Conditions, created, due, nil, overrides, obj.GetGeneration(), now), func(t string) bool { return true })
	return max(n, jsonSize(end))
}

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0 // a status of Go values always marshals
	}
	return len(b)
}

// refusedAsTooLarge says whether the API server refused a write because the
// object is too large: above its request limit (413), or etcd's (a 500 whose
// message is etcd's "request is too large").
func refusedAsTooLarge(err error) bool {
	return apierrors.IsRequestEntityTooLargeError(err) || strings.Contains(err.Error(), "request is too large")
}

// tooLarge makes obj's status say, in few bytes, that the status its spec
// asks for cannot be stored: Stalled=True, Synced=False and Ready=False with
// reason StatusTooLarge, nothing else. The reconciler then leaves the
// resource alone until its spec changes.
func (r *reconciler) tooLarge(ctx context.Context, obj client.Object, old *v1alpha1.NopResourceStatus, msg string, now time.Time) (outcome, error) {
	_, status := parts(obj)
	status.Conditions = slices.Clone(old.Conditions)
	status.ObservedGeneration = obj.GetGeneration()
	status.AtProvider = v1alpha1.NopResourceObservation{}
	apply(r.setter, &status.Conditions, desired(old.Conditions, obj.GetCreationTimestamp().Time, nil, nil, stalled(ReasonStatusTooLarge, msg), obj.GetGeneration(), now), nil)
	if statusEqual(old, status) {
		return outcome{}, nil
	}
	if err := r.updateStatus(ctx, obj); err != nil {
		return outcome{}, err
	}
	log.FromContext(ctx).Info("status too large", "error", msg)
	r.event(obj, ReasonStatusTooLarge, "Reconcile", msg)
	return outcome{wrote: true}, nil
}

// tooLarge says whether status records that the status generation asks for
// cannot be stored.
func tooLarge(status *v1alpha1.NopResourceStatus, generation int64) bool {
	c := conditions.Get(status.Conditions, TypeStalled)
	return c != nil && c.Reason == ReasonStatusTooLarge && c.ObservedGeneration == generation && status.ObservedGeneration == generation
}

// updateStatus writes obj's status with a body that holds only what a
// status write reads: the object's identity, its resourceVersion (the
// optimistic lock) and the status. A PUT to the status subresource takes every
// other field from the stored object, and ignores managedFields in the request,
// so sending the spec and the metadata would only cost the API server their
// decoding; at a deadline shared by many objects that cost is their lateness.
// obj takes the written status and resourceVersion from the response.
func (r *reconciler) updateStatus(ctx context.Context, obj client.Object) error {
	body := r.kind.newObject()
	body.SetNamespace(obj.GetNamespace())
	body.SetName(obj.GetName())
	body.SetUID(obj.GetUID())
	body.SetResourceVersion(obj.GetResourceVersion())
	_, status := parts(obj)
	_, sent := parts(body)
	*sent = *status.DeepCopy()
	if err := r.client.Status().Update(ctx, body); err != nil {
		return err
	}
	*status = *sent
	obj.SetResourceVersion(body.GetResourceVersion())
	return nil
}

// generationGrace is how long a resource's first status write may wait for
// its next scheduled entry. It spares a resource whose first entry is due
// within a second (a typical test schedule) a write of its own: the resource
// then takes one status write per transition and none besides. A second is
// the precision of the creationTimestamp that the schedule counts from.
const generationGrace = time.Second

// unobserved says whether the status was never written.
func unobserved(s *v1alpha1.NopResourceStatus) bool {
	return s.ObservedGeneration == 0 && len(s.Conditions) == 0
}

// keepAll leaves every condition the computed status lacks alone.
func keepAll(string) bool { return true }

// invalid records a bad spec: Stalled=True, Synced=False and Ready=False with
// reason InvalidSpec; the schedule's other conditions are left as they are.
func (r *reconciler) invalid(ctx context.Context, obj client.Object, specErr error) (outcome, error) {
	out, err := r.write(ctx, obj, parsedSpec{}, stalled(ReasonInvalidSpec, specErr.Error()), r.clock.Now(), keepAll)
	if err == nil && out.wrote {
		log.FromContext(ctx).Info("invalid spec", "error", specErr.Error())
		r.event(obj, ReasonInvalidSpec, "Reconcile", specErr.Error())
	}
	return out, err
}

// delete shows Ready=False (reason Deleting), honours deleteAfter and
// deleteError while the deletion policy lets it, then removes the finalizer.
// The schedule goes on meanwhile for the other types.
func (r *reconciler) delete(ctx context.Context, obj client.Object, p parsedSpec, specErr error, now time.Time) (outcome, error) {
	if !controllerutil.ContainsFinalizer(obj, Finalizer) {
		return outcome{}, nil
	}
	spec, _ := parts(obj)
	deleting := metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionFalse, Reason: ReasonDeleting, Message: "the resource is being deleted"}
	var overrides []metav1.Condition
	var keep func(string) bool
	if specErr != nil {
		// As on any reconcile, a bad spec changes nothing but Synced,
		// Stalled and Ready.
		p, keep = parsedSpec{}, keepAll
		overrides = stalled(ReasonInvalidSpec, specErr.Error())
	}
	if why := releasedAtOnce(spec); why != "" {
		deleting.Message = "the resource is being deleted; " + why
		return r.release(ctx, obj, p, append(overrides, deleting), now, keep)
	}

	var holdFor time.Duration
	if d := spec.ForProvider.DeleteAfter; d != "" {
		var err error
		if holdFor, err = parseDuration("spec.forProvider.deleteAfter", d); err != nil {
			// Hold the deletion until deleteAfter is fixed; any other bad
			// value does not concern deletion.
			deleting.Message = "deletion is held until spec.forProvider.deleteAfter is fixed"
			return r.write(ctx, obj, p, append(overrides, deleting), now, keep)
		}
	}

	holdUntil := obj.GetDeletionTimestamp().Add(holdFor)
	switch {
	case now.Before(holdUntil):
		deleting.Message = fmt.Sprintf("deletion is held by spec.forProvider.deleteAfter (%s) until %s",
			spec.ForProvider.DeleteAfter, holdUntil.UTC().Format(time.RFC3339))
		out, err := r.write(ctx, obj, p, append(overrides, deleting), now, keep)
		if err == nil && (out.next.IsZero() || holdUntil.Before(out.next)) {
			out.next = holdUntil
		}
		return out, err
	case spec.ForProvider.DeleteError != "":
		// deleteError may be as long as a condition message may: cut what is
		// added to it, or no status write would be accepted.
		msg := conditions.Truncate("cannot delete: "+spec.ForProvider.DeleteError, conditions.MaxMessageLength)
		deleting.Message = msg
		overrides = append(overrides,
			metav1.Condition{Type: conditions.TypeSynced, Status: metav1.ConditionFalse, Reason: ReasonDeleteFailed, Message: msg},
			metav1.Condition{Type: TypeStalled, Status: metav1.ConditionTrue, Reason: ReasonDeleteFailed, Message: msg})
		out, err := r.write(ctx, obj, p, append(overrides, deleting), now, keep)
		if err == nil && out.wrote {
			r.event(obj, ReasonDeleteFailed, "Delete", msg)
		}
		return out, err
	}
	return r.release(ctx, obj, p, append(overrides, deleting), now, keep)
}

// release writes the status that shows the resource Deleting, if it does not
// yet, and removes the finalizer: a watcher sees Ready=False (reason
// Deleting) before the resource goes.
func (r *reconciler) release(ctx context.Context, obj client.Object, p parsedSpec, overrides []metav1.Condition, now time.Time, keep func(string) bool) (outcome, error) {
	out, err := r.write(ctx, obj, p, overrides, now, keep)
	if err != nil {
		return outcome{}, err
	}
	if err := r.removeFinalizer(ctx, obj); err != nil {
		return outcome{}, err
	}
	log.FromContext(ctx).V(1).Info("finalizer removed")
	out.next = time.Time{}
	return out, nil
}

// releasedAtOnce says why the deletion behaviour of spec (deleteAfter,
// deleteError) is skipped, or returns "" when it is not: spec.deletionPolicy
// Orphan, or management policies that do not allow Delete.
func releasedAtOnce(spec *v1alpha1.NopResourceSpec) string {
	if spec.DeletionPolicy == v1alpha1.DeletionOrphan {
		return "spec.deletionPolicy is Orphan"
	}
	if mp := spec.ManagementPolicies; len(mp) > 0 && !slices.Contains(mp, v1alpha1.ManagementActionAll) && !slices.Contains(mp, v1alpha1.ManagementActionDelete) {
		return "spec.managementPolicies do not include Delete"
	}
	return ""
}

// publish writes the connection Secret, if it changed. A Secret that exists
// and is not controlled by obj is left alone. The Secret is handled as
// unstructured content, so that the library needs no k8s.io/api types.
func (r *reconciler) publish(ctx context.Context, obj client.Object, ref types.NamespacedName, details []v1alpha1.ConnectionDetail) error {
	data := make(map[string]any, len(details))
	for _, d := range details {
		data[d.Name] = base64.StdEncoding.EncodeToString([]byte(d.Value))
	}
	s := newSecret()
	err := r.reader.Get(ctx, ref, s)
	switch {
	case apierrors.IsNotFound(err):
		s = newSecret()
		s.SetNamespace(ref.Namespace)
		s.SetName(ref.Name)
		s.Object["type"] = SecretTypeConnection
		s.Object["data"] = data
		if err := controllerutil.SetControllerReference(obj, s, r.scheme); err != nil {
			return fmt.Errorf("cannot write connection secret %s: %w", ref, err)
		}
		if err := r.client.Create(ctx, s); err != nil {
			return fmt.Errorf("cannot create connection secret %s: %w", ref, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("cannot read connection secret %s: %w", ref, err)
	}
	if !metav1.IsControlledBy(s, obj) {
		return fmt.Errorf("cannot write connection secret %s: it exists and is not controlled by this %s", ref, r.kind.name)
	}
	if old, _, _ := unstructured.NestedMap(s.Object, "data"); maps.Equal(old, data) {
		return nil
	}
	s.Object["data"] = data
	if err := r.client.Update(ctx, s); err != nil {
		if apierrors.IsConflict(err) {
			return err
		}
		return fmt.Errorf("cannot update connection secret %s: %w", ref, err)
	}
	return nil
}

func newSecret() *unstructured.Unstructured {
	s := &unstructured.Unstructured{}
	s.SetAPIVersion("v1")
	s.SetKind("Secret")
	return s
}

// event records a warning on obj.
func (r *reconciler) event(obj client.Object, reason, action, note string) {
	if r.recorder != nil {
		r.recorder.Eventf(obj, nil, "Warning", reason, action, "%s", conditions.Truncate(note, maxEventNote))
	}
}

// maxEventNote is the longest note the API server accepts in an Event.
const maxEventNote = 1024
