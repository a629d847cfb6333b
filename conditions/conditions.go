package conditions

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/internal/message"
)

// Condition types that belong to the control plane. A claim's own controller
// sets them, so Propagate never copies or removes them, and composition
// functions must not set them on a composite resource (see IsReserved).
const (
	// TypeReady says whether the object is ready for use.
	TypeReady = "Ready"
	// TypeSynced says whether the object's last reconcile succeeded.
	TypeSynced = "Synced"
)

// IsReserved reports whether conditionType belongs to the control plane
// (Ready, Synced, Healthy and CompositeSynced): Propagate never copies it
// from a composite resource to its claim, and never removes it from the
// claim, whose own controller sets it. The comparison is exact; condition
// types are case-sensitive.
func IsReserved(conditionType string) bool {
	switch conditionType {
	case TypeReady, TypeSynced, TypeHealthy, TypeCompositeSynced:
		return true
	}
	return false
}

// A Setter sets conditions, stamping lastTransitionTime from its clock when
// a condition's status changes and the caller gave no time. The zero Setter
// uses the real clock; NewSetter with WithClock gives another. Times are
// stamped with second precision, which is what the API server stores, so an
// object read back compares equal to the one written.
type Setter struct {
	clock clock.PassiveClock // nil: the real clock
}

// A SetterOption configures NewSetter.
type SetterOption interface {
	applyToSetter(*Setter)
}

// NewSetter returns a Setter configured by opts.
func NewSetter(opts ...SetterOption) Setter {
	var s Setter
	for _, o := range opts {
		o.applyToSetter(&s)
	}
	return s
}

type clockOption struct{ c clock.PassiveClock }

func (o clockOption) applyToSetter(s *Setter) { s.clock = o.c }

// WithClock is an option of NewSetter: c gives the time of a transition
// instead of the real clock. A nil c means the real clock.
func WithClock(c clock.PassiveClock) SetterOption { return clockOption{c} }

// now returns the current time with the precision the API server stores.
func (s Setter) now() metav1.Time {
	var t time.Time
	if s.clock == nil {
		t = time.Now()
	} else {
		t = s.clock.Now()
	}
	// Whole seconds, in UTC: what the API server stores and returns.
	return metav1.NewTime(time.Unix(t.Unix(), 0).UTC())
}

// Set is Setter.Set with the real clock.
func Set(conds *[]metav1.Condition, c metav1.Condition) (changed bool) {
	return Setter{}.Set(conds, c)
}

// Set records c in conds, which holds at most one condition per type, and
// reports whether conds changed.
//
// An existing condition of c's type keeps its position and takes c's status,
// reason, message and observedGeneration; a new type is appended, so the order
// of conds is stable across reconciles. lastTransitionTime changes only when
// the status changes (or the type is new): it is then c's lastTransitionTime
// if set, else the Setter's clock's now. When nothing changed Set returns
// false without allocating. A nil conds is left alone and reports false.
//
// c is recorded as the API server would return it (see Normalize), so that a
// condition read back compares equal to the one set and a second Set of the
// same c after a round trip changes nothing. Set does not otherwise validate
// c; use Validate for conditions that come from users.
func (s Setter) Set(conds *[]metav1.Condition, c metav1.Condition) (changed bool) {
	if conds == nil {
		return false
	}
	cs := *conds
	if i := index(cs, c.Type); i >= 0 {
		old := &cs[i]
		// The common case, nothing to do, is decided here without a call.
		if old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message &&
			old.ObservedGeneration == c.ObservedGeneration {
			return false
		}
		normalize(&c)
		return s.update(old, &c)
	}
	normalize(&c)
	if i := index(cs, c.Type); i >= 0 {
		// c's type was not valid UTF-8, and is the one stored.
		return s.update(&cs[i], &c)
	}
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = s.now()
	}
	*conds = append(cs, c)
	return true
}

