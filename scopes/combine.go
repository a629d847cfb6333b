package scopes

import (
	"context"
	"reflect"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Concurrent PatchWorkloadRefs calls in one process that write the same
// scope, at the same path, through the same client and reader, are combined:
// one of them reads the scope, applies every waiting change, and writes them
// in one patch, while the others wait for its result. Without this, N
// writers meet N-1 conflicts for every write that succeeds. Each change is
// applied to a copy first, so one that fails (a malformed list, an overlap)
// fails alone; an error of the read or the write fails every change of the
// batch. A writer whose ctx ends while it writes for others hands their
// changes back to be written by one of them.

// A waiter is one call's change and, once done is closed, its result.
type waiter struct {
	change  Change
	done    chan struct{}
	changed bool
	err     error
}

func (w *waiter) finish(changed bool, err error) {
	w.changed, w.err = changed, err
	close(w.done)
}

// A writer writes the changes of the calls that share it.
type writer struct {
	c       client.Client
	reader  client.Reader
	backoff Backoff
	gvk     schema.GroupVersionKind
	scope   ScopeRef
	path    string
	overlap bool
}

// laneKey tells apart the writers whose calls may be combined.
type laneKey struct {
	c, reader any
	gvk       schema.GroupVersionKind
	scope     ScopeRef
	path      string
	overlap   bool
}

// A lane holds the calls waiting on one laneKey.
type lane struct {
	pending []*waiter
	busy    bool          // a call is writing a batch
	idle    chan struct{} // closed when that call is done
	users   int
}

var lanes = struct {
	sync.Mutex
	m map[laneKey]*lane
}{m: map[laneKey]*lane{}}

// write writes w's change, with the changes of concurrent calls that share
// its lane, and finishes w.
func (wr writer) write(ctx context.Context, w *waiter) {
	// Clients are compared as interface values; one whose dynamic type is
	// not comparable writes alone.
	if !comparable(wr.c) || !comparable(wr.reader) {
		wr.commit(ctx, []*waiter{w}, w)
		return
	}
	k := laneKey{c: wr.c, reader: wr.reader, gvk: wr.gvk, scope: wr.scope, path: wr.path, overlap: wr.overlap}
	lanes.Lock()
	l := lanes.m[k]
	if l == nil {
		l = &lane{idle: make(chan struct{})}
		lanes.m[k] = l
	}
	l.users++
	l.pending = append(l.pending, w)
	defer func() {
		if l.users--; l.users == 0 {
			delete(lanes.m, k)
		}
		lanes.Unlock()
	}()
	for {
		select {
		case <-w.done:
			return
		default:
		}
		if i := slices.Index(l.pending, w); i >= 0 && ctx.Err() != nil {
			l.pending = slices.Delete(l.pending, i, i+1)
			w.finish(false, context.Cause(ctx))
			return
		}
		if !l.busy {
			l.busy = true
			batch := l.pending
			l.pending = nil
			lanes.Unlock()
			back := wr.commit(ctx, batch, w)
			lanes.Lock()
			l.pending = append(back, l.pending...)
			l.busy = false
			close(l.idle)
			l.idle = make(chan struct{})
			continue
		}
		idle := l.idle
		lanes.Unlock()
		select {
		case <-w.done:
		case <-idle:
		case <-ctx.Done():
		}
		lanes.Lock()
	}
}

func comparable(v any) bool {
	return v == nil || reflect.TypeOf(v).Comparable()
}

// commit writes the changes of batch in one patch, retrying conflicts as
// wr.backoff says, and finishes their waiters. When ctx ends first, self
// is finished with the error and the others are returned, unfinished, to be
// written by another call.
func (wr writer) commit(ctx context.Context, batch []*waiter, self *waiter) (back []*waiter) {
	type result struct {
		changed bool
		err     error
	}
	results := make([]result, len(batch))
	key := client.ObjectKey{Namespace: wr.scope.Namespace, Name: wr.scope.Name}
	err := wr.backoff.retry(ctx, func() error {
		clear(results)
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(wr.gvk)
		if err := wr.reader.Get(ctx, key, cur); err != nil {
			if !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
				return err
			}
			// A scope that does not exist holds no references to remove.
			for i, w := range batch {
				if len(w.change.Add) > 0 {
					results[i].err = err
				}
			}
			return nil
		}
		orig := cur.DeepCopy()
		var write bool
		for i, w := range batch {
			trial := cur.DeepCopy()
			changed, added, err := w.change.apply(trial, wr.path)
			if err == nil && !wr.overlap && len(added) > 0 {
				err = checkOverlap(ctx, wr.reader, trial, wr.path, added)
			}
			if err != nil {
				results[i].err = err
				continue
			}
			if changed {
				cur, results[i].changed, write = trial, true, true
			}
		}
		if !write {
			return nil
		}
		err := wr.c.Patch(ctx, cur, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		countPatch(err)
		return err
	})
	for i, w := range batch {
		switch {
		case err == nil:
			w.finish(results[i].changed, results[i].err)
		case ctx.Err() != nil && w != self:
			back = append(back, w)
		default:
			w.finish(false, err)
		}
	}
	return back
}
