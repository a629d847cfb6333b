package fieldpath

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var fuzzPaths = []string{
	"a", "a.b", "a[0]", "a[1].b", "spec.containers[0].name", "metadata.labels[app.kubernetes.io/name]",
	"a['0']", `a["x.y"]`, `a[x\]y]`, `a[\\]`, `a['it\'s']`, "a['']", "a['*']", "[0]", "[a.b].c",
	"a.*", "a[*].b", "*", "a[0][1]", "a[0]b", "a[1024]", "a[1025]", "a[-1]", "a..b", ".a", "a.",
	"a[", "a]", "a[]", "a['b", "a['b'c]", "a.[0]", "a[b[c]]", "", "données.clé", "a[C:\\x]",
}

var fuzzDocs = []string{
	`{}`,
	`{"a": "x"}`,
	`{"a": {"b": [1, 2.5, "c", null, true, {"d": []}]}}`,
	`{"a": [null, [0, [1]]], "b": null}`,
	`{"spec": {"containers": [{"name": "a", "args": ["x"]}, {"name": "b"}]}}`,
	`{"metadata": {"labels": {"app.kubernetes.io/name": "x", "*": "star", "0": "zero", "": "empty"}}}`,
	`[1, 2]`,
	`not json`,
}

// resetCache empties the parse cache, so that every fuzz input meets the
// same state: otherwise whether a path hits depends on the inputs before
// it, and the fuzzer's coverage-guided minimization, which runs an input
// again, sees different coverage and stalls.
func resetCache() {
	for i := range paths.slots {
		paths.slots[i].Store(nil)
		paths.used[i].Store(false)
	}
	for i := range paths.recent {
		paths.recent[i].Store(nil)
	}
	paths.hand.Store(0)
}

// Inputs longer than these are not explored. Go's fuzzer minimizes every
// input that finds new coverage, in time quadratic in its length, and a long
// one stalls the run for many seconds; long inputs reach no code that short
// ones cannot, and the unit tests cover long paths.
const (
	fuzzMaxPath = 200
	fuzzMaxDoc  = 256
)

func FuzzParse(f *testing.F) {
	for _, p := range fuzzPaths {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if len(path) > fuzzMaxPath {
			return
		}
		resetCache()
		segs, err := Parse(path)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) || !strings.HasPrefix(err.Error(), "cannot parse field path ") {
				t.Fatalf("Parse(%q): error %q does not wrap ErrInvalidPath or name the path", path, err)
			}
			return
		}
		if len(segs) == 0 {
			t.Fatalf("Parse(%q) accepted a path with no segments", path)
		}
		for i, s := range segs {
			if s.Type == SegmentIndex && s.Index > DefaultMaxIndex {
				t.Fatalf("Parse(%q): segment %d has index %d, above the limit", path, i, s.Index)
			}
		}

		// Every accepted path round-trips through its canonical form, which
		// is a fixed point.
		canonical := segs.String()
		back, err := Parse(canonical)
		if err != nil {
			t.Fatalf("Parse(%q) = %#v, whose String() %q does not parse: %v", path, segs, canonical, err)
		}
		if !reflect.DeepEqual(segs, back) {
			t.Fatalf("Parse(%q).String() = %q parses differently: -want, +got:\n%s", path, canonical, cmp.Diff(segs, back))
		}
		if again := back.String(); again != canonical {
			t.Fatalf("String() is not canonical: %q, then %q", canonical, again)
		}

		// The cached path is the same.
		c, err := paths.lookup(path, DefaultMaxIndex)
		if err != nil {
			t.Fatalf("lookup(%q): %v", path, err)
		}
		if !reflect.DeepEqual(segs, c.segs) {
			t.Fatalf("lookup(%q) differs from Parse: -want, +got:\n%s", path, cmp.Diff(segs, c.segs))
		}
	})
}

// fuzzObject decodes doc as the Kubernetes decoder would, or returns an empty
// object when doc is not a JSON object, so that every input exercises Set.
func fuzzObject(doc string) map[string]any {
	var obj map[string]any
	if err := utiljson.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
		return map[string]any{}
	}
	return obj
}

