package nop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// Reasons of the conditions the reconciler sets itself.
const (
	// ReasonReconcileSuccess: Synced=True, the default when the schedule
	// does not set Synced, as a Crossplane managed resource has it.
	ReasonReconcileSuccess = "ReconcileSuccess"
	// ReasonAwaitingSchedule: Ready=Unknown before the schedule sets Ready;
	// the message names the next Ready entry, or says there is none.
	ReasonAwaitingSchedule = "AwaitingSchedule"
	// ReasonStatusTooLarge: Synced=False, Ready=False and Stalled=True
	// because the status the spec asks for could not be stored.
	ReasonStatusTooLarge = "StatusTooLarge"
	// ReasonInvalidSpec: Synced=False because a value in the spec is bad; the
	// message names the field, e.g. spec.forProvider.conditionAfter[2].time.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonDeleting: Ready=False because the resource is being deleted.
	ReasonDeleting = "Deleting"
	// ReasonDeleteFailed: Synced=False because spec.forProvider.deleteError
	// makes the deletion fail.
	ReasonDeleteFailed = "DeleteFailed"
	// ReasonConnectionSecretFailed: Synced=False because the connection
	// Secret could not be written.
	ReasonConnectionSecretFailed = "ConnectionSecretFailed"
)

// A parsedSpec is a validated spec.
type parsedSpec struct {
	schedule    schedule
	deleteAfter time.Duration
	secret      *types.NamespacedName // nil: no connection Secret
	note        string                // the message of the default Synced=True
}

// notePublish is the message of Synced=True for a resource that sets
// spec.publishConnectionDetailsTo.
const notePublish = "spec.publishConnectionDetailsTo is not supported and is ignored: connection details are written only to the Secret of spec.writeConnectionSecretToRef"

// parseSpec validates spec for a resource in namespace ("" for a
// cluster-scoped one). The first bad value gives an error that names its
// field and wraps ErrInvalidSpec.
func parseSpec(namespace string, spec *v1alpha1.NopResourceSpec) (parsedSpec, error) {
	var p parsedSpec
	var err error
	if p.schedule, err = parseSchedule(spec.ForProvider.ConditionAfter); err != nil {
		return p, err
	}
	if d := spec.ForProvider.DeleteAfter; d != "" {
		if p.deleteAfter, err = parseDuration("spec.forProvider.deleteAfter", d); err != nil {
			return p, err
		}
	}
	if ref := spec.WriteConnectionSecretToRef; ref != nil {
		const field = "spec.writeConnectionSecretToRef"
		nn := types.NamespacedName{Name: ref.Name, Namespace: ref.Namespace}
		switch {
		case ref.Name == "":
			return p, invalid(field+".name", "cannot use an empty name")
		case namespace == "" && ref.Namespace == "":
			return p, invalid(field+".namespace", "cannot be empty for a cluster-scoped resource")
		case namespace != "" && ref.Namespace == "":
			nn.Namespace = namespace
		case namespace != "" && ref.Namespace != namespace:
			return p, invalid(field+".namespace", "cannot use %s: a namespaced resource writes its Secret in its own namespace %s", quote(ref.Namespace), quote(namespace))
		}
		p.secret = &nn
		if err := checkSecretData(nn, spec.ForProvider.ConnectionDetails); err != nil {
			return p, err
		}
	}
	switch spec.DeletionPolicy {
	case "", v1alpha1.DeletionDelete, v1alpha1.DeletionOrphan:
	default:
		return p, invalid("spec.deletionPolicy", "cannot use %s: must be Delete or Orphan", quote(string(spec.DeletionPolicy)))
	}
	for i, a := range spec.ManagementPolicies {
		switch a {
		case "*", "Observe", "Create", "Update", "Delete", "LateInitialize":
		default:
			return p, invalid(fmt.Sprintf("spec.managementPolicies[%d]", i), "cannot use %s: must be Observe, Create, Update, Delete, LateInitialize or *", quote(string(a)))
		}
	}
	if spec.PublishConnectionDetailsTo != nil {
		p.note = notePublish
	}
	return p, nil
}

