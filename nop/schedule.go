package nop

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// ErrInvalidSpec is wrapped by every error about a bad value in the spec of a
// NopResource or ClusterNopResource. The reconciler reports such an error as
// Synced=False with reason InvalidSpec.
var ErrInvalidSpec = errors.New("invalid spec")

// A specError is a bad value in a spec, named by its field path.
type specError struct {
	field string // e.g. spec.forProvider.conditionAfter[2].time
	msg   string // e.g. cannot parse "5x" as a duration: ...
}

func (e *specError) Error() string { return e.field + ": " + e.msg }
func (e *specError) Unwrap() error { return ErrInvalidSpec }

func invalid(field, format string, args ...any) error {
	return &specError{field: field, msg: fmt.Sprintf(format, args...)}
}

// quote quotes a user's value for an error message, shortening a long one.
func quote(s string) string {
	const limit = 64
	if len(s) > limit {
		return fmt.Sprintf("%q...", s[:limit])
	}
	return fmt.Sprintf("%q", s)
}

// durationPattern is what the CRD admits as a duration (see the
// XValidation rules in v1alpha1): time.ParseDuration's syntax without a sign.
const durationPattern = `^(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

var durationRE = regexp.MustCompile(durationPattern)

// parseDuration parses a non-negative Go duration from the spec, accepting
// exactly what the CRD's validation admits.
func parseDuration(field, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		// time's message repeats the value; keep only the reason.
		why := strings.TrimPrefix(err.Error(), "time: ")
		why = strings.TrimSuffix(strings.TrimSuffix(why, " "+strconv.Quote(s)), " in duration")
		return 0, invalid(field, "cannot parse %s as a Go duration such as \"5s\" or \"1m30s\": %s", quote(s), why)
	case d < 0 || strings.HasPrefix(s, "-"):
		return 0, invalid(field, "cannot use %s: a duration must not be negative", quote(s))
	case !durationRE.MatchString(s):
		return 0, invalid(field, "cannot use %s: write a duration as numbers with units and no sign, such as \"5s\" or \"1m30s\"", quote(s))
	}
	return d, nil
}

// An entry is a validated spec.forProvider.conditionAfter entry.
type entry struct {
	index int           // position in conditionAfter
	after time.Duration // due this long after creation
	cond  metav1.Condition
}

// A schedule is a validated conditionAfter list, in the order of the spec.
type schedule []entry

// ReasonScheduled is the reason of a scheduled condition whose entry gives no
// conditionReason.
const ReasonScheduled = "Scheduled"

// maxEntries is the most entries conditionAfter may have, as the CRD's
// maxItems says: a resource stored before that rule, or under another
// schema, is refused too, rather than reconciled at a cost that grows with
// the square of its entries.
const maxEntries = 100

// parseSchedule validates spec.forProvider.conditionAfter. The first bad
// entry gives an error naming its index and field and wrapping
// ErrInvalidSpec.
func parseSchedule(in []v1alpha1.ConditionAfter) (schedule, error) {
	if len(in) > maxEntries {
		return nil, invalid("spec.forProvider.conditionAfter", "cannot use %d entries: must be at most %d", len(in), maxEntries)
	}
	s := make(schedule, 0, len(in))
	for i, ca := range in {
		field := fmt.Sprintf("spec.forProvider.conditionAfter[%d]", i)
		after, err := parseDuration(field+".time", ca.Time)
		if err != nil {
			return nil, err
		}
		switch ca.ConditionStatus {
		case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
		default:
			return nil, invalid(field+".conditionStatus", "cannot use %s: must be True, False or Unknown", quote(string(ca.ConditionStatus)))
		}
		c := metav1.Condition{
			Type:    ca.ConditionType,
			Status:  ca.ConditionStatus,
			Reason:  ca.ConditionReason,
			Message: ca.ConditionMessage,
		}
		if c.Reason == "" {
			c.Reason = ReasonScheduled
		}
		if c.Message == "" {
			c.Message = fmt.Sprintf("%s=%s %s after creation (%s)", c.Type, c.Status, ca.Time, field)
		}
		// The message is held to the CRD schemas' limit, in characters (as
		// OpenAPI's maxLength counts them), not to conditions.Validate's
		// stricter bytes: what the CRD admits, the status write is admitted.
		checked := c
		checked.Message = ""
		if err := conditions.Validate(checked); err != nil {
			return nil, invalid(field, "cannot set the condition: %v", err)
		}
		if n := utf8.RuneCountInString(c.Message); n > conditions.MaxMessageLength {
			return nil, invalid(field+".conditionMessage", "cannot use a message of %d characters: must be at most %d", n, conditions.MaxMessageLength)
		}
		s = append(s, entry{index: i, after: after, cond: c})
	}
	return s, nil
}

// at returns what the schedule says once elapsed has passed since creation:
// for each condition type the due entry (after <= elapsed) with the greatest
// time, the earlier one in the list on equal times (as provider-nop
// decides), in the order in which the types first appear in the spec; and
// the time after creation at which the next entry falls due (ok is false
// when none is left).
func (s schedule) at(elapsed time.Duration) (due []entry, next time.Duration, ok bool) {
	slot := make(map[string]int, 4) // type -> index into due
	filled := make([]bool, 0, 4)
	for _, e := range s {
		i, seen := slot[e.cond.Type]
		if !seen {
			i = len(due)
			slot[e.cond.Type] = i
			due = append(due, entry{})
			filled = append(filled, false)
		}
		if e.after > elapsed {
			if !ok || e.after < next {
				next, ok = e.after, true
			}
			continue
		}
		if !filled[i] || e.after > due[i].after { // the earlier in the list wins on equal times
			due[i], filled[i] = e, true
		}
	}
	n := 0
	for i := range due {
		if filled[i] {
			due[n] = due[i]
			n++
		}
	}
	return due[:n], next, ok
}

// next returns the entry of type t that falls due first after elapsed (the
// earlier one in the list on equal times).
func (s schedule) next(t string, elapsed time.Duration) (entry, bool) {
	var found entry
	ok := false
	for _, e := range s {
		if e.cond.Type == t && e.after > elapsed && (!ok || e.after < found.after) {
			found, ok = e, true
		}
	}
	return found, ok
}

// sets says whether an entry of the schedule sets a condition of type t with
// reason, which then does not tell what the reconciler wrote itself.
func (s schedule) sets(t, reason string) bool {
	return slices.ContainsFunc(s, func(e entry) bool { return e.cond.Type == t && e.cond.Reason == reason })
}
