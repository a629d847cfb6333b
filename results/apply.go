package results

import (
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/message"
	"github.com/ctrlkit/ctrlkit/internal/smallset"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// Reasons, messages and the event action the Applier uses.
const (
	// ReasonReconcileError is the reason of the Synced=False condition that
	// a fatal result sets.
	ReasonReconcileError = "ReconcileError"

	// ReasonComposeResources is the reason of the event of a fatal result,
	// and the default reason of the event of a warning or normal result.
	ReasonComposeResources = "ComposeResources"

	// ReasonFatalError is the reason of the conditions a fatal run sets to
	// Unknown: those results set before and did not set on this run.
	ReasonFatalError = "FatalError"

	// ReasonUnspecified is the reason of a condition whose reason is empty.
	ReasonUnspecified = "Unspecified"

	// MessageFatalError is the message of the conditions a fatal run sets to
	// Unknown.
	MessageFatalError = "A fatal error occurred before the status of this condition could be determined."

	// EventAction is the action of every event the Applier records.
	EventAction = "ApplyFunctionResults"

	// MaxEventNoteLength is the longest event message the API server
	// accepts; the Applier shortens longer messages to fit.
	MaxEventNoteLength = 1024

	// MaxConditions is the most conditions (of results and of the
	// response, in order) that one Apply applies; a Warning event says how
	// many more were not applied.
	MaxConditions = 256

	// MaxMessagesLength is the most bytes the messages of the conditions
	// one Apply sets take in all, so that the XR's status stays within what
	// etcd stores; a message past it is shortened to fit (to "..." once
	// nothing is left), and a Warning event says how many were.
	MaxMessagesLength = 256 << 10

	// MaxEvents is the most events one Apply records; one more Warning
	// event on the composite resource says how many were not recorded.
	MaxEvents = 100
)

// ErrFatal is wrapped by Outcome.Fatal when the run met a fatal result.
var ErrFatal = errors.New("fatal result")

// fatalError is Outcome.Fatal: the message of Synced, wrapping ErrFatal.
type fatalError string

func (e fatalError) Error() string { return string(e) }

func (e fatalError) Unwrap() error { return ErrFatal }

// Fields of the composite resource that list the condition types its claim
// shows: Crossplane's, and the fn-claim-conditions design's.
var (
	claimConditionTypesField = []string{"status", "claimConditionTypes"}
	claimConditionsField     = []string{"status", "claimConditions"}
)

// IsSystemConditionType reports whether conditionType belongs to the control
// plane: Ready, Synced, Healthy, Responsive and UpToDate, as Crossplane
// decides, and ctrlkit's CompositeSynced (see conditions.PropagateSynced).
// The Applier never applies a function's condition of these types.
func IsSystemConditionType(conditionType string) bool {
	switch conditionType {
	case conditions.TypeReady, conditions.TypeSynced, conditions.TypeHealthy, "Responsive", "UpToDate", conditions.TypeCompositeSynced:
		return true
	}
	return false
}

// isProgressType reports whether conditionType is kstatus's Reconciling or
// Stalled, which the XR's own controller sets (conditions.SetProgress), and
// which a fatal run therefore does not mark Unknown.
func isProgressType(conditionType string) bool {
	return conditionType == conditions.TypeReconciling || conditionType == conditions.TypeStalled
}

// An ApplierOption changes what NewApplier builds.
type ApplierOption interface {
	applyToApplier(*Applier)
}

type recordOption conditions.RecordField

func (f recordOption) applyToApplier(a *Applier) { a.record = f }

// WithRecordField makes the Applier record the condition types that results
// set at f on the composite resource (see conditions.RecordField), instead of
// status.resultConditions, so that on the next run it removes the ones no
// result sets any more. An empty f turns ownership off, as in Crossplane:
// conditions that results set are then never removed, and a fatal run sets
// every other condition to Unknown.
func WithRecordField(f conditions.RecordField) ApplierOption { return recordOption(f) }

// ClaimConditionsField is the path of fields from the composite resource's
// root where the Applier always lists the condition types its claim shows,
// e.g. ClaimConditionsField{"status", "claimConditions"}, the
// fn-claim-conditions design's name. Without it, the Applier writes
// Crossplane's status.claimConditionTypes and the design's
// status.claimConditions where the composite has them, and both where it has
// neither: the API server prunes the one the schema lacks, and the next run
// writes only the other, so the Applier settles on a schema with either.
// Where the composite has neither, the list is written only along with
// another change of its status, so that a schema with neither (Crossplane
// v2's modern XRs, which have no claim) settles too.
// conditions.Propagate reads these two fields only.
type ClaimConditionsField []string

func (f ClaimConditionsField) applyToApplier(a *Applier) { a.claimField = f }

type clockOption struct{ c clock.PassiveClock }

func (o clockOption) applyToApplier(a *Applier) {
	a.setter = conditions.NewSetter(conditions.WithClock(o.c))
}

// WithClock makes the Applier stamp lastTransitionTime from c instead of the
// real clock.
func WithClock(c clock.PassiveClock) ApplierOption { return clockOption{c} }

type propagateOptions []conditions.PropagateOption

func (o propagateOptions) applyToApplier(a *Applier) { a.propagate = append(a.propagate, o...) }

// WithPropagateOptions passes opts to conditions.Propagate when the Applier
// carries conditions to the claim (e.g. an empty conditions.RecordField for a
// claim whose schema has no field to record them in).
func WithPropagateOptions(opts ...conditions.PropagateOption) ApplierOption {
	return propagateOptions(opts)
}

// An ApplyOption changes one Apply.
type ApplyOption interface {
	applyToApply(*applyOptions)
}

type applyOptions struct {
	step string
}

// Step is the name of the pipeline step whose response Apply applies. Events
// then name it as Crossplane's do ("Pipeline step \"<step>\": ..."). A
// result's own step field wins.
type Step string

func (s Step) applyToApply(c *applyOptions) { c.step = string(s) }

// An Applier applies a composition function pipeline's results to a
// composite resource and its claim. It is safe for concurrent use by several
// reconciles, each with its own objects.
type Applier struct {
	recorder   events.EventRecorder
	setter     conditions.Setter
	record     []string
	claimField []string
	propagate  []conditions.PropagateOption
}

// NewApplier returns an Applier that records events with recorder (a
// controller-runtime manager's GetEventRecorder gives one; nil records no
// events).
func NewApplier(recorder events.EventRecorder, opts ...ApplierOption) *Applier {
	a := &Applier{recorder: recorder, record: []string{"status", "resultConditions"}}
	for _, o := range opts {
		o.applyToApplier(a)
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

	// Fatal is non-nil when the run met a fatal result; it wraps ErrFatal
	// and carries the message of Synced. The caller usually returns it from
	// Reconcile so that the run is retried with backoff.
	Fatal error
}

// Apply applies rsp to the composite resource xr and, when claim is not nil,
// to its claim, as Crossplane applies a pipeline step's RunFunctionResponse
// (FromCrossplane converts one). It changes xr and claim in memory only; the
// Outcome says which of them to write.
//
// Apply once per reconcile, with all a pipeline returned: a pipeline of
// several steps merges their responses into one, setting each result's step
// (Result.step) for its events. Ownership compares a run with the one
// before, so applying step by step would make each step remove the
// conditions the steps before it set.
//
// Conditions first, all of them, whatever the results' severities: those of
// the results in order, then rsp's conditions. Each is set on xr with xr's
// generation as observedGeneration (a condition on xr that lacks only
// observedGeneration, as a schema without the field leaves it, is not
// rewritten for it); when several set one type, the last wins. One that
// targets the claim lists its type in xr's status.claimConditionTypes (see
// ClaimConditionsField); one that does not takes it off. A condition of a
// system type (IsSystemConditionType), or whose type or reason is not valid
// for a condition (see conditions.Validate), is not applied: a Warning event
// names it. A status
// that is not TRUE, FALSE or UNKNOWN is Unknown; an empty reason is
// ReasonUnspecified; type, reason and message are normalized as the API
// server stores them (see conditions.Normalize: invalid UTF-8 becomes U+FFFD,
// a message is shortened to conditions.MaxMessageLength), so that applying
// the same response again writes nothing.
//
// Then the results, in order, each an event on xr ("Pipeline step \"<step>\":
// <message>" when the step is known, see Step) and, when it targets the
// claim, on the claim with its claim message if set:
//
//   - a warning result records a Warning event, a normal one a Normal event,
//     with the result's reason or ReasonComposeResources; a normal result
//     with an empty message records none;
//   - a result of unspecified (or unknown) severity records a Warning event
//     on xr alone, saying that a warning was assumed;
//   - a fatal result ends the run: a Warning event ReasonComposeResources,
//     "cannot compose resources: pipeline step \"<step>\" returned a fatal
//     result: <message>", the same message on a Synced=False condition with
//     ReasonReconcileError, and Outcome.Fatal. The results after it record
//     nothing. When it targets the claim and has a claim message, that
//     message is kept on xr as a False CompositeSynced of xr's generation,
//     which conditions.PropagateSynced shows on the claim; any other run
//     removes it.
//
// Ownership: the condition types that results set are recorded (see
// WithRecordField). When the run was not fatal, a type set on the previous run
// and not on this one is removed from xr and from the claim's list. When it
// was fatal, such a type is set to Unknown with ReasonFatalError and
// MessageFatalError; without a record on xr, every condition this run did not
// set is, but the system's, as in Crossplane, and kstatus's Reconciling and
// Stalled, which the XR's controller sets. Otherwise conditions no result
// set, such as other controllers', are never touched, and neither is Synced
// unless the run was fatal: a caller whose run succeeded sets Synced=True
// itself.
//
// Last, when claim is not nil, conditions.Propagate carries the listed
// conditions to the claim.
//
// Apply returns an error wrapping ErrMalformed, having changed nothing and
// recorded no event, when xr's or claim's conditions, or xr's list of claim
// condition types or record field, cannot be read; and one wrapping
// conditions.ErrNilObject for a nil xr. When only the propagation to the
// claim fails, the error says so and the Outcome still reports xr's changes,
// which the caller should write.
func (a *Applier) Apply(rsp *resultsv1.Response, xr, claim *unstructured.Unstructured, opts ...ApplyOption) (Outcome, error) {
	if xr == nil {
		return Outcome{}, fmt.Errorf("cannot apply results: the composite resource is %w", conditions.ErrNilObject)
	}
	var cfg applyOptions
	for _, o := range opts {
		o.applyToApply(&cfg)
	}
	conds, err := conditions.FromUnstructured(xr)
	if err != nil {
		return Outcome{}, fmt.Errorf("cannot apply results: %w", err)
	}
	// The claim's types, from every field that lists them; the fields to
	// write them to (see ClaimConditionsField).
	fields := [][]string{claimConditionTypesField, claimConditionsField}
	if len(a.claimField) > 0 && !slices.ContainsFunc(fields, func(f []string) bool { return slices.Equal(f, a.claimField) }) {
		fields = append([][]string{a.claimField}, fields...)
	}
	var claimTypes []string
	var write [][]string
	for _, f := range fields {
		l, err := stringList(xr, f)
		if err != nil {
			return Outcome{}, err
		}
		if _, present, _ := unstructured.NestedFieldNoCopy(xr.Object, f...); present || slices.Equal(f, a.claimField) {
			write = append(write, f)
		}
		claimTypes = union(claimTypes, l)
	}
	// With neither field there, the schema may have neither (Crossplane
	// v2's modern XRs, which have no claim, list nothing): the list is then
	// written only along with another change, so that a pruned list is not
	// written again on every run.
	listKept := len(write) > 0
	if !listKept {
		write = fields
	}
	var owned []string
	recorded := false // the record field is there: the schema keeps it
	if len(a.record) > 0 {
		if owned, err = stringList(xr, a.record); err != nil {
			return Outcome{}, err
		}
		_, recorded, _ = unstructured.NestedFieldNoCopy(xr.Object, a.record...)
	}
	if claim != nil {
		if _, err := conditions.FromUnstructured(claim); err != nil {
			return Outcome{}, fmt.Errorf("cannot apply results: %w", err)
		}
	}

	r := run{a: a, xr: xr, claim: claim, step: cfg.step, conds: slices.Clone(conds)}
	r.setConditions(rsp)
	r.events(rsp.GetResults())
	if r.dropped > 0 {
		r.a.recorder.Eventf(xr, nil, eventWarning, ReasonComposeResources, EventAction, "%s",
			prefix(r.step, fmt.Sprintf("%d more events were not recorded: one run records at most %d", r.dropped, MaxEvents)))
	}

	// The XR's lists may be long: they are looked up in sets.
	emitted, ownedSet := smallset.Of(r.emitted), smallset.Of(owned)
	out := Outcome{Fatal: r.fatal}
	switch {
	case r.fatal == nil && len(a.record) > 0:
		r.conds = slices.DeleteFunc(r.conds, func(c metav1.Condition) bool {
			return ownedSet.Has(c.Type) && !emitted.Has(c.Type) && !IsSystemConditionType(c.Type)
		})
	case r.fatal != nil:
		// The conditions results set before and not on this run are not
		// known any more; without a record, every condition but the
		// system's, as Crossplane does.
		for i := range r.conds {
			c := r.conds[i]
			if IsSystemConditionType(c.Type) || isProgressType(c.Type) || emitted.Has(c.Type) || (recorded && !ownedSet.Has(c.Type)) {
				continue
			}
			c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonFatalError, MessageFatalError
			c.ObservedGeneration, c.LastTransitionTime = xr.GetGeneration(), metav1.Time{}
			a.setter.Set(&r.conds, c)
		}
	}

	// The claim's message of a fatal result lasts as long as the result.
	if !r.carried {
		r.conds = slices.DeleteFunc(r.conds, func(c metav1.Condition) bool { return c.Type == conditions.TypeCompositeSynced })
	}

	// Which types a run decides the claim membership of: those it set, and
	// when not fatal those it owned before (and now drops).
	decided := emitted
	if len(a.record) > 0 && r.fatal == nil {
		decided = smallset.Of(union(owned, r.emitted))
	}
	toClaim := smallset.Of(r.toClaim)
	listed := smallset.Of(make([]string, 0, len(claimTypes)+len(r.toClaim)))
	for _, t := range claimTypes {
		if !decided.Has(t) || toClaim.Has(t) {
			listed.Add(t)
		}
	}
	for _, t := range r.toClaim {
		listed.Add(t)
	}
	newClaimTypes := listed.List()

	// Write what changed, and only that.
	changed, err := writeConditions(a.setter, xr, conds, r.conds)
	if err != nil {
		return Outcome{}, err
	}
	out.CompositeChanged = changed
	// The lists of the claim's types: written now where a field is kept;
	// where neither is, along with another change (below).
	listChanged := false
	for _, f := range write {
		before, _ := stringList(xr, f)
		listChanged = listChanged || !slices.Equal(before, newClaimTypes)
	}
	writeLists := func() {
		for _, f := range write {
			before, _ := stringList(xr, f)
			setStringList(xr, f, before, newClaimTypes)
		}
		out.CompositeChanged = true
	}
	if listChanged && listKept {
		writeLists()
	}
	// The record is written when it is there and differs, or along with
	// another change: a schema that prunes it then settles, with ownership
	// as Crossplane's (nothing removed).
	if len(a.record) > 0 && (recorded || out.CompositeChanged) {
		// The types owned before keep their places, so that the same results
		// in another order (a function ranging over a map) write nothing.
		newOwned := union(owned, r.emitted)
		if r.fatal == nil {
			newOwned = slices.DeleteFunc(newOwned, func(t string) bool { return !emitted.Has(t) })
		}
		if setStringList(xr, a.record, owned, newOwned) {
			out.CompositeChanged = true
		}
	}
	// A list left unwritten still reaches the claim, through a copy of xr
	// that holds it: xr itself stays as the Outcome says.
	from := xr
	if listChanged && !listKept {
		if out.CompositeChanged {
			writeLists()
		} else if claim != nil {
			from = withStatusLists(xr, write, newClaimTypes)
		}
	}

	if claim != nil {
		changed, err := a.setter.Propagate(from, claim, a.propagate...)
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
	step      string             // the default step name
	conds     []metav1.Condition // xr's conditions as the run leaves them
	emitted   []string           // types set by this run, in order
	toClaim   []string           // of those, the ones whose last setter targets the claim
	fatal     error
	carried   bool // the fatal result's claim message is on the XR
	recorded  int  // events recorded
	dropped   int  // events not recorded, beyond MaxEvents
	messages  int  // bytes of the conditions' messages set
	shortened int  // messages shortened to stay within MaxMessagesLength
}

// condition is a condition that a response sets, in either layout.
type condition struct {
	typ, reason, message string
	status               resultsv1.Status
	toClaim              bool
	step                 string
}

// setConditions sets the conditions of rsp's results, then rsp's own, up to
// MaxConditions of them.
func (r *run) setConditions(rsp *resultsv1.Response) {
	n := 0
	defer func() {
		if n > MaxConditions {
			r.warn(r.step, fmt.Sprintf("the response sets %d conditions; only the first %d were applied", n, MaxConditions))
		}
		if r.shortened > 0 {
			r.warn(r.step, fmt.Sprintf("the messages of the response's conditions take more than %d bytes in all; %d were shortened", MaxMessagesLength, r.shortened))
		}
	}()
	for _, res := range rsp.GetResults() {
		c := res.GetCondition()
		if c == nil {
			continue
		}
		if n++; n > MaxConditions {
			continue
		}
		toClaim := res.GetTarget() == resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM
		msg := res.GetMessage()
		if toClaim && res.ClaimMessage != nil {
			msg = res.GetClaimMessage()
		}
		step := res.GetStep()
		if step == "" {
			step = r.step
		}
		r.setCondition(condition{typ: c.GetType(), status: c.GetStatus(), reason: c.GetReason(), message: msg,
			toClaim: toClaim, step: step})
	}
	for _, c := range rsp.GetConditions() {
		if c == nil {
			continue
		}
		if n++; n > MaxConditions {
			continue
		}
		r.setCondition(condition{typ: c.GetType(), status: c.GetStatus(), reason: c.GetReason(), message: c.GetMessage(),
			toClaim: c.GetTarget() == resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM, step: r.step})
	}
}

func (r *run) setCondition(c condition) {
	if IsSystemConditionType(c.typ) {
		r.warn(c.step, fmt.Sprintf("condition type %s is reserved for the control plane; not applied", quote(c.typ)))
		return
	}
	mc := metav1.Condition{
		Type:               c.typ,
		Status:             conditionStatus(c.status),
		Reason:             c.reason,
		Message:            c.message,
		ObservedGeneration: r.xr.GetGeneration(),
	}
	// As the API server will store it, so that the next run compares equal;
	// the budget below counts the bytes stored.
	mc = conditions.Normalize(mc)
	if mc.Reason == "" {
		mc.Reason = ReasonUnspecified
	}
	if err := conditions.Validate(mc); err != nil {
		r.warn(c.step, fmt.Sprintf("%v; not applied", err))
		return
	}
	if room := MaxMessagesLength - r.messages; len(mc.Message) > room {
		mc.Message = message.Truncate(mc.Message, room)
		r.shortened++
	}
	r.messages += len(mc.Message)
	r.a.setter.Set(&r.conds, mc)
	if !slices.Contains(r.emitted, c.typ) {
		r.emitted = append(r.emitted, c.typ)
	}
	if j := slices.Index(r.toClaim, c.typ); j >= 0 && !c.toClaim {
		r.toClaim = slices.Delete(r.toClaim, j, j+1)
	} else if j < 0 && c.toClaim {
		r.toClaim = append(r.toClaim, c.typ)
	}
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

// sameCondition reports whether b, as the run leaves a condition, needs no
// write over a, as xr holds it. An observedGeneration that a lacks is no
// change on its own: a schema without the field (Crossplane's before v2.0)
// prunes it, and the write would come back on every run.
func sameCondition(a, b *metav1.Condition) bool {
	return a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		(a.ObservedGeneration == b.ObservedGeneration || a.ObservedGeneration == 0) &&
		a.LastTransitionTime.Equal(&b.LastTransitionTime)
}
