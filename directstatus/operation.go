package directstatus

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
)

// An Operation is one create or update of an external resource, reported in
// an object's Ready condition from its start to its end: Updating (or
// Creating) is written before the external call, so that users watching the
// object see it while the call runs, then UpToDate, or UpdateFailure (or
// CreateFailure) with the same first field path and the error.
//
//	op, err := w.StartUpdate(ctx, obj, firstField)
//	if err != nil {
//		return ctrl.Result{}, err // nothing was called
//	}
//	if err := cloud.Update(ctx, desired); err != nil {
//		return ctrl.Result{}, op.Failed(ctx, err)
//	}
//	return ctrl.Result{RequeueAfter: syncPeriod}, op.Succeeded(ctx)
//
// An Operation is used by one goroutine, the reconcile that started it.
type Operation struct {
	w          *Writer
	obj        client.Object
	create     bool
	firstField string
	id         OperationID
}

// StartUpdate writes obj's Ready condition as Updating(firstField) and
// returns the Operation that ends it. Call it after the diff found a change
// (firstField is FirstChangedField's path), or with "" for an update that no
// field triggered, such as a forced periodic sync. When it fails, do not call
// the external API: the object does not show the update.
func (w *Writer) StartUpdate(ctx context.Context, obj client.Object, firstField string) (*Operation, error) {
	op := &Operation{w: w, obj: obj, firstField: firstField}
	if _, err := w.SetReady(ctx, obj, op.running()); err != nil {
		return nil, err
	}
	return op, nil
}

// StartCreate writes obj's Ready condition as Creating and returns the
// Operation that ends it.
func (w *Writer) StartCreate(ctx context.Context, obj client.Object) (*Operation, error) {
	op := &Operation{w: w, obj: obj, create: true}
	if _, err := w.SetReady(ctx, obj, op.running()); err != nil {
		return nil, err
	}
	return op, nil
}

// SetOperationID records the external system's long-running operation in
// the Ready condition (see OperationID), once the external call has returned
// it, so that a controller that restarts can find the operation again.
// Failed keeps it at the end of the failure's message too.
func (op *Operation) SetOperationID(ctx context.Context, id string) error {
	op.id = OperationID(id)
	_, err := op.w.SetReady(ctx, op.obj, op.running())
	return err
}

// Succeeded writes the Ready condition as UpToDate.
func (op *Operation) Succeeded(ctx context.Context) error {
	_, err := op.w.SetReady(ctx, op.obj, UpToDate())
	return err
}

// Failed writes the Ready condition as UpdateFailure, with the first field
// path the operation started with and cause's message, or as CreateFailure,
// with Reconciling=True: the reconciler retries. A cause wrapped in
// controller-runtime's reconcile.TerminalError (the cloud refused the spec,
// and only a spec change can help) writes Stalled=True instead. It returns
// cause, joined with the write's error if that failed too, so that a
// reconciler can return it and be retried with backoff (or not, if
// terminal).
func (op *Operation) Failed(ctx context.Context, cause error) error {
	var c metav1.Condition
	if op.create {
		c = CreateFailure(cause, op.id)
	} else {
		c = UpdateFailure(op.firstField, cause, op.id)
	}
	progress := conditions.Working
	if errors.Is(cause, reconcile.TerminalError(nil)) {
		progress = conditions.Stalled
	}
	if _, err := op.w.setReady(ctx, op.obj, c, progress); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

func (op *Operation) running() metav1.Condition {
	if op.create {
		return Creating(op.id)
	}
	return Updating(op.firstField, op.id)
}