// desired computes the conditions an object should have at now: the due
// entries of the schedule, then defaults for the types no due entry sets
// (Ready=Unknown, Synced=True), then overrides (Synced=False on errors,
// Ready=False while deleting, Stalled=True), each replacing the condition of
// its type. Every condition observes generation.
//
// A scheduled condition's lastTransitionTime is the moment it fell due
// (creation + time), even when the reconciler applies it late, so that a
// restarted controller writes the same status; when the status it replaces
// began after that moment (an override that ended), it is now.
func desired(current []metav1.Condition, created time.Time, due []entry, defaults, overrides []metav1.Condition, generation int64, now time.Time) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(due)+len(defaults)+len(overrides))
	for _, e := range due {
		c := e.cond
		c.ObservedGeneration = generation
		at := created.Add(e.after).Truncate(time.Second)
		if old := conditions.Get(current, c.Type); old != nil && old.Status != c.Status && old.LastTransitionTime.After(at) {
			at = now.Truncate(time.Second)
		}
		c.LastTransitionTime = metav1.NewTime(at)
		out = append(out, c)
	}
	for _, d := range defaults {
		if !slices.ContainsFunc(out, func(c metav1.Condition) bool { return c.Type == d.Type }) {
			d.ObservedGeneration = generation
			out = append(out, d)
		}
	}
	for _, o := range overrides {
		o.ObservedGeneration = generation
		if i := slices.IndexFunc(out, func(c metav1.Condition) bool { return c.Type == o.Type }); i >= 0 {
			out[i] = o
			continue
		}
		out = append(out, o)
	}
	return withReconciling(out, generation)
}

// withReconciling adds Reconciling=True, with Ready's reason and message,
// while Ready is Unknown and nothing else says how far the resource got (no
// Stalled, no scheduled Reconciling): Flux's checker requires it beside an
// Unknown Ready, and kstatus reads it as InProgress.
func withReconciling(out []metav1.Condition, generation int64) []metav1.Condition {
	ready := conditions.Get(out, conditions.TypeReady)
	if ready == nil || ready.Status != metav1.ConditionUnknown ||
		conditions.Get(out, conditions.TypeReconciling) != nil || conditions.IsTrue(out, conditions.TypeStalled) {
		return out
	}
	return append(out, metav1.Condition{
		Type: conditions.TypeReconciling, Status: metav1.ConditionTrue, Reason: ready.Reason, Message: ready.Message,
		ObservedGeneration: generation, LastTransitionTime: ready.LastTransitionTime,
	})
}

// defaults returns the conditions a resource has when its schedule does not
// set them (yet): Ready=Unknown (AwaitingSchedule, naming the next Ready entry
// if any) and Synced=True (ReconcileSuccess, with note as its message).
func defaults(s schedule, elapsed time.Duration, note string) []metav1.Condition {
	ready := metav1.Condition{
		Type: conditions.TypeReady, Status: metav1.ConditionUnknown, Reason: ReasonAwaitingSchedule,
		Message: "spec.forProvider.conditionAfter schedules no Ready condition",
	}
	if e, ok := s.next(conditions.TypeReady, elapsed); ok {
		ready.Message = fmt.Sprintf("Ready is scheduled %s after creation (spec.forProvider.conditionAfter[%d])", e.after, e.index)
	}
	return []metav1.Condition{ready, {
		Type: conditions.TypeSynced, Status: metav1.ConditionTrue, Reason: ReasonReconcileSuccess, Message: note,
	}}
}

// stalled returns the overrides of a resource that cannot make progress until
// its spec changes: Synced=False and Stalled=True with reason and msg, and
// Ready=False with the same, so that Ready never claims True for a
// generation that was not reconciled.
func stalled(reason, msg string) []metav1.Condition {
	return []metav1.Condition{
		{Type: conditions.TypeSynced, Status: metav1.ConditionFalse, Reason: reason, Message: msg},
		{Type: conditions.TypeReady, Status: metav1.ConditionFalse, Reason: reason, Message: msg},
		{Type: conditions.TypeStalled, Status: metav1.ConditionTrue, Reason: reason, Message: msg},
	}
}

