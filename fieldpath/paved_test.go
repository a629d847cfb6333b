package fieldpath

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func typedObject() map[string]any {
	return map[string]any{
		"s":      "x",
		"b":      true,
		"i":      int64(7),
		"int":    7,
		"f":      7.0,
		"frac":   7.5,
		"f32":    float32(2),
		"num":    json.Number("9"),
		"big":    uint64(1 << 63),
		"strs":   []any{"a", "b"},
		"gostrs": []string{"c"},
		"mixed":  []any{"a", int64(1)},
		"labels": map[string]any{"k": "v"},
		"golbls": map[string]string{"k": "w"},
		"badlbl": map[string]any{"k": int64(1)},
	}
}

func TestTypedGetters(t *testing.T) {
	type want struct {
		value any
		err   errorWant
	}
	p := Pave(typedObject())
	get := map[string]func(string) (any, error){
		"GetString":       func(path string) (any, error) { return p.GetString(path) },
		"GetBool":         func(path string) (any, error) { return p.GetBool(path) },
		"GetInteger":      func(path string) (any, error) { return p.GetInteger(path) },
		"GetStringArray":  func(path string) (any, error) { return p.GetStringArray(path) },
		"GetStringObject": func(path string) (any, error) { return p.GetStringObject(path) },
	}
	cases := map[string]struct {
		reason string
		method string
		path   string
		want   want
	}{
		"String":          {reason: "A string is a string.", method: "GetString", path: "s", want: want{value: "x"}},
		"StringWrongType": {reason: "A boolean is not a string.", method: "GetString", path: "b", want: want{value: "", err: errorWant{is: ErrWrongType, msg: "cannot get b as a string: it is a boolean"}}},
		"StringMissing":   {reason: "A missing field is not found.", method: "GetString", path: "nope", want: want{value: "", err: errorWant{is: ErrNotFound, msg: `no field "nope"`}}},
		"Bool":            {reason: "A boolean is a boolean.", method: "GetBool", path: "b", want: want{value: true}},
		"BoolWrongType":   {reason: "A string is not a boolean.", method: "GetBool", path: "s", want: want{value: false, err: errorWant{is: ErrWrongType, msg: "as a boolean"}}},
		"Int64":           {reason: "An int64 is an integer.", method: "GetInteger", path: "i", want: want{value: int64(7)}},
		"Int":             {reason: "An int is an integer.", method: "GetInteger", path: "int", want: want{value: int64(7)}},
		"WholeFloat":      {reason: "A whole float64 is an integer.", method: "GetInteger", path: "f", want: want{value: int64(7)}},
		"WholeFloat32":    {reason: "A whole float32 is an integer.", method: "GetInteger", path: "f32", want: want{value: int64(2)}},
		"Number":          {reason: "An integral json.Number is an integer.", method: "GetInteger", path: "num", want: want{value: int64(9)}},
		"Fraction":        {reason: "A fraction is not an integer.", method: "GetInteger", path: "frac", want: want{value: int64(0), err: errorWant{is: ErrWrongType, msg: "it is a number"}}},
		"TooBig":          {reason: "A uint64 beyond int64 is not an int64.", method: "GetInteger", path: "big", want: want{value: int64(0), err: errorWant{is: ErrWrongType, msg: "as an integer"}}},
		"IntegerString":   {reason: "A string is not an integer.", method: "GetInteger", path: "s", want: want{value: int64(0), err: errorWant{is: ErrWrongType, msg: "as an integer"}}},
		"StringArray":     {reason: "An array of strings is copied out.", method: "GetStringArray", path: "strs", want: want{value: []string{"a", "b"}}},
		"GoStringArray":   {reason: "A []string is copied out.", method: "GetStringArray", path: "gostrs", want: want{value: []string{"c"}}},
		"MixedArray":      {reason: "An array with a non-string names the element.", method: "GetStringArray", path: "mixed", want: want{value: []string(nil), err: errorWant{is: ErrWrongType, msg: "element 1 is a number"}}},
		"NotArray":        {reason: "A string is not an array.", method: "GetStringArray", path: "s", want: want{value: []string(nil), err: errorWant{is: ErrWrongType, msg: "as an array of strings"}}},
		"StringObject":    {reason: "An object of strings is copied out.", method: "GetStringObject", path: "labels", want: want{value: map[string]string{"k": "v"}}},
		"GoStringObject":  {reason: "A map[string]string is copied out.", method: "GetStringObject", path: "golbls", want: want{value: map[string]string{"k": "w"}}},
		"BadObject":       {reason: "An object with a non-string names the field.", method: "GetStringObject", path: "badlbl", want: want{value: map[string]string(nil), err: errorWant{is: ErrWrongType, msg: `field "k" is a number:`}}},
		"NotObject":       {reason: "An array is not an object.", method: "GetStringObject", path: "strs", want: want{value: map[string]string(nil), err: errorWant{is: ErrWrongType, msg: "as an object of strings"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := get[tc.method](tc.path)
			checkError(t, tc.reason, tc.want.err, err)
			if diff := cmp.Diff(tc.want.value, got); diff != "" {
				t.Errorf("\n%s\n%s(%q): -want, +got:\n%s", tc.reason, tc.method, tc.path, diff)
			}
		})
	}
}

func TestGetStringArrayIsACopy(t *testing.T) {
	p := Pave(typedObject())
	a, err := p.GetStringArray("strs")
	if err != nil {
		t.Fatal(err)
	}
	a[0] = "changed"
	if got, _ := p.GetString("strs[0]"); got != "a" {
		t.Errorf("changing the result changed the object: strs[0] is %q", got)
	}
}

func TestGetValueIntoDecodes(t *testing.T) {
	type container struct {
		Name  string         `json:"name"`
		Extra map[string]any `json:"extra"`
	}
	obj := map[string]any{
		"c": map[string]any{"name": "a", "extra": map[string]any{"n": int64(1)}, "unknown": true},
		"d": map[string]any{"Name": "case"},
		"s": "x",
	}
	cases := map[string]struct {
		reason string
		path   string
		into   func() any
		want   any
		err    errorWant
	}{
		"Struct": {
			reason: "An object decodes into a struct, numbers in interfaces as int64.",
			path:   "c",
			into:   func() any { return &container{} },
			want:   &container{Name: "a", Extra: map[string]any{"n": int64(1)}},
		},
		"CaseSensitive": {
			reason: "Field names match case-sensitively, as in the Kubernetes decoder.",
			path:   "d",
			into:   func() any { return &container{} },
			want:   &container{},
		},
		"Any": {
			reason: "Any value decodes into an interface.",
			path:   "c.extra",
			into:   func() any { var v any; return &v },
			want:   func() any { var v any = map[string]any{"n": int64(1)}; return &v }(),
		},
		"WrongType": {
			reason: "A string does not decode into a struct.",
			path:   "s",
			into:   func() any { return &container{} },
			want:   &container{},
			err:    errorWant{is: ErrWrongType, msg: "cannot get s into *fieldpath.container"},
		},
		"Missing": {
			reason: "A missing value is not found.",
			path:   "nope",
			into:   func() any { return &container{} },
			want:   &container{},
			err:    errorWant{is: ErrNotFound, msg: "nope"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out := tc.into()
			err := Pave(obj).GetValueInto(tc.path, out)
			checkError(t, tc.reason, tc.err, err)
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("\n%s\nGetValueInto(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}
		})
	}
	if err := Pave(obj).GetValueInto("c", container{}); err == nil {
		t.Error("GetValueInto a non-pointer: want an error")
	}
}

func TestSetTyped(t *testing.T) {
	p := Pave(nil)
	if err := p.SetString("a.s", "x"); err != nil {
		t.Fatal(err)
	}
	if err := p.SetBool("a.b", true); err != nil {
		t.Fatal(err)
	}
	if err := p.SetNumber("a.n", 3); err != nil {
		t.Fatal(err)
	}
	if err := p.SetNumber("a.f", 0.5); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": map[string]any{"s": "x", "b": true, "n": int64(3), "f": 0.5}}
	if diff := cmp.Diff(want, p.UnstructuredContent()); diff != "" {
		t.Errorf("typed setters: -want, +got:\n%s", diff)
	}
	err := p.SetNumber("a.nan", 0*func() float64 { var z float64; return 1 / z }())
	checkError(t, "NaN cannot be set.", errorWant{is: ErrInvalidValue, msg: "cannot set a.nan: the value cannot be represented as JSON: it is not a finite number"}, err)
}

func TestPavedMaxIndex(t *testing.T) {
	p := Pave(map[string]any{}, MaxIndex(2048))
	if err := p.SetString("a[2000]", "x"); err != nil {
		t.Fatalf("SetString under a raised limit: %v", err)
	}
	if got, err := p.GetString("a[2000]"); err != nil || got != "x" {
		t.Fatalf("GetString under a raised limit: got %q, %v", got, err)
	}
	// The path is now cached; a Paved with the default limit must still
	// reject it.
	_, err := Pave(p.UnstructuredContent()).GetValue("a[2000]")
	checkError(t, "A cached path above this Paved's limit is rejected.", errorWant{is: ErrInvalidPath, msg: "index 2000 is above the limit of 1024 at position 2"}, err)

	_, err = Pave(nil, MaxIndex(2)).GetValue("a[3]")
	checkError(t, "A lowered limit applies.", errorWant{is: ErrInvalidPath, msg: "above the limit of 2"}, err)

	var zero Paved
	if err := zero.SetString("a[1024]", "x"); err != nil {
		t.Errorf("the zero Paved has the default limit: %v", err)
	}
}

func TestPaveObject(t *testing.T) {
	t.Run("Unstructured", func(t *testing.T) {
		u := &unstructured.Unstructured{Object: map[string]any{"kind": "Thing"}}
		p, err := PaveObject(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetString("spec.region", "eu"); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"kind": "Thing", "spec": map[string]any{"region": "eu"}}
		if diff := cmp.Diff(want, u.Object); diff != "" {
			t.Errorf("writes through a paved Unstructured reach it: -want, +got:\n%s", diff)
		}
	})
	t.Run("EmptyUnstructured", func(t *testing.T) {
		u := &unstructured.Unstructured{}
		p, err := PaveObject(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetString("kind", "Thing"); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]any{"kind": "Thing"}, u.Object); diff != "" {
			t.Errorf("writes through a paved empty Unstructured reach it: -want, +got:\n%s", diff)
		}
	})
	t.Run("Typed", func(t *testing.T) {
		s := &metav1.Status{Status: metav1.StatusFailure, Code: 404, Details: &metav1.StatusDetails{Name: "x"}}
		p, err := PaveObject(s, MaxIndex(5))
		if err != nil {
			t.Fatal(err)
		}
		code, err := p.GetInteger("code")
		if err != nil || code != 404 {
			t.Errorf("GetInteger(code): got %d, %v", code, err)
		}
		name, err := p.GetString("details.name")
		if err != nil || name != "x" {
			t.Errorf("GetString(details.name): got %q, %v", name, err)
		}
		if _, err := p.GetValue("a[6]"); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("options apply: want ErrInvalidPath above MaxIndex(5), got %v", err)
		}
	})
	t.Run("Nil", func(t *testing.T) {
		_, err := PaveObject(nil)
		checkError(t, "A nil object cannot be paved.", errorWant{is: ErrInvalidValue, msg: "cannot pave a nil object"}, err)
	})
	t.Run("NilPointer", func(t *testing.T) {
		_, err := PaveObject((*unstructured.Unstructured)(nil))
		checkError(t, "A nil pointer cannot be paved.", errorWant{is: ErrInvalidValue, msg: "cannot pave a nil *unstructured.Unstructured"}, err)
	})
	t.Run("List", func(t *testing.T) {
		l := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{{Object: map[string]any{"kind": "A"}}}}
		p, err := PaveObject(l)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := p.GetString("items[0].kind"); err != nil || got != "A" {
			t.Errorf("GetString(items[0].kind): got %q, %v", got, err)
		}
	})
	t.Run("ListWrites", func(t *testing.T) {
		// A list builds its content afresh on every call: writes go to a copy
		// that shares nothing with it, not in part to its items, and
		// SetUnstructuredContent writes them back.
		l := &unstructured.UnstructuredList{
			Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": "6"}},
			Items:  []unstructured.Unstructured{{Object: map[string]any{"kind": "A"}}},
		}
		before := l.DeepCopy()
		p, err := PaveObject(l)
		if err != nil {
			t.Fatal(err)
		}
		for path, v := range map[string]string{"metadata.resourceVersion": "7", "metadata.continue": "c", "items[0].kind": "B", "items[1].kind": "C"} {
			if err := p.SetString(path, v); err != nil {
				t.Fatalf("SetString(%s): %v", path, err)
			}
		}
		if diff := cmp.Diff(before, l); diff != "" {
			t.Errorf("writes through a paved list change only the copy: -before, +after:\n%s", diff)
		}
		l.SetUnstructuredContent(p.UnstructuredContent())
		want := &unstructured.UnstructuredList{
			Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": "7", "continue": "c"}},
			Items:  []unstructured.Unstructured{{Object: map[string]any{"kind": "B"}}, {Object: map[string]any{"kind": "C"}}},
		}
		if diff := cmp.Diff(want.UnstructuredContent(), l.UnstructuredContent()); diff != "" {
			t.Errorf("SetUnstructuredContent writes the copy back: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(want.Items, l.Items); diff != "" {
			t.Errorf("SetUnstructuredContent writes the items back: -want, +got:\n%s", diff)
		}
	})
}

