// Package fieldpath reads and writes values in unstructured Kubernetes
// objects (the map[string]any inside an unstructured.Unstructured) by field
// path, such as "spec.containers[0].image" or
// "metadata.labels[app.kubernetes.io/name]".
//
// It is the engine the other ctrlkit packages use to follow toFieldPath,
// workloadRefPath and similar user-written paths. Its syntax and method
// names are those of crossplane-runtime's pkg/fieldpath, so code and
// compositions written for it keep working, and it is an order of magnitude
// faster: it parses without a goroutine, caches parsed paths, and reads
// without allocating.
//
// # Use
//
// Pave an object, then get and set by path:
//
//	p := fieldpath.Pave(u.Object)
//	region, err := p.GetString("spec.forProvider.region")
//	if fieldpath.IsNotFound(err) {
//		// not set
//	}
//	err = p.SetValue("status.atProvider.arn", arn)
//
// For a path used in a hot loop, compile it once:
//
//	var replicas = fieldpath.MustCompile("spec.replicas")
//	v, err := replicas.Get(obj)
//
// # Syntax
//
// A path is a list of segments:
//
//   - A field name, separated from what precedes it by a dot:
//     spec.forProvider.region. Any bytes but '.', '[' and ']' may appear in
//     it.
//   - An array index in brackets, a non-negative decimal integer:
//     spec.containers[0].name. Leading zeros are allowed.
//   - A field name in brackets, in which dots are part of the name:
//     metadata.labels[app.kubernetes.io/name]. Text in brackets that is not
//     an integer is a field name.
//   - A field name in single or double quotes in brackets, which makes any
//     text a name (see the examples below).
//   - A wildcard, * as a field name or [*], which matches every field of an
//     object or every element of an array. Only ExpandWildcards accepts it.
//
// Inside brackets, quoted or not, a backslash escapes a backslash, either
// bracket and either quote, so every key can be written. A backslash before
// any other byte stands for itself, as it does in crossplane-runtime.
//
// Valid paths:
//
//	metadata.name
//	spec.containers[0].name
//	spec.items[0][8]
//	[42]
//	data[.config.yml]                                    the field ".config.yml" of data
//	metadata.annotations['crossplane.io/external-name']
//	metadata.annotations["example.com/x"]
//	a['0']                                               the field "0", not index 0
//	a['']                                                the empty field name
//	a['*']                                               the field "*", not a wildcard
//	a[x\]y]                                              the field "x]y"
//	a['it\'s']                                           the field "it's"
//	a[C:\temp]                                           the field "C:\temp"
//	spec.containers[*].ports[*].containerPort            wildcards, for ExpandWildcards
//
// Invalid paths, each rejected with an error that wraps ErrInvalidPath and
// gives the 0-based byte position at fault:
//
//	""                   empty path
//	.metadata.name       empty field name at position 0
//	metadata..name       empty field name at position 9
//	metadata.name.       trailing "." at position 13
//	spec.containers.[0]  unexpected "[" after "." at position 16
//	spec.containers[]    empty brackets at position 16
//	spec.containers[0    unterminated "[" at position 15
//	a['b                 unterminated quote at position 2
//	a['b'c]              missing "]" after closing quote at position 5
//	a]b                  unexpected "]" at position 1
//	a[b[0]]              unexpected "[" inside brackets at position 3
//	spec.containers[-1]  negative index -1 at position 16
//	items[1025]          index 1025 is above the limit of 1024 at position 6
//
// The index limit, DefaultMaxIndex (1024), stops a path such as
// items[999999999] from making Set allocate gigabytes (crossplane-runtime's
// fix for CVE-2023-27483). The MaxIndex option changes it for a Paved or a
// compiled Path.
//
// Segments.String writes a path in canonical form, which Parse reads back
// to the same segments: dots between plain field names, and brackets only
// for indexes, wildcards and names that need them. AppendField and AppendKey
// write one field name the same way, for code that builds paths itself; a
// map key is written in brackets even where a dot could hold it
// (spec.labels[team]), as directstatus does.
//
// # Semantics
//
// Get returns the value without copying it. A missing field, an index past
// the end of an array, and a null on the way are not-found errors
// (IsNotFound, ErrNotFound); a value of the wrong type on the way, such as a
// field of a string, wraps ErrWrongType and names the segment and the value.
//
// Set creates missing parents as the next segment needs them, an object for
// a field and an array for an index, pads arrays with nulls up to the index,
// and replaces null parents. It checks everything that can fail before it
// changes anything, so a failed Set leaves the object as it was. It stores
// values in the form the Kubernetes JSON decoder produces (nil, bool, string,
// int64, float64, []any, map[string]any), as fresh copies that share nothing
// with the value passed in:
//
//   - Go integers become int64; a uint64 beyond int64's range becomes float64,
//     as the decoder makes it.
//   - A whole float64 (or float32) within int64's range becomes int64, since
//     encoding/json writes it without a fraction and the decoder reads it back
//     as an integer; other floats stay float64. SetNumber(path, 3) stores
//     int64(3).
//   - A json.Number becomes what the decoder makes of its digits: "2" is
//     int64, "2.0" is float64.
//   - Structs, pointers, typed maps and slices, and types with a MarshalJSON
//     method are marshalled with encoding/json and decoded with
//     k8s.io/apimachinery/pkg/util/json, exactly as the API machinery would.
//   - NaN, infinities, channels, functions, and maps nested more than 10000
//     deep (or containing themselves) cannot be stored: Set returns an error
//     wrapping ErrInvalidValue that says where in the value the problem is.
//
// DeleteField removes a field, or an array element, moving later elements
// down. A path that does not exist is not an error.
//
// ExpandWildcards returns the concrete paths of the values a path matches,
// arrays in index order and object keys sorted. A missing or null prefix
// matches nothing. A key "*" comes back as ['*'], a field, so expanding never
// loops.
//
// MergeValue with nil MergeOptions replaces the value. With options it
// merges objects field by field at every depth, keeps existing values when
// KeepMapValues is set, and appends the missing items of arrays when
// AppendSlice is set. An existing value that Go code put into the content (a
// []string, a map[string]string, a struct) is merged as the JSON value it
// stands for.
//
// Nothing in this package panics on any path, value or object, except
// MustCompile, which is meant for paths written in the source code.
//
// # Decisions where crossplane-runtime differs or is silent
//
//   - Get, Set, Delete and MergeValue reject a path with a wildcard
//     (ErrInvalidPath) instead of treating "*" as a key; write ['*'] for
//     the key "*".
//   - [-1] is an error; crossplane-runtime reads it as the field "-1". Write
//     ['-1'] for that field.
//   - The index limit applies to every method, and to Parse, not only to
//     Set. MaxIndex(0) keeps the default; crossplane-runtime's
//     WithMaxFieldPathIndex(0) meant no limit. No limit above math.MaxInt32
//     is honoured. ExpandWildcards rejects an array with more elements than
//     the limit allows, since the paths it would return could not be used.
//   - Quotes mean something only directly inside brackets; a field name
//     after a dot is taken literally. crossplane-runtime trims quotes from
//     every name.
//   - Backslash escapes inside brackets are this package's: crossplane-runtime
//     has none, and takes everything up to the first ']' literally. So a
//     path with a backslash before ']', a quote or a backslash reads
//     differently: a[x\] and a["x\"] are the field x\ there and unterminated
//     brackets here (write a[x\\]); a[x\\y] is the field x\\y there and x\y
//     here. The issue asks for the escapes so that every key can be written
//     (crossplane-runtime cannot address a key holding ']'), and the paths
//     that change address keys Kubernetes does not allow where paths usually
//     point: label and annotation keys and ConfigMap and Secret keys cannot
//     hold a backslash. A backslash before any other byte still stands for
//     itself (a[C:\temp]), as it does in crossplane-runtime.
//   - A field name may follow a closing bracket directly (a[0]b), as
//     crossplane-runtime allows; the canonical form adds the dot.
//   - Passing through null is not-found, for Get, Delete and ExpandWildcards
//     alike (ExpandWildcards returns no paths); Set replaces the null.
//   - GetValueInto decodes as the Kubernetes decoder does: case-sensitive
//     field names, int64 for integers in interface values.
//   - GetInteger also accepts the other Go integer types, whole floats and
//     integral json.Numbers, which hand-built content may hold.
//   - MergeOptions has plain bool fields, with the same JSON names
//     (keepMapValues, appendSlice). KeepMapValues also keeps an existing
//     scalar at the path itself, and treats null as absent; appended array
//     items are compared by JSON value, so int64(1) equals float64(1).
//   - PaveObject uses the content of a runtime.Unstructured that hands out
//     its own map, such as *unstructured.Unstructured, as it is (so writes
//     reach the object, including an empty one). An
//     *unstructured.UnstructuredList builds its content afresh on every call,
//     sharing its items but not its top level, so writes to that content
//     would reach the list in part; it is paved over a deep copy instead,
//     which SetUnstructuredContent writes back. Any other object is converted
//     with runtime.DefaultUnstructuredConverter. A nil object is an error,
//     not a panic.
//   - UnstructuredContent of a Paved with no content creates and keeps an
//     empty map, so that writes to it are not lost.
//
// # Performance
//
// The string-path methods of Paved look paths up in a lock-free, 4-way
// set-associative cache of 1024 compiled paths of at most 256 bytes (longer
// paths are parsed every time), so memory stays bounded whatever paths a
// program sees, and a hit allocates nothing. Eviction gives a second chance
// to paths read since the last eviction, so the paths a controller uses on
// every reconcile survive a stream of paths used once. A table of 512 recent
// paths, indexed by the address of the caller's string, finds a path passed
// as the same string again (a constant, say) without hashing it. A compiled
// Path skips even the lookup. The project's docs/benchmarks.md has the
// figures.
package fieldpath
