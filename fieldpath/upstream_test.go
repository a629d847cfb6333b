package fieldpath

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// This file checks this package against the cases of crossplane-runtime's
// pkg/fieldpath tests: each table here has the inputs and expected results of
// one of theirs, so that code ported from crossplane-runtime keeps behaving as
// it did there. Case names are kept so a case can be found on both sides; the
// reasons are our own. NilParentNoWildcard in TestUpstreamGetValue has no
// counterpart there. An error is checked by the sentinel it wraps (and a
// syntax error by its position), not by its text. Where a case expects
// something other than crossplane-runtime does, its differs field says why,
// and docs/design/fieldpath.md lists the difference.

// upstreamPave decodes data as crossplane-runtime's tests do and paves it.
func upstreamPave(t *testing.T, data []byte, opts ...PavedOption) *Paved {
	t.Helper()
	in := make(map[string]any)
	if data != nil {
		if err := utiljson.Unmarshal(data, &in); err != nil {
			t.Fatalf("test data %s: %v", data, err)
		}
	}
	return Pave(in, opts...)
}

// checkUpstreamError checks that err wraps want (nil: no error) and that
// IsNotFound agrees with it.
func checkUpstreamError(t *testing.T, reason string, want, err error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("\n%s\nunexpected error: %v", reason, err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("\n%s\nwant an error wrapping %q, got %v", reason, want, err)
	}
	if IsNotFound(err) != (want == ErrNotFound) {
		t.Errorf("\n%s\nIsNotFound(%v) = %t", reason, err, IsNotFound(err))
	}
}

func TestUpstreamSegments(t *testing.T) {
	cases := map[string]struct {
		s    Segments
		want string
	}{
		"SingleField": {
			s:    Segments{Field("spec")},
			want: "spec",
		},
		"SingleIndex": {
			s:    Segments{FieldOrIndex("0")},
			want: "[0]",
		},
		"FieldsAndIndex": {
			s:    Segments{Field("spec"), Field("containers"), FieldOrIndex("0"), Field("name")},
			want: "spec.containers[0].name",
		},
		"PeriodsInField": {
			s:    Segments{Field("data"), Field(".config.yml")},
			want: "data[.config.yml]",
		},
		"Wildcard": {
			s:    Segments{Field("spec"), Field("containers"), FieldOrIndex("*"), Field("name")},
			want: "spec.containers[*].name",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.s.String()); diff != "" {
				t.Errorf("s.String(): -want, +got:\n%s", diff)
			}
		})
	}
}

func TestUpstreamFieldOrIndex(t *testing.T) {
	cases := map[string]struct {
		reason string
		s      string
		want   Segment
	}{
		"Field": {
			reason: "A word that is not a number names a field",
			s:      "coolField",
			want:   Segment{Type: SegmentField, Field: "coolField"},
		},
		"QuotedField": {
			reason: "Single quotes around a name are dropped and the name is a field",
			s:      "'coolField'",
			want:   Segment{Type: SegmentField, Field: "coolField"},
		},
		"QuotedFieldWithPeriods": {
			reason: "Periods inside single quotes stay part of the field name",
			s:      "'cool.Field'",
			want:   Segment{Type: SegmentField, Field: "cool.Field"},
		},
		"Index": {
			reason: "A non-negative integer is an array index",
			s:      "3",
			want:   Segment{Type: SegmentIndex, Index: 3},
		},
		"Negative": {
			reason: "A negative number is a field name, not an index",
			s:      "-3",
			want:   Segment{Type: SegmentField, Field: "-3"},
		},
		"Float": {
			reason: "A number with a decimal point is a field name, not an index",
			s:      "3.0",
			want:   Segment{Type: SegmentField, Field: "3.0"},
		},
		"Overflow": {
			reason: "An integer past MaxUint32 is too big for an index and is a field name",
			s:      strconv.Itoa(math.MaxUint32 + 1),
			want:   Segment{Type: SegmentField, Field: strconv.Itoa(math.MaxUint32 + 1)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FieldOrIndex(tc.s)); diff != "" {
				t.Errorf("\nFieldOrIndex(%q): %s: -want, +got:\n%s", tc.s, tc.reason, diff)
			}
		})
	}
}

