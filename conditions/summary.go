package conditions

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/internal/message"
)

// Reasons of a summary condition that no summarized condition supplies.
const (
	// ReasonAvailable: every summarized condition is good.
	ReasonAvailable = "Available"
	// ReasonUnavailable: a summarized condition is bad and its own reason is
	// missing or invalid.
	ReasonUnavailable = "Unavailable"
	// ReasonNotReported: a summarized condition is missing, or Unknown with a
	// missing or invalid reason, or there is nothing to summarize.
	ReasonNotReported = "NotReported"
	// ReasonStale: a summarized condition was observed at an older generation
	// than the summary's (see ObservedGeneration).
	ReasonStale = "Stale"
)

// A SummaryOption changes what Summarize does.
type SummaryOption interface {
	applyToSummary(*summaryOptions)
}

// Types are the condition types, of normal polarity (True is good), that the
// summary needs; a missing one makes the summary Unknown. Without Types,
// Summarize takes every condition present except the summary's own type and
// the NegativePolarity types. The order is the order of precedence when more
// than one is not good.
type Types []string

func (t Types) applyToSummary(s *summaryOptions) {
	s.positive = append(s.positive, t...)
	s.explicit = true
}

// NegativePolarity are condition types where True is bad, like kstatus's
// Stalled and Reconciling or a Degraded: True makes the summary False,
// Unknown makes it Unknown, and False or missing is good. They take
// precedence over Types.
type NegativePolarity []string

func (n NegativePolarity) applyToSummary(s *summaryOptions) { s.negative = append(s.negative, n...) }

// ObservedGeneration is the generation the summary describes, usually the
// object's metadata.generation; it becomes the summary's observedGeneration.
// A summarized condition observed at an older generation (an observedGeneration
// that is set and lower) may be out of date, and counts as Unknown.
type ObservedGeneration int64

func (g ObservedGeneration) applyToSummary(s *summaryOptions) { s.generation = int64(g) }

type summaryOptions struct {
	positive   []string
	negative   []string
	explicit   bool
	generation int64
}

// verdict is how one summarized condition counts.
type verdict int

const (
	good verdict = iota
	unknown
	bad
)

// Summarize computes a condition of summaryType (usually Ready) from conds,
// the way kstatus, `kubectl wait --for=condition=Ready`, Argo CD and Flux read
// a Ready condition:
//
//   - False when a NegativePolarity type is True or a Types type is False; its
//     reason is the first such condition's, and its message names every one,
//     e.g. "ImageReady: image not found; Stalled: quota exceeded";
//   - otherwise Unknown when one is Unknown, missing (reason NotReported) or
//     stale (reason Stale, see ObservedGeneration), or when there is nothing
//     to summarize: no Types and no condition present but the summary's own
//     (an absent NegativePolarity type is good, but not evidence);
//   - otherwise True, with reason Available.
//
// A summarized condition's reason becomes the summary's; when it is missing
// or invalid the summary uses Unavailable (False) or NotReported (Unknown)
// instead, so that the summary passes Validate whenever summaryType does. The
// message is cut to MaxMessageLength.
//
// The result has no lastTransitionTime; record it with Set, which keeps the
// old one while the status holds:
//
//	conditions.Set(&conds, conditions.Summarize(conditions.TypeReady, conds,
//		conditions.NegativePolarity{"Stalled"}, conditions.ObservedGeneration(obj.Generation)))
func Summarize(summaryType string, conds []metav1.Condition, opts ...SummaryOption) metav1.Condition {
	var s summaryOptions
	for _, o := range opts {
		o.applyToSummary(&s)
	}
	out := metav1.Condition{Type: summaryType, ObservedGeneration: s.generation}

	// The worst verdict wins; the first condition with it gives the reason.
	worst, n := good, 0
	var reason string
	var msgs []string
	judge := func(t string, v verdict, r, msg string) {
		if v < worst {
			return
		}
		if v > worst {
			worst, reason, msgs = v, r, msgs[:0]
		}
		msgs = append(msgs, t+": "+msg)
	}
	var seen []string
	consider := func(t string, negative bool) {
		if t == summaryType || slices.Contains(seen, t) {
			return
		}
		seen = append(seen, t)
		c := Get(conds, t)
		if c == nil && negative {
			// An absent abnormal-true condition is the normal state, but
			// not evidence of anything.
			return
		}
		n++
		switch v := verdictOf(c, negative, s.generation); {
		case c == nil:
			judge(t, unknown, ReasonNotReported, "not reported")
		case v == unknown && isStale(c, s.generation):
			judge(t, unknown, ReasonStale, fmt.Sprintf("observed generation %d, not %d", c.ObservedGeneration, s.generation))
		case v != good:
			judge(t, v, c.Reason, describeCondition(c))
		}
	}

	for _, t := range s.negative {
		consider(t, true)
	}
	if s.explicit {
		for _, t := range s.positive {
			if !slices.Contains(s.negative, t) {
				consider(t, false)
			}
		}
	} else {
		for i := range conds {
			if t := conds[i].Type; !slices.Contains(s.negative, t) {
				consider(t, false)
			}
		}
	}

	switch {
	case n == 0:
		out.Status, out.Reason, out.Message = metav1.ConditionUnknown, ReasonNotReported, "no conditions to summarize"
	case worst == good:
		out.Status, out.Reason = metav1.ConditionTrue, ReasonAvailable
	default:
		out.Status = metav1.ConditionFalse
		if worst == unknown {
			out.Status = metav1.ConditionUnknown
		}
		out.Reason = reason
		if checkReason(reason) != "" {
			// Do not let a summarized condition's bad reason make the
			// summary invalid too.
			out.Reason = ReasonNotReported
			if worst == bad {
				out.Reason = ReasonUnavailable
			}
		}
		out.Message = strings.Join(msgs, "; ")
		out.Message = message.Truncate(out.Message, MaxMessageLength)
	}
	return out
}

// verdictOf judges one condition by Summarize's rules: a missing condition
// and one observed at a generation older than generation (when both are set)
// are unknown; False (True for a negative polarity type) is bad; True (False)
// is good; any other status is unknown.
func verdictOf(c *metav1.Condition, negative bool, generation int64) verdict {
	switch {
	case c == nil, isStale(c, generation):
		return unknown
	case c.Status == metav1.ConditionTrue && negative, c.Status == metav1.ConditionFalse && !negative:
		return bad
	case c.Status == metav1.ConditionTrue || c.Status == metav1.ConditionFalse:
		return good
	default:
		return unknown
	}
}

func isStale(c *metav1.Condition, generation int64) bool {
	return generation > 0 && c.ObservedGeneration > 0 && c.ObservedGeneration < generation
}

// describeCondition says what is wrong with c in a summary's message.
func describeCondition(c *metav1.Condition) string {
	status := string(c.Status)
	if status == "" {
		status = "no status"
	}
	switch {
	case c.Message != "":
		return c.Message
	case c.Reason != "":
		return status + ", " + c.Reason
	default:
		return status
	}
}
