package extref

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	k8sjson "k8s.io/apimachinery/pkg/util/json"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// Merged targets. The external values whose policy.toFieldPath is a merge
// policy do not write their targets as they are resolved: resolve collects
// them, per target, and after every value has been resolved mergeTargets
// recomputes each merged target from its base and its values, in list order.
//
// The base is the target without what extref merged into it before: the
// resolution that writes a merged target records on the referencer, in the
// annotation MergedAnnotation, what it added to the base (a mergeNode per
// target: the fields it added, the items it appended, and for a value it
// replaced, that value), so that the next resolution can take it away
// again (undo) before merging the values it finds now. A value that no
// longer contributes (an Optional source gone, an external value removed)
// leaves nothing behind, a field someone else changed since is theirs and
// is kept, and a value the base held that a forced merge replaced comes
// back. A target that holds the result, with its record, is not written.

// MergedAnnotation is the annotation in which the resolver records, on a
// referencer, what it merged into each merged target; no external value
// may write it.
const MergedAnnotation = "extref.ctrlkit.dev/merged"

// Bounds of merges: the record's size, read or written, and the work of
// de-duplicating an appended array (the items of the array appended to,
// times the bytes of the array appended, each item compared with each).
const (
	maxMergeRecord = 64 << 10
	maxAppendWork  = 16 << 20
)

// mergePolicy sets e.merge from p, checking that it fits the rest of e.
func (e *entry) mergePolicy(p *v1alpha1.Policy) *compileError {
	yes := func() *bool { b := true; return &b }
	switch p.ToFieldPath {
	case "", v1alpha1.ToFieldPathReplace:
		return nil
	case v1alpha1.ToFieldPathMergeObjects:
		e.merge = &fieldpath.MergeOptions{KeepMapValues: yes()}
	case v1alpha1.ToFieldPathMergeObjectsAppendArrays:
		e.merge = &fieldpath.MergeOptions{KeepMapValues: yes(), AppendSlice: yes()}
	case v1alpha1.ToFieldPathForceMergeObjects:
		e.merge = &fieldpath.MergeOptions{}
	case v1alpha1.ToFieldPathForceMergeObjectsAppendArrays:
		e.merge = &fieldpath.MergeOptions{AppendSlice: yes()}
	default:
		return invalid(".toFieldPath", "unsupported value %q (want Replace, MergeObjects, MergeObjectsAppendArrays, ForceMergeObjects or ForceMergeObjectsAppendArrays)", p.ToFieldPath)
	}
	switch {
	case e.dep != nil:
		return invalid(".toFieldPath", "%s merges into a target, and dependsOn has none", p.ToFieldPath)
	case e.key != "":
		return invalid(".toFieldPath", "%s merges into a target, and makeAvailableAs has none", p.ToFieldPath)
	case e.metadata:
		return invalid(".toFieldPath", "%s merges into objects and arrays, and a label or an annotation is a string", p.ToFieldPath)
	case p.Resolve == v1alpha1.ResolveIfNotPresent:
		return invalid(".resolve", "a merged value is resolved on every call, so resolve must be Always or unset")
	}
	e.always = true
	return nil
}

// A mergedValue is a resolved value that merges into its target.
type mergedValue struct {
	index int
	entry *entry
	v     render.Value
}

// A mergeGroup is the values that merge into one target, in list order.
type mergeGroup struct {
	target string
	path   *fieldpath.Path
	values []mergedValue
}

// addMerged adds value i, checked as e, resolved to v, to its target's
// group.
func (rs *resolution) addMerged(i int, e *entry, v render.Value) {
	for g := range rs.merged {
		if rs.merged[g].target == e.target {
			rs.merged[g].values = append(rs.merged[g].values, mergedValue{index: i, entry: e, v: v})
			return
		}
	}
	rs.merged = append(rs.merged, mergeGroup{target: e.target, path: e.targetPath, values: []mergedValue{{index: i, entry: e, v: v}}})
}

