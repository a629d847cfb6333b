// Package response adds results and status conditions to a composition
// function's RunFunctionResponse, with the names and output of
// function-sdk-go's response package: code that calls the SDK's result and
// condition helpers ports by changing two imports,
//
//	github.com/crossplane/function-sdk-go/proto/v1  -> github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1
//	github.com/crossplane/function-sdk-go/response  -> github.com/ctrlkit/ctrlkit/results/response
//
// and returns the same bytes. A whole function keeps function-sdk-go for its
// request, desired state and serving, and AddTo adds what this package built
// to the SDK's own response in one call. Results go to the response's
// results, and conditions to its own conditions list, both targeting the
// composite resource unless told otherwise:
//
//	response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
//
// Beyond the SDK, a result can carry a condition (it adds one with the
// result's message and target), and AddResult adds a result built with
// package results:
//
//	response.Fatal(rsp, errors.New("The image provided does not exist or you are not authorized to use it.")).
//		ConditionFalse("ImageReady", "NotFound").
//		TargetCompositeAndClaim()
//
// Fatal returns a *ResultOption so that it chains; a call used as a
// statement, as with the SDK, compiles unchanged. Nothing here panics or
// validates: a nil error gives an empty message, and the control plane
// (results.Applier) reports what it cannot apply.
//
// Imports: google.golang.org/protobuf and the results proto packages only (no
// client-go).
package response

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/internal/message"
	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// A ResultOption changes a result that has been added to a response, and the
// condition added with it, if any. Its methods return it, for chaining.
type ResultOption struct {
	result    *crossplanev1.Result
	condition *crossplanev1.Condition // added by ConditionTrue, ConditionFalse or ConditionUnknown
	rsp       *crossplanev1.RunFunctionResponse
}

// Fatal adds a fatal result with err's message to rsp: the function could not
// do its work, and the control plane stops at this result.
func Fatal(rsp *crossplanev1.RunFunctionResponse, err error) *ResultOption {
	return newResult(rsp, crossplanev1.Severity_SEVERITY_FATAL, message.OfError(err))
}

// Warning adds a warning result with err's message to rsp. An event is
// recorded on the composite resource.
func Warning(rsp *crossplanev1.RunFunctionResponse, err error) *ResultOption {
	return newResult(rsp, crossplanev1.Severity_SEVERITY_WARNING, message.OfError(err))
}

// Normal adds a normal result with message to rsp. An event is recorded on
// the composite resource.
func Normal(rsp *crossplanev1.RunFunctionResponse, message string) *ResultOption {
	return newResult(rsp, crossplanev1.Severity_SEVERITY_NORMAL, message)
}

// Normalf is Normal with a message formatted by fmt.Sprintf.
func Normalf(rsp *crossplanev1.RunFunctionResponse, format string, a ...any) *ResultOption {
	return Normal(rsp, fmt.Sprintf(format, a...))
}

// newResult appends a result targeting the composite resource. A nil rsp
// gets nothing; the returned option still works.
func newResult(rsp *crossplanev1.RunFunctionResponse, s crossplanev1.Severity, message string) *ResultOption {
	r := &crossplanev1.Result{Severity: s, Message: message, Target: crossplanev1.Target_TARGET_COMPOSITE.Enum()}
	if rsp != nil {
		if rsp.Results == nil {
			rsp.Results = make([]*crossplanev1.Result, 0, 1)
		}
		rsp.Results = append(rsp.Results, r)
	}
	return &ResultOption{result: r, rsp: rsp}
}

// TargetComposite makes the result, and its condition, target the composite
// resource alone (the default).
func (o *ResultOption) TargetComposite() *ResultOption {
	return o.target(crossplanev1.Target_TARGET_COMPOSITE)
}

// TargetCompositeAndClaim makes the result, and its condition, target the
// composite resource and its claim.
func (o *ResultOption) TargetCompositeAndClaim() *ResultOption {
	return o.target(crossplanev1.Target_TARGET_COMPOSITE_AND_CLAIM)
}

func (o *ResultOption) target(t crossplanev1.Target) *ResultOption {
	o.result.Target = t.Enum()
	if o.condition != nil {
		o.condition.Target = t.Enum()
	}
	return o
}

// WithReason sets the reason of the result's event. It does not change the
// reason of the result's condition.
func (o *ResultOption) WithReason(reason string) *ResultOption {
	o.result.Reason = &reason
	return o
}

// ConditionTrue adds a condition of type typ with status True and reason to
// the response, with the result's message (when it has one) and target; a
// later TargetComposite or TargetCompositeAndClaim changes both. A second
// call replaces the condition's type, status and reason.
func (o *ResultOption) ConditionTrue(typ, reason string) *ResultOption {
	return o.setCondition(typ, reason, crossplanev1.Status_STATUS_CONDITION_TRUE)
}

// ConditionFalse is ConditionTrue with status False.
func (o *ResultOption) ConditionFalse(typ, reason string) *ResultOption {
	return o.setCondition(typ, reason, crossplanev1.Status_STATUS_CONDITION_FALSE)
}

