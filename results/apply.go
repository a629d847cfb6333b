package results

import (
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/conditions"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// Reasons and the event action the Applier uses.
const (
	// ReasonReconcileError is the reason of the Synced=False condition that
	// a fatal (or invalid) result sets, and the default reason of a fatal
	// result's event.
	ReasonReconcileError = "ReconcileError"

	// ReasonComposeResources is the default reason of the event of a warning
	// or normal result.
	ReasonComposeResources = "ComposeResources"

	// EventAction is the action of every event the Applier records.
	EventAction = "ApplyFunctionResults"

	// MaxEventNoteLength is the longest event message the API server
	// accepts; the Applier shortens longer messages to fit.
	MaxEventNoteLength = 1024
)

// Event types, as k8s.io/api/core/v1 spells them.
const (
	eventNormal  = "Normal"
	eventWarning = "Warning"
)

// ErrFatal is wrapped by Outcome.Fatal when the run met a fatal result.
var ErrFatal = errors.New("fatal result")

// An ApplierOption changes what NewApplier builds.
type ApplierOption interface {
	applyApplier(*Applier)
}

// RecordField is the path of fields from the composite resource's root, e.g.
// RecordField{"status", "resultConditions"} (the default), where the Applier
// records the condition types that results set, so that on the next run it
// can remove the ones no result sets any more, even after a restart. The
// composite's schema must have the field (a list of strings) or the API
// server prunes it and every run writes it again. An empty RecordField turns
// ownership off: conditions that results set are then never removed.
type RecordField []string

func (f RecordField) applyApplier(a *Applier) { a.record = f }

type clockOption struct{ c clock.PassiveClock }

func (o clockOption) applyApplier(a *Applier) { a.setter.Clock = o.c }

// WithClock makes the Applier stamp lastTransitionTime from c instead of the
// real clock.
func WithClock(c clock.PassiveClock) ApplierOption { return clockOption{c} }

type propagateOptions []conditions.PropagateOption

func (o propagateOptions) applyApplier(a *Applier) { a.propagate = append(a.propagate, o...) }

// WithPropagateOptions passes opts to conditions.Propagate when the Applier
// carries conditions to the claim (e.g. a conditions.RecordField for a claim
// whose record is not status.claimConditions).
func WithPropagateOptions(opts ...conditions.PropagateOption) ApplierOption {
	return propagateOptions(opts)
}

// An Applier applies a composition function pipeline's results to a
// composite resource and its claim. It is safe for concurrent use by several
// reconciles, each with its own objects.
type Applier struct {
	recorder  events.EventRecorder
	setter    conditions.Setter
	record    []string
	propagate []conditions.PropagateOption
}

// NewApplier returns an Applier that records events with recorder (a
// controller-runtime manager's GetEventRecorder gives one; nil records no
// events).
func NewApplier(recorder events.EventRecorder, opts ...ApplierOption) *Applier {
	a := &Applier{recorder: recorder, record: []string{"status", "resultConditions"}}
	for _, o := range opts {
		o.applyApplier(a)
	}
	return a
}

// Outcome is what Apply did.
type Outcome struct {
	// CompositeChanged says that the composite resource's status changed and
	// must be written (through the status subresource).
	CompositeChanged bool

	// ClaimChanged says that the claim's status changed and must be written.
	ClaimChanged bool

	// Fatal is non-nil when the run stopped early: at a fatal result (the
	// error wraps ErrFatal and carries the result's message) or at an invalid
	// one (the error wraps ErrInvalidResult and says what is wrong). The
	// caller usually returns it from Reconcile so that the run is retried
	// with backoff.
	Fatal error
}

var claimConditionsField = []string{"status", "claimConditions"}

// Apply applies the results of rsp, in order, to the composite resource xr
// and, when claim is not nil, to its claim. It changes xr and claim in memory
// only; the Outcome says which of them to write.
//
// For each result:
//
//   - An event is recorded on xr: Warning for a fatal or warning result,
//     Normal for a normal one, with the result's reason (default
//     ReconcileError for fatal, ComposeResources otherwise) and message. A
//     result with an empty message records no event.
//   - A result that targets the claim also records the event on the claim
//     (with xr as the related object), with its claim_message if set.
//   - A result's condition is set on xr with the result's status and reason,
//     its message (or its claim_message, when it targets the claim: the claim
//     mirrors this condition, see Builder.WithClaimMessage) and xr's
//     generation as observedGeneration. A result that targets the claim lists
//     the type in xr's status.claimConditions; one that does not takes it
//     off. When several results set one type, the last one wins.
//   - A fatal result, after its own event and condition, sets xr's Synced
//     condition to False with reason ReconcileError and the result's message,
//     and ends the run: the results after it are not applied.
//   - An invalid result (see Validate) is not applied; it ends the run as a
//     fatal one would, with a Synced=False and a Warning event that say what
//     is wrong with it.
//
// When the run was not fatal, the condition types that results set on the
// previous run (recorded in RecordField) and that no result set on this one
// are removed from xr and from status.claimConditions. Conditions that no
// result set, such as those of other controllers, are never touched, and
// neither is Synced unless the run was fatal: a caller whose run succeeded
// sets Synced=True itself.
//
// Last, when claim is not nil, conditions.Propagate carries the conditions
// listed in status.claimConditions to the claim.
//
// Apply returns an error wrapping ErrMalformed, having changed nothing and
// recorded no event, when xr's or claim's conditions, or xr's
// status.claimConditions or record field, cannot be read; and one wrapping
// conditions.ErrNilObject for a nil xr. When only the propagation to the
// claim fails, the error says so and the Outcome still reports xr's changes,
// which the caller should write.
func (a *Applier) Apply(rsp *resultsv1.Response, xr, claim *unstructured.Unstructured) (Outcome, error) {
	if xr == nil {
		return Outcome{}, fmt.Errorf("cannot apply results: the composite resource is %w", conditions.ErrNilObject)
	}
	conds, err := conditions.FromUnstructured(xr)
	if err != nil {
		return Outcome{}, fmt.Errorf("cannot apply results: %w", err)
	}
	claimTypes, err := stringList(xr, claimConditionsField)
	if err != nil {
		return Outcome{}, err
	}
	var owned []string
	if len(a.record) > 0 {
		if owned, err = stringList(xr, a.record); err != nil {
			return Outcome{}, err
		}
	}
	if claim != nil {
		if _, err := conditions.FromUnstructured(claim); err != nil {
			return Outcome{}, fmt.Errorf("cannot apply results: %w", err)
		}
	}

	r := run{a: a, xr: xr, claim: claim, conds: slices.Clone(conds)}
	r.apply(rsp.GetResults())

	out := Outcome{Fatal: r.fatal}
	if len(a.record) > 0 && r.fatal == nil {
		for _, t := range owned {
			if !slices.Contains(r.emitted, t) && !conditions.IsReserved(t) {
				conditions.Remove(&r.conds, t)
			}
		}
	}

	// Which types a run decides the claim membership of: those it set, and
	// when not fatal those it owned before (and now drops).
	decided := r.emitted
	if len(a.record) > 0 && r.fatal == nil {
		decided = union(owned, r.emitted)
	}
	newClaimTypes := make([]string, 0, len(claimTypes)+len(r.toClaim))
	for _, t := range claimTypes {
		if (!slices.Contains(decided, t) || slices.Contains(r.toClaim, t)) && !slices.Contains(newClaimTypes, t) {
			newClaimTypes = append(newClaimTypes, t)
		}
	}
	for _, t := range r.toClaim {
		if !slices.Contains(newClaimTypes, t) {
			newClaimTypes = append(newClaimTypes, t)
		}
	}

	// Write what changed, and only that.
	changed, err := writeConditions(a.setter, xr, conds, r.conds)
	if err != nil {
		return Outcome{}, err
	}
	out.CompositeChanged = changed
	if setStringList(xr, claimConditionsField, claimTypes, newClaimTypes) {
		out.CompositeChanged = true
	}
	if len(a.record) > 0 {
		// The types owned before keep their places, so that the same results
		// in another order (a function ranging over a map) write nothing.
		newOwned := union(owned, r.emitted)
		if r.fatal == nil {
			newOwned = slices.DeleteFunc(newOwned, func(t string) bool { return !slices.Contains(r.emitted, t) })
		}
		if setStringList(xr, a.record, owned, newOwned) {
			out.CompositeChanged = true
		}
	}

	if claim != nil {
		changed, err := a.setter.Propagate(xr, claim, a.propagate...)
		out.ClaimChanged = changed
		if err != nil {
			return out, fmt.Errorf("cannot carry the results to the claim: %w", err)
		}
	}
	return out, nil
}

// run is the state of one Apply.
type run struct {
	a         *Applier
	xr, claim *unstructured.Unstructured
	conds     []metav1.Condition // xr's conditions as the run leaves them
	emitted   []string           // types set by this run, in order
	toClaim   []string           // of those, the ones whose last result targets the claim
	fatal     error
}

func (r *run) apply(rs []*resultsv1.Result) {
	for i, res := range rs {
		if err := Validate(res); err != nil {
			msg := fmt.Sprintf("cannot apply result %d of %d: %v", i+1, len(rs), err)
			r.fatal = fmt.Errorf("cannot apply result %d of %d: %w", i+1, len(rs), err)
			r.synced(msg)
			r.event(r.xr, nil, eventWarning, ReasonReconcileError, msg)
			return
		}
		toClaim := res.GetTarget() == resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM
		claimMsg := res.GetMessage()
		if toClaim && res.ClaimMessage != nil {
			claimMsg = res.GetClaimMessage()
		}

		if c := res.GetCondition(); c != nil {
			msg := res.GetMessage()
			if toClaim {
				msg = claimMsg
			}
			r.a.setter.Set(&r.conds, metav1.Condition{
				Type:               c.GetType(),
				Status:             conditionStatus(c.GetStatus()),
				Reason:             c.GetReason(),
				Message:            msg,
				ObservedGeneration: r.xr.GetGeneration(),
			})
			if !slices.Contains(r.emitted, c.GetType()) {
				r.emitted = append(r.emitted, c.GetType())
			}
			if j := slices.Index(r.toClaim, c.GetType()); j >= 0 && !toClaim {
				r.toClaim = slices.Delete(r.toClaim, j, j+1)
			} else if j < 0 && toClaim {
				r.toClaim = append(r.toClaim, c.GetType())
			}
		}

		eventType, reason := eventNormal, ReasonComposeResources
		switch res.GetSeverity() {
		case resultsv1.Severity_SEVERITY_FATAL:
			eventType, reason = eventWarning, ReasonReconcileError
		case resultsv1.Severity_SEVERITY_WARNING:
			eventType = eventWarning
		}
		if res.Reason != nil {
			reason = res.GetReason()
		}
		r.event(r.xr, nil, eventType, reason, res.GetMessage())
		if toClaim && r.claim != nil {
			r.event(r.claim, r.xr, eventType, reason, claimMsg)
		}

		if res.GetSeverity() == resultsv1.Severity_SEVERITY_FATAL {
			r.fatal = fmt.Errorf("%w: %s", ErrFatal, res.GetMessage())
			r.synced(res.GetMessage())
			return
		}
	}
}

// synced sets Synced=False on the run's conditions.
func (r *run) synced(msg string) {
	r.a.setter.Set(&r.conds, metav1.Condition{
		Type:               conditions.TypeSynced,
		Status:             metav1.ConditionFalse,
		Reason:             ReasonReconcileError,
		Message:            conditions.Truncate(msg, conditions.MaxMessageLength),
		ObservedGeneration: r.xr.GetGeneration(),
	})
}

func (r *run) event(regarding, related runtime.Object, eventType, reason, msg string) {
	if r.a.recorder == nil || msg == "" {
		return
	}
	r.a.recorder.Eventf(regarding, related, eventType, reason, EventAction, "%s", conditions.Truncate(msg, MaxEventNoteLength))
}

func conditionStatus(s resultsv1.Status) metav1.ConditionStatus {
	switch s {
	case resultsv1.Status_STATUS_TRUE:
		return metav1.ConditionTrue
	case resultsv1.Status_STATUS_FALSE:
		return metav1.ConditionFalse
	}
	return metav1.ConditionUnknown
}

// writeConditions makes xr's status.conditions, which hold before, hold
// after, touching only the conditions that differ.
func writeConditions(s conditions.Setter, xr *unstructured.Unstructured, before, after []metav1.Condition) (bool, error) {
	changed := false
	for i := range before {
		if conditions.Get(after, before[i].Type) != nil {
			continue
		}
		if _, err := conditions.RemoveUnstructured(xr, before[i].Type); err != nil {
			return false, fmt.Errorf("cannot apply results: %w", err)
		}
		changed = true
	}
	for i := range after {
		c := &after[i]
		if old := conditions.Get(before, c.Type); old != nil && sameCondition(old, c) {
			continue
		}
		if _, err := s.SetUnstructured(xr, *c); err != nil {
			return false, fmt.Errorf("cannot apply results: %w", err)
		}
		changed = true
	}
	return changed, nil
}

func sameCondition(a, b *metav1.Condition) bool {
	return a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.ObservedGeneration == b.ObservedGeneration && a.LastTransitionTime.Equal(&b.LastTransitionTime)
}

// stringList reads a list of strings at path in u. A missing or null field
// is an empty list.
func stringList(u *unstructured.Unstructured, path []string) ([]string, error) {
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil || !found || v == nil {
		if err != nil {
			return nil, malformed(u, path, "%v", err)
		}
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, malformed(u, path, "want a list of strings, not %T", v)
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, malformed(u, path, "entry %d: want a string, not %T", i, e)
		}
		out[i] = s
	}
	return out, nil
}

