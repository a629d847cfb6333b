package conditions

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/internal/message"
)

// TypeHealthy says whether an object and everything it is made of are free
// of errors (see Health), as opposed to Ready, which says whether what it
// represents can be used yet.
const TypeHealthy = "Healthy"

// Reasons of a Healthy condition.
const (
	// ReasonHealthy: nothing reports an error.
	ReasonHealthy = "Healthy"
	// ReasonNotSynced: the object's own Synced is False.
	ReasonNotSynced = "NotSynced"
	// ReasonUnhealthyConditions: a condition the object's composition
	// reports is bad.
	ReasonUnhealthyConditions = "UnhealthyConditions"
	// ReasonUnhealthyResources: a resource the object is made of is not
	// healthy.
	ReasonUnhealthyResources = "UnhealthyResources"
	// ReasonHealthUnknown: nothing is bad, but something is unknown,
	// missing or stale.
	ReasonHealthUnknown = "HealthUnknown"
)

// controlTypes are the types Health never takes as reported by a
// composition: the control plane's own.
var controlTypes = []string{TypeReady, TypeSynced, TypeHealthy, TypeCompositeSynced, TypeReconciling, TypeStalled}

// Health computes the Healthy condition of a composite resource or a claim
// from its own conditions conds and the resources it is made of, with
// Summarize's polarity rules, in three parts of decreasing precedence:
//
//   - its own Synced: False is bad (ReasonNotSynced), Unknown unknown,
//     missing nothing;
//   - the conditions its composition reports: the Types given, where a
//     missing one is unknown; without Types every condition present but
//     the control plane's (Ready, Synced, Healthy, CompositeSynced,
//     Reconciling, Stalled). A NegativePolarity type is bad when True and
//     counts when present. False is bad (ReasonUnhealthyConditions), Unknown
//     or stale (see ObservedGeneration) unknown;
//   - the resources it is made of (composed): a source with a Healthy
//     condition is judged by that alone (it covers the source's own parts);
//     otherwise by its Synced, Ready (False is bad) and Stalled (True is
//     bad), those it has. A source with none of them gives no evidence.
//     A bad one is ReasonUnhealthyResources.
//
// Healthy is False when a part is bad, with the reason of the first bad
// part; otherwise Unknown (ReasonHealthUnknown) when a part is unknown, or
// when there is nothing to judge (ReasonNotReported); otherwise True
// (ReasonHealthy). The message names what is not good, never a message of
// a condition: "Synced False (ReconcileError); conditions: ImageReady False
// (NotFound); resources: Deployment web (Ready False, Creating)", three
// names per part and then "and N more", cut to MaxMessageLength. So a
// composite resource's Healthy is fit for its claim, whose own Healthy is
// computed from the claim's Synced and the composite resource as its one
// source.
//
// Like Summarize, the result has no lastTransitionTime; record it with Set.
func Health(conds []metav1.Condition, composed []Source, opts ...SummaryOption) metav1.Condition {
	var s summaryOptions
	for _, o := range opts {
		o.applyToSummary(&s)
	}
	out := metav1.Condition{Type: TypeHealthy, ObservedGeneration: s.generation}

	var parts [3]healthPart // synced, conditions, resources
	n := 0
	if c := Get(conds, TypeSynced); c != nil {
		n++
		parts[0].add(verdictOf(c, false, s.generation), "", c, s.generation)
	}
	var seen []string
	consider := func(t string, negative bool) {
		if slices.Contains(seen, t) {
			return
		}
		seen = append(seen, t)
		c := Get(conds, t)
		if c == nil && negative {
			return
		}
		n++
		parts[1].add(verdictOf(c, negative, s.generation), t, c, s.generation)
	}
	for _, t := range s.negative {
		consider(t, true)
	}
	if s.explicit {
		for _, t := range s.positive {
			consider(t, slices.Contains(s.negative, t))
		}
	} else {
		for i := range conds {
			if t := conds[i].Type; !slices.Contains(controlTypes, t) {
				consider(t, slices.Contains(s.negative, t))
			}
		}
	}
	for _, src := range composed {
		v, why, ok := sourceHealth(src.Conditions)
		if !ok {
			continue
		}
		n++
		parts[2].addNamed(v, src.Name+inParens(why))
	}

	worst := good
	for _, p := range parts {
		worst = max(worst, p.worst)
	}
	switch {
	case n == 0:
		out.Status, out.Reason, out.Message = metav1.ConditionUnknown, ReasonNotReported, "nothing reports health"
		return out
	case worst == good:
		out.Status, out.Reason = metav1.ConditionTrue, ReasonHealthy
		return out
	case worst == unknown:
		out.Status, out.Reason = metav1.ConditionUnknown, ReasonHealthUnknown
	default:
		out.Status = metav1.ConditionFalse
		for i, r := range []string{ReasonNotSynced, ReasonUnhealthyConditions, ReasonUnhealthyResources} {
			if parts[i].worst == bad {
				out.Reason = r
				break
			}
		}
	}
	var msgs []string
	for i, label := range []string{"", "conditions: ", "resources: "} {
		p := &parts[i]
		if p.worst != worst || len(p.names) == 0 {
			continue
		}
		if i == 0 {
			msgs = append(msgs, p.synced)
			continue
		}
		msgs = append(msgs, label+names(p.names))
	}
	out.Message = message.Truncate(strings.Join(msgs, "; "), MaxMessageLength)
	return out
}

