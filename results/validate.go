package results

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// Sentinel errors, for errors.Is.
var (
	// ErrInvalidResult is wrapped by every error about a result that breaks
	// the rules of Validate.
	ErrInvalidResult = errors.New("invalid result")

	// ErrReservedType is wrapped, besides ErrInvalidResult, by the error
	// about a result whose condition type belongs to the control plane (see
	// IsSystemConditionType).
	ErrReservedType = errors.New("condition type reserved for the control plane")

	// ErrMalformed is wrapped by every error about a composite resource or a
	// claim whose status cannot be read: conditions that are not conditions,
	// a claimConditions that is not a list of strings. It is
	// conditions.ErrMalformed, so either name matches.
	ErrMalformed = conditions.ErrMalformed
)

// MaxEventReasonLength is the longest event reason the API server accepts.
const MaxEventReasonLength = 128

// resultError is an invalid result: every broken rule, in one error.
type resultError struct {
	problems []string
	reserved bool
}

func (e *resultError) Error() string {
	return "invalid result: " + strings.Join(e.problems, "; ")
}

func (e *resultError) Is(target error) bool {
	return target == ErrInvalidResult || (e.reserved && target == ErrReservedType)
}

// Validate reports whether r is a result a function should return, naming
// every broken rule in one error that wraps ErrInvalidResult. AddResult calls
// it; the Applier is more lenient, as Crossplane is (see Applier.Apply), and
// reports with a Warning event what it cannot apply. The rules:
//
//   - r is not nil;
//   - severity is FATAL, WARNING or NORMAL;
//   - target is UNSPECIFIED, COMPOSITE_ONLY or COMPOSITE_AND_CLAIM;
//   - a fatal or warning result has a message; a normal result has a message,
//     a condition or both;
//   - the event reason, when set, is PascalCase like a condition's reason
//     and at most 128 characters;
//   - claim_message is set only on a result that targets the claim;
//   - the condition, when set, is not of a system type (see
//     IsSystemConditionType; the error also wraps ErrReservedType), has status TRUE, FALSE or UNKNOWN, and with the
//     result's message (and claim message) passes conditions.Validate: a
//     qualified-name type, a PascalCase reason, a message of at most 32768
//     bytes.
//
// Validate does not allocate when r is valid.
func Validate(r *resultsv1.Result) error {
	if r == nil {
		return &resultError{problems: []string{"nil result"}}
	}
	var e *resultError // allocated only when r is invalid
	problem := func(format string, args ...any) {
		if e == nil {
			e = &resultError{}
		}
		e.problems = append(e.problems, fmt.Sprintf(format, args...))
	}

	switch r.GetSeverity() {
	case resultsv1.Severity_SEVERITY_FATAL, resultsv1.Severity_SEVERITY_WARNING:
		if r.GetMessage() == "" {
			problem("a %s result needs a message", severityName(r.GetSeverity()))
		}
	case resultsv1.Severity_SEVERITY_NORMAL:
		if r.GetMessage() == "" && r.Condition == nil {
			problem("a normal result needs a message, a condition or both")
		}
	default:
		problem("severity %s: must be FATAL, WARNING or NORMAL", severityName(r.GetSeverity()))
	}

	claim := false
	switch r.GetTarget() {
	case resultsv1.Target_TARGET_UNSPECIFIED, resultsv1.Target_TARGET_COMPOSITE_ONLY:
	case resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM:
		claim = true
	default:
		problem("target %d: must be COMPOSITE_ONLY or COMPOSITE_AND_CLAIM", int32(r.GetTarget()))
	}

	if r.Reason != nil {
		reason := r.GetReason()
		switch {
		case len(reason) > MaxEventReasonLength:
			problem("event reason: must be at most %d characters, not %d", MaxEventReasonLength, len(reason))
		case conditions.Validate(metav1.Condition{Type: "Event", Status: metav1.ConditionTrue, Reason: reason}) != nil:
			problem("event reason %s: must be PascalCase like a condition's reason (e.g. \"ImageNotFound\")", quote(reason))
		}
	}
	if r.ClaimMessage != nil && !claim {
		problem("claim_message is set but the result does not target the claim (use TargetCompositeAndClaim)")
	}

	if c := r.Condition; c != nil {
		if IsSystemConditionType(c.GetType()) {
			problem("condition type %s is reserved for the control plane", quote(c.GetType()))
			e.reserved = true
		}
		var status metav1.ConditionStatus
		switch c.GetStatus() {
		case resultsv1.Status_STATUS_TRUE:
			status = metav1.ConditionTrue
		case resultsv1.Status_STATUS_FALSE:
			status = metav1.ConditionFalse
		case resultsv1.Status_STATUS_UNKNOWN:
			status = metav1.ConditionUnknown
		default:
			problem("condition %s: status %s: must be TRUE, FALSE or UNKNOWN", quote(c.GetType()), statusName(c.GetStatus()))
			status = metav1.ConditionUnknown // so that Validate below looks at the rest
		}
		mc := metav1.Condition{Type: c.GetType(), Status: status, Reason: c.GetReason(), Message: r.GetMessage()}
		if err := conditions.Validate(mc); err != nil {
			problem("%v", err)
		} else if claim && r.ClaimMessage != nil {
			mc.Message = r.GetClaimMessage()
			if err := conditions.Validate(mc); err != nil {
				problem("claim_message: %v", err)
			}
		}
	}
	if e == nil {
		return nil
	}
	return e
}

// severityName is a severity as the messages name it: fatal, warning or
// normal, UNSPECIFIED, or the number of a severity this package does not
// know.
func severityName(s resultsv1.Severity) string {
	if s == resultsv1.Severity_SEVERITY_UNSPECIFIED {
		return "UNSPECIFIED"
	}
	return strings.ToLower(strings.TrimPrefix(s.String(), "SEVERITY_"))
}

func statusName(s resultsv1.Status) string {
	if s == resultsv1.Status_STATUS_UNSPECIFIED {
		return "UNSPECIFIED"
	}
	return fmt.Sprintf("%d", int32(s))
}

// quote quotes s for an error message, shortening a long s.
func quote(s string) string {
	const limit = 64
	if len(s) > limit {
		return fmt.Sprintf("%q...", s[:limit])
	}
	return fmt.Sprintf("%q", s)
}
