package extref

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// TestSortSelected sorts selected objects by a field: numbers (integers and
// fractions together) or strings, a missing field first, equal fields by
// namespace and name; fields of mixed or other types are an error that
// quotes no value.
func TestSortSelected(t *testing.T) {
	obj := func(ns, name string, v any) unstructured.Unstructured {
		u := unstructured.Unstructured{Object: map[string]any{}}
		u.SetNamespace(ns)
		u.SetName(name)
		if v != nil {
			u.Object["spec"] = map[string]any{"n": v}
		}
		return u
	}
	path, err := fieldpath.Compile("spec.n")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		objs []unstructured.Unstructured
		want []string
		err  string
	}{
		"Numbers":      {[]unstructured.Unstructured{obj("a", "x", int64(3)), obj("a", "y", 2.5), obj("a", "z", int64(-1))}, []string{"a/z", "a/y", "a/x"}, ""},
		"TiesByName":   {[]unstructured.Unstructured{obj("b", "x", "k"), obj("a", "y", "k"), obj("a", "x", "k")}, []string{"a/x", "a/y", "b/x"}, ""},
		"MissingFirst": {[]unstructured.Unstructured{obj("a", "x", "b"), obj("a", "y", nil), obj("a", "z", "")}, []string{"a/y", "a/z", "a/x"}, ""},
		"Mixed":        {[]unstructured.Unstructured{obj("a", "x", "s3cr3t"), obj("a", "y", int64(1))}, nil, "field not found: sortByFieldPath spec.n holds both strings and numbers"},
		"Bool":         {[]unstructured.Unstructured{obj("a", "x", true), obj("a", "y", false)}, nil, "field not found: sortByFieldPath spec.n of x is a boolean, not a string or a number"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := sortSelected(tc.objs, path)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, ErrFieldNotFound) {
					t.Errorf("error: want %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range tc.objs {
				got = append(got, o.GetNamespace()+"/"+o.GetName())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("order: -want, +got:\n%s", diff)
			}
		})
	}
}
