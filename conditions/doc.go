// Package conditions sets, reads, summarizes and propagates the
// metav1.Conditions of Kubernetes objects, typed or unstructured, with correct
// transition times and change detection, so that a reconciler writes status
// only when it changed.
//
//	changed := conditions.Set(&db.Status.Conditions, metav1.Condition{
//		Type:               "DatabaseReady",
//		Status:             metav1.ConditionFalse,
//		Reason:             "NotFound",
//		Message:            "database orders does not exist",
//		ObservedGeneration: db.Generation,
//	})
//	if changed {
//		err = c.Status().Update(ctx, db)
//	}
//
// # Setting conditions
//
// Set keeps one condition per type (existing types keep their position, new
// ones are appended); lastTransitionTime changes only with the status, in
// whole seconds of the Setter's clock. It reports whether anything changed,
// allocates nothing when nothing did, and stores a condition as the API
// server does (Normalize: U+FFFD per invalid byte, a message of at most
// MaxMessageLength bytes), so one read back compares equal. Validate checks
// the API server's rules. Exactly one of IsTrue, IsFalse and IsUnknown holds
// (a missing condition is unknown).
//
// # Unstructured and typed objects
//
// FromUnstructured, SetUnstructured and RemoveUnstructured do the same on an
// unstructured.Unstructured's status.conditions, never changing shared
// content in place. A malformed entry or a repeated type is an error wrapping
// ErrMalformed that names its index; nothing is written, and no error quotes
// a field's value. SetObject and RemoveObject serve any type with
// GetConditions/SetConditions (Object), as Cluster API and Flux types have.
//
// # Claims, summaries and progress
//
// Propagate copies the conditions an XR lists in status.claimConditions (or
// Crossplane's status.claimConditionTypes) to its claim, never a reserved
// type (IsReserved), and removes those it propagated once the XR stops
// listing them:
//
//	changed, err := conditions.Propagate(xr, claim)
//	if err == nil && changed {
//		err = c.Status().Update(ctx, claim)
//	}
//
// PropagateSynced shows the XR's Synced on the claim as CompositeSynced, in
// words fit for the claim; Health computes Healthy from Synced, the
// composition's conditions and the composed resources, quoting no message.
// Summarize computes a Ready-style condition with per-type polarity, and
// SetProgress writes Reconciling and Stalled as kstatus and Flux read them.
//
// # Parents of many, and shared objects
//
// Aggregate computes one condition from a condition type of many Sources
// (the worst sources' reason, a message naming them); Mirror reports another
// object's condition under a type of one's own, with a Fallback. NewPatch
// records a writer's changes to an object's conditions, and Patch.Apply
// makes only those to the object as another writer left it, refusing
// (ErrConflict) to undo a change of a type it does not own (Owned).
//
// docs/design/conditions.md has the decisions; docs/benchmarks.md the figures.
package conditions
