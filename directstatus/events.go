package directstatus

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
)

// The events that record a transition of Ready (RecordEvents).

// eventType is the type of the event that records a transition to c:
// Warning for a failure or a stall, Normal otherwise.
func eventType(c metav1.Condition, p conditions.Progress) string {
	if p == conditions.Stalled {
		return corev1.EventTypeWarning
	}
	switch c.Reason {
	case ReasonCreateFailure, ReasonUpdateFailure, ReasonDeleteFailed,
		ReasonDependencyNotReady, ReasonDependencyNotFound, ReasonDependencyInvalid, ReasonManagementConflict:
		return corev1.EventTypeWarning
	}
	return corev1.EventTypeNormal
}

// eventAction is the action of the event that records a transition to a
// Ready condition with this reason.
func eventAction(reason string) string {
	switch reason {
	case ReasonCreating, ReasonCreateFailure:
		return "Create"
	case ReasonUpdating, ReasonUpdateFailure:
		return "Update"
	case ReasonDeleting, ReasonDeleteFailed:
		return "Delete"
	}
	return "Reconcile"
}