// notAPointer is a runtime.Object that the converter refuses because it is
// not a pointer.
type notAPointer struct{}

func (notAPointer) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (n notAPointer) DeepCopyObject() runtime.Object { return n }

func TestPaveObjectConversionError(t *testing.T) {
	_, err := PaveObject(notAPointer{})
	checkError(t, "The converter's error is returned.", errorWant{is: ErrInvalidValue, msg: "cannot pave fieldpath.notAPointer"}, err)
}

func TestUnstructuredContent(t *testing.T) {
	p := Pave(nil)
	c := p.UnstructuredContent()
	c["a"] = "x"
	if got, err := p.GetString("a"); err != nil || got != "x" {
		t.Errorf("writes to the content of a nil Paved are kept: got %q, %v", got, err)
	}
}

func TestMergeValueOptions(t *testing.T) {
	yes, no := true, false
	cases := map[string]struct {
		reason string
		obj    map[string]any
		path   string
		value  any
		opts   *MergeOptions
		want   map[string]any
		err    errorWant
	}{
		"NilOptionsReplace": {
			reason: "Without options the value replaces what is there.",
			obj:    map[string]any{"a": map[string]any{"x": "1", "y": "2"}},
			path:   "a",
			value:  map[string]any{"x": "3"},
			want:   map[string]any{"a": map[string]any{"x": "3"}},
		},
		"MergeObjects": {
			reason: "With options objects merge, the new values winning.",
			obj:    map[string]any{"a": map[string]any{"x": "1", "y": "2"}},
			path:   "a",
			value:  map[string]any{"x": "3", "z": "4"},
			opts:   &MergeOptions{},
			want:   map[string]any{"a": map[string]any{"x": "3", "y": "2", "z": "4"}},
		},
		"MergeDeep": {
			reason: "Objects merge at every depth.",
			obj:    map[string]any{"a": map[string]any{"b": map[string]any{"x": "1"}}},
			path:   "a",
			value:  map[string]any{"b": map[string]any{"y": "2"}},
			opts:   &MergeOptions{},
			want:   map[string]any{"a": map[string]any{"b": map[string]any{"x": "1", "y": "2"}}},
		},
		"KeepMapValues": {
			reason: "KeepMapValues keeps existing values and adds missing ones.",
			obj:    map[string]any{"a": map[string]any{"x": "1", "n": nil, "b": map[string]any{"p": "q"}}},
			path:   "a",
			value:  map[string]any{"x": "3", "n": "5", "z": "4", "b": map[string]any{"p": "r", "s": "t"}},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"x": "1", "n": "5", "z": "4", "b": map[string]any{"p": "q", "s": "t"}}},
		},
		"KeepScalar": {
			reason: "KeepMapValues keeps an existing scalar at the path itself.",
			obj:    map[string]any{"a": "1"},
			path:   "a",
			value:  "2",
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": "1"},
		},
		"KeepAgainstNull": {
			reason: "KeepMapValues keeps an existing value against a null.",
			obj:    map[string]any{"a": map[string]any{"x": "1"}},
			path:   "a",
			value:  map[string]any{"x": nil},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"x": "1"}},
		},
		"KeepIgnoresNull": {
			reason: "KeepMapValues ignores a null field, even one the object does not have.",
			obj:    map[string]any{"a": map[string]any{"x": "1"}},
			path:   "a",
			value:  map[string]any{"x": nil, "y": nil},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"x": "1"}},
		},
		"KeepEmptyTakesNulls": {
			reason: "An object still empty after a merge with KeepMapValues takes the merged object whole, its null fields included, as crossplane-runtime (mergo) puts it in place; one that got a field does not.",
			obj:    map[string]any{"a": map[string]any{"b": map[string]any{}, "c": map[string]any{}}},
			path:   "a",
			value:  map[string]any{"b": map[string]any{"y": nil}, "c": map[string]any{"y": nil, "z": "1"}},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"b": map[string]any{"y": nil}, "c": map[string]any{"z": "1"}}},
		},
		"AppendEmptyBelow": {
			reason: "An empty array appended to a missing or null field below the path is an empty array there, not null.",
			obj:    map[string]any{"a": map[string]any{"n": nil}},
			path:   "a",
			value:  map[string]any{"m": []any{}, "n": []any{}},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": map[string]any{"m": []any{}, "n": []any{}}},
		},
		"NullReplaces": {
			reason: "Without KeepMapValues a null replaces the existing value.",
			obj:    map[string]any{"a": map[string]any{"x": "1"}},
			path:   "a",
			value:  map[string]any{"x": nil},
			opts:   &MergeOptions{},
			want:   map[string]any{"a": map[string]any{"x": nil}},
		},
		"FalseOptions": {
			reason: "Options pointing to false act as options left nil: objects merge, the new values winning, and arrays are replaced.",
			obj:    map[string]any{"a": map[string]any{"x": "1", "y": "2", "l": []any{"p"}}},
			path:   "a",
			value:  map[string]any{"x": "3", "l": []any{"q"}},
			opts:   &MergeOptions{KeepMapValues: &no, AppendSlice: &no},
			want:   map[string]any{"a": map[string]any{"x": "3", "y": "2", "l": []any{"q"}}},
		},
		"ReplaceSlice": {
			reason: "Without AppendSlice a slice is replaced.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a",
			value:  []any{"y"},
			opts:   &MergeOptions{},
			want:   map[string]any{"a": []any{"y"}},
		},
		"AppendSlice": {
			reason: "AppendSlice appends the items not already there.",
			obj:    map[string]any{"a": []any{"x", int64(1), map[string]any{"k": "v"}}},
			path:   "a",
			value:  []any{"x", "y", 1.0, map[string]any{"k": "v"}, map[string]any{"k": "w"}},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": []any{"x", int64(1), map[string]any{"k": "v"}, "y", map[string]any{"k": "w"}}},
		},
		"AppendSliceGoSlice": {
			reason: "A merged []string is converted to JSON first, so AppendSlice appends its missing items to a JSON array.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a",
			value:  []string{"x", "y"},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": []any{"x", "y"}},
		},
		"AppendSliceOntoScalar": {
			reason: "With AppendSlice an array merged onto a value that is not an array replaces it, with no error.",
			obj:    map[string]any{"a": "s"},
			path:   "a",
			value:  []any{"y"},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": []any{"y"}},
		},
		"AppendSliceOntoScalarKept": {
			reason: "With AppendSlice and KeepMapValues an array merged onto a value that is not an array leaves it, with no error.",
			obj:    map[string]any{"a": "s"},
			path:   "a",
			value:  []any{"y"},
			opts:   &MergeOptions{AppendSlice: &yes, KeepMapValues: &yes},
			want:   map[string]any{"a": "s"},
		},
		"AppendSliceNested": {
			reason: "AppendSlice applies inside merged objects.",
			obj:    map[string]any{"a": map[string]any{"l": []any{"x"}, "s": "1"}},
			path:   "a",
			value:  map[string]any{"l": []any{"y"}, "s": "2"},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": map[string]any{"l": []any{"x", "y"}, "s": "2"}},
		},
		"AppendSliceRepeats": {
			reason: "Items repeated within the new slice are all appended, as in crossplane-runtime.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a",
			value:  []any{"y", "y"},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": []any{"x", "y", "y"}},
		},
		"AppendToTypedSlice": {
			reason: "AppendSlice appends to a []string that Go code put into the content, instead of replacing it.",
			obj:    map[string]any{"a": []string{"x", "y"}},
			path:   "a",
			value:  []string{"y", "z"},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": []any{"x", "y", "z"}},
		},
		"AppendToTypedArray": {
			reason: "AppendSlice appends to any JSON array, a Go array of integers included.",
			obj:    map[string]any{"a": [2]int32{1, 2}},
			path:   "a",
			value:  []any{2, 3},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": []any{int64(1), int64(2), int64(3)}},
		},
		"AppendTypedItems": {
			reason: "Items that Go code put into an array are compared as JSON: a map[string]string equals the same object.",
			obj:    map[string]any{"a": []any{map[string]string{"k": "v"}, []string{"x"}}},
			path:   "a",
			value:  []any{map[string]any{"k": "v"}, []any{"x"}, "n"},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": []any{map[string]string{"k": "v"}, []string{"x"}, "n"}},
		},
		"KeepTypedMapValues": {
			reason: "KeepMapValues over a map[string]string keeps its values and adds the new keys.",
			obj:    map[string]any{"a": map[string]string{"k": "v"}},
			path:   "a",
			value:  map[string]any{"k": "w", "n": "m"},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"k": "v", "n": "m"}},
		},
		"MergeIntoTypedMap": {
			reason: "Without KeepMapValues, a map[string]string is merged too: the new values win, the others stay.",
			obj:    map[string]any{"a": map[string]string{"k": "v", "o": "p"}},
			path:   "a",
			value:  map[string]any{"k": "w"},
			opts:   &MergeOptions{},
			want:   map[string]any{"a": map[string]any{"k": "w", "o": "p"}},
		},
		"MergeIntoStruct": {
			reason: "A struct merges as the JSON object it stands for.",
			obj:    map[string]any{"a": &metav1.OwnerReference{APIVersion: "v1", Kind: "K", Name: "n", UID: "u"}},
			path:   "a",
			value:  map[string]any{"name": "m", "controller": true},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "controller": true}},
		},
		"TypedContainersNested": {
			reason: "Typed containers inside merged objects are merged as JSON at every depth.",
			obj:    map[string]any{"a": map[string]any{"l": []string{"x"}, "m": map[string]int{"k": 1}}},
			path:   "a",
			value:  map[string]any{"l": []any{"y"}, "m": map[string]any{"n": 2}},
			opts:   &MergeOptions{AppendSlice: &yes, KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"l": []any{"x", "y"}, "m": map[string]any{"k": int64(1), "n": int64(2)}}},
		},
		"KeepAgainstTypedNil": {
			reason: "A nil map[string]string is null, which KeepMapValues treats as absent.",
			obj:    map[string]any{"a": map[string]string(nil)},
			path:   "a",
			value:  map[string]any{"k": "v"},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"k": "v"}},
		},
		"Missing": {
			reason: "A missing value is simply set, creating parents.",
			obj:    map[string]any{},
			path:   "a.b",
			value:  map[string]any{"x": 1},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"b": map[string]any{"x": int64(1)}}},
		},
		"TypeChange": {
			reason: "A scalar replaces an object, and an object a scalar.",
			obj:    map[string]any{"a": map[string]any{"x": map[string]any{"y": "1"}, "z": "2"}},
			path:   "a",
			value:  map[string]any{"x": "s", "z": map[string]any{"w": "3"}},
			opts:   &MergeOptions{},
			want:   map[string]any{"a": map[string]any{"x": "s", "z": map[string]any{"w": "3"}}},
		},
		"WrongTypeOnTheWay": {
			reason: "A type mismatch on the way is an error, and nothing changes.",
			obj:    map[string]any{"a": "x"},
			path:   "a.b",
			value:  "y",
			opts:   &MergeOptions{},
			want:   map[string]any{"a": "x"},
			err:    errorWant{is: ErrWrongType, msg: `cannot merge into a.b: a is a string of 1 byte, not an object`},
		},
		"AppendBelowKeepsRepeats": {
			reason: "AppendSlice drops repeated items from the merged array only; arrays below it are appended whole, as crossplane-runtime's mergo does.",
			obj:    map[string]any{"a": map[string]any{"l": []any{"a", "b"}}, "top": []any{"a", "b"}},
			path:   "a",
			value:  map[string]any{"l": []any{"b", "c"}},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"a": map[string]any{"l": []any{"a", "b", "b", "c"}}, "top": []any{"a", "b"}},
		},
		"AppendAtPathDropsRepeats": {
			reason: "The array at the path takes only the items it does not hold.",
			obj:    map[string]any{"top": []any{"a", "b"}},
			path:   "top",
			value:  []any{"b", "c"},
			opts:   &MergeOptions{AppendSlice: &yes},
			want:   map[string]any{"top": []any{"a", "b", "c"}},
		},
		"KeepReplacesEmptyValues": {
			reason: "KeepMapValues keeps values that are not empty; an existing \"\", 0, false, {} or [] gives way, as in crossplane-runtime.",
			obj:    map[string]any{"a": map[string]any{"s": "", "n": int64(0), "b": false, "o": map[string]any{}, "l": []any{}, "kept": "x"}},
			path:   "a",
			value:  map[string]any{"s": "new", "n": int64(1), "b": true, "o": "obj", "l": []any{"i"}, "kept": "y"},
			opts:   &MergeOptions{KeepMapValues: &yes},
			want:   map[string]any{"a": map[string]any{"s": "new", "n": int64(1), "b": true, "o": "obj", "l": []any{"i"}, "kept": "x"}},
		},
		"Wildcard": {
			reason: "MergeValue does not expand wildcards.",
			obj:    map[string]any{"a": []any{"x"}},
			path:   "a[*]",
			value:  "y",
			opts:   &MergeOptions{},
			want:   map[string]any{"a": []any{"x"}},
			err:    errorWant{is: ErrInvalidPath, msg: "wildcard"},
		},
		"InvalidValue": {
			reason: "An unrepresentable value is an error, and nothing changes.",
			obj:    map[string]any{"a": map[string]any{"x": "1"}},
			path:   "a",
			value:  map[string]any{"y": make(chan int)},
			opts:   &MergeOptions{},
			want:   map[string]any{"a": map[string]any{"x": "1"}},
			err:    errorWant{is: ErrInvalidValue, msg: "cannot merge into a: the value at y"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := Pave(tc.obj)
			err := p.MergeValue(tc.path, tc.value, tc.opts)
			checkError(t, tc.reason, tc.err, err)
			if diff := cmp.Diff(tc.want, p.UnstructuredContent()); diff != "" {
				t.Errorf("\n%s\nMergeValue(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}
		})
	}
}

