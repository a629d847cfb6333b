// Package scopes lets OAM-style application scopes work with any workload and
// any scope schema: an application controller writes references to its
// workloads into a scope object at the path the scope's ScopeDefinition
// declares (spec.workloadRefsPath, as OAM and KubeVela name it, or the
// design's spec.workloadRefPath), without knowing the scope's schema; and a
// scope controller finds, in one call, the workloads it holds and the
// resources those workloads created (their WorkloadDefinition's
// spec.childResourceKinds), without knowing the workloads' schemas.
//
// On an unstructured scope:
//
//	web := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
//	changed, err := scopes.AddWorkloadRef(scope, "spec.TargetEndpoints", web)
//
// and against the API server, where the path comes from the ScopeDefinition:
//
//	scope := scopes.ScopeRef{APIVersion: "core.oam.dev/v1alpha2", Kind: "HealthScope", Namespace: req.Namespace, Name: "example"}
//	_, err := scopes.PatchWorkloadRefs(ctx, r.Client, r.RESTMapper, scope,
//		scopes.Change{Add: []scopes.WorkloadRef{scopes.RefOf(web)}})
//
// A scope controller calls Locate for its workloads, their definitions and
// their children. docs/design/scopes.md has the decisions and the
// differences from OAM's runtime and KubeVela.
//
// # References in a scope
//
// A reference path is a fieldpath path (spec.workloadRefs,
// spec.TargetEndpoints, spec.groups[0].refs, spec[refs.v1]) that names a
// list outside metadata and status. The list may be missing or null (Add
// creates it, and missing objects on the way); Add appends unless an entry
// refers to the same workload, Remove deletes every such entry, and the
// other entries keep their order. Entries that are not references (a
// string, OAM's placeholder {"apiVersion":"","kind":"","name":""}) are kept
// by Add and Remove and skipped by WorkloadRefs and Locate (ReportSkipped
// lists them). Two references are the same when their apiVersion, kind and
// name are equal.
//
// Any other path is refused, and nothing is written: one CheckRefPath
// refuses (in metadata, status, apiVersion or kind; a wildcard; an index
// first), or one whose value is not a list (an object such as spec, a
// string). The error wraps ErrInvalidRefPath and names the ScopeDefinition
// or the AtPath option, the path and why. Errors and skipped entries never
// quote a value read from a scope or a definition: they name its path and
// its type and size.
//
// # Writing to the API server
//
// PatchWorkloadRefs applies a Change to one scope in one JSON merge patch
// that carries the scope's resourceVersion; on a conflict it reads again
// and retries, with jittered back-off (Backoff), until it succeeds, the
// attempts run out (the error wraps the last conflict), or ctx is done. Concurrent writers lose no reference, add none twice, and keep
// the scope's other fields. allowComponentOverlap: false is enforced.
//
// # Definitions
//
// FindDefinition finds definitions as OAM and KubeVela do: by the type
// label, then by `<plural>.<group>`, then by spec.definitionRef.name, in the
// application's namespace, then vela-system (DefaultDefinitionNamespaces).
// Without a ScopeDefinition, adding is an error (ErrDefinitionNotFound) and
// removing succeeds without a write.
//
// Metrics: ctrlkit_scopes_patches_total counts the patches of workload
// references by result (success, conflict, error), in controller-runtime's
// registry (docs/guide.md).
//
// Limits:
//   - PatchWorkloadRefs makes at most 10 attempts (DefaultBackoff), whose
//     waits add up to at most 2.13s, then returns the last conflict;
//   - Locate lists each child kind once per call;
//   - Locate and ChildResources read no Secret, as a workload or a child,
//     unless ReadKinds allows it;
//   - a namespaced scope reads nothing outside its namespace: no
//     cluster-scoped workload unless ClusterScopedWorkloads allows its kind,
//     children in the scope's namespace only, and one message for a
//     workload that is missing and one that may not be read.
package scopes
