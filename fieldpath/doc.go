// Package fieldpath reads and writes values in unstructured Kubernetes
// objects (the map[string]any of an unstructured.Unstructured) by field path,
// in crossplane-runtime's syntax and with its method names.
//
//	p := fieldpath.Pave(u.Object)
//	region, err := p.GetString("metadata.labels[topology.kubernetes.io/region]")
//	if err != nil && !fieldpath.IsNotFound(err) {
//		return ctrl.Result{}, err
//	}
//	if err := p.SetValue("status.atProvider.region", region); err != nil {
//		return ctrl.Result{}, err
//	}
//
// For a path used in a hot loop, compile it once; Get then allocates nothing:
//
//	replicas := fieldpath.MustCompile("spec.replicas")
//	for _, obj := range objs {
//		v, err := replicas.Get(obj)
//
// # Syntax
//
// A path is field names after dots, indexes in brackets, field names in
// brackets (dots are part of the name), optionally quoted, and wildcards
// (* or [*], for ExpandWildcards only). Inside brackets a backslash escapes
// a backslash, a bracket or a quote; before any other byte it stands for
// itself.
//
//	spec.containers[0].name
//	metadata.labels[app.kubernetes.io/name]
//	a['0']                                     the field "0", not index 0
//	a[x\]y]                                    the field "x]y"
//	spec.containers[*].ports[*].containerPort  wildcards, for ExpandWildcards
//
// An invalid path is an error wrapping ErrInvalidPath with the 0-based byte
// position at fault:
//
//	metadata..name       empty field name at position 9
//	spec.containers[-1]  negative index -1 at position 16
//
// # Semantics
//
// Get returns the value without copying it. A missing field, an index past
// the end and a null on the way are not-found (IsNotFound, ErrNotFound); a
// value of the wrong type on the way wraps ErrWrongType. Set creates missing
// parents, pads arrays with nulls and replaces null parents; it checks
// everything first, so a failed Set changes nothing. It stores fresh copies
// in the form the Kubernetes JSON decoder produces (int64 for whole numbers,
// float64, string, bool, nil, []any, map[string]any); a value that cannot be
// stored (NaN, a channel, a cycle) wraps ErrInvalidValue. DeleteField of a
// missing path is not an error. ExpandWildcards returns concrete paths,
// object keys sorted. MergeValue with nil MergeOptions replaces the value.
// Nothing panics on any path, value or object, except MustCompile. Errors
// never quote a value: they name the path and the value's type and size.
//
// Limits:
//
//   - index: at most DefaultMaxIndex (1024) on every method and Parse; MaxIndex changes it.
//   - value depth: maps and lists nested more than 10000 deep cannot be stored.
//   - cache: 1024 compiled paths, and 512 recently used, of at most 256 bytes (longer ones are parsed each time); a hit allocates nothing.
//
// docs/design/fieldpath.md has the full syntax and the porting table.
package fieldpath