func TestUpstreamParse(t *testing.T) {
	type want struct {
		s   Segments
		pos int // of the syntax error; -1 for none
	}
	ok := func(s ...Segment) want { return want{s: s, pos: -1} }
	cases := map[string]struct {
		reason string
		path   string
		want   want
	}{
		"SingleField": {
			reason: "A bare word is one field",
			path:   "spec",
			want:   ok(Field("spec")),
		},
		"SingleIndex": {
			reason: "A number in brackets is one index",
			path:   "[0]",
			want:   ok(FieldOrIndex("0")),
		},
		"TwoFields": {
			reason: "A period separates two fields",
			path:   "metadata.name",
			want:   ok(Field("metadata"), Field("name")),
		},
		"APIConventionsExample": {
			reason: "The path from the Kubernetes API conventions gives fields around an index",
			path:   "fields[1].state.current",
			want:   ok(Field("fields"), FieldOrIndex("1"), Field("state"), Field("current")),
		},
		"SimpleIndex": {
			reason: "A field then a bracketed number gives the field, then the index",
			path:   "items[0]",
			want:   ok(Field("items"), FieldOrIndex("0")),
		},
		"FieldsAndIndex": {
			reason: "Periods and brackets combine: two fields, an index, a field",
			path:   "spec.containers[0].name",
			want:   ok(Field("spec"), Field("containers"), FieldOrIndex("0"), Field("name")),
		},
		"NestedArray": {
			reason: "Two bracketed numbers in a row give two indexes",
			path:   "nested[0][1].name",
			want:   ok(Field("nested"), FieldOrIndex("0"), FieldOrIndex("1"), Field("name")),
		},
		"BracketStyleField": {
			reason: "A name in brackets is a field, as it is after a period",
			path:   "spec[containers][0].name",
			want:   ok(Field("spec"), Field("containers"), FieldOrIndex("0"), Field("name")),
		},
		"BracketFieldWithPeriod": {
			reason: "Periods inside brackets belong to the field name",
			path:   "data[.config.yml]",
			want:   ok(Field("data"), FieldOrIndex(".config.yml")),
		},
		"QuotedFieldWithPeriodInBracket": {
			reason: "A quoted name in brackets keeps its periods and loses its quotes",
			path:   "metadata.labels['app.hash']",
			want:   ok(Field("metadata"), Field("labels"), FieldOrIndex("app.hash")),
		},
		"LeadingPeriod": {
			reason: "A path starts with a name, not a period (no JSONPath-style leading dot)",
			path:   ".metadata.name",
			want:   want{pos: 0},
		},
		"TrailingPeriod": {
			reason: "A period with no name after it is a syntax error",
			path:   "metadata.name.",
			want:   want{pos: 13},
		},
		"BracketsFollowingPeriod": {
			reason: "A bracket straight after a period is a syntax error",
			path:   "spec.containers.[0].name",
			want:   want{pos: 16},
		},
		"DoublePeriod": {
			reason: "Two periods in a row leave an empty name, a syntax error",
			path:   "metadata..name",
			want:   want{pos: 9},
		},
		"DanglingRightBracket": {
			reason: "A closing bracket with no opening one is a syntax error",
			path:   "metadata.]name",
			want:   want{pos: 9},
		},
		"DoubleOpenBracket": {
			reason: "An opening bracket inside brackets is a syntax error",
			path:   "spec[bracketed[name]]",
			want:   want{pos: 14},
		},
		"DanglingLeftBracket": {
			reason: "An opening bracket that is never closed is a syntax error at that bracket",
			path:   "spec[name",
			want:   want{pos: 4},
		},
		"EmptyBracket": {
			reason: "Nothing between brackets is a syntax error",
			path:   "spec[]",
			want:   want{pos: 5},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.path)
			var pe *parseError
			switch {
			case tc.want.pos < 0 && err != nil:
				t.Fatalf("\nParse(%s): %s: unexpected error: %v", tc.path, tc.reason, err)
			case tc.want.pos >= 0 && !errors.As(err, &pe):
				t.Fatalf("\nParse(%s): %s: want a syntax error, got %v", tc.path, tc.reason, err)
			case tc.want.pos >= 0 && pe.pos != tc.want.pos:
				t.Errorf("\nParse(%s): %s: error %q is at position %d, want %d", tc.path, tc.reason, err, pe.pos, tc.want.pos)
			}
			if diff := cmp.Diff(tc.want.s, got); diff != "" {
				t.Errorf("\nParse(%s): %s: -want, +got:\n%s", tc.path, tc.reason, diff)
			}
		})
	}
}

func TestUpstreamIsNotFound(t *testing.T) {
	cases := map[string]struct {
		reason string
		err    error
		want   bool
	}{
		"NotFound": {
			reason: "A notFoundError reports not found",
			err:    notFoundError{errors.New("boom")},
			want:   true,
		},
		"WrapsNotFound": {
			reason: "A notFoundError wrapped with %w still reports not found",
			err:    fmt.Errorf("because reasons: %w", notFoundError{errors.New("boom")}),
			want:   true,
		},
		"SomethingElse": {
			reason: "A plain error does not report not found",
			err:    errors.New("boom"),
			want:   false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsNotFound(tc.err); got != tc.want {
				t.Errorf("IsNotFound(...): %s: want %t, got %t", tc.reason, tc.want, got)
			}
		})
	}
}

