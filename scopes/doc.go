// Package scopes lets OAM-style application scopes work with any workload and
// any scope schema, as the design "Scopes and workloads interaction mechanism
// in OAM" proposes: an application controller writes references to its
// workloads into a scope object at the path the scope's ScopeDefinition
// declares (spec.workloadRefPath), without knowing the scope's schema; and a
// scope controller finds, in one call, the workloads it holds and the
// resources those workloads created (their WorkloadDefinition's
// spec.childResourceKinds), without knowing the workloads' schemas.
//
// The smallest use, on an unstructured scope:
//
//	changed, err := scopes.AddWorkloadRef(scope, "spec.workloadRefs",
//		scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"})
//
// and against the API server, where the path comes from the ScopeDefinition:
//
//	_, err := scopes.PatchWorkloadRefs(ctx, c, mapper, scopeRef,
//		scopes.Change{Add: []scopes.WorkloadRef{scopes.RefOf(workload)}})
//	located, err := scopes.Locate(ctx, c, mapper, scope) // workloads, definitions, children
//
// # References in a scope
//
// A reference path is a fieldpath path (spec.workloadRefs,
// spec.TargetEndpoints, spec.groups[0].refs, spec[refs.v1]). AddWorkloadRef,
// RemoveWorkloadRef and WorkloadRefs accept these values there:
//
//   - missing or null: no references. Add creates the list, and any missing
//     objects on the way (OAM's runtime failed on a missing list and panicked
//     on a null);
//   - a list: Add appends unless an entry already refers to the same workload,
//     Remove deletes every such entry; the others keep their order (OAM's
//     runtime swapped elements) and entries that are not references are kept;
//   - an object, a singular workloadRef field: Add replaces it, Remove deletes
//     it.
//
// Anything else (a string, a number, a boolean) is an error wrapping
// ErrMalformed that names the path and the type found, as is a value of the
// wrong type on the way; a path that does not parse wraps
// fieldpath.ErrInvalidPath and gives the position. On error the scope is left
// exactly as it was. Two references are the same when their apiVersion, kind
// and name are equal.
//
// # Writing to the API server
//
// PatchWorkloadRefs applies a Change (references to add and to remove) to one
// scope in one patch: it finds the ScopeDefinition named `<plural>.<group>` of
// the scope's kind through a RESTMapper, reads the scope, applies the change,
// and writes nothing when nothing changed. Its JSON merge patch carries the
// scope's resourceVersion, so a concurrent write makes the API server answer
// with a conflict, and PatchWorkloadRefs reads again and retries (see Backoff):
// N writers adding N references to one scope at once lose none, and the
// scope's other fields are never overwritten (OAM's runtime wrote the whole
// scope with Update and lost one of two concurrent writes). A ScopeDefinition
// without a path opts out: nothing is written. allowComponentOverlap: false is
// enforced (OAM's runtime ignored it).
//
// # Locating resources
//
// ChildResources lists each ChildResourceKind in the workload's namespace with
// its label selector and keeps the objects that have an owner reference to the
// workload's UID (ControllerOnly: a controller reference), following more
// levels of ownership with Depth, sorted by kind, apiVersion, namespace and
// name. Locate does, for every reference of a scope, what a scope controller
// needs: reads the workload, its WorkloadDefinition and its children, listing
// each kind once per call.
//
// # Definitions
//
// By default definitions are OAM's: cluster-scoped core.oam.dev/v1alpha2
// ScopeDefinition and WorkloadDefinition objects named `<plural>.<group>`
// (DefinitionName). The Definitions option points elsewhere, e.g. at
// KubeVela's namespaced definitions. A ScopeDefinition's path is read from
// spec.workloadRefPath (the design's name) or spec.workloadRefsPath (the name
// OAM shipped); RefPath does that.
//
// # Decisions
//
// Where the issue left room, the package decided:
//
//   - A WorkloadRef's UID is written in new entries but never compared. Add
//     refreshes the uid of a matching entry that records a different one (the
//     workload was deleted and created again), and leaves alone an entry
//     without a uid: a scope whose schema has no uid field prunes it, and
//     adding it back would write on every reconcile.
//   - Add creates missing fields but never array elements: every index the
//     path holds must name an existing element, so no array is padded with
//     nulls.
//   - Remove leaves an empty list rather than deleting the field, which a
//     schema may require.
//   - WorkloadRefs, and so Locate, are strict: an entry that is not a
//     reference is an error naming its index, while Add and Remove keep such
//     entries untouched.
//   - The names of core-group kinds' definitions are the plural alone
//     ("services"), since "services." is not a valid name.
//   - Only an explicit allowComponentOverlap: false forbids overlap; a missing
//     field allows it, as OAM's runtime always did. Overlap means another
//     scope of the same kind, in the same namespace, holds the reference. The
//     check and the write are two requests, so two writers adding one workload
//     to two scopes at the same instant can both succeed; only an admission
//     webhook could close that window.
//   - PatchWorkloadRefs uses a merge patch with optimistic locking rather than
//     server-side apply: a scope's schema is unknown, and its lists are
//     usually atomic, so appliers would overwrite each other's entries.
//   - Without AtPath, a missing ScopeDefinition is an error
//     (ErrDefinitionNotFound): the path is unknown. With AtPath the path is
//     taken as given, but when references are added the definition is still
//     read, if it exists, for its overlap rule.
//   - Removing references from a scope that does not exist, or whose kind is
//     not installed (with or without AtPath), succeeds without a write: it
//     holds no references. This, with AtPath and a recorded path, lets a
//     finalizer finish after the scope or its ScopeDefinition is gone. Adding
//     to such a scope is an error.
//   - A Backoff's fields whose zero would make no sense take DefaultBackoff's:
//     Steps below 1 (wait.Backoff would make no attempt, not even the read)
//     and a Duration of zero or less; a zero Backoff is DefaultBackoff. A
//     zero Factor, Jitter or Cap keeps its wait.Backoff meaning.
//   - A Change that adds and removes the same reference is an error
//     (ErrInvalidRef) rather than an order-dependent no-op.
//   - A workload of a namespaced kind is looked for in the scope's namespace;
//     a cluster-scoped workload's children in every namespace.
//   - A missing WorkloadDefinition, including one whose kind is not installed,
//     means no children; a child kind that is not installed is an error.
//   - Depth counts levels of ownership, and every level searches every kind;
//     an object is returned once, so cycles of owner references end the walk.
//     An object is known by its UID or, when it has none (controller-runtime's
//     fake client sets none), by its group, kind, namespace and name.
//   - Locate returns one Located per reference, in the scope's order, even
//     when some fail, with the failures joined into its error; it does not
//     compare a reference's UID with the workload's.
//
// # Performance
//
// One run on the development machine (2 cores, quiet: nothing else running,
// go1.26, -benchtime=1s, 2026-11-22), from BenchmarkAddWorkloadRef,
// BenchmarkRemoveWorkloadRef and BenchmarkChildResources:
//
//	Add, reference present (a settled reconcile), 10 refs     247 ns    1 alloc
//	Add, reference present, 100 refs                          1.4 µs    1 alloc
//	Remove, reference absent, 10 refs                         186 ns    1 alloc
//	Add then Remove a new reference, 10 refs                  1.7 µs   17 allocs
//	Add then Remove a new reference, 100 refs                 6.0 µs   19 allocs
//	ChildResources, 2000 listed objects, 10 children          385 µs   68 allocs
//	ChildResources, 2000 listed objects, 2 levels, 20         626 µs   76 allocs
//
// Add and Remove allocate the same small amount whatever the length of the
// list: they append and delete in place (Remove's 2 allocations more since
// 2026-11-22 pave the list with an index limit raised to its length, so
// that lists longer than 1,024 references can be shrunk; copying the list through SetValue
// cost 95 µs and 417 allocations for 100 references, earlier run, busy
// machine). ChildResources costs about 193 ns per listed object, including
// the in-memory reader the benchmark lists from; a cache or the API server
// costs more to list from.
package scopes