// ConditionUnknown is ConditionTrue with status Unknown.
func (o *ResultOption) ConditionUnknown(typ, reason string) *ResultOption {
	return o.setCondition(typ, reason, crossplanev1.Status_STATUS_CONDITION_UNKNOWN)
}

func (o *ResultOption) setCondition(typ, reason string, s crossplanev1.Status) *ResultOption {
	if o.condition == nil {
		o.condition = newCondition(o.rsp, typ, reason, s).condition
		if m := o.result.Message; m != "" {
			o.condition.Message = &m
		}
		o.condition.Target = o.result.GetTarget().Enum()
		return o
	}
	o.condition.Type, o.condition.Reason, o.condition.Status = typ, reason, s
	return o
}

// A ConditionOption changes a condition that has been added to a response.
// Its methods return it, for chaining.
type ConditionOption struct {
	condition *crossplanev1.Condition
}

// ConditionTrue adds a condition of type typ with status True and reason to
// rsp, targeting the composite resource.
func ConditionTrue(rsp *crossplanev1.RunFunctionResponse, typ, reason string) *ConditionOption {
	return newCondition(rsp, typ, reason, crossplanev1.Status_STATUS_CONDITION_TRUE)
}

// ConditionFalse adds a condition of type typ with status False and reason
// to rsp, targeting the composite resource.
func ConditionFalse(rsp *crossplanev1.RunFunctionResponse, typ, reason string) *ConditionOption {
	return newCondition(rsp, typ, reason, crossplanev1.Status_STATUS_CONDITION_FALSE)
}

// ConditionUnknown adds a condition of type typ with status Unknown and
// reason to rsp, targeting the composite resource.
func ConditionUnknown(rsp *crossplanev1.RunFunctionResponse, typ, reason string) *ConditionOption {
	return newCondition(rsp, typ, reason, crossplanev1.Status_STATUS_CONDITION_UNKNOWN)
}

func newCondition(rsp *crossplanev1.RunFunctionResponse, typ, reason string, s crossplanev1.Status) *ConditionOption {
	c := &crossplanev1.Condition{Type: typ, Status: s, Reason: reason, Target: crossplanev1.Target_TARGET_COMPOSITE.Enum()}
	if rsp != nil {
		if rsp.Conditions == nil {
			rsp.Conditions = make([]*crossplanev1.Condition, 0, 1)
		}
		rsp.Conditions = append(rsp.Conditions, c)
	}
	return &ConditionOption{condition: c}
}

// TargetComposite makes the condition target the composite resource alone
// (the default).
func (c *ConditionOption) TargetComposite() *ConditionOption {
	c.condition.Target = crossplanev1.Target_TARGET_COMPOSITE.Enum()
	return c
}

// TargetCompositeAndClaim makes the condition target the composite resource
// and its claim: the control plane lists its type in the composite's
// status.claimConditionTypes, and the claim shows it.
func (c *ConditionOption) TargetCompositeAndClaim() *ConditionOption {
	c.condition.Target = crossplanev1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()
	return c
}

// WithMessage sets the condition's message.
func (c *ConditionOption) WithMessage(message string) *ConditionOption {
	c.condition.Message = &message
	return c
}

// AddResult adds r, a result in package results' layout (results.Fatal(err).
// ConditionFalse(...).Build()), to rsp: a Crossplane result with its
// severity, message, reason and target and, when r sets a condition, a
// condition with r's target and message (its claim message when r targets
// the claim). A normal result with a condition and no message adds the
// condition alone; a nil r adds nothing. Crossplane's layout has no claim
// message for events: the claim's event shows r's message. AddResult does
// not validate r; results.Validate does.
func AddResult(rsp *crossplanev1.RunFunctionResponse, r *resultsv1.Result) {
	if rsp == nil || r == nil {
		return
	}
	target := crossplanev1.Target(r.GetTarget())
	var tp *crossplanev1.Target
	if r.GetTarget() != resultsv1.Target_TARGET_UNSPECIFIED {
		tp = target.Enum()
	}
	c := r.GetCondition()
	if r.GetMessage() != "" || r.GetSeverity() != resultsv1.Severity_SEVERITY_NORMAL || c == nil {
		out := &crossplanev1.Result{
			Severity: crossplanev1.Severity(r.GetSeverity()),
			Message:  r.GetMessage(),
			Target:   tp,
		}
		if r.Reason != nil {
			reason := r.GetReason()
			out.Reason = &reason
		}
		rsp.Results = append(rsp.Results, out)
	}
	if c == nil {
		return
	}
	msg := r.GetMessage()
	if r.GetTarget() == resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM && r.ClaimMessage != nil {
		msg = r.GetClaimMessage()
	}
	cc := &crossplanev1.Condition{
		Type:   c.GetType(),
		Status: crossplanev1.Status(c.GetStatus()),
		Reason: c.GetReason(),
	}
	if tp != nil {
		cc.Target = target.Enum()
	}
	if msg != "" {
		cc.Message = &msg
	}
	rsp.Conditions = append(rsp.Conditions, cc)
}
