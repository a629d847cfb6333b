package conditions

import (
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ErrConflict: another writer changed a condition that a Patch changes too.
var ErrConflict = errors.New("condition changed by another writer")

// A Patch is what one writer changed in an object's conditions: the
// conditions it set, changed or removed between the copy it read (before)
// and the one it computed (after). Applied to the conditions as they are now
// (latest), after another writer changed them, it changes only those types,
// so that controllers sharing one object's conditions (each owning a few
// types) do not undo each other's work when they write in turn.
type Patch struct {
	changes []conditionChange
}

type conditionChange struct {
	conditionType string
	before, after *metav1.Condition // nil: absent
}

// NewPatch returns the changes from before to after, by condition type.
func NewPatch(before, after []metav1.Condition) Patch {
	var p Patch
	for i := range after {
		a := &after[i]
		b := Get(before, a.Type)
		if b == nil || !sameState(b, a) {
			p.changes = append(p.changes, conditionChange{a.Type, clone(b), clone(a)})
		}
	}
	for i := range before {
		if Get(after, before[i].Type) == nil {
			p.changes = append(p.changes, conditionChange{before[i].Type, clone(&before[i]), nil})
		}
	}
	return p
}

// IsZero reports whether the patch changes nothing.
func (p Patch) IsZero() bool { return len(p.changes) == 0 }

// Types returns the condition types the patch changes.
func (p Patch) Types() []string {
	out := make([]string, len(p.changes))
	for i, c := range p.changes {
		out[i] = c.conditionType
	}
	return out
}

// A PatchOption changes what Apply does.
type PatchOption interface {
	applyToPatch(*patchOptions)
}

type patchOptions struct {
	owned []string
}

// Owned are condition types the writer owns: Apply writes them as the patch
// says even when another writer changed them meanwhile.
type Owned []string

func (o Owned) applyToPatch(p *patchOptions) { p.owned = append(p.owned, o...) }

// Apply makes the patch's changes to latest and reports whether latest
// changed. A type the patch changes that another writer changed too (latest
// holds neither what the patch started from nor what it ends with) is a
// conflict: Apply returns an error wrapping ErrConflict that names the type,
// and changes nothing, unless the type is Owned. A change already in latest
// is no change. Conditions are compared as Equal compares them (status,
// reason, message and observedGeneration); a condition the patch sets takes
// the lastTransitionTime the patch has for it.
func (p Patch) Apply(latest *[]metav1.Condition, opts ...PatchOption) (changed bool, err error) {
	var o patchOptions
	for _, opt := range opts {
		opt.applyToPatch(&o)
	}
	for _, c := range p.changes {
		now := Get(*latest, c.conditionType)
		if sameCondition(now, c.after) || sameCondition(now, c.before) || slices.Contains(o.owned, c.conditionType) {
			continue
		}
		return false, fmt.Errorf("cannot apply the change of condition %s: %w", c.conditionType, ErrConflict)
	}
	for _, c := range p.changes {
		now := Get(*latest, c.conditionType)
		switch {
		case sameCondition(now, c.after):
		case c.after == nil:
			changed = Remove(latest, c.conditionType) || changed
		case now == nil:
			*latest = append(*latest, *c.after)
			changed = true
		default:
			*now = *c.after
			changed = true
		}
	}
	return changed, nil
}

// ApplyUnstructured is Apply for u's status.conditions; u is left unchanged
// on an error, and keys of an entry that a metav1.Condition does not know are
// kept for the types the patch does not change.
func (p Patch) ApplyUnstructured(u *unstructured.Unstructured, opts ...PatchOption) (changed bool, err error) {
	conds, err := FromUnstructured(u)
	if err != nil {
		return false, err
	}
	if _, err := p.Apply(&conds, opts...); err != nil {
		return false, fmt.Errorf("cannot patch the conditions of %s: %w", describe(u), err)
	}
	out := u.DeepCopy()
	for _, c := range p.changes {
		got := Get(conds, c.conditionType)
		var r bool
		if got == nil {
			r, err = RemoveUnstructured(out, c.conditionType)
		} else {
			r, err = SetUnstructured(out, *got)
		}
		if err != nil {
			return false, err
		}
		changed = changed || r
	}
	if changed {
		u.Object = out.Object
	}
	return changed, nil
}

// sameCondition reports whether a and b (nil: absent) are the same.
func sameCondition(a, b *metav1.Condition) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return sameState(a, b)
}

func clone(c *metav1.Condition) *metav1.Condition {
	if c == nil {
		return nil
	}
	out := *c
	return &out
}
