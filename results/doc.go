// Package results lets a composition function tell the user what happened,
// on the composite resource (XR) and on its claim, through events and status
// conditions; and it is the control-plane side that turns a function's
// results into those events and conditions. Design:
// ../shared/seeds/fn-claim-conditions.md.
//
// # Writing results (a function)
//
// A result has a severity (fatal, warning, normal), a message, a target (the
// XR only, or the XR and its claim) and optionally a condition to set:
//
//	r := results.Fatal(errors.New("You are unauthorized to access this resource.")).
//		TargetCompositeAndClaim().
//		WithConditionFalse("DatabaseReady", "Unauthorized").
//		Build()
//	if err := results.AddResult(rsp, r); err != nil { ... } // rsp is a *resultsv1.Response
//
// or, adding to the response as the chain goes (package results/response):
//
//	response.Fatal(rsp, err).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim()
//
// WithReason sets the event's reason, and WithClaimMessage a friendlier
// message for the claim: the XR keeps the detailed error while the claim says
// "Internal error, the platform team has been alerted".
//
// Validate says what is wrong with a result; AddResult and the Applier call
// it. Ready and Synced are reserved for the control plane: a result that
// would set them is rejected with an error wrapping ErrReservedType (Crossplane
// drops it silently). The type and reason follow conditions.Validate.
//
// # Applying results (a control plane)
//
// An Applier applies a pipeline's Response to an XR and, optionally, its
// claim (both *unstructured.Unstructured), and says which of them to write:
//
//	out, err := applier.Apply(rsp, xr, claim)
//	if err != nil { return err }      // malformed status; nothing changed
//	if out.Fatal == nil { /* set Synced=True yourself */ }
//	if out.CompositeChanged { err = c.Status().Update(ctx, xr) }
//	if out.ClaimChanged { err = c.Status().Update(ctx, claim) }
//
// The rules (Applier.Apply has the details):
//
//   - Every result records an event on the XR: Warning for fatal and warning
//     results, Normal for normal ones, with reason ReconcileError for fatal
//     and ComposeResources otherwise unless the result sets its own. A result
//     for the claim records it on the claim too, with its claim message.
//   - A result's condition is set on the XR with the XR's generation as
//     observedGeneration; a result for the claim lists the type in the XR's
//     status.claimConditions, and conditions.Propagate carries it to the
//     claim (Apply does that when given the claim; so should the claim's
//     controller).
//   - A fatal result sets Synced=False (ReconcileError, its message) after its
//     own event and condition, and ends the run: the results after it are not
//     applied. An invalid result is not applied and ends the run the same way,
//     with Synced and the event saying what is wrong.
//   - Ownership: the condition types that results set are recorded in the
//     XR's status.resultConditions (see RecordField). A type set on the
//     previous run and not on this one is removed from the XR and from
//     claimConditions (and so from the claim), unless the run was fatal.
//     Conditions no result set, such as other controllers', are never touched.
//     Both lists keep the order in which their types first appeared, so the
//     same results in another order (a function ranging over a map) write
//     nothing.
//
// # Decisions
//
// Where the issue left room, the package decided:
//
//   - A result that targets the claim and has a claim message sets its
//     condition with the claim message, on the XR too: the claim mirrors the
//     XR's condition through conditions.Propagate, and a claim message kept
//     elsewhere would make the XR's controller and the claim's controller
//     undo each other's writes. The detailed message is on the XR's event and,
//     for a fatal result, on its Synced condition.
//   - A claim message on a result that does not target the claim is an error
//     (it would be lost); so is a fatal or warning result without a message,
//     and a normal result with neither a message nor a condition.
//   - A result with an empty message records no event; a normal result with
//     a condition and no message (the seed's "DatabaseReady True Available"
//     with no message) just sets the condition.
//   - An invalid result stops the run like a fatal one, so that the function
//     author sees it on the XR at once; Outcome.Fatal wraps ErrInvalidResult.
//   - Synced=False is set only by a fatal run; Synced=True belongs to the
//     caller, whose reconcile may fail after Apply.
//   - When two results set one type, the last one wins, its target included.
//   - Event messages longer than the API server's 1024 bytes are shortened,
//     and so is a Synced message longer than a condition's 32768.
//   - Events are recorded on every run, as Crossplane does; the event
//     recorder aggregates repeats. The XR and claim are written only when
//     they changed.
//
// # Performance
//
// Applying 50 results (20 of which set conditions, 10 of those for the
// claim) to an XR with 20 conditions (BenchmarkApply, go1.26, 2 cores, quiet:
// nothing else running; one run on 2026-11-22 with the default -benchtime):
//
//	settled, with the claim       32 µs/op   15.2 KB/op   206 allocs/op
//	settled, no claim             21 µs/op    9.1 KB/op   167 allocs/op
//	every condition changing     152 µs/op   98.8 KB/op   419 allocs/op
//
// The settled case is a reconciler's steady state; half of its allocations
// are the 50 events' formatting (the recorder's variadic arguments). A change
// costs more because conditions.SetUnstructured reads the whole list again
// for each changed condition; a batch setter in package conditions would
// remove most of that.
//
// # Crossplane's wire format
//
// ToCrossplane and FromCrossplane convert a Response to and from the wire
// layout of Crossplane v1.17+'s RunFunctionResponse results and conditions.
package results