// A mergeNode is what one resolution merged into a value of the base: a
// value it added or replaced (Hash, the hash of what it wrote, and Was, the
// base's value it replaced, if any), fields of an object merged (Fields),
// or items appended to an array (Appended, their hashes, in order).
type mergeNode struct {
	Hash     string                `json:"h,omitempty"`
	Was      json.RawMessage       `json:"w,omitempty"`
	Fields   map[string]*mergeNode `json:"f,omitempty"`
	Appended []string              `json:"a,omitempty"`
}

// mergeRecord is the content of MergedAnnotation: a mergeNode per merged
// target.
type mergeRecord map[string]*mergeNode

// annotation returns the referencer's annotation k, and whether it has it.
func annotation(content map[string]any, k string) (string, bool) {
	md, _ := content["metadata"].(map[string]any)
	a, _ := md["annotations"].(map[string]any)
	v, ok := a[k].(string)
	return v, ok
}

// errMergeRecord is why a record of merged values cannot be used; its text
// never holds the annotation's.
var errMergeRecord = fmt.Errorf("%w: the annotation %s, extref's record of merged values, is not one it wrote (at most %d bytes of JSON): remove it, and the targets' values become their bases", ErrInvalid, MergedAnnotation, maxMergeRecord)

// record decodes the referencer's record of merged values, if any.
func (rs *resolution) record() (mergeRecord, error) {
	text, ok := annotation(rs.state.content, MergedAnnotation)
	if !ok {
		return nil, nil
	}
	if len(text) > maxMergeRecord {
		return nil, errMergeRecord
	}
	var rec mergeRecord
	if err := json.Unmarshal([]byte(text), &rec); err != nil {
		return nil, errMergeRecord
	}
	return rec, nil
}

// mergeTargets writes the merged targets: for each target some value merges
// into, or that the record says a value merged into before, the base (the
// target less the record's contribution) merged with each of its values in
// list order, then the record of what was merged. It reports a failure in
// out; the caller writes nothing then.
func (rs *resolution) mergeTargets(out *Outcome) {
	if _, ok := annotation(rs.state.content, MergedAnnotation); !ok && len(rs.merged) == 0 {
		return // a referencer without merged targets; allocates nothing
	}
	mergePath := rs.r.path + " (merged targets)"
	fail := func(index int, path string, err error) {
		out.Failed = append(out.Failed, &ReferenceError{Path: path, Index: index, Err: err})
	}
	rec, err := rs.record()
	if err != nil {
		fail(-1, mergePath, err)
		return
	}
	groups := rs.merged
	for _, target := range slices.Sorted(maps.Keys(rec)) {
		if !slices.ContainsFunc(groups, func(g mergeGroup) bool { return g.target == target }) {
			// A target no value merges into any more: its base is
			// restored. Only a target a value could write is.
			v := rs.r.checkTarget(target)
			if v.err != nil || v.metadata {
				fail(-1, mergePath, errMergeRecord)
				return
			}
			groups = append(groups, mergeGroup{target: target, path: v.path})
		}
	}
	for a := range groups {
		for b := range a {
			if overlaps(groups[a].path.Segments(), groups[b].path.Segments()) {
				i := -1
				if len(groups[a].values) > 0 {
					i = groups[a].values[0].index
				}
				fail(i, rs.r.path+"["+strconv.Itoa(i)+"].toFieldPath", fmt.Errorf("%w: merged target %s overlaps %s, another merged target", ErrInvalid, groups[a].target, groups[b].target))
				return
			}
		}
	}

	next := make(mergeRecord, len(groups))
	for _, g := range groups {
		if !rs.mergeTarget(g, rec[g.target], next, out) {
			return
		}
	}
	var text string
	if len(next) > 0 {
		b, err := json.Marshal(next)
		if err != nil || len(b) > maxMergeRecord {
			i := groups[0].values[0].index // a record holds only targets some value merged into
			fail(i, rs.r.path+"["+strconv.Itoa(i)+"].toFieldPath", fmt.Errorf("%w: the record of what was merged would exceed %d bytes (the annotation %s)", ErrTarget, maxMergeRecord, MergedAnnotation))
			return
		}
		text = string(b)
	}
	if was, ok := annotation(rs.state.content, MergedAnnotation); ok == (text != "") && was == text {
		return
	}
	p := fieldpath.MustCompile("metadata.annotations[" + MergedAnnotation + "]")
	if text == "" {
		rs.state.own()
		_ = fieldpath.Pave(rs.state.content).DeleteField(p.String())
		rs.state.changed = true
		return
	}
	if err := rs.state.set(p, text); err != nil {
		fail(-1, mergePath, fmt.Errorf("%w: the annotation %s: %w", ErrTarget, MergedAnnotation, err))
	}
}

