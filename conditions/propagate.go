package conditions

import (
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Fields of a composite resource (XR) that list the condition types to show
// on its claim. Propagate reads both, in this order: status.claimConditions
// is the field of the fn-claim-conditions design, which a composition
// function's results fill; status.claimConditionTypes is Crossplane's.
var (
	claimConditionsField     = []string{"status", "claimConditions"}
	claimConditionTypesField = []string{"status", "claimConditionTypes"}
)

// A PropagateOption changes what Propagate does.
type PropagateOption interface {
	// applyToPropagate takes and returns the options by value: a pointer
	// would move them to the heap, and a settled Propagate allocates nothing.
	applyToPropagate(propagateOptions) propagateOptions
}

// RecordField is the path of fields from an object's root, e.g.
// RecordField{"status", "propagatedConditionTypes"}, where a writer records
// the condition types it set, so that it can remove them once it no longer
// sets them, even after a restart. As an option of Propagate it is the
// claim's record of the types propagated (default status.claimConditions);
// results.WithRecordField takes it for the composite's record of the types
// that results set. The object's schema must have the field (a list of
// strings) or the API server prunes it; keep it under status, so that the
// write through the status subresource that saves the conditions saves the
// record too. An empty RecordField keeps no record, for a schema with no
// field for it (Crossplane generates none): Propagate then leaves a type the
// XR no longer lists on the claim, as Crossplane's claim reconciler does.
type RecordField []string

func (f RecordField) applyToPropagate(p propagateOptions) propagateOptions {
	p.record = f
	return p
}

type propagateOptions struct {
	record RecordField
}

// propagateBuf is how many conditions Propagate reads without allocating.
const propagateBuf = 32

// Propagate is Setter.Propagate with the real clock.
func Propagate(xr, claim *unstructured.Unstructured, opts ...PropagateOption) (changed bool, err error) {
	return Setter{}.Propagate(xr, claim, opts...)
}

// Propagate copies conditions of the composite resource xr to its claim, and
// reports whether the claim changed. When it did not, the claim already shows
// what it should and the caller skips the write.
//
// The types to copy are those the XR lists in status.claimConditions and in
// Crossplane's status.claimConditionTypes. For each listed type present on the
// XR, the claim gets a condition with the XR's status, reason, message and
// lastTransitionTime (the Setter's clock's now, under Set's rules, when the
// XR's is unset) and the claim's own metadata.generation as observedGeneration
// (a claim condition that lacks only observedGeneration, as a schema without
// the field leaves it, is not rewritten for it).
// A condition already on the claim keeps its position; new ones are appended
// in the order listed.
//
// The reserved types (Ready, Synced, Healthy and CompositeSynced, see
// IsReserved) are never copied: the claim's own controller owns them. The types propagated are recorded on the claim (see
// RecordField) when the claim has the record field or its conditions change:
// on a schema that prunes the field, Propagate still settles. A type
// recorded by an earlier call that the XR no longer lists, or no longer has,
// is removed from the claim. Conditions the claim's
// own controller set are never touched, with one exception: a type that the
// XR lists takes the XR's condition, whoever set it before.
//
// Other fields of the claim's status are kept as they are. A malformed
// condition list or list of types (see FromUnstructured), or an XR condition
// that would be invalid on the claim (see Validate), gives an error that names
// the object and the field, and the claim is left unchanged.
func (s Setter) Propagate(xr, claim *unstructured.Unstructured, opts ...PropagateOption) (changed bool, err error) {
	if xr == nil || claim == nil {
		return false, ErrNilObject
	}
	p := propagateOptions{record: claimConditionsField}
	for _, o := range opts {
		p = o.applyToPropagate(p)
	}
	var raw rawLists
	if settled(xr, claim, p.record, &raw) {
		return false, nil
	}
	return s.propagate(xr, claim, p, &raw)
}

// propagate is Propagate's full path, which settled's answer only shortens.
// It reuses the condition lists settled read, when raw holds them (raw may
// be nil).
func (s Setter) propagate(xr, claim *unstructured.Unstructured, p propagateOptions, raw *rawLists) (changed bool, err error) {
	// What the XR asks for. The buffers hold a settled claim's lists on the
	// stack: a claim that needs no change costs no allocation for up to
	// propagateBuf conditions.
	var (
		xrBuf, haveBuf, wantBuf    [propagateBuf]metav1.Condition
		xrSums, haveSums, wantSums [propagateBuf]uint64
		listedBuf, recordedBuf     [propagateBuf]string
	)
	_, _, xrConds, err := readSummed(xr, raw.xrList(), xrBuf[:0], xrSums[:0])
	if err != nil {
		return false, err
	}
	listed, err := appendStringList(listedBuf[:0], xr.Object, claimConditionsField)
	if err == nil {
		listed, err = appendStringList(listed, xr.Object, claimConditionTypesField)
	}
	if err != nil {
		return false, fmt.Errorf("cannot read the condition types to propagate from %s: %w", describe(xr), err)
	}

	// What the claim has.
	status, entries, have, err := readSummed(claim, raw.claimList(), haveBuf[:0], haveSums[:0])
	if err != nil {
		return false, err
	}
	var recorded []string
	hasRecord := false // the record field is there: the schema keeps it
	if len(p.record) > 0 {
		if recorded, err = appendStringList(recordedBuf[:0], claim.Object, p.record); err != nil {
			return false, fmt.Errorf("cannot read the propagated condition types of %s: %w", describe(claim), err)
		}
		_, hasRecord, _ = unstructured.NestedFieldNoCopy(claim.Object, p.record...)
	}

	// What the claim should have: each listed, unreserved type the XR has,
	// once, in the order listed.
	generation := claim.GetGeneration()
	want, sums := wantBuf[:0], wantSums[:0]
	xrIndex, wantIndex := indexTypes(xrConds), newTypeIndex(len(listed))
	hint := 0
	for _, t := range listed {
		var x *metav1.Condition
		xi := xrIndex.find(xrConds, t, hint)
		if xi >= 0 {
			x, hint = &xrConds[xi], xi+1
		}
		if x == nil || IsReserved(t) {
			continue
		}
		sum := typeSum(t)
		seen := wantIndex.m != nil && wantIndex.find(want, t, 0) >= 0
		if seen || wantIndex.m == nil && indexSummed(want, sums, t, sum) >= 0 {
			continue
		}
		c := metav1.Condition{
			Type:               t,
			Status:             x.Status,
			Reason:             x.Reason,
			Message:            x.Message,
			LastTransitionTime: x.LastTransitionTime,
			ObservedGeneration: generation,
		}
		// The XR in memory may hold what the API server would not return.
		normalize(&c)
		if err := Validate(c); err != nil {
			return false, fmt.Errorf("cannot propagate status.conditions[%d] of %s to %s: %w", xi, describe(xr), describe(claim), err)
		}
		wantIndex.add(t, len(want))
		want, sums = append(want, c), append(sums, sum)
	}
	sameRecord := sameTypes(recorded, want)

	// Work on copies of the claim's entries and their conditions, made at
	// the first change; the claim changes only at the end.
	out, outConds := entries, have
	copied := false
	edit := func() {
		if !copied {
			out, outConds = slices.Clone(entries), slices.Clone(have)
			copied = true
		}
	}
	// A recorded type the XR no longer lists is removed; when the record
	// lists exactly the types wanted, there is none.
	dropped := func(t string) bool { return !IsReserved(t) && wantIndex.find(want, t, 0) < 0 }
	switch {
	case sameRecord:
	case len(recorded) > longList:
		// In one pass: deleting one by one would cost the square.
		drop := make(map[string]bool, len(recorded))
		for _, t := range recorded {
			drop[t] = dropped(t)
		}
		if slices.ContainsFunc(outConds, func(c metav1.Condition) bool { return drop[c.Type] }) {
			edit()
			n := 0
			for i := range outConds {
				if !drop[outConds[i].Type] {
					out[n], outConds[n] = out[i], outConds[i]
					n++
				}
			}
			clear(out[n:])
			clear(outConds[n:])
			out, outConds = out[:n], outConds[:n]
		}
	default:
		for _, t := range recorded {
			if !dropped(t) {
				continue
			}
			if i := index(outConds, t); i >= 0 {
				edit()
				out, outConds = slices.Delete(out, i, i+1), slices.Delete(outConds, i, i+1)
			}
		}
	}
	hint = 0
	outIndex := newTypeIndex(max(len(outConds), len(want)))
	for i := range outConds {
		outIndex.add(outConds[i].Type, i)
	}
	for i := range want {
		c := &want[i]
		j := outIndex.find(outConds, c.Type, hint)
		if j < 0 {
			if c.LastTransitionTime.IsZero() {
				c.LastTransitionTime = s.now()
			}
			edit()
			outIndex.add(c.Type, len(outConds))
			out, outConds = append(out, toEntry(*c)), append(outConds, *c)
			continue
		}
		hint = j + 1
		old := outConds[j]
		next := old
		s.mirror(&next, c)
		if unchanged(&old, &next) {
			continue
		}
		edit()
		out[j], outConds[j] = updateEntry(out[j].(map[string]any), &old, &next), next
	}

	// The record is written when it is there and differs, or along with the
	// conditions: a schema that prunes it then settles.
	recordChanged := len(p.record) > 0 && (hasRecord || copied) && !sameRecord
	if !copied && !recordChanged {
		return false, nil
	}

	// Everything is known to be well-formed: write.
	if copied {
		writeConditions(claim, status, out)
	}
	if recordChanged {
		if claim.Object == nil {
			claim.Object = map[string]any{}
		}
		types := make([]string, len(want))
		for i := range want {
			types[i] = want[i].Type
		}
		if err := writeStringList(claim.Object, p.record, types); err != nil {
			// Unreachable: stringList read the same path without error.
			return false, fmt.Errorf("cannot record the propagated condition types of %s: %w", describe(claim), err)
		}
	}
	return true, nil
}

// A typeIndex finds a condition by type in a list: with indexFrom while the
// list is short, through a map of types to positions once it is long, so
// that the long lists of a hostile object cost linear time, and the short
// ones no allocation.
type typeIndex struct {
	m map[string]int
}

// newTypeIndex returns the index of a list that will hold n conditions.
func newTypeIndex(n int) typeIndex {
	if n <= longList {
		return typeIndex{}
	}
	return typeIndex{m: make(map[string]int, n)}
}

// indexTypes returns the index of conds.
func indexTypes(conds []metav1.Condition) typeIndex {
	x := newTypeIndex(len(conds))
	for i := range conds {
		x.add(conds[i].Type, i)
	}
	return x
}

// add records that the condition of type t is at i.
func (x typeIndex) add(t string, i int) {
	if x.m != nil {
		x.m[t] = i
	}
}

// find returns the position of the condition of type t in conds, the list
// x indexes, or -1.
func (x typeIndex) find(conds []metav1.Condition, t string, hint int) int {
	if x.m == nil {
		return indexFrom(conds, t, hint)
	}
	if i, ok := x.m[t]; ok {
		return i
	}
	return -1
}

// indexFrom is index, searching from hint onwards first and then wrapping
// around: lists kept in the same order are searched in linear time.
func indexFrom(conds []metav1.Condition, t string, hint int) int {
	if hint > len(conds) {
		hint = 0
	}
	for i := hint; i < len(conds); i++ {
		if conds[i].Type == t {
			return i
		}
	}
	return index(conds[:hint], t)
}

// mirror makes c, a condition on the claim, show x, the XR's condition: the
// same status, reason, message and observedGeneration, and the XR's
// lastTransitionTime when it has one (else Set's rule).
func (s Setter) mirror(c, x *metav1.Condition) {
	if c.Status != x.Status && x.LastTransitionTime.IsZero() {
		c.LastTransitionTime = s.now()
	}
	if !x.LastTransitionTime.IsZero() {
		c.LastTransitionTime = x.LastTransitionTime
	}
	c.Status = x.Status
	c.Reason = x.Reason
	c.Message = x.Message
	c.ObservedGeneration = x.ObservedGeneration
}

// unchanged reports whether next, a claim condition as Propagate would leave
// it, needs no write over old, as the claim holds it. An observedGeneration
// that old lacks is no change on its own: a claim schema without the field
// (Crossplane's before v2.0) prunes it, and the write would come back on
// every call. crossplane-runtime's Condition.Equal compares the same way.
func unchanged(old, next *metav1.Condition) bool {
	return old.Status == next.Status && old.Reason == next.Reason && old.Message == next.Message &&
		(old.ObservedGeneration == next.ObservedGeneration || old.ObservedGeneration == 0) &&
		sameSecond(old.LastTransitionTime, next.LastTransitionTime)
}

// sameSecond compares times at the precision the API server stores.
func sameSecond(a, b metav1.Time) bool {
	return a.Unix() == b.Unix()
}

// appendStringList appends the list of strings at path in obj to dst. A
// missing or null field, or a missing parent, appends nothing.
func appendStringList(dst []string, obj map[string]any, path []string) ([]string, error) {
	var v any = obj
	for i, key := range path {
		m, ok := v.(map[string]any)
		if !ok {
			if v == nil {
				return dst, nil
			}
			return dst, malformed("%s: must be an object, not %s", strings.Join(path[:i], "."), jsonKind(v))
		}
		v = m[key]
	}
	if v == nil {
		return dst, nil
	}
	l, ok := v.([]any)
	if !ok {
		return dst, malformed("%s: must be a list of strings, not %s", strings.Join(path, "."), jsonKind(v))
	}
	for i, e := range l {
		s, ok := e.(string)
		if !ok {
			return dst, malformed("%s[%d]: must be a string, not %s", strings.Join(path, "."), i, jsonKind(e))
		}
		dst = append(dst, s)
	}
	return dst, nil
}

// sameTypes reports whether types lists the types of conds, in their order.
func sameTypes(types []string, conds []metav1.Condition) bool {
	if len(types) != len(conds) {
		return false
	}
	for i := range conds {
		if types[i] != conds[i].Type {
			return false
		}
	}
	return true
}

// typeSum is a hash of a condition type: comparing sums first makes looking
// for a type among many that share a long prefix cheap.
func typeSum(t string) uint64 {
	return maphash.String(typeSeed, t)
}

var typeSeed = maphash.MakeSeed()

// indexSummed is index for conds whose types have the sums in sums.
func indexSummed(conds []metav1.Condition, sums []uint64, t string, sum uint64) int {
	for i, s := range sums {
		if s == sum && conds[i].Type == t {
			return i
		}
	}
	return -1
}

// parseEntriesSummed is parseEntries that also appends the sum of each
// condition's type to sums, and uses them to find repeated types.
func parseEntriesSummed(list []any, dst []metav1.Condition, sums []uint64) ([]metav1.Condition, []uint64, error) {
	start := len(dst)
	seen := newTypeIndex(len(list))
	for i, e := range list {
		c, err := parseEntry(i, e)
		if err != nil {
			return dst, sums, err
		}
		sum := typeSum(c.Type)
		j := -1
		if seen.m != nil {
			j = seen.find(nil, c.Type, 0)
		} else {
			j = indexSummed(dst[start:], sums[start:], c.Type, sum)
		}
		if j >= 0 {
			return dst, sums, malformed("status.conditions[%d]: its type repeats that of status.conditions[%d]", i, j)
		}
		seen.add(c.Type, i)
		dst, sums = append(dst, c), append(sums, sum)
	}
	return dst, sums, nil
}

// writeStringList sets the field at path in obj to l, creating missing parent
// objects, or deletes the field when l is empty.
func writeStringList(obj map[string]any, path []string, l []string) error {
	var v any // nil: delete
	if len(l) > 0 {
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		v = out
	}
	_, _, err := setIn(obj, path, v, path, true)
	return err
}

// setIn sets the field at path in m to v, or deletes it when v is nil, and
// returns m with whether it changed. It changes m itself only when inPlace;
// every map below it on the path is copied before it is changed, so that
// content shared with a shallow copy of the object is not changed behind its
// owner's back. On an error nothing has been changed. full is the whole
// path, for messages.
func setIn(m map[string]any, path []string, v any, full []string, inPlace bool) (map[string]any, bool, error) {
	key := path[0]
	var nv any = v
	if len(path) > 1 {
		var child map[string]any
		switch c := m[key].(type) {
		case map[string]any:
			child = c
		case nil:
			if v == nil {
				return m, false, nil // nothing to delete
			}
		default:
			i := len(full) - len(path)
			return nil, false, malformed("%s: must be an object, not %s", strings.Join(full[:i+1], "."), jsonKind(c))
		}
		nc, changed, err := setIn(child, path[1:], v, full, false)
		if err != nil || !changed {
			return m, false, err
		}
		nv = nc
	} else if _, ok := m[key]; v == nil && !ok {
		return m, false, nil // nothing to delete
	}
	if !inPlace {
		m = maps.Clone(m)
	}
	if m == nil {
		m = map[string]any{}
	}
	if nv == nil {
		delete(m, key)
	} else {
		m[key] = nv
	}
	return m, true, nil
}

// readSummed returns obj's status, its conditions list and the conditions
// parsed from it, appended to dst (their type sums to sums), made from raw
// when settled read them.
func readSummed(obj *unstructured.Unstructured, raw []rawCondition, dst []metav1.Condition, sums []uint64) (status map[string]any, list []any, conds []metav1.Condition, err error) {
	status, list, err = conditionList(obj.Object)
	if err == nil {
		conds, err = conditionsOf(list, raw, dst, sums)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot read conditions of %s: %w", describe(obj), err)
	}
	return status, list, conds, nil
}
