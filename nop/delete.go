package nop

import (
	"context"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/message"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// Finalizer holds every NopResource and ClusterNopResource until the
// reconciler has shown it Deleting and honoured spec.forProvider.deleteAfter
// and deleteError.
const Finalizer = "nop.ctrlkit.dev/finalizer"

// delete shows Ready=False (reason Deleting), honours deleteAfter and
// deleteError while the deletion policy lets it, then removes the finalizer.
// The schedule goes on meanwhile for the other types.
func (r *reconciler) delete(ctx context.Context, obj client.Object, p parsedSpec, specErr error, now time.Time) (outcome, error) {
	if !controllerutil.ContainsFinalizer(obj, Finalizer) {
		return outcome{}, nil
	}
	spec, _ := parts(obj)
	deleting := metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionFalse, Reason: ReasonDeleting, Message: "the resource is being deleted"}
	var overrides []metav1.Condition
	var keep func(string) bool
	if specErr != nil {
		// As on any reconcile, a bad spec changes nothing but Synced,
		// Stalled and Ready.
		p, keep = parsedSpec{}, keepAll
		overrides = stalled(ReasonInvalidSpec, specErr.Error())
	}
	if why := releasedAtOnce(spec); why != "" {
		deleting.Message = "the resource is being deleted; " + why
		return r.release(ctx, obj, p, append(overrides, deleting), now, keep)
	}

	var holdFor time.Duration
	if d := spec.ForProvider.DeleteAfter; d != "" {
		var err error
		if holdFor, err = parseDuration("spec.forProvider.deleteAfter", d); err != nil {
			// Hold the deletion until deleteAfter is fixed; any other bad
			// value does not concern deletion.
			deleting.Message = "deletion is held until spec.forProvider.deleteAfter is fixed"
			return r.write(ctx, obj, p, append(overrides, deleting), now, keep)
		}
	}

	holdUntil := obj.GetDeletionTimestamp().Add(holdFor)
	switch {
	case now.Before(holdUntil):
		deleting.Message = fmt.Sprintf("deletion is held by spec.forProvider.deleteAfter (%s) until %s",
			spec.ForProvider.DeleteAfter, holdUntil.UTC().Format(time.RFC3339))
		out, err := r.write(ctx, obj, p, append(overrides, deleting), now, keep)
		if err == nil && (out.next.IsZero() || holdUntil.Before(out.next)) {
			out.next = holdUntil
		}
		return out, err
	case spec.ForProvider.DeleteError != "":
		// deleteError may be as long as a condition message may: cut what is
		// added to it, or no status write would be accepted.
		msg := message.Truncate("cannot delete: "+spec.ForProvider.DeleteError, conditions.MaxMessageLength)
		deleting.Message = msg
		overrides = append(overrides,
			metav1.Condition{Type: conditions.TypeSynced, Status: metav1.ConditionFalse, Reason: ReasonDeleteFailed, Message: msg},
			metav1.Condition{Type: conditions.TypeStalled, Status: metav1.ConditionTrue, Reason: ReasonDeleteFailed, Message: msg})
		out, err := r.write(ctx, obj, p, append(overrides, deleting), now, keep)
		if err == nil && out.wrote {
			r.event(obj, ReasonDeleteFailed, "Delete", msg)
		}
		return out, err
	}
	return r.release(ctx, obj, p, append(overrides, deleting), now, keep)
}

// release writes the status that shows the resource Deleting, if it does not
// yet, and removes the finalizer: a watcher sees Ready=False (reason
// Deleting) before the resource goes.
func (r *reconciler) release(ctx context.Context, obj client.Object, p parsedSpec, overrides []metav1.Condition, now time.Time, keep func(string) bool) (outcome, error) {
	out, err := r.write(ctx, obj, p, overrides, now, keep)
	if err != nil {
		return outcome{}, err
	}
	if err := r.removeFinalizer(ctx, obj); err != nil {
		return outcome{}, err
	}
	log.FromContext(ctx).V(1).Info("finalizer removed")
	out.next, out.released = time.Time{}, true
	return out, nil
}

// releasedAtOnce says why the deletion behaviour of spec (deleteAfter,
// deleteError) is skipped, or returns "" when it is not: spec.deletionPolicy
// Orphan, or management policies that do not allow Delete.
func releasedAtOnce(spec *v1alpha1.NopResourceSpec) string {
	if spec.DeletionPolicy == v1alpha1.DeletionOrphan {
		return "spec.deletionPolicy is Orphan"
	}
	if mp := spec.ManagementPolicies; len(mp) > 0 && !slices.Contains(mp, v1alpha1.ManagementActionAll) && !slices.Contains(mp, v1alpha1.ManagementActionDelete) {
		return "spec.managementPolicies do not include Delete"
	}
	return ""
}
