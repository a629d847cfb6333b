// Package fielddiff finds where two values differ, as field paths: the
// first changed field, which a direct controller names in its Ready
// condition before it calls the cloud (package directstatus), or every one,
// for an update mask.
//
//	path, changed, err := fielddiff.FirstChangedField(desired, actual, fielddiff.Prefix("spec.forProvider"))
//
// gives a path such as spec.forProvider.labels[team], and
//
//	paths, err := fielddiff.ChangedFields(desired, actual, fielddiff.IgnorePaths("metadata", "status"))
//
// every changed path, e.g. [spec.description spec.nodePools[1].size], which
// UpdateMask turns into a cloud API's update mask for a protobuf message
// ([description node_pools], or nested paths with FullPaths). Compare gives
// each change with its old and new values as JSON, for logs and reports,
// with Redacted for fields marked with SensitivePaths or debug_redact.
//
// Protobuf fields annotated google.api.field_behavior OUTPUT_ONLY are left
// out; a change to an IMMUTABLE one returns, beside the result, an error
// wrapping ErrImmutableField ("change to immutable field spec.location"),
// so a controller can refuse it before calling the cloud.
//
// Both sides are of one type: Go structs (fields by their JSON names, inline
// and embedded structs flattened as encoding/json flattens them),
// unstructured content (map[string]any, []any, *unstructured.Unstructured),
// or protobuf messages (fields by proto name, or JSON name with
// ProtoJSONNames). Values are equal when their JSON would be: int64(1)
// equals 1.0 in unstructured content, a type with its own JSON encoding
// compares by it, and a nil list or map differs from an empty one unless the
// field is tagged omitempty or NilEqualsEmpty is given.
//
// "First" is deterministic: struct fields in declaration order, protobuf
// fields by number, map keys sorted, list elements by index, depth first.
// FirstChangedField stops there, so its cost grows with the position of the
// change, not the objects' size. Paths read back with fieldpath.Parse; keys
// of Go and protobuf maps are in brackets (spec.labels[team]). A change of
// the whole value has the Prefix as its path.
//
// Bad input never panics: it wraps ErrTypeMismatch, ErrUnsupported,
// ErrCycle, ErrTooDeep or fieldpath.ErrInvalidPath, naming the path. Errors
// never quote a value: they name the path and the types.
//
// Limits, one line each:
//
//   - depth: values nested more than MaxDepth (10,000) levels wrap ErrTooDeep.
//   - Compare's values: each cut to MaxValueBytes (256 bytes), ending with "…".
//   - Compare's changes: at most MaxChanges (1,000); Diff.Truncated says more changed.
//
// docs/design/fielddiff.md has the comparison rules and the decisions.
package fielddiff