// update makes old, a condition of c's type, hold c under Set's rules, and
// reports whether it changed.
func (s Setter) update(old, c *metav1.Condition) (changed bool) {
	if old.Status != c.Status {
		old.Status = c.Status
		old.LastTransitionTime = c.LastTransitionTime
		if old.LastTransitionTime.IsZero() {
			old.LastTransitionTime = s.now()
		}
		changed = true
	}
	if old.Reason != c.Reason {
		old.Reason = c.Reason
		changed = true
	}
	if old.Message != c.Message {
		old.Message = c.Message
		changed = true
	}
	if old.ObservedGeneration != c.ObservedGeneration {
		old.ObservedGeneration = c.ObservedGeneration
		changed = true
	}
	return changed
}

// Normalize returns c as the API server stores it when written as JSON:
// each byte of its type, reason and message that is not part of valid UTF-8
// becomes U+FFFD (one per byte, as encoding/json writes it), and a message
// longer than MaxMessageLength is shortened to it on a rune boundary, ending
// with "...". Normalize is idempotent, and returns a c that is already
// normal without allocating. Set, SetUnstructured, SetObject and Propagate
// normalize every condition they record; a caller that compares conditions
// itself normalizes the ones it did not read from the API server.
func Normalize(c metav1.Condition) metav1.Condition {
	normalize(&c)
	return c
}

func normalize(c *metav1.Condition) {
	c.Type = message.ValidUTF8(c.Type)
	c.Reason = message.ValidUTF8(c.Reason)
	c.Message = message.Truncate(message.ValidUTF8(c.Message), MaxMessageLength)
}

// Remove deletes the condition of conditionType from conds, keeping the order
// of the others, and reports whether there was one. A nil conds reports false.
func Remove(conds *[]metav1.Condition, conditionType string) (removed bool) {
	if conds == nil {
		return false
	}
	for i := range *conds {
		if (*conds)[i].Type == conditionType {
			// slices.Delete clears the vacated element, so it does not pin
			// its strings.
			*conds = slices.Delete(*conds, i, i+1)
			return true
		}
	}
	return false
}

// Get returns the condition of conditionType in conds, or nil if there is
// none. The result points into conds: changing it changes conds.
func Get(conds []metav1.Condition, conditionType string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == conditionType {
			return &conds[i]
		}
	}
	return nil
}

// IsTrue reports whether conds has a condition of type t with status True.
func IsTrue(conds []metav1.Condition, t string) bool {
	c := Get(conds, t)
	return c != nil && c.Status == metav1.ConditionTrue
}

// IsFalse reports whether conds has a condition of type t with status False.
func IsFalse(conds []metav1.Condition, t string) bool {
	c := Get(conds, t)
	return c != nil && c.Status == metav1.ConditionFalse
}

// IsUnknown reports whether the status of type t is unknown: the condition is
// missing, or its status is Unknown (or not a valid status at all). For any
// conds and t exactly one of IsTrue, IsFalse and IsUnknown holds, which is how
// kstatus and `kubectl wait` read a missing condition.
func IsUnknown(conds []metav1.Condition, t string) bool {
	return !IsTrue(conds, t) && !IsFalse(conds, t)
}

// Equal reports whether a and b hold the same conditions, ignoring their order
// and lastTransitionTime: each type appears in both with the same status,
// reason, message and observedGeneration. Use it to decide whether a status
// write is needed. Equal does not allocate.
func Equal(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	return contains(a, b) && contains(b, a)
}

// contains reports whether every condition of sub has an equal counterpart of
// the same type in super.
func contains(super, sub []metav1.Condition) bool {
	for i := range sub {
		if i < len(super) && super[i].Type == sub[i].Type {
			// Fast path: the lists are usually in the same order.
			if !sameState(&super[i], &sub[i]) {
				return false
			}
			continue
		}
		c := Get(super, sub[i].Type)
		if c == nil || !sameState(c, &sub[i]) {
			return false
		}
	}
	return true
}

// sameState compares everything but type and lastTransitionTime.
func sameState(a, b *metav1.Condition) bool {
	return a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.ObservedGeneration == b.ObservedGeneration
}
