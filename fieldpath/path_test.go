package fieldpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

// object returns a fresh object to read and write in tests.
func object() map[string]any {
	return map[string]any{
		"apiVersion": "example.org/v1",
		"metadata": map[string]any{
			"name": "thing",
			"labels": map[string]any{
				"app.kubernetes.io/name": "thing",
			},
		},
		"spec": map[string]any{
			"replicas": int64(3),
			"paused":   false,
			"nothing":  nil,
			"containers": []any{
				map[string]any{"name": "a", "args": []any{"x", "y"}},
				map[string]any{"name": "b"},
			},
		},
	}
}

// errorWant says what error a case expects: none, or one wrapping a sentinel
// whose message contains a substring.
type errorWant struct {
	is  error
	msg string
}

func checkError(t *testing.T, reason string, want errorWant, err error) {
	t.Helper()
	if want.is == nil {
		if err != nil {
			t.Fatalf("\n%s\nunexpected error: %v", reason, err)
		}
		return
	}
	if err == nil {
		t.Fatalf("\n%s\nwant an error wrapping %q, got none", reason, want.is)
	}
	if !errors.Is(err, want.is) {
		t.Errorf("\n%s\nerror %q does not wrap %q", reason, err, want.is)
	}
	if !strings.Contains(err.Error(), want.msg) {
		t.Errorf("\n%s\nerror %q does not contain %q", reason, err, want.msg)
	}
	if (want.is == ErrNotFound) != IsNotFound(err) {
		t.Errorf("\n%s\nIsNotFound(%q) = %t", reason, err, IsNotFound(err))
	}
}

func TestGet(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    map[string]any
		path   string
		want   any
		err    errorWant
	}{
		"TopLevelField": {
			reason: "A top-level field is found.",
			obj:    object(),
			path:   "apiVersion",
			want:   "example.org/v1",
		},
		"NestedField": {
			reason: "A nested field is found.",
			obj:    object(),
			path:   "metadata.name",
			want:   "thing",
		},
		"DottedKey": {
			reason: "A bracketed key with dots is found.",
			obj:    object(),
			path:   "metadata.labels[app.kubernetes.io/name]",
			want:   "thing",
		},
		"Index": {
			reason: "An array element is found.",
			obj:    object(),
			path:   "spec.containers[1].name",
			want:   "b",
		},
		"NestedIndex": {
			reason: "An element of a nested array is found.",
			obj:    object(),
			path:   "spec.containers[0].args[1]",
			want:   "y",
		},
		"Object": {
			reason: "A whole object is returned as it is.",
			obj:    object(),
			path:   "metadata.labels",
			want:   map[string]any{"app.kubernetes.io/name": "thing"},
		},
		"Null": {
			reason: "A null value is found, and is nil.",
			obj:    object(),
			path:   "spec.nothing",
			want:   nil,
		},
		"MissingField": {
			reason: "A missing field is not found.",
			obj:    object(),
			path:   "spec.forProvider.region",
			err:    errorWant{is: ErrNotFound, msg: `cannot get spec.forProvider.region: spec has no field "forProvider"`},
		},
		"MissingTopLevelField": {
			reason: "A missing top-level field is not found.",
			obj:    object(),
			path:   "status",
			err:    errorWant{is: ErrNotFound, msg: `the object has no field "status"`},
		},
		"IndexPastEnd": {
			reason: "An index past the end of an array is not found.",
			obj:    object(),
			path:   "spec.containers[2].name",
			err:    errorWant{is: ErrNotFound, msg: "spec.containers has no element 2 (its length is 2)"},
		},
		"ThroughNull": {
			reason: "Passing through null is not found.",
			obj:    object(),
			path:   "spec.nothing.deeper",
			err:    errorWant{is: ErrNotFound, msg: "spec.nothing is null"},
		},
		"FieldOfString": {
			reason: "A field of a string is a type mismatch, not a missing field.",
			obj:    object(),
			path:   "metadata.name.first",
			err:    errorWant{is: ErrWrongType, msg: `metadata.name is a string of 5 bytes, not an object`},
		},
		"IndexOfObject": {
			reason: "Indexing an object is a type mismatch.",
			obj:    object(),
			path:   "metadata[0]",
			err:    errorWant{is: ErrWrongType, msg: "metadata is an object of 2 fields, not an array"},
		},
		"FieldOfArray": {
			reason: "A field of an array is a type mismatch.",
			obj:    object(),
			path:   "spec.containers.name",
			err:    errorWant{is: ErrWrongType, msg: "spec.containers is an array of 2 elements, not an object"},
		},
		"IndexOfRoot": {
			reason: "The root is an object and cannot be indexed.",
			obj:    object(),
			path:   "[0]",
			err:    errorWant{is: ErrWrongType, msg: "not an array"},
		},
		"FieldOfNumber": {
			reason: "A field of a number is a type mismatch naming the value.",
			obj:    object(),
			path:   "spec.replicas.max",
			err:    errorWant{is: ErrWrongType, msg: "spec.replicas is a number, not an object"},
		},
		"Wildcard": {
			reason: "Get does not expand wildcards.",
			obj:    object(),
			path:   "spec.containers[*].name",
			err:    errorWant{is: ErrInvalidPath, msg: "segment 3 is a wildcard"},
		},
		"WildcardAfterMissing": {
			reason: "A wildcard is rejected whatever the object holds.",
			obj:    object(),
			path:   "status.conditions[*].type",
			err:    errorWant{is: ErrInvalidPath, msg: "segment 3 is a wildcard"},
		},
		"NilObject": {
			reason: "A nil object has nothing in it.",
			obj:    nil,
			path:   "metadata.name",
			err:    errorWant{is: ErrNotFound, msg: `the object has no field "metadata"`},
		},
		"NilNestedMap": {
			reason: "A nil map inside the object has nothing in it.",
			obj:    map[string]any{"a": map[string]any(nil)},
			path:   "a.b",
			err:    errorWant{is: ErrNotFound, msg: `a has no field "b"`},
		},
		"InvalidPath": {
			reason: "A path that does not parse is an invalid path.",
			obj:    object(),
			path:   "spec..replicas",
			err:    errorWant{is: ErrInvalidPath, msg: "empty field name at position 5"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Pave(tc.obj).GetValue(tc.path)
			checkError(t, tc.reason, tc.err, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nGetValue(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}

			// The compiled path behaves the same.
			p, err := Compile(tc.path)
			if err != nil {
				checkError(t, tc.reason, tc.err, err)
				return
			}
			got, err = p.Get(tc.obj)
			checkError(t, tc.reason, tc.err, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nPath(%q).Get: -want, +got:\n%s", tc.reason, tc.path, diff)
			}
		})
	}
}

