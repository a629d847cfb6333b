package extref

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/message"
)

// The ReferencesResolved condition.
const (
	// TypeReferencesResolved says whether a referencer's external values
	// were resolved.
	TypeReferencesResolved = "ReferencesResolved"

	// ReasonResolved: every required external value was resolved (optional
	// ones may have been skipped; the message names them).
	ReasonResolved = "Resolved"
	// ReasonResolutionFailed: a required external value could not be
	// resolved, and nothing was written.
	ReasonResolutionFailed = "ResolutionFailed"
	// ReasonResolutionDenied: the source policy or a SubjectAccessReview
	// did not allow a required read, and nothing was written.
	ReasonResolutionDenied = "ResolutionDenied"
	// ReasonWaitingForDependency: every failure is a dependsOn value's
	// object that does not exist yet, is being deleted, or is not Ready.
	ReasonWaitingForDependency = "WaitingForDependency"
	// ReasonWriteRejected: the external values were resolved, but the API
	// server rejected the referencer with them (e.g. a string for an
	// integer field), so nothing was written.
	ReasonWriteRejected = "WriteRejected"
)

// WriteRejected reports whether err, returned by a write of a resolved
// referencer, says that the API server rejected its content (422 Invalid or
// 400 Bad Request): the same write would be rejected again, so it should be
// reported (RejectedCondition) and not retried until a spec or source
// change.
func WriteRejected(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)
}

// RejectedCondition returns the ReferencesResolved condition for a
// referencer of the given generation whose resolved values, as Resolve
// returned them in o, the API server rejected with err: False with reason
// WriteRejected. The message names each external value whose target the API
// server refused, the target and the problem, in its terms (an invalid
// value, longer than 63 bytes, not one of the supported values...), but
// never repeats its text: that quotes the rejected value, which may have
// been read from a Secret.
func RejectedCondition(o Outcome, err error, generation int64) metav1.Condition {
	return metav1.Condition{
		Type:               TypeReferencesResolved,
		Status:             metav1.ConditionFalse,
		Reason:             ReasonWriteRejected,
		ObservedGeneration: generation,
		Message:            message.Truncate(rejectedMessage(o, err), conditions.MaxMessageLength),
	}
}

// Condition returns the ReferencesResolved condition that reports what
// Resolve returned, for a referencer of the given generation: True with
// reason Resolved, or False with reason ResolutionDenied when a required read
// was denied and ResolutionFailed otherwise, with a message naming each
// failing (or skipped) external value. Set it with package conditions, which
// keeps lastTransitionTime and reports whether anything changed.
func Condition(o Outcome, err error, generation int64) metav1.Condition {
	c := metav1.Condition{
		Type:               TypeReferencesResolved,
		Status:             metav1.ConditionTrue,
		Reason:             ReasonResolved,
		ObservedGeneration: generation,
	}
	if err != nil {
		c.Status = metav1.ConditionFalse
		c.Reason = ReasonResolutionFailed
		if errors.Is(err, ErrDenied) {
			c.Reason = ReasonResolutionDenied
		} else if onlyDependencies(err) {
			c.Reason = ReasonWaitingForDependency
		}
		c.Message = message.Truncate(err.Error(), conditions.MaxMessageLength)
		return c
	}
	// The message is the same on every reconcile of a settled referencer:
	// a value resolved now and one resolved earlier (IfNotPresent) count
	// alike, so that the condition does not change after the first write.
	var b strings.Builder
	switch n := o.Resolved + o.Present; {
	case n == 0 && len(o.Skipped) == 0:
		b.WriteString("no external values")
	case n == 1:
		b.WriteString("1 external value resolved")
	default:
		fmt.Fprintf(&b, "%d external values resolved", n)
	}
	if len(o.Skipped) > 0 {
		fmt.Fprintf(&b, ", %d optional skipped", len(o.Skipped))
	}
	for _, s := range o.Skipped {
		b.WriteString("; ")
		b.WriteString(s.Error())
	}
	c.Message = message.Truncate(b.String(), conditions.MaxMessageLength)
	return c
}

// onlyDependencies reports whether every failure in err waits for a
// dependency.
func onlyDependencies(err error) bool {
	if l, ok := err.(errorList); ok {
		for _, e := range l {
			if !errors.Is(e, ErrDependency) {
				return false
			}
		}
		return len(l) > 0
	}
	return errors.Is(err, ErrDependency)
}
