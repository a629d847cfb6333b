package conditions

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/internal/message"
)

// Reasons of an aggregate condition that several sources share.
const (
	// ReasonMultipleIssues: more than one source is bad, with different
	// reasons.
	ReasonMultipleIssues = "MultipleIssues"
	// ReasonMultipleUnknown: none is bad and more than one source is
	// unknown, with different reasons.
	ReasonMultipleUnknown = "MultipleUnknown"
)

// A Source is one object whose condition Aggregate and Mirror read: a name
// for messages (such as "Deployment web") and its conditions.
type Source struct {
	Name       string
	Conditions []metav1.Condition
}

// An AggregateOption changes what Aggregate does. NegativePolarity (listing
// the source type) and ObservedGeneration are AggregateOptions.
type AggregateOption interface {
	applyToAggregate(*aggregateOptions)
}

type aggregateOptions struct {
	negative   bool
	generation int64
}

func (n NegativePolarity) applyToAggregate(o *aggregateOptions) {
	o.negative = o.negative || len(n) > 0
}

func (g ObservedGeneration) applyToAggregate(o *aggregateOptions) { o.generation = int64(g) }

// maxNamesPerMessage is how many sources a message of Aggregate names before
// it counts the rest ("web, db, cache and 4 more: ...").
const maxNamesPerMessage = 3

// Aggregate computes a condition of targetType from the sourceType condition
// of many objects, such as a parent's WorkloadsReady from its workloads'
// Ready, the way Summarize judges one object's conditions:
//
//   - False when a source's condition is bad (False; True for a
//     NegativePolarity source type);
//   - otherwise Unknown when one is Unknown or missing (reason NotReported),
//     or when there are no sources;
//   - otherwise True, with reason Available.
//
// The reason is the bad (or unknown) sources' own when they share one, else
// MultipleIssues (MultipleUnknown); a missing or invalid reason becomes
// Unavailable (NotReported). The message groups the sources by message,
// worst first, each group naming up to three sources: "web, db: 0/3 replicas
// ready; cache: not reported", cut to MaxMessageLength. Sources are taken in
// the order given.
//
// NegativePolarity{sourceType} says True is bad; ObservedGeneration sets the
// result's observedGeneration. Like Summarize, the result has no
// lastTransitionTime; record it with Set.
func Aggregate(targetType, sourceType string, sources []Source, opts ...AggregateOption) metav1.Condition {
	var o aggregateOptions
	for _, opt := range opts {
		opt.applyToAggregate(&o)
	}
	out := metav1.Condition{Type: targetType, ObservedGeneration: o.generation}
	if len(sources) == 0 {
		out.Status, out.Reason, out.Message = metav1.ConditionUnknown, ReasonNotReported, "no objects to aggregate"
		return out
	}

	// The sources that are not good, by verdict; each group keeps its
	// messages in first-seen order with the names that gave them.
	type group struct {
		message string
		names   []string
	}
	var groups [bad + 1][]group
	var reasons [bad + 1][]string
	for _, s := range sources {
		v, reason, msg := judgeSource(Get(s.Conditions, sourceType), o.negative)
		if v == good {
			continue
		}
		if !slices.Contains(reasons[v], reason) {
			reasons[v] = append(reasons[v], reason)
		}
		i := slices.IndexFunc(groups[v], func(g group) bool { return g.message == msg })
		if i < 0 {
			groups[v] = append(groups[v], group{message: msg})
			i = len(groups[v]) - 1
		}
		groups[v][i].names = append(groups[v][i].names, s.Name)
	}

	worst := good
	switch {
	case len(groups[bad]) > 0:
		worst, out.Status = bad, metav1.ConditionFalse
	case len(groups[unknown]) > 0:
		worst, out.Status = unknown, metav1.ConditionUnknown
	default:
		out.Status, out.Reason = metav1.ConditionTrue, ReasonAvailable
		return out
	}
	switch {
	case len(reasons[worst]) > 1 && worst == bad:
		out.Reason = ReasonMultipleIssues
	case len(reasons[worst]) > 1:
		out.Reason = ReasonMultipleUnknown
	case checkReason(reasons[worst][0]) != "" && worst == bad:
		out.Reason = ReasonUnavailable
	case checkReason(reasons[worst][0]) != "":
		out.Reason = ReasonNotReported
	default:
		out.Reason = reasons[worst][0]
	}
	var b strings.Builder
	for v := bad; v >= unknown; v-- {
		for _, g := range groups[v] {
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			writeNames(&b, g.names)
			b.WriteString(": ")
			b.WriteString(g.message)
			if b.Len() > MaxMessageLength {
				break
			}
		}
	}
	out.Message = message.Truncate(b.String(), MaxMessageLength)
	return out
}

// judgeSource says how one source's condition counts in an aggregate, with
// the reason and message it gives.
func judgeSource(c *metav1.Condition, negative bool) (verdict, string, string) {
	switch {
	case c == nil:
		return unknown, ReasonNotReported, "not reported"
	case c.Status == metav1.ConditionTrue && negative, c.Status == metav1.ConditionFalse && !negative:
		return bad, c.Reason, describeCondition(c)
	case c.Status == metav1.ConditionTrue || c.Status == metav1.ConditionFalse:
		return good, "", ""
	default:
		return unknown, c.Reason, describeCondition(c)
	}
}

// writeNames writes up to maxNamesPerMessage names and counts the rest.
func writeNames(b *strings.Builder, names []string) {
	for i, n := range names {
		if i == maxNamesPerMessage {
			fmt.Fprintf(b, " and %d more", len(names)-i)
			return
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
}