func TestSet(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    map[string]any
		path   string
		value  any
		want   map[string]any // the whole object afterwards
		err    errorWant
	}{
		"ReplaceLeaf": {
			reason: "An existing leaf is replaced.",
			obj:    map[string]any{"spec": map[string]any{"region": "a", "zone": "z"}},
			path:   "spec.region",
			value:  "b",
			want:   map[string]any{"spec": map[string]any{"region": "b", "zone": "z"}},
		},
		"CreateObjects": {
			reason: "Missing parents are created as objects when the next segment is a field.",
			obj:    map[string]any{},
			path:   "spec.forProvider.region",
			value:  "eu",
			want:   map[string]any{"spec": map[string]any{"forProvider": map[string]any{"region": "eu"}}},
		},
		"CreateArray": {
			reason: "A missing parent is created as an array, padded with nulls, when the next segment is an index.",
			obj:    map[string]any{},
			path:   "spec.tags[2]",
			value:  "x",
			want:   map[string]any{"spec": map[string]any{"tags": []any{nil, nil, "x"}}},
		},
		"CreateArrayOfObjects": {
			reason: "Parents are created by the type of each next segment.",
			obj:    map[string]any{},
			path:   "a[1].b[0][1].c",
			value:  true,
			want: map[string]any{"a": []any{nil, map[string]any{
				"b": []any{[]any{nil, map[string]any{"c": true}}},
			}}},
		},
		"PadExistingArray": {
			reason: "An existing array is padded with nulls up to the index.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a[3]",
			value:  "y",
			want:   map[string]any{"a": []any{"x", nil, nil, "y"}},
		},
		"ReplaceElement": {
			reason: "An existing element is replaced in place.",
			obj:    map[string]any{"a": []any{"x", "y"}},
			path:   "a[0]",
			value:  "z",
			want:   map[string]any{"a": []any{"z", "y"}},
		},
		"ReplaceNullParent": {
			reason: "A null parent is replaced by an object.",
			obj:    map[string]any{"spec": nil},
			path:   "spec.region",
			value:  "eu",
			want:   map[string]any{"spec": map[string]any{"region": "eu"}},
		},
		"ReplaceNullElement": {
			reason: "A null element is replaced by what the next segment needs.",
			obj:    map[string]any{"a": []any{nil}},
			path:   "a[0][1]",
			value:  int64(1),
			want:   map[string]any{"a": []any{[]any{nil, int64(1)}}},
		},
		"ReplaceNilMap": {
			reason: "A nil map inside the object is replaced rather than written to.",
			obj:    map[string]any{"a": map[string]any(nil)},
			path:   "a.b",
			value:  "x",
			want:   map[string]any{"a": map[string]any{"b": "x"}},
		},
		"GrowNilSlice": {
			reason: "A nil slice inside the object is grown.",
			obj:    map[string]any{"a": []any(nil)},
			path:   "a[0]",
			value:  "x",
			want:   map[string]any{"a": []any{"x"}},
		},
		"SetObject": {
			reason: "A whole object may be set.",
			obj:    map[string]any{},
			path:   "metadata.labels",
			value:  map[string]string{"a": "b"},
			want:   map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}}},
		},
		"SetNull": {
			reason: "Null may be set.",
			obj:    map[string]any{"a": "x"},
			path:   "a",
			value:  nil,
			want:   map[string]any{"a": nil},
		},
		"WholeNumber": {
			reason: "Whole numbers become int64.",
			obj:    map[string]any{},
			path:   "a",
			value:  3,
			want:   map[string]any{"a": int64(3)},
		},
		"QuotedStarKey": {
			reason: "A quoted star is a literal key.",
			obj:    map[string]any{},
			path:   "a['*']",
			value:  "x",
			want:   map[string]any{"a": map[string]any{"*": "x"}},
		},
		"FieldOfString": {
			reason: "A field of a string cannot be set, and nothing changes.",
			obj:    map[string]any{"a": "x"},
			path:   "a.b.c",
			value:  "y",
			want:   map[string]any{"a": "x"},
			err:    errorWant{is: ErrWrongType, msg: `cannot set a.b.c: a is a string of 1 byte, not an object`},
		},
		"IndexOfObject": {
			reason: "An object cannot be indexed, and nothing changes.",
			obj:    map[string]any{"a": map[string]any{}},
			path:   "a[0]",
			value:  "y",
			want:   map[string]any{"a": map[string]any{}},
			err:    errorWant{is: ErrWrongType, msg: "a is an object of 0 fields, not an array"},
		},
		"IndexOfRoot": {
			reason: "The root cannot be indexed.",
			obj:    map[string]any{},
			path:   "[0]",
			value:  "y",
			want:   map[string]any{},
			err:    errorWant{is: ErrWrongType, msg: "not an array"},
		},
		"MismatchBelowPadding": {
			reason: "A type mismatch found after an existing array leaves the array as it was.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a[0].b",
			value:  "y",
			want:   map[string]any{"a": []any{"x"}},
			err:    errorWant{is: ErrWrongType, msg: "a[0] is a string"},
		},
		"Wildcard": {
			reason: "Set does not expand wildcards.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a[*]",
			value:  "y",
			want:   map[string]any{"a": []any{"x"}},
			err:    errorWant{is: ErrInvalidPath, msg: "segment 2 is a wildcard"},
		},
		"UnrepresentableValue": {
			reason: "A value JSON cannot represent is an error, and nothing changes.",
			obj:    map[string]any{},
			path:   "a.b",
			value:  map[string]any{"c": func() {}},
			want:   map[string]any{},
			err:    errorWant{is: ErrInvalidValue, msg: "cannot set a.b: the value at c cannot be represented as JSON"},
		},
		"IndexAboveLimit": {
			reason: "An index above the limit is rejected before anything is allocated.",
			obj:    map[string]any{},
			path:   "a[1000000]",
			value:  "x",
			want:   map[string]any{},
			err:    errorWant{is: ErrInvalidPath, msg: "index 1000000 is above the limit of 1024"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// The same case through a compiled Path, on a copy.
			copied := runtime.DeepCopyJSON(tc.obj)
			if p, err := Compile(tc.path); err == nil {
				err := p.Set(copied, tc.value)
				checkError(t, tc.reason, tc.err, err)
				if diff := cmp.Diff(tc.want, copied); diff != "" {
					t.Errorf("\n%s\nPath(%q).Set: -want, +got:\n%s", tc.reason, tc.path, diff)
				}
			}

			p := Pave(tc.obj)
			err := p.SetValue(tc.path, tc.value)
			checkError(t, tc.reason, tc.err, err)
			if diff := cmp.Diff(tc.want, p.UnstructuredContent()); diff != "" {
				t.Errorf("\n%s\nSetValue(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}
			if err != nil {
				return
			}
			got, err := p.GetValue(tc.path)
			if err != nil {
				t.Fatalf("\n%s\nGetValue(%q) after SetValue: %v", tc.reason, tc.path, err)
			}
			wantValue, err := toJSON(tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantValue, got); diff != "" {
				t.Errorf("\n%s\nGetValue(%q) after SetValue: -want, +got:\n%s", tc.reason, tc.path, diff)
			}
		})
	}
}

