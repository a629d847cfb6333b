package results

import (
	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

// ToCrossplane converts rsp to the layout of Crossplane's RunFunctionResponse
// (v1.17 and later), for a function that talks to Crossplane. The enums have
// the same numbers on both sides.
//
// Each result is added as response.AddResult adds it: a Crossplane result
// (severity, message, reason, target; an unspecified target stays unset) and,
// when it sets a condition, a Crossplane condition with its target and its
// message (its claim message when it targets the claim), except that a normal
// result with a condition and no message becomes the condition alone. rsp's
// own conditions follow the results' conditions, as Applier.Apply sets them.
// Crossplane has no claim message for events nor a step name: the claim's
// event shows the result's message.
func ToCrossplane(rsp *resultsv1.Response) *crossplanev1.RunFunctionResponse {
	out := &crossplanev1.RunFunctionResponse{}
	for _, r := range rsp.GetResults() {
		response.AddResult(out, r)
	}
	for _, c := range rsp.GetConditions() {
		if c == nil {
			continue
		}
		cc := &crossplanev1.Condition{
			Type:    c.GetType(),
			Status:  crossplanev1.Status(c.GetStatus()),
			Reason:  c.GetReason(),
			Message: cloneString(c.Message),
		}
		if c.GetTarget() != resultsv1.Target_TARGET_UNSPECIFIED {
			cc.Target = crossplanev1.Target(c.GetTarget()).Enum()
		}
		out.Conditions = append(out.Conditions, cc)
	}
	return out
}

// FromCrossplane converts a Crossplane RunFunctionResponse's results and
// conditions to a Response that Applier.Apply applies as Crossplane would
// (Apply's documentation lists where Crossplane and Apply differ): each
// result becomes a result with its severity, message, reason and target, and
// each condition a ResponseCondition, which sets the condition and records
// no event. Apply sets every condition, then records the results' events up
// to the first fatal one.
func FromCrossplane(rsp *crossplanev1.RunFunctionResponse) *resultsv1.Response {
	out := &resultsv1.Response{}
	for _, r := range rsp.GetResults() {
		if r == nil {
			continue
		}
		out.Results = append(out.Results, &resultsv1.Result{
			Severity: resultsv1.Severity(r.GetSeverity()),
			Message:  r.GetMessage(),
			Reason:   cloneString(r.Reason),
			Target:   resultsv1.Target(r.GetTarget()),
		})
	}
	for _, c := range rsp.GetConditions() {
		if c == nil {
			continue
		}
		out.Conditions = append(out.Conditions, &resultsv1.ResponseCondition{
			Type:    c.GetType(),
			Status:  resultsv1.Status(c.GetStatus()),
			Reason:  c.GetReason(),
			Message: cloneString(c.Message),
			Target:  resultsv1.Target(c.GetTarget()),
		})
	}
	return out
}

func cloneString(s *string) *string {
	if s == nil {
		return nil
	}
	v := *s
	return &v
}
