// Package lastwrite remembers the resourceVersion of a reconciler's own last
// write of each object, so that a reconcile started from a cache that has not
// yet seen that write can be recognised and put off, instead of computing a
// status from stale data and writing it (a conflict at best, a lost update at
// worst).
//
// Resource versions are compared as integers, as apimachinery's
// resourceversion package allows (KEP-5504); where a version does not parse,
// the cache is trusted.
package lastwrite

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Tracker maps objects to the resourceVersion of their last write. The zero
// value is ready to use and safe for concurrent use.
type Tracker struct {
	mu sync.Mutex
	m  map[types.NamespacedName]string
}

// Record notes that the object k was written and now has resourceVersion rv.
func (t *Tracker) Record(k types.NamespacedName, rv string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[types.NamespacedName]string)
	}
	t.m[k] = rv
}

// Forget drops what is known of k, e.g. once it is deleted.
func (t *Tracker) Forget(k types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, k)
}

// Behind reports whether rv is older than the last recorded write of k.
func (t *Tracker) Behind(k types.NamespacedName, rv string) bool {
	t.mu.Lock()
	last, ok := t.m[k]
	t.mu.Unlock()
	if !ok {
		return false
	}
	c, err := resourceversion.CompareResourceVersion(rv, last)
	return err == nil && c < 0
}

// Get reads the object key into obj for an attempt of a reconcile that is
// retried on a conflict. The first attempt reads from cache; a retry reads
// from api, since a conflict means the cache is behind the API server. The
// first attempt reports stale when the cache holds a version older than the
// last write recorded for key: the caller should put the reconcile off, since
// that write's watch event will bring the object back.
func (t *Tracker) Get(ctx context.Context, cache, api client.Reader, key types.NamespacedName, obj client.Object, retrying bool) (stale bool, err error) {
	reader := cache
	if retrying {
		reader = api
	}
	if err := reader.Get(ctx, key, obj); err != nil {
		return false, err
	}
	return !retrying && t.Behind(key, obj.GetResourceVersion()), nil
}
