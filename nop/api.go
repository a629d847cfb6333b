package nop

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlkit/ctrlkit/internal/message"
)

// addFinalizer adds the Finalizer to obj, with one patch, unless it is there.
func (r *reconciler) addFinalizer(ctx context.Context, obj client.Object) error {
	if controllerutil.ContainsFinalizer(obj, Finalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(obj, Finalizer)
	return r.client.Patch(ctx, obj, patch)
}

// removeFinalizer removes the Finalizer from obj, with one patch.
func (r *reconciler) removeFinalizer(ctx context.Context, obj client.Object) error {
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(obj, Finalizer)
	return r.client.Patch(ctx, obj, patch)
}

// refusedAsTooLarge says whether the API server refused a write because the
// object is too large: above its request limit (413), or etcd's (a 500 whose
// message is etcd's "request is too large").
func refusedAsTooLarge(err error) bool {
	return apierrors.IsRequestEntityTooLargeError(err) || strings.Contains(err.Error(), "request is too large")
}

// updateStatus writes obj's status with a body that holds only what a
// status write reads: the object's identity, its resourceVersion (the
// optimistic lock) and the status. A PUT to the status subresource takes every
// other field from the stored object, and ignores managedFields in the request,
// so sending the spec and the metadata would only cost the API server their
// decoding; at a deadline shared by many objects that cost is their lateness.
// obj takes the written status and resourceVersion from the response.
func (r *reconciler) updateStatus(ctx context.Context, obj client.Object) error {
	body := r.kind.newObject()
	body.SetNamespace(obj.GetNamespace())
	body.SetName(obj.GetName())
	body.SetUID(obj.GetUID())
	body.SetResourceVersion(obj.GetResourceVersion())
	_, status := parts(obj)
	_, sent := parts(body)
	*sent = *status.DeepCopy()
	start := r.local.Now()
	err := r.client.Status().Update(ctx, body)
	r.metrics.wrote(err, apierrors.IsConflict(err))
	if err != nil {
		return err
	}
	if r.server != nil {
		r.server.observe(start, r.local.Now(), lastManaged(body.GetManagedFields()))
	}
	*status = *sent
	obj.SetResourceVersion(body.GetResourceVersion())
	return nil
}

// event records a warning on obj.
func (r *reconciler) event(obj client.Object, reason, action, note string) {
	if r.recorder != nil {
		r.recorder.Eventf(obj, nil, "Warning", reason, action, "%s", message.Truncate(note, maxEventNote))
	}
}

// maxEventNote is the longest note the API server accepts in an Event.
const maxEventNote = 1024