// mergeTarget recomputes the merged target of group g, whose record is n,
// adding its record to next. It reports a failure in out and returns false.
func (rs *resolution) mergeTarget(g mergeGroup, n *mergeNode, next mergeRecord, out *Outcome) bool {
	at := func(v mergedValue) string { return rs.r.path + "[" + strconv.Itoa(v.index) + "].toFieldPath" }
	cur, err := g.path.Get(rs.state.content)
	present := err == nil && cur != nil
	base, hasBase := undo(cur, present, n)
	p := fieldpath.Pave(map[string]any{})
	if hasBase {
		if err := p.SetValue("v", jsonvalue.DeepCopy(base)); err != nil {
			out.Failed = append(out.Failed, &ReferenceError{Path: rs.r.path, Index: -1, Err: fmt.Errorf("%w to %s: %w", ErrTarget, g.target, err)})
			return false
		}
	}
	secret := false
	for _, v := range g.values {
		secret = secret || v.v.Secret
		if v.entry.merge.AppendSlice != nil {
			had, _ := p.GetValue("v")
			if err := appendable(had, v.v.V); err != nil {
				out.Failed = append(out.Failed, &ReferenceError{Path: at(v), Index: v.index, Err: fmt.Errorf("%w to %s: %w", ErrTarget, g.target, err)})
				return false
			}
		}
		// The value may be the source's own, in the reader's cache.
		if err := p.MergeValue("v", jsonvalue.DeepCopy(v.v.V), v.entry.merge); err != nil {
			out.Failed = append(out.Failed, &ReferenceError{Path: at(v), Index: v.index, Err: fmt.Errorf("%w to %s: %w", ErrTarget, g.target, render.Seal(err, secret))})
			return false
		}
	}
	result, err := p.GetValue("v")
	has := err == nil
	if d := diff(base, hasBase, result, has); d != nil && len(g.values) > 0 {
		next[g.target] = d
	}
	if has == present && (!has || jsonvalue.Equal(cur, result)) {
		return true
	}
	if !has {
		rs.state.own()
		_ = fieldpath.Pave(rs.state.content).DeleteField(g.target)
		rs.state.changed = true
		return true
	}
	first := mergedValue{index: -1}
	if len(g.values) > 0 {
		first = g.values[0]
	}
	if !rs.fits(result, first.entry.paddingOrZero()) {
		out.Failed = append(out.Failed, &ReferenceError{Path: at(first), Index: first.index, Err: fmt.Errorf("%w to %s: %w", ErrTarget, g.target, errResolvedSize)})
		return false
	}
	if err := rs.state.set(g.path, result); err != nil {
		out.Failed = append(out.Failed, &ReferenceError{Path: at(first), Index: first.index, Err: fmt.Errorf("%w to %s: %w", ErrTarget, g.target, setError(rs.state.content, g.path, err))})
		return false
	}
	for _, v := range g.values {
		rs.writes = append(rs.writes, write{index: v.index, entry: v.entry, v: render.Value{V: result, Secret: secret}})
	}
	return true
}

// paddingOrZero is e's padding, or 0 for no entry.
func (e *entry) paddingOrZero() int {
	if e == nil {
		return 0
	}
	return e.padding
}

