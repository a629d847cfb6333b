// Package lastwrite remembers the resourceVersion of a reconciler's own last
// write of each object, so that a reconcile started from a cache that has not
// yet seen that write can be recognised and put off, instead of computing a
// status from stale data and writing it (a conflict at best, a lost update at
// worst), and which watch events bring a version a reconcile has already seen
// (its own write), so that an event filter can drop them.
//
// A cache that stays behind for longer than MaxBehind (its watch is
// reconnecting, e.g. after an API server outage, which client-go backs off up
// to half a minute) is not waited for: Get then reads from the API server.
//
// Resource versions are compared as integers, as apimachinery's
// resourceversion package allows (KEP-5504); where a version does not parse,
// the cache is trusted.
package lastwrite

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Tracker maps objects to the resourceVersion of their last write. The zero
// value is ready to use and safe for concurrent use.
type Tracker struct {
	mu  sync.Mutex
	m   map[types.NamespacedName]version
	now func() time.Time // time.Now when nil; set by tests
}

// MaxBehind is how long Get puts reconciles of an object off while the cache
// holds a version older than the last write, before it reads the object from
// the API server instead.
const MaxBehind = time.Second

// A version is what a Tracker knows of one object.
type version struct {
	rv string // the last recorded resourceVersion
	// waiting is set when a reconcile was put off because the cache held
	// a version older than rv: the watch event that brings rv must pass.
	waiting bool
	// active is set between Begin and End.
	active bool
	// missed is the newest version whose watch event Reconciled dropped
	// while a reconcile was active.
	missed string
	// behindSince is when Get first found the cache behind rv; zero once
	// it finds the cache caught up.
	behindSince time.Time
}

// entry returns k's entry; t.mu is held.
func (t *Tracker) entry(k types.NamespacedName) version {
	return t.m[k]
}

// set stores k's entry, or drops it when it holds nothing; t.mu is held.
func (t *Tracker) set(k types.NamespacedName, v version) {
	if v == (version{}) {
		delete(t.m, k)
		return
	}
	if t.m == nil {
		t.m = make(map[types.NamespacedName]version)
	}
	t.m[k] = v
}

// Record notes that the object k was written, or read by a reconcile, and now
// has resourceVersion rv.
func (t *Tracker) Record(k types.NamespacedName, rv string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.entry(k)
	v.rv, v.waiting = rv, false
	t.set(k, v)
}

// Forget drops what is known of k, e.g. once it is deleted.
func (t *Tracker) Forget(k types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.entry(k)
	t.set(k, version{active: v.active}) // End still comes
}

func (t *Tracker) clock() time.Time {
	if t.now != nil {
		return t.now()
	}
	return time.Now()
}

// Behind reports whether rv is older than the last recorded write of k.
func (t *Tracker) Behind(k types.NamespacedName, rv string) bool {
	t.mu.Lock()
	last := t.entry(k)
	t.mu.Unlock()
	return older(rv, last.rv)
}

// older reports whether a is older than b; false when either does not parse.
func older(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c < 0
}

// atMost reports whether a is not newer than b; false when either does not
// parse.
func atMost(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c <= 0
}

// Begin notes that a reconcile of k starts. Until End, Reconciled drops
// every event of k and notes its version.
func (t *Tracker) Begin(k types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.entry(k)
	v.active, v.missed = true, ""
	t.set(k, v)
}

// End notes that the reconcile of k that Begin announced is over, and
// reports whether an event dropped meanwhile brought a version it did not
// reconcile: one newer than the version it recorded, or any while it was put
// off waiting for the cache. The caller then reconciles k again.
func (t *Tracker) End(k types.NamespacedName) (again bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.entry(k)
	again = v.missed != "" && (v.waiting || !atMost(v.missed, v.rv))
	v.active, v.missed = false, ""
	t.set(k, v)
	return again
}

// Reconciled reports whether an event that brings version rv of k needs no
// reconcile: it is not newer than the last version recorded for k, which a
// reconcile read or wrote, and no reconcile was put off (by Get) waiting for
// the cache to catch up. The watch event of a reconciler's own write brings
// such a version; an event filter that drops those spares a reconcile per
// write. While a reconcile of k is active (Begin), every event needs none:
// its version is noted, and End says whether to reconcile again; the event
// of a write may come before the write's response.
func (t *Tracker) Reconciled(k types.NamespacedName, rv string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.entry(k)
	if v.active {
		if v.missed == "" || !atMost(rv, v.missed) {
			v.missed = rv
			t.set(k, v)
		}
		return true
	}
	return !v.waiting && atMost(rv, v.rv)
}

// Get reads the object key into obj for an attempt of a reconcile that is
// retried on a conflict. The first attempt reads from cache; a retry reads
// from api, since a conflict means the cache is behind the API server. The
// first attempt reports stale when the cache holds a version older than the
// last write recorded for key: the caller should put the reconcile off, since
// that write's watch event will bring the object back (Reconciled lets that
// event through until the next Record). Once the cache has been behind for
// MaxBehind, since the first attempt that found it so and until one finds it
// caught up, the first attempt reads from api instead and reports no stale:
// the watch that would bring the write is likely reconnecting, and a
// reconcile from the API server's object need not wait for it.
func (t *Tracker) Get(ctx context.Context, cache, api client.Reader, key types.NamespacedName, obj client.Object, retrying bool) (stale bool, err error) {
	if retrying {
		return false, api.Get(ctx, key, obj)
	}
	if err := cache.Get(ctx, key, obj); err != nil {
		return false, err
	}
	if !t.behind(key, obj.GetResourceVersion()) {
		return false, nil
	}
	if t.lagging(key) {
		return false, api.Get(ctx, key, obj)
	}
	return true, nil
}

// behind reports whether rv is older than the last recorded write of k, and
// notes when the cache was first found behind, or that it caught up.
func (t *Tracker) behind(k types.NamespacedName, rv string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.entry(k)
	if !older(rv, v.rv) {
		if !v.behindSince.IsZero() {
			v.behindSince = time.Time{}
			t.set(k, v)
		}
		return false
	}
	if v.behindSince.IsZero() {
		v.behindSince = t.clock()
		t.set(k, v)
	}
	return true
}

// lagging reports whether the cache has been behind for k for MaxBehind or
// longer; if not, it notes that a reconcile of k was put off.
func (t *Tracker) lagging(k types.NamespacedName) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.entry(k)
	if t.clock().Sub(v.behindSince) >= MaxBehind {
		return true
	}
	v.waiting = true
	t.set(k, v)
	return false
}

// Await notes that a reconcile of k left work to the watch event of the
// write it recorded last: Reconciled lets every event of k through until
// the next Record, and End, when such an event came while the reconcile was
// still active, asks for another. Get marks a reconcile put off for a stale
// cache the same way.
func (t *Tracker) Await(k types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.entry(k)
	v.waiting = true
	t.set(k, v)
}
