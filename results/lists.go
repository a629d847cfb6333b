package results

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/internal/message"
	"github.com/ctrlkit/ctrlkit/internal/smallset"
)

// withStatusLists returns a copy of u whose fields at paths hold l, sharing
// all else with u: paths are fields of u's status, which stringList read as
// absent.
func withStatusLists(u *unstructured.Unstructured, paths [][]string, l []string) *unstructured.Unstructured {
	v := &unstructured.Unstructured{Object: maps.Clone(u.Object)}
	status, _ := v.Object["status"].(map[string]any)
	status = maps.Clone(status)
	if status == nil {
		status = map[string]any{}
	}
	v.Object["status"] = status
	for _, p := range paths {
		setStringList(v, p, nil, l)
	}
	return v
}

// stringList reads a list of strings at path in u. A missing or null field
// is an empty list.
func stringList(u *unstructured.Unstructured, path []string) ([]string, error) {
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil || !found || v == nil {
		if err != nil {
			return nil, malformed(u, path, "%v", err)
		}
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, malformed(u, path, "want a list of strings, not %T", v)
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, malformed(u, path, "entry %d: want a string, not %T", i, e)
		}
		out[i] = s
	}
	return out, nil
}

// setStringList writes after at path in u when it differs from before, which
// stringList read there, deleting the field when after is empty. It reports
// whether it wrote.
func setStringList(u *unstructured.Unstructured, path, before, after []string) bool {
	if slices.Equal(before, after) {
		return false
	}
	if len(after) == 0 {
		unstructured.RemoveNestedField(u.Object, path...)
		return true
	}
	list := make([]any, len(after))
	for i, s := range after {
		list[i] = s
	}
	// The path was read as absent or a list, so every parent is an object.
	_ = unstructured.SetNestedField(u.Object, list, path...)
	return true
}

func malformed(u *unstructured.Unstructured, path []string, format string, args ...any) error {
	return fmt.Errorf("cannot apply results: %s: %s: %s: %w", describe(u), joinPath(path), fmt.Sprintf(format, args...), ErrMalformed)
}

// describe names u in error messages: its kind and namespace/name.
func describe(u *unstructured.Unstructured) string {
	return message.Object(u.GetKind(), u.GetNamespace(), u.GetName())
}

func joinPath(path []string) string {
	s := ""
	for i, p := range path {
		if i > 0 {
			s += "."
		}
		s += p
	}
	return s
}

// union returns a followed by the strings of b that it does not hold.
func union(a, b []string) []string {
	out := smallset.Of(slices.Clone(a))
	for _, t := range b {
		out.Add(t)
	}
	return out.List()
}