func TestMergeDoesNotShareValue(t *testing.T) {
	value := map[string]any{"l": []any{"y"}}
	p := Pave(map[string]any{"a": map[string]any{}})
	if err := p.MergeValue("a", value, &MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	value["l"].([]any)[0] = "changed"
	if got, _ := p.GetString("a.l[0]"); got != "y" {
		t.Errorf("changing the merged value changed the object: a.l[0] is %q", got)
	}
}

func TestCacheConcurrent(t *testing.T) {
	// Many goroutines read, parse and evict at once; run with -race.
	obj := map[string]any{"a": map[string]any{}}
	for i := range 64 {
		obj["a"].(map[string]any)[fmt.Sprint("k", i)] = int64(i)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := Pave(obj)
			for i := range 4 * cacheSets * cacheWays {
				k := (i*7 + g) % 64
				got, err := p.GetInteger(fmt.Sprintf("a.k%d", k))
				if err != nil || got != int64(k) {
					t.Errorf("GetInteger(a.k%d): got %d, %v", k, got, err)
					return
				}
				// Distinct paths that miss, to force evictions.
				if _, err := p.GetValue(fmt.Sprintf("b%d.c%d", g, i)); !IsNotFound(err) {
					t.Errorf("GetValue of a missing path: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// The cache tests below use a cache of their own, so that tests running in
// parallel with them cannot evict what they look for.

func TestCacheBounded(t *testing.T) {
	c := newPathCache()
	// A path is cached when first used...
	if _, err := c.lookup("cached.path", DefaultMaxIndex); err != nil {
		t.Fatalf("lookup: %v", err)
	}
	if c.load("cached.path") == nil {
		t.Error("a short path was not cached")
	}
	// ...unless it is long: the cache's memory is bounded by its fixed number
	// of slots times cacheMaxPathLen.
	long := strings.Repeat("a.", cacheMaxPathLen) + "b"
	if _, err := c.lookup(long, DefaultMaxIndex); err != nil {
		t.Fatalf("lookup of a long path: %v", err)
	}
	if c.load(long) != nil {
		t.Error("a path longer than cacheMaxPathLen was cached")
	}
	// Filling the cache many times over evicts, and lookups stay correct.
	for i := range 3 * cacheSets * cacheWays {
		path := fmt.Sprint("bounded", i)
		got, err := c.lookup(path, DefaultMaxIndex)
		if err != nil || got.text != path {
			t.Fatalf("lookup(%q): %v, %v", path, got, err)
		}
		if got := c.load(path); got == nil || got.text != path {
			t.Fatalf("the path just used is not in the cache: %v", got)
		}
	}
}

func TestCacheKeepsHotPaths(t *testing.T) {
	c := newPathCache()
	hot, err := c.lookup("hot", DefaultMaxIndex)
	if err != nil {
		t.Fatal(err)
	}
	if c.load("hot") != hot {
		t.Fatal("the hot path was not cached")
	}
	// A flood of paths used once, with the hot path read between them, never
	// evicts the hot path: each of its reads marks it, and each store into
	// its set evicts an unmarked way first.
	for i := range 4 * cacheSets * cacheWays {
		if _, err := c.lookup(fmt.Sprint("cold", i), DefaultMaxIndex); err != nil {
			t.Fatal(err)
		}
		if got := c.load("hot"); got != hot {
			t.Fatalf("after %d paths used once, the hot path was evicted", i+1)
		}
	}
}

func TestCacheRecentAddressIsOnlyAHint(t *testing.T) {
	c := newPathCache()
	// Two strings at the same address with different text, as when a string
	// is freed and its memory reused: the second must not get the first's
	// path.
	buf := []byte("a.b")
	first := unsafe.String(&buf[0], len(buf))
	p1, err := c.lookup(first, 0)
	if err != nil || p1.String() != "a.b" {
		t.Fatalf("lookup(a.b): %v, %v", p1, err)
	}
	buf = append(buf[:0], "c.d"...)
	second := unsafe.String(&buf[0], len(buf))
	p2, err := c.lookup(second, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Segments{field("c"), field("d")}, p2.segs); diff != "" {
		t.Errorf("lookup of another text at the same address: -want, +got:\n%s", diff)
	}
	// A path found through the table is checked against the index limit too.
	if _, err := c.lookup("x[5]", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.lookup("x[5]", 4); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("lookup(x[5]) under a limit of 4: want an error wrapping ErrInvalidPath, got %v", err)
	}
}

func TestCacheHitAllocatesNothing(t *testing.T) {
	p := Pave(map[string]any{"metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "x"}}})
	const path = "metadata.labels[app.kubernetes.io/name]"
	if _, err := p.GetValue(path); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := p.GetValue(path); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("GetValue with a cached path: %v allocations, want 0", allocs)
	}
	c := MustCompile(path)
	obj := p.UnstructuredContent()
	if allocs := testing.AllocsPerRun(100, func() { _, _ = c.Get(obj) }); allocs != 0 {
		t.Errorf("Path.Get: %v allocations, want 0", allocs)
	}
	var v any = "y"
	if allocs := testing.AllocsPerRun(100, func() { _ = p.SetValue(path, v) }); allocs != 0 {
		t.Errorf("SetValue of a string on an existing leaf: %v allocations, want 0", allocs)
	}
}

func TestPavedJSON(t *testing.T) {
	content := map[string]any{"a": map[string]any{"b": []any{int64(1), 1.5, "c", nil, true}}}
	const want = `{"a":{"b":[1,1.5,"c",null,true]}}`
	p := Pave(content)
	for name, v := range map[string]any{"Pointer": p, "Value": *p, "Field": struct{ P *Paved }{p}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: json.Marshal: %v", name, err)
		}
		got := string(b)
		if name == "Field" {
			got = strings.TrimSuffix(strings.TrimPrefix(got, `{"P":`), "}")
		}
		if got != want {
			t.Errorf("%s: json.Marshal: want %s, got %s", name, want, got)
		}
	}
	if b, err := json.Marshal(Pave(nil)); err != nil || string(b) != "null" {
		t.Errorf("json.Marshal of a Paved with no content: want null, got %s, %v", b, err)
	}

	var back Paved
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatalf("json.Unmarshal: %v", err)
	}
	if diff := cmp.Diff(content, back.UnstructuredContent()); diff != "" {
		t.Errorf("json.Unmarshal decodes as the Kubernetes decoder does: -want, +got:\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"x":"y"}`), &back); err != nil {
		t.Fatalf("json.Unmarshal: %v", err)
	}
	if diff := cmp.Diff(map[string]any{"x": "y"}, back.UnstructuredContent()); diff != "" {
		t.Errorf("json.Unmarshal replaces the content: -want, +got:\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`null`), &back); err != nil || back.object != nil {
		t.Errorf("json.Unmarshal of null: content %v, %v; want none", back.object, err)
	}
	if err := json.Unmarshal([]byte(`[1]`), &back); err == nil {
		t.Error("json.Unmarshal of an array: no error")
	}
}

func TestMergeOptionsJSON(t *testing.T) {
	yes := true
	b, err := json.Marshal(MergeOptions{KeepMapValues: &yes, AppendSlice: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"keepMapValues":true,"appendSlice":true}`; got != want {
		t.Errorf("json.Marshal: want %s, got %s", want, got)
	}
	if b, _ := json.Marshal(MergeOptions{}); string(b) != "{}" {
		t.Errorf("json.Marshal of the zero MergeOptions: want {}, got %s", b)
	}
	// A Composition's patch policy, as crossplane writes it.
	var got MergeOptions
	if err := json.Unmarshal([]byte(`{"keepMapValues": true, "appendSlice": true}`), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(MergeOptions{KeepMapValues: &yes, AppendSlice: &yes}, got); diff != "" {
		t.Errorf("json.Unmarshal: -want, +got:\n%s", diff)
	}
}