func FuzzSetGet(f *testing.F) {
	values := []string{`"v"`, `1`, `2.5`, `null`, `true`, `{"x": [1, {"y": null}]}`, `[]`, `not json`}
	for i, p := range fuzzPaths {
		f.Add(fuzzDocs[i%len(fuzzDocs)], p, values[i%len(values)])
	}
	f.Fuzz(func(t *testing.T, doc, path, raw string) {
		if len(path) > fuzzMaxPath || len(doc) > fuzzMaxDoc || len(raw) > fuzzMaxDoc {
			return
		}
		resetCache()
		obj := fuzzObject(doc)
		var value any = raw
		var decoded any
		if err := utiljson.Unmarshal([]byte(raw), &decoded); err == nil {
			value = decoded
		}
		before := runtime.DeepCopyJSON(obj)

		// get's and set's walks for paths of fields do what the general
		// walks do.
		if cp, err := compile(path, DefaultMaxIndex); err == nil {
			fastV, fastErr := cp.get(obj, "get")
			generalV, generalErr := cp.getWalk(obj, "get")
			if fmt.Sprint(fastErr) != fmt.Sprint(generalErr) || !reflect.DeepEqual(fastV, generalV) {
				t.Fatalf("get(%q) = %v, %v; the general walk gives %v, %v", path, fastV, fastErr, generalV, generalErr)
			}
			if v, err := toJSON(value); err == nil {
				fast, general := runtime.DeepCopyJSON(obj), runtime.DeepCopyJSON(obj)
				fastErr, generalErr := cp.set(fast, v, "set"), cp.setWalk(general, v, "set")
				if fmt.Sprint(fastErr) != fmt.Sprint(generalErr) || !reflect.DeepEqual(fast, general) {
					t.Fatalf("set(%q) = %v, %v; the general walk gives %v, %v", path, fastErr, fast, generalErr, general)
				}
			}
		}

		p := Pave(obj)
		err := p.SetValue(path, value)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) && !errors.Is(err, ErrWrongType) {
				t.Fatalf("SetValue(%q): unexpected kind of error %q", path, err)
			}
			if after := p.UnstructuredContent(); !reflect.DeepEqual(before, after) {
				t.Fatalf("a failed SetValue(%q) changed the object: -want, +got:\n%s", path, cmp.Diff(before, after))
			}
			return
		}
		after := p.UnstructuredContent()

		// A successful Set is read back by Get, through the cache and
		// compiled.
		want, err := toJSON(value)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.GetValue(path)
		if err != nil {
			t.Fatalf("GetValue(%q) after SetValue: %v", path, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("GetValue(%q) after SetValue: -want, +got:\n%s", path, cmp.Diff(want, got))
		}
		segs, err := Parse(path)
		if err != nil {
			t.Fatalf("SetValue accepted %q, which Parse rejects: %v", path, err)
		}
		compiled := &Path{text: path, segs: segs, wildcard: -1}
		if got, err := compiled.Get(after); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Path(%q).Get after SetValue: got %#v, %v", path, got, err)
		}

		// Nothing outside the path changed.
		if msg := changedOutside(before, after, segs, ""); msg != "" {
			t.Fatalf("SetValue(%q) changed something outside the path: %s", path, msg)
		}

		// Deleting the field makes it disappear; deleting an element
		// shortens its array by one.
		last := segs[len(segs)-1]
		var parentLen int
		if last.Type == SegmentIndex {
			parent, err := (&Path{segs: segs[:len(segs)-1], wildcard: -1}).get(after, "get")
			if err != nil {
				t.Fatalf("the parent of %q: %v", path, err)
			}
			parentLen = len(parent.([]any))
		}
		if err := p.DeleteField(path); err != nil {
			t.Fatalf("DeleteField(%q) after SetValue: %v", path, err)
		}
		switch last.Type {
		case SegmentField:
			if _, err := p.GetValue(path); !IsNotFound(err) {
				t.Fatalf("GetValue(%q) after DeleteField: want not found, got %v", path, err)
			}
		case SegmentIndex:
			parent, err := (&Path{segs: segs[:len(segs)-1], wildcard: -1}).get(p.UnstructuredContent(), "get")
			if err != nil {
				t.Fatalf("the parent of %q after DeleteField: %v", path, err)
			}
			if n := len(parent.([]any)); n != parentLen-1 {
				t.Fatalf("DeleteField(%q): the array has %d elements, want %d", path, n, parentLen-1)
			}
		}
	})
}