func TestSetDoesNotShareValue(t *testing.T) {
	value := map[string]any{"b": []any{"x"}}
	p := Pave(nil)
	if err := p.SetValue("a", value); err != nil {
		t.Fatal(err)
	}
	value["b"].([]any)[0] = "changed"
	value["c"] = "added"
	want := map[string]any{"a": map[string]any{"b": []any{"x"}}}
	if diff := cmp.Diff(want, p.UnstructuredContent()); diff != "" {
		t.Errorf("changing the value after SetValue changed the object: -want, +got:\n%s", diff)
	}
}

func TestPathSetNilObject(t *testing.T) {
	err := MustCompile("a.b").Set(nil, "x")
	checkError(t, "A compiled path cannot write into a nil map.", errorWant{is: ErrInvalidValue, msg: "cannot set a.b: the object is a nil map"}, err)
}

func TestPavedSetNilContent(t *testing.T) {
	p := Pave(nil)
	if err := p.SetValue("[0]", "x"); err == nil {
		t.Fatal("SetValue([0]) on nil content: want an error")
	}
	if p.object != nil {
		t.Errorf("a failed SetValue on nil content created content %v", p.object)
	}
	if err := p.SetString("a", "x"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"a": "x"}, p.UnstructuredContent()); diff != "" {
		t.Errorf("SetString on nil content: -want, +got:\n%s", diff)
	}
}

