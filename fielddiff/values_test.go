package fielddiff_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/fielddiff/internal/testpb"
)

type creds struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

type valueSpec struct {
	Description string            `json:"description,omitempty"`
	Size        int               `json:"size"`
	Labels      map[string]string `json:"labels,omitempty"`
	Creds       *creds            `json:"creds,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
}

func TestCompare(t *testing.T) {
	cases := map[string]struct {
		reason          string
		desired, actual any
		opts            []fielddiff.Option
		want            []fielddiff.Change
	}{
		"Equal": {
			reason:  "Equal values have no changes.",
			desired: valueSpec{Size: 1}, actual: valueSpec{Size: 1},
		},
		"Struct": {
			reason:  "New is desired's value and Old actual's, as JSON, in ChangedFields' order.",
			desired: valueSpec{Description: "new", Size: 2, Labels: map[string]string{"team": "a"}},
			actual:  valueSpec{Description: "old", Size: 1, Labels: map[string]string{"team": "b"}},
			opts:    []fielddiff.Option{fielddiff.Prefix("spec")},
			want: []fielddiff.Change{
				{Path: "spec.description", Old: `"old"`, New: `"new"`},
				{Path: "spec.size", Old: "1", New: "2"},
				{Path: "spec.labels[team]", Old: `"b"`, New: `"a"`},
			},
		},
		"AbsentSides": {
			reason:  "A key or element on one side only has \"\" on the other.",
			desired: map[string]any{"a": "x", "list": []any{int64(1), int64(2)}},
			actual:  map[string]any{"b": true, "list": []any{int64(1)}},
			want: []fielddiff.Change{
				{Path: "a", New: `"x"`},
				{Path: "b", Old: "true"},
				{Path: "list[1]", New: "2"},
			},
		},
		"NullIsNotAbsent": {
			reason:  "A JSON null is a value: null, not \"\".",
			desired: map[string]any{"a": nil}, actual: map[string]any{"a": "x"},
			want: []fielddiff.Change{{Path: "a", Old: `"x"`, New: "null"}},
		},
		"WholeObject": {
			reason:  "An object present on one side only is one change, with the whole object.",
			desired: valueSpec{Creds: &creds{User: "u"}}, actual: valueSpec{},
			want: []fielddiff.Change{{Path: "creds", Old: "null", New: `{"user":"u","password":""}`}},
		},
		"Sensitive": {
			reason:  "A sensitive field's values are redacted; the others are not.",
			desired: valueSpec{Size: 1, Creds: &creds{User: "u", Password: "hunter2"}},
			actual:  valueSpec{Size: 2, Creds: &creds{User: "v", Password: "swordfish"}},
			opts:    []fielddiff.Option{fielddiff.SensitivePaths("creds.password")},
			want: []fielddiff.Change{
				{Path: "size", Old: "2", New: "1"},
				{Path: "creds.user", Old: `"v"`, New: `"u"`},
				{Path: "creds.password", Old: fielddiff.Redacted, New: fielddiff.Redacted, Sensitive: true},
			},
		},
		"SensitiveInside": {
			reason:  "A value that holds a sensitive field (an object added whole) is redacted as a whole.",
			desired: valueSpec{Creds: &creds{User: "u", Password: "hunter2"}}, actual: valueSpec{},
			opts: []fielddiff.Option{fielddiff.SensitivePaths("creds.password")},
			want: []fielddiff.Change{{Path: "creds", Old: fielddiff.Redacted, New: fielddiff.Redacted, Sensitive: true}},
		},
		"SensitiveAbsent": {
			reason:  "Presence is not redacted: an absent side stays \"\".",
			desired: map[string]any{"token": "abc"}, actual: map[string]any{},
			opts: []fielddiff.Option{fielddiff.SensitivePaths("token")},
			want: []fielddiff.Change{{Path: "token", New: fielddiff.Redacted, Sensitive: true}},
		},
		"SensitiveWildcardBelow": {
			reason:  "A sensitive path below the change, through a wildcard, redacts it; a sibling is not redacted.",
			desired: map[string]any{"keys": []any{map[string]any{"id": "1", "secret": "s"}}, "name": "n"},
			actual:  map[string]any{"name": "m"},
			opts:    []fielddiff.Option{fielddiff.Prefix("spec"), fielddiff.SensitivePaths("spec.keys[*].secret")},
			want: []fielddiff.Change{
				{Path: "spec.keys", New: fielddiff.Redacted, Sensitive: true},
				{Path: "spec.name", Old: `"m"`, New: `"n"`},
			},
		},
		"SensitiveWhole": {
			reason:  "A sensitive path above the prefix redacts everything.",
			desired: valueSpec{Size: 1}, actual: valueSpec{Size: 2},
			opts: []fielddiff.Option{fielddiff.Prefix("spec.forProvider"), fielddiff.SensitivePaths("spec")},
			want: []fielddiff.Change{{Path: "spec.forProvider.size", Old: fielddiff.Redacted, New: fielddiff.Redacted, Sensitive: true}},
		},
		"Proto": {
			reason:  "Messages are written as protojson writes them; 64-bit integers as strings.",
			desired: &testpb.Cluster{Name: "a", NodePools: []*testpb.NodePool{{Name: "p", Size: 3}}},
			actual:  &testpb.Cluster{Name: "a"},
			opts:    []fielddiff.Option{fielddiff.ProtoJSONNames()},
			want:    []fielddiff.Change{{Path: "nodePools[0]", New: `{"name":"p","size":3}`}},
		},
		"ProtoStruct": {
			reason:  "google.protobuf.Struct's values are JSON.",
			desired: &testpb.Cluster{Settings: mustStruct(t, map[string]any{"a": "x", "b": []any{1.0}})},
			actual:  &testpb.Cluster{Settings: mustStruct(t, map[string]any{"a": "y"})},
			want: []fielddiff.Change{
				{Path: "settings.a", Old: `"y"`, New: `"x"`},
				{Path: "settings.b", New: "[1]"},
			},
		},
		"HTMLNotEscaped": {
			reason:  "Values read as written: <, > and & are not escaped.",
			desired: map[string]any{"a": "<b>&"}, actual: map[string]any{"a": ""},
			want: []fielddiff.Change{{Path: "a", Old: `""`, New: `"<b>&"`}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := fielddiff.Compare(tc.desired, tc.actual, tc.opts...)
			if err != nil {
				t.Fatalf("%s\nCompare: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got.Changes); diff != "" {
				t.Errorf("%s\nCompare: -want, +got:\n%s", tc.reason, diff)
			}
			// The same order as ChangedFields and FirstChangedField.
			paths, err := fielddiff.ChangedFields(tc.desired, tc.actual, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var gotPaths []string
			for _, c := range got.Changes {
				gotPaths = append(gotPaths, c.Path)
			}
			if diff := cmp.Diff(paths, gotPaths); diff != "" {
				t.Errorf("paths: -ChangedFields, +Compare:\n%s", diff)
			}
			first, changed, _ := fielddiff.FirstChangedField(tc.desired, tc.actual, tc.opts...)
			if changed != (len(got.Changes) > 0) || changed && first != got.Changes[0].Path {
				t.Errorf("FirstChangedField %q (%t), Compare's first %v", first, changed, got.Changes)
			}
		})
	}
}

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompareBounds(t *testing.T) {
	long := strings.Repeat("é", fielddiff.MaxValueBytes)
	got, err := fielddiff.Compare(map[string]any{"a": long}, map[string]any{"a": "x"})
	if err != nil {
		t.Fatal(err)
	}
	c := got.Changes[0]
	if len(c.New) > fielddiff.MaxValueBytes || !strings.HasSuffix(c.New, "…") || !utf8.ValidString(c.New) {
		t.Errorf("a long value: want at most %d bytes of valid UTF-8 ending with …, got %d bytes: %q", fielddiff.MaxValueBytes, len(c.New), c.New)
	}
	if c.Old != `"x"` {
		t.Errorf("a short value: want it whole, got %q", c.Old)
	}

	many, other := map[string]any{}, map[string]any{}
	for i := range fielddiff.MaxChanges + 10 {
		many[strings.Repeat("k", 1+i/26)+string(rune('a'+i%26))] = i
	}
	got, err = fielddiff.Compare(many, other)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Changes) != fielddiff.MaxChanges || !got.Truncated {
		t.Errorf("%d changed fields: want %d changes and Truncated, got %d and %t", len(many), fielddiff.MaxChanges, len(got.Changes), got.Truncated)
	}
	paths, _ := fielddiff.ChangedFields(many, other)
	if paths[fielddiff.MaxChanges-1] != got.Changes[fielddiff.MaxChanges-1].Path {
		t.Errorf("the changes kept are not the first ones: %s, want %s", got.Changes[fielddiff.MaxChanges-1].Path, paths[fielddiff.MaxChanges-1])
	}
	got, _ = fielddiff.Compare(map[string]any{"a": 1}, map[string]any{"a": 2})
	if got.Truncated {
		t.Errorf("one change: want not Truncated")
	}
}

func TestCompareErrors(t *testing.T) {
	_, err := fielddiff.Compare("a", 1)
	if !errors.Is(err, fielddiff.ErrTypeMismatch) {
		t.Errorf("Compare of a string and an int: want ErrTypeMismatch, got %v", err)
	}
	_, err = fielddiff.Compare(map[string]any{}, map[string]any{}, fielddiff.SensitivePaths("a[b"))
	if err == nil {
		t.Errorf("Compare with an invalid sensitive path: want an error, got none")
	}
}
