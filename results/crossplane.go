package results

import (
	"google.golang.org/protobuf/proto"

	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// ToCrossplane converts rsp to the layout of Crossplane's RunFunctionResponse
// (v1.17 and later), for a function that talks to Crossplane. The enums have
// the same numbers on both sides.
//
// Each result becomes a Crossplane result (severity, message, reason,
// target; an unspecified target stays unset), except a normal result with a
// condition and no message, which records no event (see Applier.Apply) and
// becomes a condition alone. Each result with a condition
// also adds a Crossplane condition with the result's target, and with the
// result's message, or its claim message when it targets the claim (as
// Applier.Apply sets it). Crossplane has no claim message for events, so the
// claim's event shows the result's message. Conditions are listed in result
// order; Crossplane applies them whatever the results' severities.
func ToCrossplane(rsp *resultsv1.Response) *crossplanev1.RunFunctionResponse {
	out := &crossplanev1.RunFunctionResponse{}
	for _, r := range rsp.GetResults() {
		if r == nil {
			continue
		}
		var target *crossplanev1.Target
		if r.GetTarget() != resultsv1.Target_TARGET_UNSPECIFIED {
			target = crossplanev1.Target(r.GetTarget()).Enum()
		}
		if r.GetMessage() != "" || r.GetSeverity() != resultsv1.Severity_SEVERITY_NORMAL || r.GetCondition() == nil {
			out.Results = append(out.Results, &crossplanev1.Result{
				Severity: crossplanev1.Severity(r.GetSeverity()),
				Message:  r.GetMessage(),
				Reason:   cloneString(r.Reason),
				Target:   target,
			})
		}
		c := r.GetCondition()
		if c == nil {
			continue
		}
		msg := r.GetMessage()
		if r.GetTarget() == resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM && r.ClaimMessage != nil {
			msg = r.GetClaimMessage()
		}
		cc := &crossplanev1.Condition{
			Type:   c.GetType(),
			Status: crossplanev1.Status(c.GetStatus()),
			Reason: c.GetReason(),
			Target: cloneTarget(target),
		}
		if msg != "" {
			cc.Message = proto.String(msg)
		}
		out.Conditions = append(out.Conditions, cc)
	}
	return out
}

// FromCrossplane converts a Crossplane RunFunctionResponse's results and
// conditions to a Response that Applier.Apply applies as Crossplane would.
//
// Conditions come first, each as a normal result that sets it (its message
// the condition's, its target the condition's): Crossplane sets them even
// when a result is fatal, and Apply stops at a fatal result. Unlike
// Crossplane, a condition with a message then also records a Normal event.
// The results follow, in order, with their severity, message, reason and
// target.
func FromCrossplane(rsp *crossplanev1.RunFunctionResponse) *resultsv1.Response {
	out := &resultsv1.Response{}
	for _, c := range rsp.GetConditions() {
		if c == nil {
			continue
		}
		out.Results = append(out.Results, &resultsv1.Result{
			Severity: resultsv1.Severity_SEVERITY_NORMAL,
			Message:  c.GetMessage(),
			Target:   resultsv1.Target(c.GetTarget()),
			Condition: &resultsv1.Condition{
				Type:   c.GetType(),
				Status: resultsv1.Status(c.GetStatus()),
				Reason: c.GetReason(),
			},
		})
	}
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
	return out
}

func cloneString(s *string) *string {
	if s == nil {
		return nil
	}
	return proto.String(*s)
}

func cloneTarget(t *crossplanev1.Target) *crossplanev1.Target {
	if t == nil {
		return nil
	}
	return t.Enum()
}
