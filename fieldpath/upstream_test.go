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

// The tests in this file are crossplane-runtime's pkg/fieldpath test tables,
// case for case and under the same names, run against this package, so that
// code ported from crossplane-runtime keeps its behaviour. Errors are compared
// by the sentinel they wrap (and, for syntax errors, the position), not by
// their text. A case whose want differs from crossplane-runtime's says why in
// differs; each such difference is listed in docs/design/fieldpath.md.

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
			reason: "An unambiguous string should be interpreted as a field segment",
			s:      "coolField",
			want:   Segment{Type: SegmentField, Field: "coolField"},
		},
		"QuotedField": {
			reason: "A quoted string should be interpreted as a field segment with the quotes removed",
			s:      "'coolField'",
			want:   Segment{Type: SegmentField, Field: "coolField"},
		},
		"QuotedFieldWithPeriods": {
			reason: "A quoted string with periods should be interpreted as a field segment with the quotes removed",
			s:      "'cool.Field'",
			want:   Segment{Type: SegmentField, Field: "cool.Field"},
		},
		"Index": {
			reason: "An unambiguous integer should be interpreted as an index segment",
			s:      "3",
			want:   Segment{Type: SegmentIndex, Index: 3},
		},
		"Negative": {
			reason: "A negative integer should be interpreted as an field segment",
			s:      "-3",
			want:   Segment{Type: SegmentField, Field: "-3"},
		},
		"Float": {
			reason: "A float should be interpreted as an field segment",
			s:      "3.0",
			want:   Segment{Type: SegmentField, Field: "3.0"},
		},
		"Overflow": {
			reason: "A very big integer will be interpreted as a field segment",
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
			reason: "A path with no brackets or periods should be interpreted as a single field segment",
			path:   "spec",
			want:   ok(Field("spec")),
		},
		"SingleIndex": {
			reason: "An integer surrounded by brackets should be interpreted as an index",
			path:   "[0]",
			want:   ok(FieldOrIndex("0")),
		},
		"TwoFields": {
			reason: "A path with one period should be interpreted as two field segments",
			path:   "metadata.name",
			want:   ok(Field("metadata"), Field("name")),
		},
		"APIConventionsExample": {
			reason: "The example given by the Kubernetes API convention should be parse correctly",
			path:   "fields[1].state.current",
			want:   ok(Field("fields"), FieldOrIndex("1"), Field("state"), Field("current")),
		},
		"SimpleIndex": {
			reason: "Indexing an object field that is an array should result in a field and an index",
			path:   "items[0]",
			want:   ok(Field("items"), FieldOrIndex("0")),
		},
		"FieldsAndIndex": {
			reason: "A path with periods and braces should be interpreted as fields and indices",
			path:   "spec.containers[0].name",
			want:   ok(Field("spec"), Field("containers"), FieldOrIndex("0"), Field("name")),
		},
		"NestedArray": {
			reason: "A nested array should result in two consecutive index fields",
			path:   "nested[0][1].name",
			want:   ok(Field("nested"), FieldOrIndex("0"), FieldOrIndex("1"), Field("name")),
		},
		"BracketStyleField": {
			reason: "A field name can be specified using brackets rather than a period",
			path:   "spec[containers][0].name",
			want:   ok(Field("spec"), Field("containers"), FieldOrIndex("0"), Field("name")),
		},
		"BracketFieldWithPeriod": {
			reason: "A field name specified using brackets can include a period",
			path:   "data[.config.yml]",
			want:   ok(Field("data"), FieldOrIndex(".config.yml")),
		},
		"QuotedFieldWithPeriodInBracket": {
			reason: "A field name specified using quote and in bracket can include a period",
			path:   "metadata.labels['app.hash']",
			want:   ok(Field("metadata"), Field("labels"), FieldOrIndex("app.hash")),
		},
		"LeadingPeriod": {
			reason: "A path may not start with a period (unlike a JSON path)",
			path:   ".metadata.name",
			want:   want{pos: 0},
		},
		"TrailingPeriod": {
			reason: "A path may not end with a period",
			path:   "metadata.name.",
			want:   want{pos: 13},
		},
		"BracketsFollowingPeriod": {
			reason: "Brackets may not follow a period",
			path:   "spec.containers.[0].name",
			want:   want{pos: 16},
		},
		"DoublePeriod": {
			reason: "A path may not include two consecutive periods",
			path:   "metadata..name",
			want:   want{pos: 9},
		},
		"DanglingRightBracket": {
			reason: "A right bracket may not appear in a field name",
			path:   "metadata.]name",
			want:   want{pos: 9},
		},
		"DoubleOpenBracket": {
			reason: "Brackets may not be nested",
			path:   "spec[bracketed[name]]",
			want:   want{pos: 14},
		},
		"DanglingLeftBracket": {
			reason: "A left bracket must be closed",
			path:   "spec[name",
			want:   want{pos: 4},
		},
		"EmptyBracket": {
			reason: "Brackets may not be empty",
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
			reason: "An error with method `IsNotFound() bool` should be considered a not found error.",
			err:    notFoundError{errors.New("boom")},
			want:   true,
		},
		"WrapsNotFound": {
			reason: "An error that wraps an error with method `IsNotFound() bool` should be considered a not found error.",
			err:    fmt.Errorf("because reasons: %w", notFoundError{errors.New("boom")}),
			want:   true,
		},
		"SomethingElse": {
			reason: "An error without method `IsNotFound() bool` should not be considered a not found error.",
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
			reason: "It should be possible to get a field from a nested object",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"name":"cool"}}`),
			want:   want{value: "cool"},
		},
		"ContainerName": {
			reason: "It should be possible to get a field from an object array element",
			path:   "spec.containers[0].name",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{value: "cool"},
		},
		"NestedArray": {
			reason: "It should be possible to get a field from a nested array",
			path:   "items[0][1]",
			data:   []byte(`{"items":[["a", "b"]]}`),
			want:   want{value: "b"},
		},
		"OwnerRefController": {
			reason: "Requesting a boolean field path should work.",
			path:   "metadata.ownerRefs[0].controller",
			data:   []byte(`{"metadata":{"ownerRefs":[{"controller": true}]}}`),
			want:   want{value: true},
		},
		"MetadataVersion": {
			reason: "Requesting an integer field should work",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			want:   want{value: int64(2)},
		},
		"SomeFloat": {
			reason: "Requesting a float field should work",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2.0}}`),
			want:   want{value: float64(2)},
		},
		"MetadataNope": {
			reason: "Requesting a non-existent object field should fail",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"nope":"cool"}}`),
			want:   want{err: ErrNotFound},
		},
		"InsufficientContainers": {
			reason: "Requesting a non-existent array element should fail",
			path:   "spec.containers[1].name",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{err: ErrNotFound},
		},
		"NotAnArray": {
			reason: "Indexing an object should fail",
			path:   "metadata[1]",
			data:   []byte(`{"metadata":{"nope":"cool"}}`),
			want:   want{err: ErrWrongType},
		},
		"NotAnObject": {
			reason: "Requesting a field in an array should fail",
			path:   "spec.containers[nope].name",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{err: ErrWrongType},
		},
		"MalformedPath": {
			reason: "Requesting an invalid field path should fail",
			path:   "spec[]",
			want:   want{err: ErrInvalidPath},
		},
		"NilParent": {
			reason:  "Request for a path with a nil parent value",
			differs: "GetValue rejects a wildcard; crossplane-runtime reads [*] as the key \"*\", here not found under a null.",
			path:    "spec.containers[*].name",
			data:    []byte(`{"spec":{"containers": null}}`),
			want:    want{err: ErrInvalidPath},
		},
		"NilParentNoWildcard": {
			reason: "Request for a path with a nil parent value, without the wildcard",
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
			reason: "It should be possible to get a value into a struct.",
			data:   []byte(`{"s":{"slice":["a"],"string":"b","int":1}}`),
			args:   args{path: "s", out: &Struct{}},
			want:   want{out: &Struct{Slice: []string{"a"}, StringField: "b", IntField: 1}},
		},
		"Slice": {
			reason: "It should be possible to get a value into a slice.",
			data:   []byte(`{"s": ["a", "b"]}`),
			args:   args{path: "s", out: &Slice{}},
			want:   want{out: &Slice{"a", "b"}},
		},
		"MissingPath": {
			reason: "Getting a value from a fieldpath that doesn't exist should return an error.",
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
			reason: "It should be possible to get a field from a nested object",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"name":"cool"}}`),
			value:  "cool",
		},
		"MalformedPath": {
			reason: "Requesting an invalid field path should fail",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotAString": {
			reason: "Requesting an non-string field path should fail",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamGetStringArray(t *testing.T) {
	runUpstreamGetterCases(t, "GetStringArray", (*Paved).GetStringArray, map[string]upstreamGetterCase{
		"MetadataLabels": {
			reason: "It should be possible to get a field from a nested object",
			path:   "spec.containers[0].command",
			data:   []byte(`{"spec": {"containers": [{"command": ["/bin/bash"]}]}}`),
			value:  []string{"/bin/bash"},
		},
		"MalformedPath": {
			reason: "Requesting an invalid field path should fail",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotAnArray": {
			reason: "Requesting an non-object field path should fail",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			err:    ErrWrongType,
		},
		"NotAStringArray": {
			reason: "Requesting an non-string-object field path should fail",
			path:   "metadata.versions",
			data:   []byte(`{"metadata":{"versions":[1,2]}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamGetStringObject(t *testing.T) {
	runUpstreamGetterCases(t, "GetStringObject", (*Paved).GetStringObject, map[string]upstreamGetterCase{
		"MetadataLabels": {
			reason: "It should be possible to get a field from a nested object",
			path:   "metadata.labels",
			data:   []byte(`{"metadata":{"labels":{"cool":"true"}}}`),
			value:  map[string]string{"cool": "true"},
		},
		"MalformedPath": {
			reason: "Requesting an invalid field path should fail",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotAnObject": {
			reason: "Requesting an non-object field path should fail",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			err:    ErrWrongType,
		},
		"NotAStringObject": {
			reason: "Requesting an non-string-object field path should fail",
			path:   "metadata.versions",
			data:   []byte(`{"metadata":{"versions":{"a": 2}}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamGetBool(t *testing.T) {
	runUpstreamGetterCases(t, "GetBool", (*Paved).GetBool, map[string]upstreamGetterCase{
		"OwnerRefController": {
			reason: "Requesting a boolean field path should work.",
			path:   "metadata.ownerRefs[0].controller",
			data:   []byte(`{"metadata":{"ownerRefs":[{"controller": true}]}}`),
			value:  true,
		},
		"MalformedPath": {
			reason: "Requesting an invalid field path should fail",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotABool": {
			reason: "Requesting an non-boolean field path should fail",
			path:   "metadata.name",
			data:   []byte(`{"metadata":{"name":"cool"}}`),
			err:    ErrWrongType,
		},
	})
}

func TestUpstreamGetInteger(t *testing.T) {
	runUpstreamGetterCases(t, "GetInteger", (*Paved).GetInteger, map[string]upstreamGetterCase{
		"MetadataVersion": {
			reason: "Requesting a number field should work",
			path:   "metadata.version",
			data:   []byte(`{"metadata":{"version":2}}`),
			value:  int64(2),
		},
		"MalformedPath": {
			reason: "Requesting an invalid field path should fail",
			path:   "spec[]",
			err:    ErrInvalidPath,
		},
		"NotANumber": {
			reason: "Requesting an non-number field path should fail",
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
			reason: "Setting an object field should work",
			data:   []byte(`{"metadata":{"name":"lame"}}`),
			args:   args{path: "metadata.name", value: "cool"},
			want:   want{object: map[string]any{"metadata": map[string]any{"name": "cool"}}},
		},
		"NonExistentMetadataName": {
			reason: "Setting a non-existent object field should work",
			data:   []byte(`{}`),
			args:   args{path: "metadata.name", value: "cool"},
			want:   want{object: map[string]any{"metadata": map[string]any{"name": "cool"}}},
		},
		"ContainerName": {
			reason: "Setting a field of an object that is an array element should work",
			data:   []byte(`{"spec":{"containers":[{"name":"lame"}]}}`),
			args:   args{path: "spec.containers[0].name", value: "cool"},
			want: want{object: map[string]any{
				"spec": map[string]any{"containers": []any{map[string]any{"name": "cool"}}},
			}},
		},
		"NonExistentContainerName": {
			reason: "Setting a field of a non-existent object that is an array element should work",
			data:   []byte(`{}`),
			args:   args{path: "spec.containers[0].name", value: "cool"},
			want: want{object: map[string]any{
				"spec": map[string]any{"containers": []any{map[string]any{"name": "cool"}}},
			}},
		},
		"NewContainer": {
			reason: "Growing an array object field should work",
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
			reason: "Setting a value in a nested array should work",
			data:   []byte(`{}`),
			args:   args{path: "data[0][0]", value: "a"},
			want:   want{object: map[string]any{"data": []any{[]any{"a"}}}},
		},
		"GrowNestedArray": {
			reason: "Growing then setting a value in a nested array should work",
			data:   []byte(`{"data":[["a"]]}`),
			args:   args{path: "data[0][1]", value: "b"},
			want:   want{object: map[string]any{"data": []any{[]any{"a", "b"}}}},
		},
		"GrowArrayField": {
			reason: "Growing then setting a value in an array field should work",
			data:   []byte(`{"data":["a"]}`),
			args:   args{path: "data[2]", value: "c"},
			want:   want{object: map[string]any{"data": []any{"a", nil, "c"}}},
		},
		"RejectsHighIndexes": {
			reason: "Paths having indexes above the maximum default value are rejected",
			data:   []byte(`{"data":["a"]}`),
			args:   args{path: fmt.Sprintf("data[%v]", DefaultMaxFieldPathIndex+1), value: "c"},
			want:   want{object: map[string]any{"data": []any{"a"}}, err: ErrInvalidPath},
		},
		"NotRejectsHighIndexesIfNoDefaultOptions": {
			reason: "Paths having indexes above the maximum default value are not rejected if default disabled",
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
			reason: "A map of string to string should be converted to a map of string to any",
			data:   []byte(`{"metadata":{}}`),
			args:   args{path: "metadata.labels", value: map[string]string{"cool": "very"}},
			want: want{object: map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"cool": "very"}},
			}},
		},
		"OwnerReference": {
			reason: "An ObjectReference (i.e. struct) should be converted to a map of string to any",
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
			reason: "Indexing an object field should fail",
			data:   []byte(`{"data":{}}`),
			args:   args{path: "data[0]"},
			want:   want{object: map[string]any{"data": map[string]any{}}, err: ErrWrongType},
		},
		"NotAnObject": {
			reason: "Requesting a field in an array should fail",
			data:   []byte(`{"data":[]}`),
			args:   args{path: "data.name"},
			want:   want{object: map[string]any{"data": []any{}}, err: ErrWrongType},
		},
		"MalformedPath": {
			reason: "Requesting an invalid field path should fail",
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
			reason: "It should return same path if no wildcard in an existing path",
			path:   "password",
			data:   []byte(`{"password":"top-secret"}`),
			want:   want{expanded: []string{"password"}},
		},
		"NoWildcardNonExisting": {
			reason: "It should return no results if no wildcard in a non-existing path",
			path:   "username",
			data:   []byte(`{"password":"top-secret"}`),
			want:   want{expanded: []string{}},
		},
		"NestedNoWildcardExisting": {
			reason: "It should return same path if no wildcard in an existing path",
			path:   "items[0][1]",
			data:   []byte(`{"items":[["a", "b"]]}`),
			want:   want{expanded: []string{"items[0][1]"}},
		},
		"NestedNoWildcardNonExisting": {
			reason: "It should return no results if no wildcard in a non-existing path",
			path:   "items[0][5]",
			data:   []byte(`{"items":[["a", "b"]]}`),
			want:   want{expanded: []string{}},
		},
		"NestedArray": {
			reason: "It should return all possible paths for an array",
			path:   "items[*][*]",
			data:   []byte(`{"items":[["a", "b", "c"], ["d"]]}`),
			want:   want{expanded: []string{"items[0][0]", "items[0][1]", "items[0][2]", "items[1][0]"}},
		},
		"KeysOfMap": {
			reason: "It should return all possible paths for a map in proper syntax",
			path:   "items[*]",
			data:   []byte(`{"items":{ "key1": "val1", "key2.as.annotation": "val2"}}`),
			want:   want{expanded: []string{"items.key1", "items[key2.as.annotation]"}},
		},
		"ArrayOfObjects": {
			reason: "It should return all possible paths for an array of objects (crossplane-runtime compares them sorted; this package returns keys sorted)",
			path:   "spec.containers[*][*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now"]}]}}`),
			want:   want{expanded: []string{"spec.containers[0].args", "spec.containers[0].image", "spec.containers[0].name"}},
		},
		"MultiLayer": {
			reason: "It should return all possible paths for a multilayer input",
			path:   "spec.containers[*].args[*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`),
			want:   want{expanded: []string{"spec.containers[0].args[0]", "spec.containers[0].args[1]", "spec.containers[0].args[2]"}},
		},
		"WildcardInTheBeginning": {
			reason: "It should return all possible paths for a multilayer input with wildcard in the beginning",
			path:   "spec.containers[*].args[1]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`),
			want:   want{expanded: []string{"spec.containers[0].args[1]"}},
		},
		"WildcardAtTheEnd": {
			reason: "It should return all possible paths for a multilayer input with wildcard at the end",
			path:   "spec.containers[0].args[*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool", "image": "latest", "args": ["start", "now", "debug"]}]}}`),
			want:   want{expanded: []string{"spec.containers[0].args[0]", "spec.containers[0].args[1]", "spec.containers[0].args[2]"}},
		},
		"NoData": {
			reason: "If there is no input data, no expanded fields could be found",
			path:   "metadata[*]",
			want:   want{expanded: []string{}},
		},
		"InsufficientContainers": {
			reason: "Requesting a non-existent array element should return nothing",
			path:   "spec.containers[1].args[*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{expanded: []string{}},
		},
		"UnexpectedWildcard": {
			reason: "Requesting a wildcard for an object should fail",
			path:   "spec.containers[0].name[*]",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{err: ErrWrongType},
		},
		"NotAnArray": {
			reason: "Indexing an object should fail",
			path:   "metadata[1]",
			data:   []byte(`{"metadata":{"nope":"cool"}}`),
			want:   want{err: ErrWrongType},
		},
		"NotAnObject": {
			reason: "Requesting a field in an array should fail",
			path:   "spec.containers[nope].name",
			data:   []byte(`{"spec":{"containers":[{"name":"cool"}]}}`),
			want:   want{err: ErrWrongType},
		},
		"MalformedPath": {
			reason: "Requesting an invalid field path should fail",
			path:   "spec[]",
			want:   want{err: ErrInvalidPath},
		},
		"NilValue": {
			reason:  "Requesting a wildcard for an object that has nil value",
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
			reason: "Requesting an invalid field path should fail",
			path:   "spec[]",
			want:   want{object: map[string]any{}, err: ErrInvalidPath},
		},
		"IndexGivenForNonArray": {
			reason: "Trying to delete a numbered index from a map should fail.",
			data:   []byte(`{"data":{}}`),
			path:   "data[0]",
			want:   want{object: map[string]any{"data": map[string]any{}}, err: ErrWrongType},
		},
		"KeyGivenForNonMap": {
			reason: "Trying to delete a key from an array should fail.",
			data:   []byte(`{"data":[["a"]]}`),
			path:   "data[0].a",
			want:   want{object: map[string]any{"data": []any{[]any{"a"}}}, err: ErrWrongType},
		},
		"KeyGivenForNonMapInMiddle": {
			reason: "If one of the segments that is a field corresponds to array, it should fail.",
			data:   []byte(`{"data":[{"another": "field"}]}`),
			path:   "data.some.another",
			want: want{
				object: map[string]any{"data": []any{map[string]any{"another": "field"}}},
				err:    ErrWrongType,
			},
		},
		"IndexGivenForNonArrayInMiddle": {
			reason: "If one of the segments that is an index corresponds to map, it should fail.",
			data:   []byte(`{"data":{"another": ["field"]}}`),
			path:   "data[0].another",
			want: want{
				object: map[string]any{"data": map[string]any{"another": []any{"field"}}},
				err:    ErrWrongType,
			},
		},
		"ObjectField": {
			reason: "Deleting a field from a map should work.",
			data:   []byte(`{"metadata":{"name":"lame"}}`),
			path:   "metadata.name",
			want:   want{object: map[string]any{"metadata": map[string]any{}}},
		},
		"ObjectSingleField": {
			reason: "Deleting a field from a map should work.",
			data:   []byte(`{"metadata":{"name":"lame"}, "olala": {"omama": "koala"}}`),
			path:   "metadata",
			want:   want{object: map[string]any{"olala": map[string]any{"omama": "koala"}}},
		},
		"ObjectLeafField": {
			reason: "Deleting a field that is deep in the tree from a map should work.",
			data:   []byte(`{"spec":{"some": {"more": "delete-me"}}}`),
			path:   "spec.some.more",
			want:   want{object: map[string]any{"spec": map[string]any{"some": map[string]any{}}}},
		},
		"ObjectMidField": {
			reason: "Deleting a field that is in the middle of the tree from a map should work.",
			data:   []byte(`{"spec":{"some": {"more": "delete-me"}}}`),
			path:   "spec.some",
			want:   want{object: map[string]any{"spec": map[string]any{}}},
		},
		"ObjectInArray": {
			reason: "Deleting a field that is in the middle of the tree from a map should work.",
			data:   []byte(`{"spec":[{"some": {"more": "delete-me"}}]}`),
			path:   "spec[0].some.more",
			want:   want{object: map[string]any{"spec": []any{map[string]any{"some": map[string]any{}}}}},
		},
		"ArrayFirstElement": {
			reason: "Deleting the first element from an array should work",
			data:   []byte(`{"items":["a", "b"]}`),
			path:   "items[0]",
			want:   want{object: map[string]any{"items": []any{"b"}}},
		},
		"ArrayLastElement": {
			reason: "Deleting the last element from an array should work",
			data:   []byte(`{"items":["a", "b"]}`),
			path:   "items[1]",
			want:   want{object: map[string]any{"items": []any{"a"}}},
		},
		"ArrayMidElement": {
			reason: "Deleting an element that is neither first nor last from an array should work",
			data:   []byte(`{"items":["a", "b", "c"]}`),
			path:   "items[1]",
			want:   want{object: map[string]any{"items": []any{"a", "c"}}},
		},
		"ArrayOnlyElements": {
			reason: "Deleting the only element from an array should work",
			data:   []byte(`{"items":["a"]}`),
			path:   "items[0]",
			want:   want{object: map[string]any{"items": []any{}}},
		},
		"ArrayMultipleIndex": {
			reason: "Deleting an element from an array of array should work",
			data:   []byte(`{"items":[["a", "b"]]}`),
			path:   "items[0][1]",
			want:   want{object: map[string]any{"items": []any{[]any{"a"}}}},
		},
		"ArrayNoElement": {
			reason: "Deleting an element from an empty array should work",
			data:   []byte(`{"items":[]}`),
			path:   "items[0]",
			want:   want{object: map[string]any{"items": []any{}}},
		},
		"NonExistentPathInMap": {
			reason: "It should be no-op if the field does not exist already.",
			data:   []byte(`{"items":[]}`),
			path:   "items[0].metadata",
			want:   want{object: map[string]any{"items": []any{}}},
		},
		"NonExistentPathInArray": {
			reason: "It should be no-op if the field does not exist already.",
			data:   []byte(`{"items":{"some": "other"}}`),
			path:   "items.metadata[0]",
			want:   want{object: map[string]any{"items": map[string]any{"some": "other"}}},
		},
		"NonExistentElementInArray": {
			reason: "It should be no-op if the field does not exist already.",
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
		pathTest = "a"
		valSrc   = "e1-from-source"
		valSrc2  = "e1-from-source-2"
		valDst   = "e1-from-destination"
	)
	arrSrc := []string{valSrc}
	arrDst := []string{valDst}
	mapSrc := func() map[string]any { return map[string]any{pathTest: valSrc} }
	mapDst := func() map[string]any { return map[string]any{pathTest: map[string]any{pathTest: valDst}} }
	array := func(items ...string) map[string]any {
		a := make([]any, len(items))
		for i, s := range items {
			a[i] = s
		}
		return map[string]any{pathTest: a}
	}
	object := func(v string) map[string]any {
		return map[string]any{pathTest: map[string]any{pathTest: v}}
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
			reason: "If no merge options are given, default is to override an array",
			object: map[string]any{pathTest: valDst},
			value:  arrSrc,
			want:   array(valSrc),
		},
		"MergeArrayNoAppend": {
			reason: "If MergeOptions.AppendSlice is false, an array should be overridden when merging",
			object: map[string]any{pathTest: arrDst},
			value:  arrSrc,
			mo:     &MergeOptions{AppendSlice: &no},
			want:   array(valSrc),
		},
		"MergeArrayAppend": {
			reason: "If MergeOptions.AppendSlice is true, dst array should be merged with the src array",
			object: map[string]any{pathTest: arrDst},
			value:  arrSrc,
			mo:     &MergeOptions{AppendSlice: &yes},
			want:   array(valDst, valSrc),
		},
		"MergeArrayAppendDuplicate": {
			reason: "If MergeOptions.AppendSlice is true, dst array should be merged with the src array not allowing duplicates",
			object: map[string]any{pathTest: []string{valDst, valSrc}},
			value:  []string{valSrc, valSrc2},
			mo:     &MergeOptions{AppendSlice: &yes},
			want:   array(valDst, valSrc, valSrc2),
		},
		"MergeMapNoMergeOptions": {
			reason: "If no merge options are given, default is to override a map key",
			object: mapDst(),
			value:  mapSrc(),
			want:   object(valSrc),
		},
		"MergeMapNoKeep": {
			reason: "If MergeOptions.KeepMapValues is false, a map key should be overridden",
			object: mapDst(),
			value:  mapSrc(),
			mo:     &MergeOptions{KeepMapValues: &no},
			want:   object(valSrc),
		},
		"MergeMapKeep": {
			reason: "If MergeOptions.KeepMapValues is true, a dst map key should preserve its value",
			object: mapDst(),
			value:  mapSrc(),
			mo:     &MergeOptions{KeepMapValues: &yes},
			want:   object(valDst),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := Pave(tc.object)
			if err := p.MergeValue(pathTest, tc.value, tc.mo); err != nil {
				t.Fatalf("\np.MergeValue(%s, %v): %s: %v", pathTest, tc.value, tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, p.UnstructuredContent()); diff != "" {
				t.Fatalf("\np.MergeValue(%s, %v): %s: -want, +got:\n%s", pathTest, tc.value, tc.reason, diff)
			}
		})
	}
}