func TestUpstreamGetValue(t *testing.T) {
	type want struct {
		value any
		err   error
	}
	cases := map[string]struct {
		reason  string
		differs string
		path    string
		data    []byte
		want    want
	}{
		"MetadataName": {
			reason: "A string two objects deep is returned",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"name":"cool"}}`),
			want:   want{value: "cool"},
		},
		"ContainerName": {
			reason: "A field of an object inside an array is read through the index",
			path:   "spec.containers[0].name",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{value: "cool"},
		},
		"NestedArray": {
			reason: "An element of an array inside an array is read with two indexes",
			path:   "items[0][1]",
			data:   []byte(`{"items":[["a", "b"]]}`),
			want:   want{value: "b"},
		},
		"OwnerRefController": {
			reason: "A JSON boolean comes back as a bool",
			path:   "metadata.ownerRefs[0].controller",
			data:   []byte(`{"metadata":{"ownerRefs":[{"controller": true}]}}`),
			want:   want{value: true},
		},
		"MetadataVersion": {
			reason: "A JSON number without a decimal point comes back as int64",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			want:   want{value: int64(2)},
		},
		"SomeFloat": {
			reason: "A JSON number written with a decimal point (2.0) comes back as float64",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2.0}}`),
			want:   want{value: float64(2)},
		},
		"MetadataNope": {
			reason: "A key missing from an object is not found",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"nope":"cool"}}`),
			want:   want{err: ErrNotFound},
		},
		"InsufficientContainers": {
			reason: "An index past the end of an array is not found",
			path:   "spec.containers[1].name",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{err: ErrNotFound},
		},
		"NotAnArray": {
			reason: "An index into an object is a wrong-type error",
			path:   "metadata[1]",
			data:   []byte(`{"metadata":{"nope":"cool"}}`),
			want:   want{err: ErrWrongType},
		},
		"NotAnObject": {
			reason: "A field name applied to an array is a wrong-type error",
			path:   "spec.containers[nope].name",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{err: ErrWrongType},
		},
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error",
			path:   "spec[]",
			want:   want{err: ErrInvalidPath},
		},
		"NilParent": {
			reason:  "A wildcard under an array that is null",
			differs: "GetValue rejects a wildcard; crossplane-runtime reads [*] as the key \"*\", here not found under a null.",
			path:    "spec.containers[*].name",
			data:    []byte(`{"spec":{"containers": null}}`),
			want:    want{err: ErrInvalidPath},
		},
		"NilParentNoWildcard": {
			reason: "An index into an array that is null is not found",
			path:   "spec.containers[0].name",
			data:   []byte(`{"spec":{"containers": null}}`),
			want:   want{err: ErrNotFound},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reason := tc.reason
			if tc.differs != "" {
				reason += " (differs: " + tc.differs + ")"
			}
			got, err := upstreamPave(t, tc.data).GetValue(tc.path)
			checkUpstreamError(t, reason, tc.want.err, err)
			if diff := cmp.Diff(tc.want.value, got); diff != "" {
				t.Errorf("\np.GetValue(%s): %s: -want, +got:\n%s", tc.path, reason, diff)
			}
		})
	}
}

func TestUpstreamGetValueInto(t *testing.T) {
	type Struct struct {
		Slice       []string `json:"slice"`
		StringField string   `json:"string"`
		IntField    int      `json:"int"`
	}
	type Slice []string
	type args struct {
		path string
		out  any
	}
	type want struct {
		out any
		err error
	}
	cases := map[string]struct {
		reason string
		data   []byte
		args   args
		want   want
	}{
		"Struct": {
			reason: "An object is decoded into a struct by its JSON tags",
			data:   []byte(`{"s":{"slice":["a"],"string":"b","int":1}}`),
			args:   args{path: "s", out: &Struct{}},
			want:   want{out: &Struct{Slice: []string{"a"}, StringField: "b", IntField: 1}},
		},
		"Slice": {
			reason: "An array is decoded into a named slice type",
			data:   []byte(`{"s": ["a", "b"]}`),
			args:   args{path: "s", out: &Slice{}},
			want:   want{out: &Slice{"a", "b"}},
		},
		"MissingPath": {
			reason: "A missing field is not found and out is left as it was",
			data:   []byte(`{}`),
			args:   args{path: "s", out: &Struct{}},
			want:   want{out: &Struct{}, err: ErrNotFound},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := upstreamPave(t, tc.data).GetValueInto(tc.args.path, tc.args.out)
			checkUpstreamError(t, tc.reason, tc.want.err, err)
			if diff := cmp.Diff(tc.want.out, tc.args.out); diff != "" {
				t.Errorf("\np.GetValueInto(%s): %s: -want, +got:\n%s", tc.args.path, tc.reason, diff)
			}
		})
	}
}

// upstreamGetterCase is a case of crossplane-runtime's tests of the typed
// getters, which share one shape.
type upstreamGetterCase struct {
	reason string
	path   string
	data   []byte
	value  any
	err    error
}

func runUpstreamGetterCases[T any](t *testing.T, method string, get func(*Paved, string) (T, error), cases map[string]upstreamGetterCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := get(upstreamPave(t, tc.data), tc.path)
			checkUpstreamError(t, tc.reason, tc.err, err)
			var want T
			if tc.value != nil {
				want = tc.value.(T)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("\np.%s(%s): %s: -want, +got:\n%s", method, tc.path, tc.reason, diff)
			}
		})
	}
}

func TestUpstreamGetString(t *testing.T) {
	runUpstreamGetterCases(t, "GetString", (*Paved).GetString, map[string]upstreamGetterCase{
		"MetadataName": {
			reason: "A string field is returned as a string",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"name":"cool"}}`),
			value:  "cool",
		},
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotAString": {
			reason: "A number where a string is wanted is a wrong-type error",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamGetStringArray(t *testing.T) {
	runUpstreamGetterCases(t, "GetStringArray", (*Paved).GetStringArray, map[string]upstreamGetterCase{
		"MetadataLabels": {
			reason: "An array of strings inside an array element is returned as []string",
			path:   "spec.containers[0].command",
			data:   []byte(`{"spec": {"containers": [{"command": ["/bin/bash"]}]}}`),
			value:  []string{"/bin/bash"},
		},
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotAnArray": {
			reason: "A number where an array is wanted is a wrong-type error",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			err:    ErrWrongType,
		},
		"NotAStringArray": {
			reason: "An array holding numbers is not a []string: wrong-type error",
			path:   "metadata.versions",
			data:   []byte(`{"metadata":{"versions":[1,2]}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamGetStringObject(t *testing.T) {
	runUpstreamGetterCases(t, "GetStringObject", (*Paved).GetStringObject, map[string]upstreamGetterCase{
		"MetadataLabels": {
			reason: "An object of strings is returned as map[string]string",
			path:   "metadata.labels",
			data:   []byte(`{"metadata":{"labels":{"cool":"true"}}}`),
			value:  map[string]string{"cool": "true"},
		},
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotAnObject": {
			reason: "A number where an object is wanted is a wrong-type error",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			err:    ErrWrongType,
		},
		"NotAStringObject": {
			reason: "An object with a number value is not a map[string]string: wrong-type error",
			path:   "metadata.versions",
			data:   []byte(`{"metadata":{"versions":{"a": 2}}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamGetBool(t *testing.T) {
	runUpstreamGetterCases(t, "GetBool", (*Paved).GetBool, map[string]upstreamGetterCase{
		"OwnerRefController": {
			reason: "A boolean inside an array element is returned as a bool",
			path:   "metadata.ownerRefs[0].controller",
			data:   []byte(`{"metadata":{"ownerRefs":[{"controller": true}]}}`),
			value:  true,
		},
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotABool": {
			reason: "A string where a bool is wanted is a wrong-type error",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"name":"cool"}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamGetInteger(t *testing.T) {
	runUpstreamGetterCases(t, "GetInteger", (*Paved).GetInteger, map[string]upstreamGetterCase{
		"MetadataVersion": {
			reason: "A whole number is returned as int64",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			value:  int64(2),
		},
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotANumber": {
			reason: "A string where an integer is wanted is a wrong-type error",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"name":"cool"}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamSetValue(t *testing.T) {
	type args struct {
		path  string
		value any
		opts  []PavedOption
	}
	type want struct {
		object map[string]any
		err    error
	}
	cases := map[string]struct {
		reason string
		data   []byte
		args   args
		want   want
	}{
		"MetadataName": {
			reason: "A string field that exists is overwritten",
			data:   []byte(`{"metadata":{"name":"lame"}}`),
			args:   args{path: "metadata.name", value: "cool"},
			want:   want{object: map[string]any{"metadata": map[string]any{"name": "cool"}}},
		},
		"NonExistentMetadataName": {
			reason: "A missing parent object is created on the way to the field",
			data:   []byte(`{}`),
			args:   args{path: "metadata.name", value: "cool"},
			want:   want{object: map[string]any{"metadata": map[string]any{"name": "cool"}}},
		},
		"ContainerName": {
			reason: "A field of an array element that exists is overwritten",
			data:   []byte(`{"spec":{"containers":[{"name":"lame"}]}}`),
			args:   args{path: "spec.containers[0].name", value: "cool"},
			want: want{object: map[string]any{
				"spec": map[string]any{"containers": []any{map[string]any{"name": "cool"}}},
			}},
		},
		"NonExistentContainerName": {
			reason: "A missing array and its first element are created to hold the field",
			data:   []byte(`{}`),
			args:   args{path: "spec.containers[0].name", value: "cool"},
			want: want{object: map[string]any{
				"spec": map[string]any{"containers": []any{map[string]any{"name": "cool"}}},
			}},
		},
		"NewContainer": {
			reason: "An index one past the end appends a new element",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			args:   args{path: "spec.containers[1].name", value: "cooler"},
			want: want{object: map[string]any{
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "cool"},
					map[string]any{"name": "cooler"},
				}},
			}},
		},
		"NestedArray": {
			reason: "Missing arrays nested in an array are created to hold the value",
			data:   []byte(`{}`),
			args:   args{path: "data[0][0]", value: "a"},
			want:   want{object: map[string]any{"data": []any{[]any{"a"}}}},
		},
		"GrowNestedArray": {
			reason: "An inner array grows by one to take the value",
			data:   []byte(`{"data":[["a"]]}`),
			args:   args{path: "data[0][1]", value: "b"},
			want:   want{object: map[string]any{"data": []any{[]any{"a", "b"}}}},
		},
		"GrowArrayField": {
			reason: "An index beyond the end grows the array and fills the gap with nulls",
			data:   []byte(`{"data":["a"]}`),
			args:   args{path: "data[2]", value: "c"},
			want:   want{object: map[string]any{"data": []any{"a", nil, "c"}}},
		},
		"RejectsHighIndexes": {
			reason: "An index above DefaultMaxFieldPathIndex is an invalid-path error and changes nothing",
			data:   []byte(`{"data":["a"]}`),
			args:   args{path: fmt.Sprintf("data[%v]", DefaultMaxFieldPathIndex+1), value: "c"},
			want:   want{object: map[string]any{"data": []any{"a"}}, err: ErrInvalidPath},
		},
		"NotRejectsHighIndexesIfNoDefaultOptions": {
			reason: "WithMaxFieldPathIndex(0) lifts the limit, so the array grows to that index",
			data:   []byte(`{"data":["a"]}`),
			args: args{
				path:  fmt.Sprintf("data[%v]", DefaultMaxFieldPathIndex+1),
				value: "c",
				opts:  []PavedOption{WithMaxFieldPathIndex(0)},
			},
			want: want{object: map[string]any{"data": func() []any {
				res := make([]any, DefaultMaxFieldPathIndex+2)
				res[0] = "a"
				res[DefaultMaxFieldPathIndex+1] = "c"
				return res
			}()}},
		},
		"MapStringString": {
			reason: "A map[string]string is stored as a map[string]any",
			data:   []byte(`{"metadata":{}}`),
			args:   args{path: "metadata.labels", value: map[string]string{"cool": "very"}},
			want: want{object: map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"cool": "very"}},
			}},
		},
		"OwnerReference": {
			reason: "A struct is stored as the map[string]any its JSON encoding gives",
			data:   []byte(`{"metadata":{}}`),
			args: args{path: "metadata.ownerRefs[0]", value: metav1.OwnerReference{
				APIVersion: "v",
				Kind:       "k",
				Name:       "n",
				UID:        types.UID("u"),
			}},
			want: want{object: map[string]any{
				"metadata": map[string]any{"ownerRefs": []any{map[string]any{
					"apiVersion": "v",
					"kind":       "k",
					"name":       "n",
					"uid":        "u",
				}}},
			}},
		},
		"NotAnArray": {
			reason: "An index into an object is a wrong-type error and changes nothing",
			data:   []byte(`{"data":{}}`),
			args:   args{path: "data[0]"},
			want:   want{object: map[string]any{"data": map[string]any{}}, err: ErrWrongType},
		},
		"NotAnObject": {
			reason: "A field name applied to an array is a wrong-type error and changes nothing",
			data:   []byte(`{"data":[]}`),
			args:   args{path: "data.name"},
			want:   want{object: map[string]any{"data": []any{}}, err: ErrWrongType},
		},
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error and writes nothing",
			args:   args{path: "spec[]"},
			want:   want{object: map[string]any{}, err: ErrInvalidPath},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := upstreamPave(t, tc.data, tc.args.opts...)
			err := p.SetValue(tc.args.path, tc.args.value)
			checkUpstreamError(t, tc.reason, tc.want.err, err)
			if diff := cmp.Diff(tc.want.object, p.UnstructuredContent()); diff != "" {
				t.Fatalf("\np.SetValue(%s, %v): %s: -want, +got:\n%s", tc.args.path, tc.args.value, tc.reason, diff)
			}
		})
	}
}

func TestUpstreamExpandWildcards(t *testing.T) {
	type want struct {
		expanded []string
		err      error
	}
	cases := map[string]struct {
		reason  string
		differs string
		path    string
		data    []byte
		want    want
	}{
		"NoWildcardExisting": {
			reason: "A path with no wildcard that exists expands to itself",
			path:   "password",
			data:   []byte(`{"password":"top-secret"}`),
			want:   want{expanded: []string{"password"}},
		},
		"NoWildcardNonExisting": {
			reason: "A path with no wildcard that does not exist expands to nothing",
			path:   "username",
			data:   []byte(`{"password":"top-secret"}`),
			want:   want{expanded: []string{}},
		},
		"NestedNoWildcardExisting": {
			reason: "A path of two indexes with no wildcard that exists expands to itself",
			path:   "items[0][1]",
			data:   []byte(`{"items":[["a", "b"]]}`),
			want:   want{expanded: []string{"items[0][1]"}},
		},
		"NestedNoWildcardNonExisting": {
			reason: "A path of two indexes with no wildcard, past the end, expands to nothing",
			path:   "items[0][5]",
			data:   []byte(`{"items":[["a", "b"]]}`),
			want:   want{expanded: []string{}},
		},
		"NestedArray": {
			reason: "Two wildcards over nested arrays give every pair of indexes, in order",
			path:   "items[*][*]",
			data:   []byte(`{"items":[["a", "b", "c"], ["d"]]}`),
			want:   want{expanded: []string{"items[0][0]", "items[0][1]", "items[0][2]", "items[1][0]"}},
		},
		"KeysOfMap": {
			reason: "A wildcard over an object gives one path per key, bracketing a key that has periods",
			path:   "items[*]",
			data:   []byte(`{"items":{ "key1": "val1", "key2.as.annotation": "val2"}}`),
			want:   want{expanded: []string{"items.key1", "items[key2.as.annotation]"}},
		},
		"ArrayOfObjects": {
			reason: "Wildcards over an array and then over each element's keys give every element and key, keys sorted (crossplane-runtime sorts both lists before comparing; this package returns keys sorted, so the order is checked here)",
			path:   "spec.containers[*][*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now"]}]}}`),
			want:   want{expanded: []string{"spec.containers[0].args", "spec.containers[0].image", "spec.containers[0].name"}},
		},
		"MultiLayer": {
			reason: "Wildcards at two levels both expand",
			path:   "spec.containers[*].args[*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`),
			want:   want{expanded: []string{"spec.containers[0].args[0]", "spec.containers[0].args[1]", "spec.containers[0].args[2]"}},
		},
		"WildcardInTheBeginning": {
			reason: "A wildcard before a fixed index expands and the index stays",
			path:   "spec.containers[*].args[1]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`),
			want:   want{expanded: []string{"spec.containers[0].args[1]"}},
		},
		"WildcardAtTheEnd": {
			reason: "A wildcard after a fixed index expands the last array",
			path:   "spec.containers[0].args[*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`),
			want:   want{expanded: []string{"spec.containers[0].args[0]", "spec.containers[0].args[1]", "spec.containers[0].args[2]"}},
		},
		"NoData": {
			reason: "An empty object has nothing to expand, so no paths",
			path:   "metadata[*]",
			want:   want{expanded: []string{}},
		},
		"InsufficientContainers": {
			reason: "A fixed index past the end gives no paths and no error",
			path:   "spec.containers[1].args[*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{expanded: []string{}},
		},
		"UnexpectedWildcard": {
			reason: "A wildcard over a string is a wrong-type error",
			path:   "spec.containers[0].name[*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{err: ErrWrongType},
		},
		"NotAnArray": {
			reason: "An index into an object is a wrong-type error",
			path:   "metadata[1]",
			data:   []byte(`{"metadata":{"nope":"cool"}}`),
			want:   want{err: ErrWrongType},
		},
		"NotAnObject": {
			reason: "A field name applied to an array is a wrong-type error",
			path:   "spec.containers[nope].name",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{err: ErrWrongType},
		},
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error",
			path:   "spec[]",
			want:   want{err: ErrInvalidPath},
		},
		"NilValue": {
			reason:  "A wildcard over an array that is null",
			differs: "A null on the way matches nothing, as a missing field does; crossplane-runtime returns a not-found error for a null under a wildcard and no paths for a missing field.",
			path:    "spec.containers[*].name",
			data:    []byte(`{"spec":{"containers": null}}`),
			want:    want{expanded: []string{}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reason := tc.reason
			if tc.differs != "" {
				reason += " (differs: " + tc.differs + ")"
			}
			got, err := upstreamPave(t, tc.data).ExpandWildcards(tc.path)
			checkUpstreamError(t, reason, tc.want.err, err)
			if diff := cmp.Diff(tc.want.expanded, got); diff != "" {
				t.Errorf("\np.ExpandWildcards(%s): %s: -want, +got:\n%s", tc.path, reason, diff)
			}
		})
	}
}

