// Package response adds results to a composition function's Response as the
// function goes, in the style of function-sdk-go's response package:
//
//	response.Fatal(rsp, errors.New("The image provided does not exist or you are not authorized to use it.")).
//		ConditionFalse("ImageReady", "NotFound").
//		TargetCompositeAndClaim()
//
// Each function appends a result to rsp at once and returns a handle whose
// methods change that result in place, so the chain needs no final call.
// Nothing is validated here (a chain cannot return an error): the control
// plane's results.Applier validates every result and reports an invalid one
// (see results.Validate). Use results.Validate in a function's tests, or build
// with package results and add with results.AddResult to learn about a bad
// result at once.
package response

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// A Result is a result that has been added to a Response. Its methods change
// it in place and return it, for chaining.
type Result struct {
	r *resultsv1.Result
}

// Fatal adds a fatal result with err's message to rsp: the function could not
// do its work. A nil rsp gets nothing; the returned Result still works.
func Fatal(rsp *resultsv1.Response, err error) *Result {
	return add(rsp, resultsv1.Severity_SEVERITY_FATAL, errorMessage(err))
}

// Warning adds a warning result with err's message to rsp.
func Warning(rsp *resultsv1.Response, err error) *Result {
	return add(rsp, resultsv1.Severity_SEVERITY_WARNING, errorMessage(err))
}

// Normal adds a normal (informational) result with message msg to rsp.
func Normal(rsp *resultsv1.Response, msg string) *Result {
	return add(rsp, resultsv1.Severity_SEVERITY_NORMAL, msg)
}

// Normalf is Normal with a message formatted by fmt.Sprintf.
func Normalf(rsp *resultsv1.Response, format string, args ...any) *Result {
	return Normal(rsp, fmt.Sprintf(format, args...))
}

func add(rsp *resultsv1.Response, s resultsv1.Severity, msg string) *Result {
	r := &resultsv1.Result{Severity: s, Message: msg}
	if rsp != nil {
		rsp.Results = append(rsp.Results, r)
	}
	return &Result{r: r}
}

func errorMessage(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ConditionTrue makes the result set a condition of conditionType with status
// True and the given reason; its message is the result's message.
func (r *Result) ConditionTrue(conditionType, reason string) *Result {
	return r.condition(conditionType, resultsv1.Status_STATUS_TRUE, reason)
}

// ConditionFalse makes the result set a condition of conditionType with
// status False and the given reason; its message is the result's message.
func (r *Result) ConditionFalse(conditionType, reason string) *Result {
	return r.condition(conditionType, resultsv1.Status_STATUS_FALSE, reason)
}

// ConditionUnknown makes the result set a condition of conditionType with
// status Unknown and the given reason; its message is the result's message.
func (r *Result) ConditionUnknown(conditionType, reason string) *Result {
	return r.condition(conditionType, resultsv1.Status_STATUS_UNKNOWN, reason)
}

func (r *Result) condition(conditionType string, s resultsv1.Status, reason string) *Result {
	r.r.Condition = &resultsv1.Condition{Type: conditionType, Status: s, Reason: reason}
	return r
}

// TargetCompositeOnly sends the result to the composite resource alone (the
// default).
func (r *Result) TargetCompositeOnly() *Result {
	r.r.Target = resultsv1.Target_TARGET_COMPOSITE_ONLY
	return r
}

// TargetCompositeAndClaim sends the result to the composite resource and its
// claim.
func (r *Result) TargetCompositeAndClaim() *Result {
	r.r.Target = resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM
	return r
}

// WithReason sets the reason of the result's event (default: ReconcileError
// for a fatal result, ComposeResources otherwise).
func (r *Result) WithReason(reason string) *Result {
	r.r.Reason = proto.String(reason)
	return r
}

// WithClaimMessage sets the message the claim shows instead of the result's
// message (see results.Builder.WithClaimMessage).
func (r *Result) WithClaimMessage(msg string) *Result {
	r.r.ClaimMessage = proto.String(msg)
	return r
}
