package nop

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ctrlkit/ctrlkit/conditions"
)

// AnnotationPaused pauses a resource's reconciliation while its value is
// "true", as it pauses a Crossplane managed resource's (crossplane-runtime's
// meta.AnnotationKeyReconciliationPaused).
const AnnotationPaused = "crossplane.io/paused"

// ReasonReconcilePaused: Synced=False while AnnotationPaused is "true", the
// condition crossplane-runtime's ReconcilePaused sets.
const ReasonReconcilePaused = "ReconcilePaused"

// msgPaused is the message of Synced=False while paused.
const msgPaused = "reconciliation is paused by the annotation " + AnnotationPaused + `: "true"; remove it to resume`

// paused reports whether obj's reconciliation is paused.
func paused(obj client.Object) bool { return obj.GetAnnotations()[AnnotationPaused] == "true" }

// pause makes Synced=False (ReconcilePaused) the one change to obj, written
// once: no finalizer, no scheduled transition, no connection Secret, no
// requeue. A deletion waits for the finalizer, if obj has it, until the
// annotation goes; the change that removes it wakes the resource, whose
// schedule then catches up.
func (r *reconciler) pause(ctx context.Context, obj client.Object, now time.Time) (outcome, error) {
	_, status := parts(obj)
	old := status.DeepCopy()
	r.setter.Set(&status.Conditions, metav1.Condition{
		Type: conditions.TypeSynced, Status: metav1.ConditionFalse, Reason: ReasonReconcilePaused, Message: msgPaused,
		ObservedGeneration: obj.GetGeneration(), LastTransitionTime: metav1.NewTime(now),
	})
	if statusEqual(old, status) {
		return outcome{}, nil
	}
	if err := r.updateStatus(ctx, obj); err != nil {
		return outcome{}, err
	}
	log.FromContext(ctx).V(1).Info("reconciliation paused", "annotation", AnnotationPaused)
	return outcome{wrote: true}, nil
}
