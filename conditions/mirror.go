package conditions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/internal/message"
)

// A MirrorOption changes what Mirror does. ObservedGeneration and Fallback
// are MirrorOptions.
type MirrorOption interface {
	applyToMirror(*mirrorOptions)
}

type mirrorOptions struct {
	generation int64
	fallback   *metav1.Condition
}

func (g ObservedGeneration) applyToMirror(o *mirrorOptions) { o.generation = int64(g) }

// Fallback is the condition Mirror returns, under the target type, when the
// source has no condition of the source type.
type Fallback metav1.Condition

func (f Fallback) applyToMirror(o *mirrorOptions) {
	c := metav1.Condition(f)
	o.fallback = &c
}

// Mirror returns the sourceType condition of source under targetType, for an
// object that reports another's condition as one of its own, such as a
// cluster's ControlPlaneReady from its control plane's Ready. Status, reason
// and message are copied; the message is prefixed with the source's name
// ("KubeadmControlPlane kcp: 1 of 3 machines ready"), and cut to
// MaxMessageLength. ObservedGeneration sets the result's observedGeneration
// (the mirroring object's generation, not the source's).
//
// A source without the condition gives the Fallback option's condition, or
// Unknown with reason NotReported. A source condition with a missing or
// invalid reason gives Unavailable (False) or NotReported (otherwise), and one
// with an invalid status Unknown, so the result passes Validate whenever
// targetType does. Like Summarize, the result
// has no lastTransitionTime; record it with Set.
func Mirror(targetType, sourceType string, source Source, opts ...MirrorOption) metav1.Condition {
	var o mirrorOptions
	for _, opt := range opts {
		opt.applyToMirror(&o)
	}
	c := Get(source.Conditions, sourceType)
	if c == nil {
		out := metav1.Condition{Status: metav1.ConditionUnknown, Reason: ReasonNotReported, Message: source.Name + ": " + sourceType + " not reported"}
		if o.fallback != nil {
			out = *o.fallback
		}
		out.Type, out.ObservedGeneration, out.LastTransitionTime = targetType, o.generation, metav1.Time{}
		return out
	}
	out := metav1.Condition{Type: targetType, Status: c.Status, Reason: c.Reason, ObservedGeneration: o.generation}
	switch out.Status {
	case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
	default:
		out.Status, out.Reason = metav1.ConditionUnknown, ""
	}
	if checkReason(out.Reason) != "" {
		out.Reason = ReasonNotReported
		if out.Status == metav1.ConditionFalse {
			out.Reason = ReasonUnavailable
		}
	}
	if c.Message != "" {
		out.Message = message.Truncate(source.Name+": "+c.Message, MaxMessageLength)
	}
	return out
}
