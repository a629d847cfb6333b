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
// Set keeps one condition per type; an existing type keeps its position and
// new types are appended. lastTransitionTime changes only when the status
// changes, stamped in whole seconds by the Setter's clock (the real clock
// for the package-level functions). Set reports whether anything changed and
// allocates nothing when nothing did. It does not validate; Validate checks
// the API server's rules for a metav1.Condition. Every condition recorded is
// first normalized as the API server stores it (Normalize: invalid UTF-8 to
// U+FFFD per byte, a message at most MaxMessageLength bytes), so a condition
// read back compares equal. IsUnknown holds for a
// missing condition, so exactly one of IsTrue, IsFalse and IsUnknown holds.
//
// # Unstructured and typed objects
//
// FromUnstructured, SetUnstructured and RemoveUnstructured read and write
// status.conditions of an unstructured.Unstructured with the same semantics,
// keeping other fields, and never change shared content in place. An entry
// that is not a condition, or a repeated type, is an error wrapping
// ErrMalformed that names its index, and nothing is written. No error quotes
// a condition's fields: it names the entry, the field and the value's type
// and size. Code written for
// any typed object uses the Object interface (GetConditions/SetConditions,
// as Cluster API and Flux types have) with SetObject and RemoveObject.
//
// # Claims, summaries and progress
//
// Propagate copies the conditions an XR lists in status.claimConditions (or
// Crossplane's status.claimConditionTypes) to its claim, and removes those it
// propagated once the XR stops listing them (recorded in RecordField). The
// reserved types (IsReserved) are never copied; it reports false when the
// claim already shows what it should:
//
//	changed, err := conditions.Propagate(xr, claim)
//	if err == nil && changed {
//		err = c.Status().Update(ctx, claim)
//	}
//
// PropagateSynced shows the XR's Synced on the claim as CompositeSynced,
// with a message fit for the claim: the one the XR carries for it, or a
// sentence naming the XR for the platform team, never the XR's own. Health
// computes Healthy from an object's Synced, the conditions its composition
// reports and the resources it is made of, naming what is bad but quoting
// no message, so the claim can show it too.
//
// Summarize computes a Ready-style condition with per-type polarity: False
// when something is bad, Unknown when something is unknown, missing or
// stale, True otherwise. SetProgress (and SetProgressUnstructured) writes
// Reconciling and Stalled as kstatus and Flux read them, and removes them
// when they no longer apply.
//
// # Parents of many, and shared objects
//
// Aggregate computes one condition from a condition type of many objects
// (Sources), with Summarize's polarity rules, the worst sources' reason and a
// message that names them; Mirror reports another object's condition under a
// type of one's own, with a Fallback when it is missing. NewPatch records what
// a writer changed in an object's conditions; Patch.Apply makes those changes,
// and only those, to the object as another writer left it, and refuses
// (ErrConflict) to undo a change of the same type unless the writer owns it
// (Owned).
//
// docs/design/conditions.md has the decisions; docs/benchmarks.md the figures.
package conditions
