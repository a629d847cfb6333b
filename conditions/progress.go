package conditions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Condition types of the abnormal-true convention that kstatus, Flux and
// Argo CD read: present and True only while they apply, removed otherwise.
const (
	// TypeReconciling is True while a controller works toward the object's
	// current generation.
	TypeReconciling = "Reconciling"
	// TypeStalled is True when a controller cannot go on without a change
	// of the object's spec.
	TypeStalled = "Stalled"
)

// Progress is how far a controller got with an object's current generation.
type Progress int

const (
	// Done means the controller did what it could for this generation;
	// Ready (True or False) says what came of it.
	Done Progress = iota
	// Working means the controller is still at work: Reconciling=True.
	// Use it whenever Ready is Unknown.
	Working
	// Stalled means the controller cannot go on without a spec change:
	// Stalled=True. Ready must then be False.
	Stalled
)

// SetProgress records p for generation gen: Reconciling=True for Working,
// Stalled=True for Stalled, each with reason and message, and removes the
// other one (both for Done), so that `kubectl get` shows only what applies.
// It reports whether anything changed.
func SetProgress(conds *[]metav1.Condition, gen int64, p Progress, reason, message string) bool {
	return Setter{}.SetProgress(conds, gen, p, reason, message)
}

// SetProgress is the package-level SetProgress with s's clock.
func (s Setter) SetProgress(conds *[]metav1.Condition, gen int64, p Progress, reason, message string) bool {
	set, clear1, clear2 := "", TypeReconciling, TypeStalled
	switch p {
	case Working:
		set, clear1, clear2 = TypeReconciling, TypeStalled, ""
	case Stalled:
		set, clear1, clear2 = TypeStalled, TypeReconciling, ""
	}
	changed := false
	if set != "" {
		changed = s.Set(conds, metav1.Condition{Type: set, Status: metav1.ConditionTrue, Reason: reason, Message: message, ObservedGeneration: gen})
	}
	if Remove(conds, clear1) {
		changed = true
	}
	if clear2 != "" && Remove(conds, clear2) {
		changed = true
	}
	return changed
}

// SetProgressUnstructured is SetProgress on status.conditions of u, with the
// rules of SetUnstructured and RemoveUnstructured.
func SetProgressUnstructured(u *unstructured.Unstructured, gen int64, p Progress, reason, message string) (bool, error) {
	return Setter{}.SetProgressUnstructured(u, gen, p, reason, message)
}

// SetProgressUnstructured is the package-level SetProgressUnstructured with
// s's clock.
func (s Setter) SetProgressUnstructured(u *unstructured.Unstructured, gen int64, p Progress, reason, message string) (bool, error) {
	conds, err := FromUnstructured(u)
	if err != nil {
		return false, err
	}
	if !s.SetProgress(&conds, gen, p, reason, message) {
		return false, nil
	}
	for _, t := range [...]string{TypeReconciling, TypeStalled} {
		if c := Get(conds, t); c != nil {
			if _, err := s.SetUnstructured(u, *c); err != nil {
				return false, err
			}
		} else if _, err := RemoveUnstructured(u, t); err != nil {
			return false, err
		}
	}
	return true, nil
}