func TestDelete(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    map[string]any
		path   string
		want   map[string]any
		err    errorWant
	}{
		"Field": {
			reason: "A field is removed.",
			obj:    map[string]any{"a": map[string]any{"b": "x", "c": "y"}},
			path:   "a.b",
			want:   map[string]any{"a": map[string]any{"c": "y"}},
		},
		"TopLevelField": {
			reason: "A top-level field is removed.",
			obj:    map[string]any{"a": "x", "b": "y"},
			path:   "a",
			want:   map[string]any{"b": "y"},
		},
		"ElementShifts": {
			reason: "An element is removed and later ones move down.",
			obj:    map[string]any{"a": []any{"x", "y", "z"}},
			path:   "a[0]",
			want:   map[string]any{"a": []any{"y", "z"}},
		},
		"LastElement": {
			reason: "The last element is removed.",
			obj:    map[string]any{"a": []any{"x", "y"}},
			path:   "a[1]",
			want:   map[string]any{"a": []any{"x"}},
		},
		"OnlyElement": {
			reason: "Removing the only element leaves an empty array.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a[0]",
			want:   map[string]any{"a": []any{}},
		},
		"NestedElement": {
			reason: "An element of an array inside an array is removed.",
			obj:    map[string]any{"a": []any{[]any{"x", "y"}}},
			path:   "a[0][0]",
			want:   map[string]any{"a": []any{[]any{"y"}}},
		},
		"FieldInElement": {
			reason: "A field inside an array element is removed.",
			obj:    map[string]any{"a": []any{map[string]any{"b": "x", "c": "y"}}},
			path:   "a[0].b",
			want:   map[string]any{"a": []any{map[string]any{"c": "y"}}},
		},
		"MissingField": {
			reason: "A missing field is not an error.",
			obj:    map[string]any{"a": map[string]any{}},
			path:   "a.b",
			want:   map[string]any{"a": map[string]any{}},
		},
		"MissingParent": {
			reason: "A missing parent is not an error.",
			obj:    map[string]any{},
			path:   "a.b.c",
			want:   map[string]any{},
		},
		"IndexPastEnd": {
			reason: "An index past the end is not an error.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a[5]",
			want:   map[string]any{"a": []any{"x"}},
		},
		"ThroughNull": {
			reason: "A path through null does not exist, which is not an error.",
			obj:    map[string]any{"a": nil},
			path:   "a.b",
			want:   map[string]any{"a": nil},
		},
		"NilObject": {
			reason: "Deleting from nil content is not an error.",
			obj:    nil,
			path:   "a.b",
			want:   map[string]any{},
		},
		"FieldOfString": {
			reason: "A field of a string is a type mismatch.",
			obj:    map[string]any{"a": "x"},
			path:   "a.b",
			want:   map[string]any{"a": "x"},
			err:    errorWant{is: ErrWrongType, msg: `cannot delete a.b: a is a string of 1 byte, not an object`},
		},
		"IndexOfObject": {
			reason: "Indexing an object is a type mismatch.",
			obj:    map[string]any{"a": map[string]any{"0": "x"}},
			path:   "a[0]",
			want:   map[string]any{"a": map[string]any{"0": "x"}},
			err:    errorWant{is: ErrWrongType, msg: "a is an object of 1 field, not an array"},
		},
		"Wildcard": {
			reason: "Delete does not expand wildcards.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a[*]",
			want:   map[string]any{"a": []any{"x"}},
			err:    errorWant{is: ErrInvalidPath, msg: "wildcard"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := Pave(tc.obj)
			err := p.DeleteField(tc.path)
			checkError(t, tc.reason, tc.err, err)
			if diff := cmp.Diff(tc.want, p.UnstructuredContent()); diff != "" {
				t.Errorf("\n%s\nDeleteField(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}
		})
	}
}

func TestDeleteClearsRemovedSlot(t *testing.T) {
	// The backing array keeps its length; the slot past the new end must not
	// keep the last element alive.
	a := []any{"x", map[string]any{"big": "value"}}
	p := Pave(map[string]any{"a": a})
	if err := p.DeleteField("a[0]"); err != nil {
		t.Fatal(err)
	}
	if a[1] != nil {
		t.Errorf("the slot past the end still holds %v", a[1])
	}
}

func TestCompile(t *testing.T) {
	p, err := Compile("a[5000]", MaxIndex(8192))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("a[5000]", p.String()); diff != "" {
		t.Errorf("String(): -want, +got:\n%s", diff)
	}
	segs := p.Segments()
	if diff := cmp.Diff(Segments{field("a"), index(5000)}, segs); diff != "" {
		t.Errorf("Segments(): -want, +got:\n%s", diff)
	}
	segs[0].Field = "changed"
	if p.Segments()[0].Field != "a" {
		t.Error("changing the result of Segments() changed the path")
	}

	if _, err := Compile("a[5000]"); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("Compile above the default limit: want ErrInvalidPath, got %v", err)
	}
	if _, err := Compile("a[5000]", MaxIndex(0)); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("MaxIndex(0) keeps the default limit: want ErrInvalidPath, got %v", err)
	}
}

