// Package results lets a composition function tell the user what happened,
// on the composite resource (XR) and on its claim, through events and status
// conditions; and it is the control-plane side that applies a function's
// output as Crossplane does.
//
// # Writing results (a function)
//
// Code that calls function-sdk-go's result and condition helpers ports to
// package results/response by changing two imports; a whole function keeps
// the SDK and adds ctrlkit's results with response.AddTo; see that package.
// Package results/rules turns the conditions of composed resources into
// conditions and events by hooks, as function-status-transformer does.
// Package results has the builder of the fn-claim-conditions design, whose
// result carries its condition and, optionally, a friendlier message for the
// claim:
//
//	r := results.Fatal(errors.New("You are unauthorized to access this resource.")).
//		TargetCompositeAndClaim().
//		ConditionFalse("DatabaseReady", "Unauthorized").
//		Build()
//
// results.AddResult adds r to a resultsv1.Response, response.AddResult to a
// Crossplane RunFunctionResponse.
//
// One model serves both layouts: a result's condition is shorthand for a
// result followed by a condition of the response (Crossplane's
// RunFunctionResponse.conditions) with the result's target and message.
// ToCrossplane and FromCrossplane convert between resultsv1.Response and
// Crossplane's layout; Validate checks a result strictly, for a function's
// tests.
//
// # Applying results (a control plane)
//
//	out, err := r.applier.Apply(results.FromCrossplane(rsp), xr, claim, results.Step("check-image"))
//	if err != nil {
//		return ctrl.Result{}, err // malformed status; nothing changed
//	}
//	if out.CompositeChanged {
//		if err := r.Status().Update(ctx, xr); err != nil {
//			return ctrl.Result{}, err
//		}
//	}
//	if out.ClaimChanged {
//		err = r.Status().Update(ctx, claim)
//	}
//
// Apply sets every condition, then records the results' events up to the
// first fatal result, with Crossplane's reasons and messages; when out.Fatal
// is nil the caller sets Synced=True. A condition targeting the claim is
// listed in status.claimConditionTypes, and conditions.Propagate copies it to
// the claim. What Crossplane accepts never fails the run; what cannot be
// applied (a system condition type such as Ready, an invalid type) is skipped
// with a Warning event. Beyond Crossplane, a condition that results stop
// setting is removed (see WithRecordField), and a claim message keeps an
// internal error's detail off the claim; a fatal result's claim message is
// what conditions.PropagateSynced shows of the failure. Applier.Apply has the rules;
// docs/design/results.md the differences from Crossplane and their reasons.
//
// Limits: event messages are shortened to 1024 bytes, event reasons to 128,
// condition messages to 32768 and to MaxMessagesLength (256 KiB) in all; one
// Apply applies at most MaxConditions (256) conditions and records at most
// MaxEvents (100) events, and one more.
//
// Imports: client-go (for the Applier's events recorder), apimachinery and
// protobuf; a function that only adds results imports results/response,
// which pulls protobuf alone.
package results
