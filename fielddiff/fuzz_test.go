package fielddiff_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// FuzzFirstChangedField diffs random JSON documents. It checks that nothing
// panics or fails, that FirstChangedField is the first entry of
// ChangedFields, that equal documents have no change, that the diff is
// symmetric, that every path is a field path that leads to a value in one of
// the documents, and that ignoring a path only removes paths.
func FuzzFirstChangedField(f *testing.F) {
	seeds := []struct{ a, b, ignore string }{
		{`{}`, `{}`, `status`},
		{`{"spec":{"description":"a"}}`, `{"spec":{"description":"b"}}`, `spec.description`},
		{`{"spec":{"labels":{"team":"x","app.kubernetes.io/name":"y"}}}`, `{"spec":{"labels":{"team":"z"}}}`, `spec.labels[team]`},
		{`{"spec":{"nodePools":[{"size":1},{"size":2},{"size":3}]}}`, `{"spec":{"nodePools":[{"size":1},{"size":5}]}}`, `spec.nodePools[*].size`},
		{`{"a":null,"b":[],"c":{},"d":0,"e":""}`, `{"b":null,"c":[],"d":0.0,"f":false}`, `*`},
		{`[1,2,3]`, `[1,"2",[3]]`, `doc[1]`},
		{`{"0":1,"*":2,"":3,"a]b":4,"'q":5}`, `{"0":2}`, `doc['0']`},
		{`1e400`, `"x"`, `doc`},
		{`{"a":{"b":{"c":{"d":[{"e":1}]}}}}`, `{"a":{"b":{"c":{"d":[{"e":2}]}}}}`, `a..b`},
	}
	for _, s := range seeds {
		f.Add(s.a, s.b, s.ignore)
	}
	f.Fuzz(func(t *testing.T, ja, jb, ignore string) {
		a, okA := decode(ja)
		b, okB := decode(jb)
		if !okA || !okB {
			t.Skip("not JSON")
		}

		all, err := fielddiff.ChangedFields(a, b)
		if err != nil {
			t.Fatalf("ChangedFields: %v", err)
		}
		first, changed, err := fielddiff.FirstChangedField(a, b)
		if err != nil {
			t.Fatalf("FirstChangedField: %v", err)
		}
		if changed != (len(all) > 0) || changed && first != all[0] {
			t.Fatalf("FirstChangedField = %q, %t; ChangedFields = %q", first, changed, all)
		}

		// Compare: the same paths in the same order, each value valid JSON
		// (or cut), both sides' values swapped when the sides are.
		d, err := fielddiff.Compare(a, b)
		if err != nil {
			t.Fatalf("Compare: %v", err)
		}
		if len(d.Changes) != min(len(all), fielddiff.MaxChanges) || d.Truncated != (len(all) > fielddiff.MaxChanges) {
			t.Fatalf("Compare: %d changes (truncated %t), ChangedFields %d paths", len(d.Changes), d.Truncated, len(all))
		}
		for i, c := range d.Changes {
			if c.Path != all[i] {
				t.Fatalf("Compare's change %d is %q, ChangedFields' path %q", i, c.Path, all[i])
			}
			for _, v := range []string{c.Old, c.New} {
				if len(v) > fielddiff.MaxValueBytes || v != "" && !strings.HasSuffix(v, "…") && !json.Valid([]byte(v)) {
					t.Fatalf("Compare's change of %s: value %q is neither JSON nor cut", c.Path, v)
				}
			}
		}

		// Equal inputs: the same document, and an independent copy of it.
		for _, pair := range [][2]any{{a, a}, {a, mustDecode(t, ja)}, {b, mustDecode(t, jb)}} {
			if p, changed, err := fielddiff.FirstChangedField(pair[0], pair[1]); err != nil || changed {
				t.Fatalf("FirstChangedField of equal documents = %q, %t, %v", p, changed, err)
			}
			if got, err := fielddiff.ChangedFields(pair[0], pair[1]); err != nil || len(got) > 0 {
				t.Fatalf("ChangedFields of equal documents = %q, %v", got, err)
			}
		}

		// Symmetry.
		back, err := fielddiff.ChangedFields(b, a)
		if err != nil {
			t.Fatalf("ChangedFields(b, a): %v", err)
		}
		if diff := cmp.Diff(all, back); diff != "" {
			t.Fatalf("ChangedFields(a, b) and ChangedFields(b, a) differ: -(a, b), +(b, a):\n%s", diff)
		}

		// Every path is a field path, appears once, and leads somewhere.
		seen := map[string]bool{}
		for _, p := range all {
			if seen[p] {
				t.Fatalf("path %q reported twice in %q", p, all)
			}
			seen[p] = true
			segs, err := fieldpath.Parse(p)
			if err != nil {
				t.Fatalf("path %q does not parse: %v", p, err)
			}
			if !lookup(a, segs) && !lookup(b, segs) {
				t.Fatalf("path %q leads to no value in either document", p)
			}
		}

		// Ignoring a path only takes paths away, in the same order.
		ignored, err := fielddiff.ChangedFields(a, b, fielddiff.IgnorePaths(ignore))
		if _, perr := fieldpath.Parse(ignore); perr != nil {
			if !errors.Is(err, fieldpath.ErrInvalidPath) {
				t.Fatalf("IgnorePaths(%q): want an invalid path error, got %v", ignore, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ChangedFields with IgnorePaths(%q): %v", ignore, err)
		}
		rest := all
		for _, p := range ignored {
			i := slices.Index(rest, p)
			if i < 0 {
				t.Fatalf("IgnorePaths(%q) gave %q, not a subsequence of %q", ignore, ignored, all)
			}
			rest = rest[i+1:]
		}
	})
}

// decode reads a JSON document as unstructured content, under a "doc" key
// when it is not an object.
func decode(s string) (map[string]any, bool) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, false
	}
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	return map[string]any{"doc": v}, true
}

func mustDecode(t *testing.T, s string) map[string]any {
	t.Helper()
	m, ok := decode(s)
	if !ok {
		t.Fatalf("cannot decode %q", s)
	}
	return m
}

// lookup reports whether segs lead to a value (null included) in doc.
func lookup(doc any, segs fieldpath.Segments) bool {
	for _, s := range segs {
		switch s.Type {
		case fieldpath.SegmentField:
			m, ok := doc.(map[string]any)
			if !ok {
				return false
			}
			if doc, ok = m[s.Field]; !ok {
				return false
			}
		case fieldpath.SegmentIndex:
			l, ok := doc.([]any)
			if !ok || s.Index >= uint(len(l)) {
				return false
			}
			doc = l[s.Index]
		default:
			return false
		}
	}
	return true
}