func TestZeroPath(t *testing.T) {
	var p Path
	_, err := p.Get(map[string]any{"a": "x"})
	checkError(t, "A zero Path cannot get.", errorWant{is: ErrInvalidPath, msg: "not compiled"}, err)
	err = p.Set(map[string]any{}, "x")
	checkError(t, "A zero Path cannot set.", errorWant{is: ErrInvalidPath, msg: "not compiled"}, err)
}

func TestMustCompilePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustCompile of an invalid path did not panic")
		}
	}()
	MustCompile("a..b")
}

func TestDeepNesting(t *testing.T) {
	// Get, Set and Delete walk iteratively, so depth costs no stack.
	const depth = 20000
	path := strings.Repeat("a.", depth) + "b"
	p := Pave(nil)
	if err := p.SetValue(path, "deep"); err != nil {
		t.Fatalf("SetValue at depth %d: %v", depth, err)
	}
	if got, err := p.GetString(path); err != nil || got != "deep" {
		t.Fatalf("GetString at depth %d: got %q, %v", depth, got, err)
	}
	if err := p.DeleteField(path); err != nil {
		t.Fatalf("DeleteField at depth %d: %v", depth, err)
	}
	if _, err := p.GetValue(path); !IsNotFound(err) {
		t.Fatalf("GetValue after DeleteField: want not found, got %v", err)
	}
	// A value nested deeper than JSON decoding allows is an error, not a
	// stack overflow.
	var v any = "leaf"
	for range maxValueDepth + 1 {
		v = []any{v}
	}
	if err := p.SetValue("x", v); !errors.Is(err, ErrInvalidValue) {
		t.Fatalf("SetValue of a value nested %d deep: want ErrInvalidValue, got %v", maxValueDepth+1, err)
	}
}