// setStringList writes after at path in u when it differs from before, which
// stringList read there, deleting the field when after is empty. It reports
// whether it wrote.
func setStringList(u *unstructured.Unstructured, path, before, after []string) bool {
	if slices.Equal(before, after) {
		return false
	}
	if len(after) == 0 {
		unstructured.RemoveNestedField(u.Object, path...)
		return true
	}
	list := make([]any, len(after))
	for i, s := range after {
		list[i] = s
	}
	// The path was read as absent or a list, so every parent is an object.
	_ = unstructured.SetNestedField(u.Object, list, path...)
	return true
}

func malformed(u *unstructured.Unstructured, path []string, format string, args ...any) error {
	return fmt.Errorf("cannot apply results: %s: %s: %s: %w", describe(u), joinPath(path), fmt.Sprintf(format, args...), ErrMalformed)
}

func describe(u *unstructured.Unstructured) string {
	kind := u.GetKind()
	if kind == "" {
		kind = "object"
	}
	if ns := u.GetNamespace(); ns != "" {
		return fmt.Sprintf("%s %s/%s", kind, ns, u.GetName())
	}
	return fmt.Sprintf("%s %s", kind, u.GetName())
}

func joinPath(path []string) string {
	s := ""
	for i, p := range path {
		if i > 0 {
			s += "."
		}
		s += p
	}
	return s
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, t := range b {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
