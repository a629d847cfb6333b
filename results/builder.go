package results

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/ctrlkit/ctrlkit/internal/message"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// A Builder builds one Result. Start it with Fatal, Warning, Normal or
// Normalf, chain the With and Target methods, and finish with Build:
//
//	r := results.Fatal(err).
//		TargetCompositeAndClaim().
//		ConditionFalse("DatabaseReady", "Unauthorized").
//		Build()
//
// A Builder does not validate; AddResult and the Applier do (see Validate).
// The zero Builder is not usable; a nil *Builder builds a nil Result.
type Builder struct {
	r *resultsv1.Result
}

// Fatal starts a fatal result with err's message: the function could not do
// its work. A nil err gives an empty message, which Validate rejects.
func Fatal(err error) *Builder {
	return newBuilder(resultsv1.Severity_SEVERITY_FATAL, message.OfError(err))
}

// Warning starts a warning result with err's message. A nil err gives an
// empty message, which Validate rejects.
func Warning(err error) *Builder {
	return newBuilder(resultsv1.Severity_SEVERITY_WARNING, message.OfError(err))
}

// Normal starts a normal (informational) result with message msg. An empty
// msg is allowed when the result sets a condition: the condition then has no
// message and no event is recorded.
func Normal(msg string) *Builder {
	return newBuilder(resultsv1.Severity_SEVERITY_NORMAL, msg)
}

// Normalf is Normal with a message formatted by fmt.Sprintf.
func Normalf(format string, args ...any) *Builder {
	return Normal(fmt.Sprintf(format, args...))
}

func newBuilder(s resultsv1.Severity, msg string) *Builder {
	return &Builder{r: &resultsv1.Result{Severity: s, Message: msg}}
}

// TargetComposite sends the result to the composite resource alone, which
// is also what a result without a target does.
func (b *Builder) TargetComposite() *Builder {
	return b.target(resultsv1.Target_TARGET_COMPOSITE_ONLY)
}

// TargetCompositeAndClaim sends the result to the composite resource and its
// claim: the event is recorded on both, and the condition, if any, is listed
// in the composite's status.claimConditions so that it reaches the claim.
func (b *Builder) TargetCompositeAndClaim() *Builder {
	return b.target(resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM)
}

func (b *Builder) target(t resultsv1.Target) *Builder {
	if b != nil && b.r != nil {
		b.r.Target = t
	}
	return b
}

// ConditionTrue makes the result set a condition of conditionType with
// status True and the given reason; its message is the result's message.
func (b *Builder) ConditionTrue(conditionType, reason string) *Builder {
	return b.condition(conditionType, resultsv1.Status_STATUS_TRUE, reason)
}

// ConditionFalse makes the result set a condition of conditionType with
// status False and the given reason; its message is the result's message.
func (b *Builder) ConditionFalse(conditionType, reason string) *Builder {
	return b.condition(conditionType, resultsv1.Status_STATUS_FALSE, reason)
}

// ConditionUnknown makes the result set a condition of conditionType
// with status Unknown and the given reason; its message is the result's
// message.
func (b *Builder) ConditionUnknown(conditionType, reason string) *Builder {
	return b.condition(conditionType, resultsv1.Status_STATUS_UNKNOWN, reason)
}

// WithConditionTrue is ConditionTrue, spelled as the fn-claim-conditions
// design's sketch spells the builder's methods; the response package keeps
// function-sdk-go's spelling (response.ConditionTrue(rsp, ...)).
func (b *Builder) WithConditionTrue(conditionType, reason string) *Builder {
	return b.ConditionTrue(conditionType, reason)
}

// WithConditionFalse is ConditionFalse in the design's spelling.
func (b *Builder) WithConditionFalse(conditionType, reason string) *Builder {
	return b.ConditionFalse(conditionType, reason)
}

// WithConditionUnknown is ConditionUnknown in the design's spelling.
func (b *Builder) WithConditionUnknown(conditionType, reason string) *Builder {
	return b.ConditionUnknown(conditionType, reason)
}

func (b *Builder) condition(conditionType string, s resultsv1.Status, reason string) *Builder {
	if b != nil && b.r != nil {
		b.r.Condition = &resultsv1.Condition{Type: conditionType, Status: s, Reason: reason}
	}
	return b
}

// WithReason sets the reason of the result's event, replacing the default
// (ComposeResources). A fatal result's event keeps ComposeResources, as
// Crossplane's does, and its Synced=False condition ReconcileError. It does
// not change the reason of the result's condition.
func (b *Builder) WithReason(reason string) *Builder {
	if b != nil && b.r != nil {
		b.r.Reason = proto.String(reason)
	}
	return b
}

// WithClaimMessage sets the message the claim shows instead of the result's
// message: in its event, and in the condition the claim mirrors from the
// composite resource. The detailed message stays on the composite resource
// (its event, and its Synced condition when the result is fatal). It needs
// TargetCompositeAndClaim.
func (b *Builder) WithClaimMessage(msg string) *Builder {
	if b != nil && b.r != nil {
		b.r.ClaimMessage = proto.String(msg)
	}
	return b
}

// Build returns the result. Later calls on b do not change it.
func (b *Builder) Build() *resultsv1.Result {
	if b == nil || b.r == nil {
		return nil
	}
	return proto.CloneOf(b.r)
}

// AddResult validates r and appends it to rsp's results. An invalid r is not
// added and the error says why (see Validate); so is a nil rsp.
func AddResult(rsp *resultsv1.Response, r *resultsv1.Result) error {
	if rsp == nil {
		return fmt.Errorf("cannot add a result to a nil response: %w", ErrInvalidResult)
	}
	if err := Validate(r); err != nil {
		return fmt.Errorf("cannot add result: %w", err)
	}
	rsp.Results = append(rsp.Results, r)
	return nil
}