// apply makes conds hold exactly want: types not in want are removed, the
// others set with conditions.Set's rules (a type keeps its position, and its
// lastTransitionTime while its status holds). keep lists types to leave alone
// even when want lacks them.
func apply(s conditions.Setter, conds *[]metav1.Condition, want []metav1.Condition, keep func(t string) bool) {
	*conds = slices.DeleteFunc(*conds, func(c metav1.Condition) bool {
		return (keep == nil || !keep(c.Type)) && !slices.ContainsFunc(want, func(w metav1.Condition) bool { return w.Type == c.Type })
	})
	for _, c := range want {
		s.Set(conds, c)
	}
	if len(*conds) == 0 {
		*conds = nil
	}
}

// mirror copies spec.forProvider's observable fields to status.atProvider,
// keeping what is already there when it is the same.
func mirror(at *v1alpha1.NopResourceObservation, p *v1alpha1.NopResourceParameters) {
	if !sameJSON(at.Fields, p.Fields) {
		at.Fields = p.Fields.DeepCopy()
	}
	at.PatchReceiverField = p.PatchReceiverField
	if !slices.Equal(at.ObservableArrays, p.ObservableArrays) {
		at.ObservableArrays = slices.Clone(p.ObservableArrays)
	}
	if len(at.ObservableArrays) == 0 {
		at.ObservableArrays = nil
	}
}

// sameJSON reports whether a and b hold the same JSON value (nil is not the
// same as an empty object).
func sameJSON(a, b *runtime.RawExtension) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if bytes.Equal(a.Raw, b.Raw) && a.Object == nil && b.Object == nil {
		return true
	}
	av, aerr := decodeRaw(a)
	bv, berr := decodeRaw(b)
	return aerr == nil && berr == nil && reflect.DeepEqual(av, bv)
}

func decodeRaw(r *runtime.RawExtension) (any, error) {
	raw := r.Raw
	if r.Object != nil {
		var err error
		if raw, err = json.Marshal(r.Object); err != nil {
			return nil, err
		}
	}
	var v any
	if len(raw) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("cannot decode %s: %w", quote(string(raw)), err)
	}
	return v, nil
}

// statusEqual reports whether writing b over a would change nothing the API
// server keeps: nil and empty lists are the same, times compare at second
// precision.
func statusEqual(a, b *v1alpha1.NopResourceStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			x.ObservedGeneration != y.ObservedGeneration ||
			!x.LastTransitionTime.Truncate(time.Second).Equal(y.LastTransitionTime.Truncate(time.Second)) {
			return false
		}
	}
	return sameJSON(a.AtProvider.Fields, b.AtProvider.Fields) &&
		a.AtProvider.PatchReceiverField == b.AtProvider.PatchReceiverField &&
		slices.Equal(a.AtProvider.ObservableArrays, b.AtProvider.ObservableArrays)
}

// MaxSecretBytes is the most data a Secret holds, the sum of its values'
// lengths, as the API server counts it.
const MaxSecretBytes = 1 << 20

// checkSecretData refuses connection details that the API server would refuse
// in the Secret ref, whatever the attempt: a key a Secret cannot have, or
// more data than a Secret holds. The error names the field and, for a key,
// the key; never a value.
func checkSecretData(ref types.NamespacedName, details []v1alpha1.ConnectionDetail) error {
	total := 0
	for i, d := range details {
		if msgs := validation.IsConfigMapKey(d.Name); len(msgs) > 0 {
			return invalid(fmt.Sprintf("spec.forProvider.connectionDetails[%d].name", i),
				"cannot use %s as a key of Secret %s: %s", quote(d.Name), ref, strings.Join(msgs, "; "))
		}
		total += len(d.Value)
	}
	if total > MaxSecretBytes {
		return invalid("spec.forProvider.connectionDetails",
			"cannot write %d bytes of values to Secret %s: a Secret holds at most %d", total, ref, MaxSecretBytes)
	}
	return nil
}
