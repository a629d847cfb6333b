package fieldpath

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpandWildcardsMatches(t *testing.T) {
	obj := map[string]any{
		"spec": map[string]any{
			"containers": []any{
				map[string]any{"name": "a", "args": []any{"x", "y"}},
				map[string]any{"name": "b"},
				map[string]any{"name": "c", "args": []any{}},
				nil,
			},
			"labels": map[string]any{"z": "1", "a": "2", "m.n": "3", "*": "4", "0": "5"},
			"region": "eu",
			"null":   nil,
		},
	}
	big := make([]any, 1100)
	cases := map[string]struct {
		reason string
		obj    map[string]any
		path   string
		want   []string
		err    errorWant
	}{
		"Array": {
			reason: "Array elements come in index order; a null element has no name.",
			obj:    obj,
			path:   "spec.containers[*].name",
			want:   []string{"spec.containers[0].name", "spec.containers[1].name", "spec.containers[2].name"},
		},
		"Nested": {
			reason: "Wildcards nest; missing and empty arrays match nothing.",
			obj:    obj,
			path:   "spec.containers[*].args[*]",
			want:   []string{"spec.containers[0].args[0]", "spec.containers[0].args[1]"},
		},
		"MapKeysSorted": {
			reason: "Object keys come in sorted order, in canonical form.",
			obj:    obj,
			path:   "spec.labels.*",
			want:   []string{"spec.labels['*']", "spec.labels['0']", "spec.labels.a", "spec.labels[m.n]", "spec.labels.z"},
		},
		"TrailingWildcardOnArray": {
			reason: "A trailing wildcard lists every element, nulls included.",
			obj:    obj,
			path:   "spec.containers[*]",
			want:   []string{"spec.containers[0]", "spec.containers[1]", "spec.containers[2]", "spec.containers[3]"},
		},
		"LiteralStarKey": {
			reason: "A quoted star is a key, not a wildcard, and expands to itself.",
			obj:    obj,
			path:   "spec.labels['*']",
			want:   []string{"spec.labels['*']"},
		},
		"NoWildcardExists": {
			reason: "A path without wildcards comes back in canonical form if it exists.",
			obj:    obj,
			path:   `spec["region"]`,
			want:   []string{"spec.region"},
		},
		"NoWildcardNull": {
			reason: "A null value exists.",
			obj:    obj,
			path:   "spec.null",
			want:   []string{"spec.null"},
		},
		"NoWildcardMissing": {
			reason: "A path without wildcards that does not exist gives an empty list.",
			obj:    obj,
			path:   "spec.zone",
			want:   []string{},
		},
		"MissingPrefix": {
			reason: "A missing prefix gives an empty list.",
			obj:    obj,
			path:   "status.conditions[*].type",
			want:   []string{},
		},
		"NullPrefix": {
			reason: "A null prefix gives an empty list.",
			obj:    obj,
			path:   "spec.null[*]",
			want:   []string{},
		},
		"NilObject": {
			reason: "Nil content gives an empty list.",
			obj:    nil,
			path:   "*",
			want:   []string{},
		},
		"RootWildcard": {
			reason: "A wildcard at the root lists the top-level fields.",
			obj:    map[string]any{"b": 1, "a": 2},
			path:   "*",
			want:   []string{"a", "b"},
		},
		"WildcardOnScalar": {
			reason: "A wildcard over a scalar is a type mismatch.",
			obj:    obj,
			path:   "spec.region[*]",
			err:    errorWant{is: ErrWrongType, msg: `cannot expand spec.region[*]: spec.region is a string of 2 bytes, which a wildcard cannot expand`},
		},
		"WrongTypeOnTheWay": {
			reason: "A type mismatch after a wildcard names the concrete path.",
			obj:    map[string]any{"a": []any{map[string]any{"b": "x"}, "s"}},
			path:   "a[*].b",
			err:    errorWant{is: ErrWrongType, msg: `cannot expand a[1].b: a[1] is a string of 1 byte, not an object`},
		},
		"WrongTypeNoWildcard": {
			reason: "A type mismatch in a path without wildcards is an error too.",
			obj:    obj,
			path:   "spec.region.x",
			err:    errorWant{is: ErrWrongType, msg: "cannot expand spec.region.x"},
		},
		"AboveIndexLimit": {
			reason: "An array longer than the index limit allows cannot be expanded into usable paths.",
			obj:    map[string]any{"a": big},
			path:   "a[*]",
			err:    errorWant{is: ErrInvalidPath, msg: "a has 1100 elements, more than the index limit of 1024 allows"},
		},
		"InvalidPath": {
			reason: "A path that does not parse is an invalid path.",
			obj:    obj,
			path:   "spec[]",
			err:    errorWant{is: ErrInvalidPath, msg: "empty brackets"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Pave(tc.obj).ExpandWildcards(tc.path)
			checkError(t, tc.reason, tc.err, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nExpandWildcards(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}
			// Every result is a usable, concrete path that expands to itself.
			for _, path := range got {
				if _, err := Pave(tc.obj).GetValue(path); err != nil {
					t.Errorf("\n%s\nGetValue(%q) of an expanded path: %v", tc.reason, path, err)
				}
				again, err := Pave(tc.obj).ExpandWildcards(path)
				if err != nil || len(again) != 1 || again[0] != path {
					t.Errorf("\n%s\nExpandWildcards(%q) of an expanded path: got %q, %v", tc.reason, path, again, err)
				}
			}
		})
	}
}

func TestExpandWildcardsRaisedLimit(t *testing.T) {
	p := Pave(map[string]any{"a": make([]any, 1100)}, MaxIndex(2000))
	got, err := p.ExpandWildcards("a[*]")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1100 || got[1099] != "a[1099]" {
		t.Errorf("ExpandWildcards under a raised limit: got %d paths ending %q", len(got), got[len(got)-1])
	}
}
