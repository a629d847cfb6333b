package directstatus

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/conflict"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
	"github.com/ctrlkit/ctrlkit/internal/message"
)

// ErrNoStatus is wrapped by the Writer's errors about a typed object whose
// status has no conditions list (see Writer) or no observedGeneration
// integer, which the Writer needs to write.
var ErrNoStatus = errors.New("object has no status.conditions and status.observedGeneration")

// ErrGenerationChanged is wrapped by the Writer's error when, after a
// conflict, the object read again has a new generation: its spec changed
// since the condition was decided, so the condition may be wrong for it and
// is not written. The reconciler should start again from the new spec;
// returning the error to controller-runtime requeues it.
var ErrGenerationChanged = errors.New("the object's generation changed")

// A Writer writes the Ready condition of a direct controller's objects
// through the status subresource, with status.observedGeneration and the
// condition's observedGeneration set to the object's metadata.generation.
//
// It writes only when something changed: a second call with the same
// condition at the same generation makes no API call. Other condition types
// and other status fields are kept, and there is exactly one Ready condition.
// A conflict (the object changed since it was read) is retried with
// client-go's retry.RetryOnConflict, re-reading the object each time, so a
// concurrent writer's changes are kept, not overwritten.
//
// Objects may be typed or *unstructured.Unstructured. A typed object needs
// a status with a "conditions" list and an integer (or pointer to one)
// "observedGeneration" field (JSON names), as Kubernetes API conventions have
// it; a typed object without them is an error wrapping ErrNoStatus. The
// conditions may be metav1.Conditions or any struct with the conventional
// JSON fields: string-kinded type and status, and optional string reason
// and message, lastTransitionTime a string or a metav1.Time, as Config
// Connector's v1alpha1.Condition has them; fields the struct lacks
// (observedGeneration) are not written.
//
// A CRD whose schema lacks a field the Writer writes (Config Connector's
// conditions have no observedGeneration) makes the API server prune it. The
// Writer does not count such a field as a change: it learns from the
// response to each write whether the kind of object keeps the condition's
// observedGeneration, reason, message and lastTransitionTime, and
// status.observedGeneration; before its first write it takes a field
// missing from a condition that otherwise matches as not kept. A settled
// object therefore takes no write on any schema, from a Writer just started
// too. Once a write has shown a field pruned, the Writer no longer sends it,
// so later writes draw no "unknown field" warning from the API server; the
// first write of each kind still sends every field.
type Writer struct {
	client  client.Client
	reader  client.Reader
	setter  conditions.Setter
	backoff conflict.Backoff
	onWrite func(error)
	schemas sync.Map             // schemaKey -> schema
	events  events.EventRecorder // nil: no events
}

// A WriterOption configures a Writer: WithClock, Backoff, ReadFrom,
// OnWrite and RecordEvents.
type WriterOption interface {
	applyToWriter(*Writer)
}

type clockOption struct{ c clock.PassiveClock }

func (o clockOption) applyToWriter(w *Writer) {
	w.setter = conditions.NewSetter(conditions.WithClock(o.c))
}

// WithClock is an option that sets the clock that stamps
// lastTransitionTime. The default is the real clock.
func WithClock(c clock.PassiveClock) WriterOption { return clockOption{c} }

// Backoff is an option that sets how a write that meets a conflict waits
// before it reads the object again and retries, and how many attempts it
// makes. It has the fields and meaning of scopes.Backoff: the wait before
// attempt n+1 is drawn at random between zero and min(Initial·2ⁿ⁻¹, Max)
// ("full jitter"), so that concurrent writers spread out, and a wait ends
// early when the call's context is done. After Attempts attempts that each
// met a conflict, the error wraps the last conflict (apierrors.IsConflict).
// The zero value of each field is DefaultBackoff's.
type Backoff struct {
	// Initial bounds the first wait. Zero or less: DefaultBackoff's.
	Initial time.Duration
	// Max bounds every wait. Zero or less: DefaultBackoff's; below
	// Initial, Initial.
	Max time.Duration
	// Attempts is the most attempts, the first included. Zero or less:
	// DefaultBackoff's.
	Attempts int
}

// DefaultBackoff is the Writer's default: at most 5 attempts, each wait
// bounded by 10ms (client-go's retry.DefaultRetry makes as many attempts,
// 10ms apart).
var DefaultBackoff = Backoff{Initial: 10 * time.Millisecond, Max: 10 * time.Millisecond, Attempts: 5}