// changedOutside walks before and after along segs and describes the first
// difference it finds anywhere but at the end of the path, where the value
// was set. Containers that Set created (before is missing or null there) may
// hold only the path; arrays may have grown only by nulls up to the index.
func changedOutside(before, after any, segs Segments, at string) string {
	if len(segs) == 0 {
		return ""
	}
	s := segs[0]
	here := at + Segments{s}.String()
	if at != "" && s.Type == SegmentField {
		here = at + "." + Segments{s}.String()
	}
	switch s.Type {
	case SegmentField:
		am, ok := after.(map[string]any)
		if !ok {
			return fmt.Sprintf("%q is %T, not an object", at, after)
		}
		bm, _ := before.(map[string]any)
		for k, bv := range bm {
			if k == s.Field {
				continue
			}
			av, found := am[k]
			if !found {
				return fmt.Sprintf("field %q of %q was removed", k, at)
			}
			if !reflect.DeepEqual(bv, av) {
				return fmt.Sprintf("field %q of %q changed from %#v to %#v", k, at, bv, av)
			}
		}
		for k := range am {
			if _, found := bm[k]; !found && k != s.Field {
				return fmt.Sprintf("field %q of %q was added", k, at)
			}
		}
		return changedOutside(bm[s.Field], am[s.Field], segs[1:], here)
	case SegmentIndex:
		aa, ok := after.([]any)
		if !ok {
			return fmt.Sprintf("%q is %T, not an array", at, after)
		}
		ba, _ := before.([]any)
		i := int(s.Index)
		if want := max(len(ba), i+1); len(aa) != want {
			return fmt.Sprintf("%q has %d elements, want %d", at, len(aa), want)
		}
		for j := range aa {
			switch {
			case j == i:
			case j < len(ba):
				if !reflect.DeepEqual(ba[j], aa[j]) {
					return fmt.Sprintf("element %d of %q changed from %#v to %#v", j, at, ba[j], aa[j])
				}
			case aa[j] != nil:
				return fmt.Sprintf("padding element %d of %q is %#v, not null", j, at, aa[j])
			}
		}
		var bv any
		if i < len(ba) {
			bv = ba[i]
		}
		return changedOutside(bv, aa[i], segs[1:], here)
	}
	return fmt.Sprintf("unexpected segment %#v", s)
}

func FuzzExpandWildcards(f *testing.F) {
	for i, p := range fuzzPaths {
		f.Add(fuzzDocs[i%len(fuzzDocs)], p)
	}
	f.Add(fuzzDocs[4], "spec.containers[*].args[*]")
	f.Add(fuzzDocs[5], "metadata.labels[*]")
	f.Add(fuzzDocs[2], "a.b[*]")
	f.Fuzz(func(t *testing.T, doc, path string) {
		if len(path) > fuzzMaxPath || len(doc) > fuzzMaxDoc {
			return
		}
		resetCache()
		obj := fuzzObject(doc)
		p := Pave(obj)
		got, err := p.ExpandWildcards(path)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) && !errors.Is(err, ErrWrongType) {
				t.Fatalf("ExpandWildcards(%q): unexpected kind of error %q", path, err)
			}
			return
		}
		for _, concrete := range got {
			segs, err := Parse(concrete)
			if err != nil {
				t.Fatalf("ExpandWildcards(%q) returned %q, which does not parse: %v", path, concrete, err)
			}
			for _, s := range segs {
				if s.Type == SegmentWildcard {
					t.Fatalf("ExpandWildcards(%q) returned %q, which holds a wildcard", path, concrete)
				}
			}
			if _, err := p.GetValue(concrete); err != nil {
				t.Fatalf("ExpandWildcards(%q) returned %q, which GetValue cannot read: %v", path, concrete, err)
			}
			again, err := p.ExpandWildcards(concrete)
			if err != nil || len(again) != 1 || again[0] != concrete {
				t.Fatalf("ExpandWildcards(%q) of an expanded path: got %q, %v", concrete, again, err)
			}
		}
	})
}

// FuzzAppendKey: any field name written by AppendKey, or by AppendField after
// another field, reads back as that one field.
func FuzzAppendKey(f *testing.F) {
	for _, s := range []string{"team", "app.kubernetes.io/name", "", "*", "0", "-12", "-", "'q'", `"q`, `a]b[c\d`, "x\\", "[0]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		want := Segments{{Type: SegmentField, Field: name}}
		key := string(AppendKey(nil, name))
		if got, err := Parse(key); err != nil || !reflect.DeepEqual(want, got) {
			t.Fatalf("Parse(%q) = %#v, %v; want %#v", key, got, err, want)
		}
		path := string(AppendField([]byte("a"), name, false))
		want = Segments{{Type: SegmentField, Field: "a"}, {Type: SegmentField, Field: name}}
		if got, err := Parse(path); err != nil || !reflect.DeepEqual(want, got) {
			t.Fatalf("Parse(%q) = %#v, %v; want %#v", path, got, err, want)
		}
	})
}