func TestUpstreamDeleteField(t *testing.T) {
	type want struct {
		object map[string]any
		err    error
	}
	cases := map[string]struct {
		reason string
		data   []byte
		path   string
		want   want
	}{
		"MalformedPath": {
			reason: "A path that does not parse is an invalid-path error and deletes nothing",
			path:   "spec[]",
			want:   want{object: map[string]any{}, err: ErrInvalidPath},
		},
		"IndexGivenForNonArray": {
			reason: "An index into an object is a wrong-type error and deletes nothing",
			data:   []byte(`{"data":{}}`),
			path:   "data[0]",
			want:   want{object: map[string]any{"data": map[string]any{}}, err: ErrWrongType},
		},
		"KeyGivenForNonMap": {
			reason: "A field name applied to an array is a wrong-type error and deletes nothing",
			data:   []byte(`{"data":[["a"]]}`),
			path:   "data[0].a",
			want:   want{object: map[string]any{"data": []any{[]any{"a"}}}, err: ErrWrongType},
		},
		"KeyGivenForNonMapInMiddle": {
			reason: "A field name that meets an array partway down is a wrong-type error",
			data:   []byte(`{"data":[{"another": "field"}]}`),
			path:   "data.some.another",
			want: want{
				object: map[string]any{"data": []any{map[string]any{"another": "field"}}},
				err:    ErrWrongType,
			},
		},
		"IndexGivenForNonArrayInMiddle": {
			reason: "An index that meets an object partway down is a wrong-type error",
			data:   []byte(`{"data":{"another": ["field"]}}`),
			path:   "data[0].another",
			want: want{
				object: map[string]any{"data": map[string]any{"another": []any{"field"}}},
				err:    ErrWrongType,
			},
		},
		"ObjectField": {
			reason: "Deleting a key leaves its parent object, now empty",
			data:   []byte(`{"metadata":{"name":"lame"}}`),
			path:   "metadata.name",
			want:   want{object: map[string]any{"metadata": map[string]any{}}},
		},
		"ObjectSingleField": {
			reason: "Deleting a top-level key leaves the other keys as they were",
			data:   []byte(`{"metadata":{"name":"lame"}, "olala": {"omama": "koala"}}`),
			path:   "metadata",
			want:   want{object: map[string]any{"olala": map[string]any{"omama": "koala"}}},
		},
		"ObjectLeafField": {
			reason: "Deleting a key three levels down leaves the objects above it",
			data:   []byte(`{"spec":{"some": {"more": "delete-me"}}}`),
			path:   "spec.some.more",
			want:   want{object: map[string]any{"spec": map[string]any{"some": map[string]any{}}}},
		},
		"ObjectMidField": {
			reason: "Deleting a key whose value is an object removes all below it",
			data:   []byte(`{"spec":{"some": {"more": "delete-me"}}}`),
			path:   "spec.some",
			want:   want{object: map[string]any{"spec": map[string]any{}}},
		},
		"ObjectInArray": {
			reason: "A key of an object in an array element is deleted through the index",
			data:   []byte(`{"spec":[{"some": {"more": "delete-me"}}]}`),
			path:   "spec[0].some.more",
			want:   want{object: map[string]any{"spec": []any{map[string]any{"some": map[string]any{}}}}},
		},
		"ArrayFirstElement": {
			reason: "Deleting element 0 moves the rest down",
			data:   []byte(`{"items":["a", "b"]}`),
			path:   "items[0]",
			want:   want{object: map[string]any{"items": []any{"b"}}},
		},
		"ArrayLastElement": {
			reason: "Deleting the last element shortens the array",
			data:   []byte(`{"items":["a", "b"]}`),
			path:   "items[1]",
			want:   want{object: map[string]any{"items": []any{"a"}}},
		},
		"ArrayMidElement": {
			reason: "Deleting a middle element closes the gap",
			data:   []byte(`{"items":["a", "b", "c"]}`),
			path:   "items[1]",
			want:   want{object: map[string]any{"items": []any{"a", "c"}}},
		},
		"ArrayOnlyElements": {
			reason: "Deleting the only element leaves an empty array, not null",
			data:   []byte(`{"items":["a"]}`),
			path:   "items[0]",
			want:   want{object: map[string]any{"items": []any{}}},
		},
		"ArrayMultipleIndex": {
			reason: "An element of an inner array is deleted with two indexes",
			data:   []byte(`{"items":[["a", "b"]]}`),
			path:   "items[0][1]",
			want:   want{object: map[string]any{"items": []any{[]any{"a"}}}},
		},
		"ArrayNoElement": {
			reason: "Deleting an index of an empty array changes nothing and is no error",
			data:   []byte(`{"items":[]}`),
			path:   "items[0]",
			want:   want{object: map[string]any{"items": []any{}}},
		},
		"NonExistentPathInMap": {
			reason: "A path through an array element that is not there changes nothing and is no error",
			data:   []byte(`{"items":[]}`),
			path:   "items[0].metadata",
			want:   want{object: map[string]any{"items": []any{}}},
		},
		"NonExistentPathInArray": {
			reason: "A path through a key that is not there changes nothing and is no error",
			data:   []byte(`{"items":{"some": "other"}}`),
			path:   "items.metadata[0]",
			want:   want{object: map[string]any{"items": map[string]any{"some": "other"}}},
		},
		"NonExistentElementInArray": {
			reason: "An index past the end changes nothing and is no error",
			data:   []byte(`{"items":["some", "other"]}`),
			path:   "items[5]",
			want:   want{object: map[string]any{"items": []any{"some", "other"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := upstreamPave(t, tc.data)
			err := p.DeleteField(tc.path)
			checkUpstreamError(t, tc.reason, tc.want.err, err)
			if diff := cmp.Diff(tc.want.object, p.UnstructuredContent()); diff != "" {
				t.Fatalf("\np.DeleteField(%s): %s: -want, +got:\n%s", tc.path, tc.reason, diff)
			}
		})
	}
}

func TestUpstreamMergeValue(t *testing.T) {
	const (
		path = "a"
		src  = "e1-from-source"
		src2 = "e1-from-source-2"
		dst  = "e1-from-destination"
	)
	srcArray := []string{src}
	dstArray := []string{dst}
	srcObject := func() map[string]any { return map[string]any{path: src} }
	dstObject := func() map[string]any { return map[string]any{path: map[string]any{path: dst}} }
	array := func(items ...string) map[string]any {
		a := make([]any, len(items))
		for i, s := range items {
			a[i] = s
		}
		return map[string]any{path: a}
	}
	object := func(v string) map[string]any {
		return map[string]any{path: map[string]any{path: v}}
	}

	yes, no := true, false
	cases := map[string]struct {
		reason string
		object map[string]any
		value  any
		mo     *MergeOptions
		want   map[string]any
	}{
		"MergeArrayNoMergeOptions": {
			reason: "With no MergeOptions an array replaces the value there",
			object: map[string]any{path: dst},
			value:  srcArray,
			want:   array(src),
		},
		"MergeArrayNoAppend": {
			reason: "AppendSlice false: the new array replaces the old one",
			object: map[string]any{path: dstArray},
			value:  srcArray,
			mo:     &MergeOptions{AppendSlice: &no},
			want:   array(src),
		},
		"MergeArrayAppend": {
			reason: "AppendSlice true: the new array's items follow the old ones",
			object: map[string]any{path: dstArray},
			value:  srcArray,
			mo:     &MergeOptions{AppendSlice: &yes},
			want:   array(dst, src),
		},
		"MergeArrayAppendDuplicate": {
			reason: "AppendSlice true: an item already in the old array is not added again",
			object: map[string]any{path: []string{dst, src}},
			value:  []string{src, src2},
			mo:     &MergeOptions{AppendSlice: &yes},
			want:   array(dst, src, src2),
		},
		"MergeMapNoMergeOptions": {
			reason: "With no MergeOptions a key of the new object overwrites the old value",
			object: dstObject(),
			value:  srcObject(),
			want:   object(src),
		},
		"MergeMapNoKeep": {
			reason: "KeepMapValues false: a key of the new object overwrites the old value",
			object: dstObject(),
			value:  srcObject(),
			mo:     &MergeOptions{KeepMapValues: &no},
			want:   object(src),
		},
		"MergeMapKeep": {
			reason: "KeepMapValues true: a key already there keeps its old value",
			object: dstObject(),
			value:  srcObject(),
			mo:     &MergeOptions{KeepMapValues: &yes},
			want:   object(dst),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := Pave(tc.object)
			if err := p.MergeValue(path, tc.value, tc.mo); err != nil {
				t.Fatalf("\np.MergeValue(%s, %v): %s: %v", path, tc.value, tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, p.UnstructuredContent()); diff != "" {
				t.Fatalf("\np.MergeValue(%s, %v): %s: -want, +got:\n%s", path, tc.value, tc.reason, diff)
			}
		})
	}
}