// appendable checks that appending v to had, as AppendSlice does, is within
// maxAppendWork: each item of v is compared with each of had's.
func appendable(had, v any) error {
	ha, ok1 := had.([]any)
	va, ok2 := v.([]any)
	if !ok1 || !ok2 || len(ha) == 0 || len(va) == 0 {
		return nil
	}
	if _, ok := render.JSONSize(va, maxAppendWork/len(ha)); !ok {
		return fmt.Errorf("appending an array (length %d) to one of %d items compares over %d bytes of items, more than a merge may", len(va), len(ha), maxAppendWork)
	}
	return nil
}

// own makes the content the state's own copy, before a change.
func (s *state) own() {
	if !s.owned {
		s.content = jsonvalue.DeepCopy(s.content).(map[string]any)
		s.owned = true
	}
}

// undo returns cur (present or not) less what n says was merged into it:
// the base it was merged from. What has changed since it was merged is kept.
func undo(cur any, present bool, n *mergeNode) (any, bool) {
	if n == nil || !present {
		return cur, present
	}
	switch {
	case n.Fields != nil:
		m, ok := cur.(map[string]any)
		if !ok {
			return cur, present
		}
		out := maps.Clone(m)
		for k, c := range n.Fields {
			v, in := m[k]
			if v, in = undo(v, in && v != nil, c); in {
				out[k] = v
			} else {
				delete(out, k)
			}
		}
		return out, true
	case n.Appended != nil:
		a, ok := cur.([]any)
		if !ok {
			return cur, present
		}
		// Each appended item still there goes: for each hash recorded, the
		// last item with it not taken yet. Each item is hashed once, so a
		// forged record of many hashes costs no more than the array.
		at := make(map[string][]int, len(a))
		for j, item := range a {
			h := hashOf(item)
			at[h] = append(at[h], j)
		}
		gone := make([]bool, len(a))
		for _, h := range n.Appended {
			if js := at[h]; len(js) > 0 {
				gone[js[len(js)-1]] = true
				at[h] = js[:len(js)-1]
			}
		}
		out := make([]any, 0, len(a))
		for j, item := range a {
			if !gone[j] {
				out = append(out, item)
			}
		}
		return out, true
	case n.Hash != "":
		if hashOf(cur) != n.Hash {
			return cur, present // changed since: not extref's
		}
		if n.Was == nil {
			return nil, false
		}
		var was any
		if err := k8sjson.Unmarshal(n.Was, &was); err != nil || was == nil {
			return nil, false
		}
		return was, true
	}
	return cur, present
}

// diff returns what merging turned base (present or not) into result
// (present or not), as a mergeNode; nil when nothing changed.
func diff(base any, hasBase bool, result any, has bool) *mergeNode {
	if !has || (hasBase && jsonvalue.Equal(base, result)) {
		return nil
	}
	if hasBase {
		switch b := base.(type) {
		case map[string]any:
			if r, ok := result.(map[string]any); ok && holdsKeys(r, b) {
				n := &mergeNode{Fields: make(map[string]*mergeNode)}
				for k, rv := range r {
					bv, in := b[k]
					if c := diff(bv, in, rv, true); c != nil {
						n.Fields[k] = c
					}
				}
				return n
			}
		case []any:
			if r, ok := result.([]any); ok && len(r) > len(b) && jsonvalue.Equal(b, r[:len(b)]) {
				n := &mergeNode{Appended: make([]string, 0, len(r)-len(b))}
				for _, item := range r[len(b):] {
					n.Appended = append(n.Appended, hashOf(item))
				}
				return n
			}
		}
	}
	n := &mergeNode{Hash: hashOf(result)}
	if hasBase {
		b, err := json.Marshal(base)
		if err == nil {
			n.Was = b
		}
	}
	return n
}

// holdsKeys reports whether every key of b is a key of r.
func holdsKeys(r, b map[string]any) bool {
	for k := range b {
		if _, ok := r[k]; !ok {
			return false
		}
	}
	return true
}

// hashOf returns a short hash of v's JSON (object keys sorted), for the
// record: it tells whether a value is still the one written, and holds
// none of it.
func hashOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}
