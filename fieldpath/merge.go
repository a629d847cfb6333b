package fieldpath

import "github.com/ctrlkit/ctrlkit/internal/jsonvalue"

// merge combines src, in JSON form and owned by the caller, into dst, an
// existing value that may be changed in place, and returns the result.
//
// dst may hold values that are not in JSON form, put there by Go code: a
// []string, a map[string]string, a struct. Each is merged as the JSON value
// it stands for, so appending to a []string appends, and keeping the values
// of a map[string]string keeps them and adds the new keys.
func merge(dst, src any, opts *MergeOptions) any {
	dst = jsonForm(dst)
	if dst == nil {
		return src
	}
	if src == nil {
		if opts.keepMapValues() {
			return dst
		}
		return nil
	}
	if dm, ok := dst.(map[string]any); ok {
		if sm, ok := src.(map[string]any); ok {
			for k, sv := range sm {
				dv, found := dm[k]
				if !found || dv == nil {
					dm[k] = sv
					continue
				}
				dm[k] = merge(dv, sv, opts)
			}
			return dm
		}
	}
	if opts.appendSlice() {
		if da, ok := dst.([]any); ok {
			if sa, ok := src.([]any); ok {
				return appendMissing(da, sa)
			}
		}
	}
	if opts.keepMapValues() {
		return dst
	}
	return src
}

// jsonForm returns v as the Kubernetes JSON decoder would give it when v is
// a value that Go code put into the content, such as a []string, a
// map[string]string, a struct or a pointer to one, or a nil map. Values
// already in JSON form come back as they are, and so do those that cannot be
// represented as JSON, which merge then treats as scalars.
func jsonForm(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
		return v
	case map[string]any:
		if x == nil {
			return nil
		}
		return x
	case []any:
		if x == nil {
			return nil
		}
		return x
	}
	j, err := toJSON(v)
	if err != nil {
		return v
	}
	return j
}

// appendMissing appends to dst the items of src that dst does not hold. Like
// crossplane-runtime, it compares src's items with dst's only, so repeated
// items within src are all appended.
func appendMissing(dst, src []any) []any {
	n := len(dst)
	for _, s := range src {
		found := false
		for _, d := range dst[:n] {
			if equalJSON(d, s) {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, s)
		}
	}
	return dst
}

// equalJSON reports whether d, an existing value that may hold values not in
// JSON form (a map[string]string item, say), is the JSON value s.
func equalJSON(d, s any) bool {
	return jsonvalue.EqualForm(d, s, jsonForm)
}
