package fieldpath

import "github.com/ctrlkit/ctrlkit/internal/jsonvalue"

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
			if jsonvalue.Equal(d, s) {
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
