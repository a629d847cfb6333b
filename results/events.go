package results

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/message"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// Event types, as k8s.io/api/core/v1 spells them.
const (
	eventNormal  = "Normal"
	eventWarning = "Warning"
)

// events records the results' events, up to and including the first fatal
// result.
func (r *run) events(rs []*resultsv1.Result) {
	for i, res := range rs {
		step := res.GetStep()
		if step == "" {
			step = r.step
		}
		if res == nil {
			r.warn(step, fmt.Sprintf("result %d of %d is empty; not applied", i+1, len(rs)))
			continue
		}
		toClaim := res.GetTarget() == resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM
		claimMsg := res.GetMessage()
		if toClaim && res.ClaimMessage != nil {
			claimMsg = res.GetClaimMessage()
		}
		reason := ReasonComposeResources
		if res.GetReason() != "" {
			reason = message.Truncate(message.ValidUTF8(res.GetReason()), MaxEventReasonLength)
		}

		switch res.GetSeverity() {
		case resultsv1.Severity_SEVERITY_FATAL:
			msg := "cannot compose resources: the function returned a fatal result: " + res.GetMessage()
			if step != "" {
				msg = fmt.Sprintf("cannot compose resources: pipeline step %q returned a fatal result: %s", step, res.GetMessage())
			}
			r.fatal = fatalError(msg)
			r.a.setter.Set(&r.conds, metav1.Condition{
				Type:               conditions.TypeSynced,
				Status:             metav1.ConditionFalse,
				Reason:             ReasonReconcileError,
				Message:            message.Truncate(msg, conditions.MaxMessageLength),
				ObservedGeneration: r.xr.GetGeneration(),
			})
			r.event(r.xr, nil, eventWarning, ReasonComposeResources, msg)
			if toClaim {
				r.event(r.claim, r.xr, eventWarning, reason, claimMsg)
			}
			if toClaim && res.ClaimMessage != nil {
				r.carryClaimMessage(res.GetClaimMessage())
			}
			return
		case resultsv1.Severity_SEVERITY_WARNING:
			msg := res.GetMessage()
			if msg == "" {
				msg = "(a warning without a message)"
			}
			r.event(r.xr, nil, eventWarning, reason, prefix(step, msg))
			if toClaim {
				if claimMsg == "" {
					claimMsg = msg
				}
				r.event(r.claim, r.xr, eventWarning, reason, claimMsg)
			}
		case resultsv1.Severity_SEVERITY_NORMAL:
			if res.GetMessage() != "" {
				r.event(r.xr, nil, eventNormal, reason, prefix(step, res.GetMessage()))
			}
			if toClaim {
				r.event(r.claim, r.xr, eventNormal, reason, claimMsg)
			}
		default:
			msg := "returned a result of unknown severity (assuming warning): " + res.GetMessage()
			if step != "" {
				msg = fmt.Sprintf("Pipeline step %q %s", step, msg)
			} else {
				msg = "The function " + msg
			}
			r.event(r.xr, nil, eventWarning, reason, msg)
		}
	}
}

// carryClaimMessage records on the XR, as a False CompositeSynced of the
// XR's generation, the message that its claim shows of the fatal result
// (see conditions.PropagateSynced); the XR's Synced keeps the detail.
func (r *run) carryClaimMessage(msg string) {
	c := conditions.Normalize(metav1.Condition{
		Type:               conditions.TypeCompositeSynced,
		Status:             metav1.ConditionFalse,
		Reason:             ReasonReconcileError,
		Message:            msg,
		ObservedGeneration: r.xr.GetGeneration(),
	})
	if c.Message == "" {
		return // nothing for the claim: PropagateSynced writes its own
	}
	r.a.setter.Set(&r.conds, c)
	r.carried = true
}

// prefix names the step, when known, before msg, as Crossplane does.
func prefix(step, msg string) string {
	if step == "" {
		return msg
	}
	return fmt.Sprintf("Pipeline step %q: %s", step, msg)
}

// warn records a Warning event on the XR about something of the response
// that was not applied.
func (r *run) warn(step, msg string) {
	r.event(r.xr, nil, eventWarning, ReasonComposeResources, prefix(step, msg))
}

func (r *run) event(regarding *unstructured.Unstructured, related runtime.Object, eventType, reason, msg string) {
	if r.a.recorder == nil || regarding == nil || msg == "" {
		return
	}
	if r.recorded == MaxEvents {
		r.dropped++
		return
	}
	r.recorded++
	r.a.recorder.Eventf(regarding, related, eventType, reason, EventAction, "%s", message.Truncate(message.ValidUTF8(msg), MaxEventNoteLength))
}
