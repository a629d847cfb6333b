// Package conflict is how the example controllers meet a write conflict on
// the object they reconcile: they drop it. A conflict means the object
// changed since it was read; the watch event of that change queues the object
// again, so the next reconcile works on the new version and nothing is lost.
// Retrying inside Reconcile would repeat that work, and returning the error
// would log it and back off for no reason.
package conflict

import apierrors "k8s.io/apimachinery/pkg/api/errors"

// Ignore returns nil for a conflict and err otherwise.
func Ignore(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}
