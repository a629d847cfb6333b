// Package directstatus gives a "direct" controller (one that calls a cloud
// API itself, as Config Connector's direct controllers do) a Ready condition
// that says what it is doing while it does it: which spec field triggered an
// update, before the update is sent, and how the update ended.
//
//	first, changed, err := fielddiff.FirstChangedField(desired, actual, fielddiff.Prefix("spec"))
//	if err != nil {
//		return ctrl.Result{}, err
//	}
//	if !changed { // a periodic sync with nothing to do writes nothing
//		_, err := r.status.SetReady(ctx, obj, directstatus.UpToDate())
//		return ctrl.Result{RequeueAfter: syncPeriod}, err
//	}
//	op, err := r.status.StartUpdate(ctx, obj, first) // Ready=False Updating, before the call
//	if err != nil {
//		return ctrl.Result{}, err
//	}
//	if err := r.cloud.Update(ctx, desired); err != nil {
//		return ctrl.Result{}, op.Failed(ctx, err) // Ready=False UpdateFailure, same first field
//	}
//	return ctrl.Result{RequeueAfter: syncPeriod}, op.Succeeded(ctx) // Ready=True UpToDate
//
// where r.status is a Writer and package fielddiff finds the first changed field;
// examples/direct is a complete controller.
//
// # The Ready condition
//
//	state                 status  reason         message
//	starting an update    False   Updating       Updating resource (first field path: spec.foo)
//	periodic/forced sync  False   Updating       Updating resource (triggered by periodic sync)
//	update succeeded      True    UpToDate       Resource is up to date
//	update failed         False   UpdateFailure  Failed to update resource (first field path: spec.foo): <error>
//	starting a create     False   Creating       Creating resource
//	create failed         False   CreateFailure  Failed to create resource: <error>
//	starting a delete     False   Deleting       Deleting resource
//	delete failed         False   DeleteFailed   Failed to delete resource: <error>
//	dependency waited on  False   DependencyNotReady, DependencyNotFound   <error>
//	cannot go on          False   DependencyInvalid, ManagementConflict    <error>
//
// OperationID records a long-running operation's ID at the end of the
// message, quoted; OperationIDOf and ParseOperationID read it back exactly.
// RequestID derives the idempotency key a cloud API takes with a call (a
// UUID from the object's UID, generation and the caller's parts), so that a
// controller that crashes before recording the ID starts no second
// operation when it calls again.
//
// Beside Ready the Writer keeps Reconciling=True while Ready is not True, and
// removes it at UpToDate; DependencyInvalid, ManagementConflict, and
// Operation.Failed with a cause wrapped in controller-runtime's
// reconcile.TerminalError write Stalled=True instead, so kstatus, Flux and
// Argo CD see working, stuck and done. RecordEvents records an event on each
// Ready transition (Warning for failures, dependencies and stalls).
//
// # Writing the status
//
// A Writer sets one Ready condition (keeping other types) and the
// observedGeneration through the status subresource, and writes nothing when
// nothing changed. A conflict is retried on a fresh read; if that read finds
// a new generation the condition is not written (ErrGenerationChanged).
// The Writer's errors never quote a value read from the object: they name
// the field and the value's type and size. (UpdateFailure and CreateFailure
// put the caller's error into the message as it is.)
//
// Limits, one line each:
//
//   - operation ID: one longer than MaxOperationIDLength (4,096 bytes quoted) is not recorded.
//   - message: cut at a rune boundary to what the API server accepts, never through the ID.
//   - conflicts: a write makes at most 5 attempts (DefaultBackoff), each wait at most 10ms.
//
// Metrics: the OnWrite option sees every status write; package
// directstatus/metrics counts them (ctrlkit_directstatus_writes_total).
//
// docs/design/directstatus.md has the decisions and the mapping from Config
// Connector.
package directstatus