func (b Backoff) applyToWriter(w *Writer) {
	w.backoff = conflict.Backoff(b).WithDefaults(conflict.Backoff(DefaultBackoff))
}

// ConflictBackoff is an option that sets the Writer's Backoff from a
// client-go back-off: Initial is Duration, Max is Cap (Duration when Cap is
// zero) and Attempts is Steps, at least 1: Steps below 1 make the write
// once and return a conflict (client-go's RetryOnConflict would make no
// attempt at all and report success). Factor and Jitter are not used: the
// waits are Backoff's.
//
// Deprecated: use Backoff, the back-off of scopes too.
type ConflictBackoff wait.Backoff

func (b ConflictBackoff) applyToWriter(w *Writer) {
	Backoff{Initial: b.Duration, Max: max(b.Cap, b.Duration), Attempts: max(b.Steps, 1)}.applyToWriter(w)
}

type readFrom struct{ r client.Reader }

func (o readFrom) applyToWriter(w *Writer) { w.reader = o.r }

// ReadFrom is an option that sets the reader that reads an object again
// after a conflict. With a controller-runtime manager's client, whose reads
// come from a cache that may lag behind the write that caused the conflict,
// pass the manager's GetAPIReader(). The default is the Writer's client.
func ReadFrom(r client.Reader) WriterOption { return readFrom{r} }

type onWrite func(error)

func (f onWrite) applyToWriter(w *Writer) { w.onWrite = f }

// OnWrite is an option that calls f after each status write with what the
// write returned: nil, a conflict (which the Writer retries after reading the
// object again) or another error. f must not block. Package
// directstatus/metrics uses it to count the writes.
func OnWrite(f func(err error)) WriterOption { return onWrite(f) }

type recordEvents struct{ r events.EventRecorder }

func (o recordEvents) applyToWriter(w *Writer) { w.events = o.r }

// RecordEvents is an option that makes the Writer record an event on the
// object each time it writes a Ready condition whose status or reason
// differs from the one the object held (a transition), with the
// condition's reason and message: Warning for CreateFailure,
// UpdateFailure, DeleteFailed, the Dependency reasons, ManagementConflict
// and any condition written with Stalled=True, Normal for the others
// (Creating, Updating, Deleting, UpToDate). A write that only changes the
// message, or no write, records nothing, so a controller that retries a
// failing update does not flood the object's events. The default records
// none.
func RecordEvents(r events.EventRecorder) WriterOption { return recordEvents{r} }

// NewWriter returns a Writer that reads and writes objects with c.
func NewWriter(c client.Client, opts ...WriterOption) *Writer {
	w := &Writer{client: c, reader: c, backoff: conflict.Backoff(DefaultBackoff)}
	for _, o := range opts {
		if o != nil {
			o.applyToWriter(w)
		}
	}
	if w.reader == nil {
		w.reader = c
	}
	return w
}

// SetReady records c as obj's Ready condition (whatever c.Type says), with
// obj's generation as observedGeneration, and writes obj's status when that
// changed it. It reports whether it wrote. lastTransitionTime changes only
// when the status (True, False, Unknown) does.
//
// On success obj holds what the API server returned. When the write meets a
// conflict, obj is read again and the condition recorded again; if it then
// already holds, nothing is written. If that read fails, obj keeps what it
// held and the error is returned. If the object read again has another
// generation, the condition, decided for obj's spec, is not written, and the
// error wraps ErrGenerationChanged. An error names the object and wraps the
// cause: the API server's error, conditions.ErrInvalid for a condition the
// API server would reject, ErrNoStatus.
func (w *Writer) SetReady(ctx context.Context, obj client.Object, c metav1.Condition) (written bool, err error) {
	return w.setReady(ctx, obj, c, progressOf(c))
}