// healthPart collects the verdicts of one part of Health.
type healthPart struct {
	worst  verdict
	names  []string // of the worst
	synced string   // the Synced part's message
}

func (p *healthPart) addNamed(v verdict, name string) {
	if v < p.worst || v == good {
		return
	}
	if v > p.worst {
		p.worst, p.names = v, p.names[:0]
	}
	p.names = append(p.names, name)
}

// add records condition c of type t (the Synced part when t is empty).
func (p *healthPart) add(v verdict, t string, c *metav1.Condition, generation int64) {
	if t == "" {
		p.addNamed(v, TypeSynced)
		p.synced = TypeSynced + " " + statusWord(c.Status) + inParens(reasonOf(c))
		if isStale(c, generation) {
			p.synced = fmt.Sprintf("%s observed generation %d, not %d", TypeSynced, c.ObservedGeneration, generation)
		}
		return
	}
	if c == nil {
		p.addNamed(v, t+" not reported")
		return
	}
	if isStale(c, generation) {
		p.addNamed(v, fmt.Sprintf("%s observed generation %d, not %d", t, c.ObservedGeneration, generation))
		return
	}
	p.addNamed(v, t+" "+statusWord(c.Status)+inParens(reasonOf(c)))
}

// sourceHealth judges one composed resource's conditions; ok is false when
// they say nothing about its health.
func sourceHealth(conds []metav1.Condition) (v verdict, why string, ok bool) {
	if c := Get(conds, TypeHealthy); c != nil {
		return verdictOf(c, false, 0), "Healthy " + statusWord(c.Status) + inComma(reasonOf(c)), true
	}
	var whys []string
	for _, t := range []string{TypeSynced, TypeReady, TypeStalled} {
		c := Get(conds, t)
		if c == nil {
			continue
		}
		ok = true
		w := verdictOf(c, t == TypeStalled, 0)
		if w == good || w < v {
			continue
		}
		if w > v {
			v, whys = w, whys[:0]
		}
		whys = append(whys, t+" "+statusWord(c.Status)+inComma(reasonOf(c)))
	}
	return v, strings.Join(whys, ", "), ok
}

// reasonOf is c's reason when it is valid, else empty: a reason read from
// an object is shown only when it is a plain word.
func reasonOf(c *metav1.Condition) string {
	if c == nil || checkReason(c.Reason) != "" {
		return ""
	}
	return c.Reason
}

func inParens(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func inComma(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

func statusWord(s metav1.ConditionStatus) string {
	switch s {
	case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
		return string(s)
	}
	return "without a status"
}

// names lists up to maxNamesPerMessage names, then how many more.
func names(ns []string) string {
	if len(ns) <= maxNamesPerMessage {
		return strings.Join(ns, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ns[:maxNamesPerMessage], ", "), len(ns)-maxNamesPerMessage)
}
