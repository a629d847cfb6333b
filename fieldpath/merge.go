package fieldpath

import (
	"encoding/json"
	"reflect"
)

// merge combines src, in JSON form and owned by the caller, into dst, an
// existing value that may be changed in place, and returns the result.
func merge(dst, src any, opts *MergeOptions) any {
	if dst == nil {
		return src
	}
	if src == nil {
		if opts.KeepMapValues {
			return dst
		}
		return nil
	}
	if dm, ok := dst.(map[string]any); ok && dm != nil {
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
	if opts.AppendSlice {
		if da, ok := dst.([]any); ok {
			if sa, ok := src.([]any); ok {
				return appendMissing(da, sa)
			}
		}
	}
	if opts.KeepMapValues {
		return dst
	}
	return src
}

// appendMissing appends to dst the items of src that dst does not hold. Like
// crossplane-runtime, it compares src's items with dst's only, so repeated
// items within src are all appended.
func appendMissing(dst, src []any) []any {
	n := len(dst)
	for _, s := range src {
		found := false
		for _, d := range dst[:n] {
			if jsonEqual(d, s) {
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

// jsonEqual reports whether two JSON values are equal, comparing numbers by
// value whatever their Go type (int64 1 equals float64 1).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, found := y[k]
			if !found || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if xf, ok := asFloat(a); ok {
		yf, ok := asFloat(b)
		if !ok {
			return false
		}
		if xi, ok := a.(int64); ok {
			if yi, ok := b.(int64); ok {
				return xi == yi
			}
		}
		return xf == yf
	}
	return reflect.DeepEqual(a, b)
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