// setReady is SetReady with Reconciling and Stalled as p says.
func (w *Writer) setReady(ctx context.Context, obj client.Object, c metav1.Condition, p conditions.Progress) (written bool, err error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return false, fmt.Errorf("cannot set the Ready condition: %w", conditions.ErrNilObject)
	}
	c.Type = conditions.TypeReady
	if err := conditions.Validate(c); err != nil {
		return false, fmt.Errorf("cannot set the Ready condition of %s: %w", describe(obj), err)
	}
	gen := obj.GetGeneration()
	desc := describe(obj) // before any re-read, which may fail
	first := true
	err = conflict.Retry(ctx, w.backoff, func() error {
		if !first {
			if err := w.reread(ctx, obj); err != nil {
				return err
			}
			if g := obj.GetGeneration(); g != gen {
				return fmt.Errorf("%w from %d to %d since the condition was decided", ErrGenerationChanged, gen, g)
			}
		}
		first = false
		var before *metav1.Condition
		if w.events != nil {
			before = readyOf(obj)
		}
		changed, sent, err := w.record(obj, c, p)
		if err != nil || !changed {
			return err
		}
		err = w.client.Status().Update(ctx, obj)
		if w.onWrite != nil {
			w.onWrite(err)
		}
		if err != nil {
			return err
		}
		written = true
		w.learn(obj, sent)
		if w.events != nil && (before == nil || before.Status != c.Status || before.Reason != c.Reason) {
			w.events.Eventf(obj, nil, eventType(c, p), c.Reason, eventAction(c.Reason), "%s", c.Message)
		}
		return nil
	})
	if err != nil {
		return written, fmt.Errorf("cannot write the Ready condition of %s: %w", desc, err)
	}
	return written, nil
}

// reread replaces obj with the API server's copy. The copy is read into a
// fresh object (decoding into a used typed object would keep fields the
// server's copy omits), which replaces obj only when the read succeeded: a
// failed read leaves obj as it was.
func (w *Writer) reread(ctx context.Context, obj client.Object) error {
	key := client.ObjectKeyFromObject(obj)
	if u, ok := obj.(*unstructured.Unstructured); ok {
		fresh := &unstructured.Unstructured{Object: map[string]any{}}
		fresh.SetGroupVersionKind(u.GroupVersionKind())
		if err := w.reader.Get(ctx, key, fresh); err != nil {
			return err
		}
		u.Object = fresh.Object
		return nil
	}
	fresh := reflect.New(reflect.TypeOf(obj).Elem())
	if err := w.reader.Get(ctx, key, fresh.Interface().(client.Object)); err != nil {
		return err
	}
	reflect.ValueOf(obj).Elem().Set(fresh.Elem())
	return nil
}

// record sets c, stamped with obj's generation, and status.observedGeneration
// on obj, and reports whether obj changed and, if it did, which of the
// fields the Writer learns about the write sends.
func (w *Writer) record(obj client.Object, c metav1.Condition, p conditions.Progress) (bool, sentFields, error) {
	gen := obj.GetGeneration()
	c.ObservedGeneration = gen
	if u, ok := obj.(*unstructured.Unstructured); ok {
		changed, err := w.recordUnstructured(u, c, gen, w.schemaOf(obj), p)
		if err != nil || !changed {
			return false, sentFields{}, err
		}
		return true, sentIn(u), nil
	}

	if err := checkStatus(obj); err != nil {
		return false, sentFields{}, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false, sentFields{}, fmt.Errorf("cannot convert %s to unstructured content: %w", describe(obj), conversionFailed{err})
	}
	u := &unstructured.Unstructured{Object: content}
	changed, err := w.recordUnstructured(u, c, gen, w.schemaOf(obj), p)
	if err != nil || !changed {
		return false, sentFields{}, err
	}
	fresh := reflect.New(reflect.TypeOf(obj).Elem())
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, fresh.Interface()); err != nil {
		return false, sentFields{}, fmt.Errorf("cannot convert unstructured content back to %s: %w", describe(obj), conversionFailed{err})
	}
	reflect.ValueOf(obj).Elem().Set(fresh.Elem())
	// A field the struct lacks is not sent, and the response, converted
	// from the struct, lacks it too: the Writer takes it as pruned, as it is.
	return true, sentIn(u), nil
}

