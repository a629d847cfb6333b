package fieldpath

import "github.com/ctrlkit/ctrlkit/internal/jsonvalue"

// merge combines src, in JSON form and owned by the caller, into dst, an
// existing value that may be changed in place, and returns the result. It
// gives what crossplane-runtime's MergeValue gives (mergo's rules on JSON
// values) wherever that succeeds; docs/design/fieldpath.md lists the inputs
// it refuses and what merge does with them instead.
//
// dst may hold values that are not in JSON form, put there by Go code: a
// []string, a map[string]string, a struct. Each is merged as the JSON value
// it stands for, so appending to a []string appends, and keeping the values
// of a map[string]string keeps them and adds the new keys.
func merge(dst, src any, opts *MergeOptions) any {
	dst = jsonForm(dst)
	if dst == nil || src == nil {
		return src
	}
	if opts.appendSlice() {
		// Only the merged array itself loses the items dst already holds;
		// arrays below it are appended whole.
		if da, ok := dst.([]any); ok {
			if sa, ok := src.([]any); ok {
				src = missing(da, sa)
			}
		}
	}
	return mergeValue(dst, true, src, opts)
}

// mergeValue merges s, not null, into d, which is absent when present is
// false, and returns the value to store.
//
// Without KeepMapValues s wins, except that objects merge field by field
// and, with AppendSlice, arrays are appended. With it, d wins unless it is
// absent or empty: null, "", 0, false, {} or [].
func mergeValue(d any, present bool, s any, opts *MergeOptions) any {
	keep := opts.keepMapValues()
	switch sv := s.(type) {
	case map[string]any:
		if dm, ok := d.(map[string]any); ok {
			mergeObject(dm, sv, opts)
			if len(dm) == 0 {
				// mergo puts the merged object, null fields and all, in
				// place of an object that is still empty after the merge:
				// one that KeepMapValues gave only null fields.
				return sv
			}
			return dm
		}
	case []any:
		da, isArray := d.([]any)
		if opts.appendSlice() && (isArray || !present || d == nil) {
			if da == nil {
				return sv // not append(nil, sv...), which is null for []
			}
			return append(da, sv...)
		}
	}
	if !keep || !present || empty(d) {
		return s
	}
	return d
}

// mergeObject merges each field of s into dm in place. A null field of s
// sets the field to null, unless KeepMapValues is set: then it is ignored,
// even where dm has no such field.
func mergeObject(dm, s map[string]any, opts *MergeOptions) {
	for k, sv := range s {
		dv, present := dm[k]
		if sv == nil {
			if !opts.keepMapValues() {
				dm[k] = nil
			}
			continue
		}
		if present {
			dv = jsonForm(dv)
		}
		dm[k] = mergeValue(dv, present, sv, opts)
	}
}

// empty reports whether v is a value mergo treats as unset: null, "", 0,
// false, or an empty object or array.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case int64:
		return x == 0
	case float64:
		return x == 0
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
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

// missing returns the items of src that dst does not hold. Like
// crossplane-runtime, it compares src's items with dst's only, so repeated
// items within src are all kept. The result is never nil, so an array
// merged onto an empty one stays an array.
func missing(dst, src []any) []any {
	out := make([]any, 0, len(src))
	for _, s := range src {
		found := false
		for _, d := range dst {
			if equalJSON(d, s) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}

// equalJSON reports whether d, an existing value that may hold values not in
// JSON form (a map[string]string item, say), is the JSON value s.
func equalJSON(d, s any) bool {
	return jsonvalue.EqualForm(d, s, jsonForm)
}