// recordUnstructured records c and gen on u. A field the object's schema
// does not keep (see schema) is not compared: the API server would prune it
// from every write, and the next call would see a change again.
func (w *Writer) recordUnstructured(u *unstructured.Unstructured, c metav1.Condition, gen int64, sch schema, progress conditions.Progress) (bool, error) {
	// Read by hand: unstructured.NestedFieldNoCopy's error quotes the value
	// it found instead of an object.
	var old any
	found := false
	switch status := u.Object["status"].(type) {
	case nil:
	case map[string]any:
		old, found = status["observedGeneration"]
	default:
		return false, fmt.Errorf("cannot read status.observedGeneration of %s: status is %s, not an object: %w", describe(u), jsonvalue.Shape(status), conditions.ErrMalformed)
	}
	// A whole float64 is how encoding/json decodes an integer into any.
	i, ok := jsonvalue.WholeInt64(old)
	rootSame := found && ok && i == gen
	conds, err := conditions.FromUnstructured(u)
	if err != nil {
		return false, err
	}
	if prev := conditions.Get(conds, conditions.TypeReady); prev != nil &&
		prev.Status == c.Status && sch.sameText(u, prev, c.Reason, c.Message) &&
		progressHolds(u, conds, progress, c, sch) {
		// The Ready condition holds c but for its observedGeneration: the
		// stored object has it right, or does not keep it.
		condSame := prev.ObservedGeneration == gen ||
			sch.condGen == pruned || sch.condGen == unknown && !hasGeneration(u, conditions.TypeReady)
		// Without status.observedGeneration beside a Ready condition the
		// Writer wrote (it writes both), the schema does not keep it.
		rootSettled := rootSame || sch.rootGen == pruned || sch.rootGen == unknown && !found
		if condSame && rootSettled {
			return false, nil
		}
	}
	// A write stamps both observedGenerations unless the schema is known to
	// prune them, so that its response tells which the schema keeps.
	changed, err := w.setter.SetUnstructured(u, c)
	if err != nil {
		return false, err
	}
	progressed, err := w.setter.SetProgressUnstructured(u, gen, progress, c.Reason, c.Message)
	if err != nil {
		return false, err
	}
	changed = changed || progressed
	if !rootSame && sch.rootGen != pruned {
		// SetUnstructured made sure that status is an object.
		status, ok := u.Object["status"].(map[string]any)
		if !ok {
			return false, fmt.Errorf("cannot set status.observedGeneration of %s: status is %s, not an object: %w", describe(u), jsonvalue.Shape(u.Object["status"]), conditions.ErrMalformed)
		}
		status["observedGeneration"] = gen
		changed = true
	}
	sch.omitPruned(u)
	return changed, nil
}

// describe names an object for an error message: kind namespace/name.
func describe(obj client.Object) string {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return "a nil object"
	}
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if kind == "" {
		kind = reflect.TypeOf(obj).Elem().Name()
	}
	return message.Object(kind, obj.GetNamespace(), obj.GetName())
}

// readyOf returns obj's Ready condition, or nil when it has none or its
// conditions cannot be read.
func readyOf(obj client.Object) *metav1.Condition {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil
		}
		u = &unstructured.Unstructured{Object: content}
	}
	conds, err := conditions.FromUnstructured(u)
	if err != nil {
		return nil
	}
	return conditions.Get(conds, conditions.TypeReady)
}

// progressOf is how far a controller got when Ready is c: done when the
// resource is up to date; stalled when only a change by someone else can
// help (a dependency that exists but cannot be used, a resource another
// controller manages); working otherwise (a create, update or delete in
// flight, a dependency not ready or not there yet, a failure it retries),
// so Reconciling=True goes with every other Ready that is not True, as
// kstatus and Flux read it.
func progressOf(c metav1.Condition) conditions.Progress {
	switch {
	case c.Status == metav1.ConditionTrue:
		return conditions.Done
	case c.Reason == ReasonDependencyInvalid, c.Reason == ReasonManagementConflict:
		return conditions.Stalled
	}
	return conditions.Working
}

// progressHolds reports whether conds already show p as SetProgress writes
// it for c, observedGeneration aside (the Ready check decides that).
func progressHolds(u *unstructured.Unstructured, conds []metav1.Condition, p conditions.Progress, c metav1.Condition, sch schema) bool {
	rec := conditions.Get(conds, conditions.TypeReconciling)
	stalled := conditions.Get(conds, conditions.TypeStalled)
	holds := func(x *metav1.Condition) bool {
		return x != nil && x.Status == metav1.ConditionTrue && sch.sameText(u, x, c.Reason, c.Message)
	}
	switch p {
	case conditions.Working:
		return stalled == nil && holds(rec)
	case conditions.Stalled:
		return rec == nil && holds(stalled)
	default:
		return rec == nil && stalled == nil
	}
}
