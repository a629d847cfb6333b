package extref

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// A kind of source the controller cannot read (it may not list or watch it,
// the API server no longer serves it, or its informer does not sync) would
// make every read of it wait for the read timeout. So the first failure is
// remembered, for every referencer of the Resolver: later reads of the kind
// fail at once with the same error until the kind can be read again. A
// cache's informer keeps trying on its own, and a read succeeds as soon as
// it has synced; another reader is tried again once per re-check interval,
// which starts at recheckMin and doubles up to recheckMax.
const (
	recheckMin = time.Second
	recheckMax = time.Minute
)

// unreadableKinds are the kinds of sources known not to be readable, by
// resource. It is safe for concurrent use.
type unreadableKinds struct {
	mu      sync.Mutex
	clock   clock.PassiveClock // that of the Resolver that uses them; nil: the real clock
	kinds   map[schema.GroupResource]*unreadable
	waiting map[schema.GroupResource]chan struct{} // closed when the kind fails
}

// unreadable is why a kind cannot be read, and when a read may try again.
type unreadable struct {
	err   error
	next  time.Time     // a read may try again from then
	every time.Duration // the re-check interval
}

// failed records that kind gr cannot be read, for err, at now.
func (u *unreadableKinds) failed(gr schema.GroupResource, err error, now time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.kinds == nil || len(u.kinds) >= maxMappings {
		u.kinds = make(map[schema.GroupResource]*unreadable)
	}
	k := u.kinds[gr]
	if k == nil {
		k = &unreadable{every: recheckMin}
		u.kinds[gr] = k
	} else if now.After(k.next) {
		k.every = min(2*k.every, recheckMax)
	}
	k.err, k.next = err, now.Add(k.every)
	if ch := u.waiting[gr]; ch != nil {
		close(ch)
		delete(u.waiting, gr)
	}
}

// useClock makes c time the failures that the cache's list or watch
// reports.
func (u *unreadableKinds) useClock(c clock.PassiveClock) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.clock = c
}

// now is the time of u's clock.
func (u *unreadableKinds) now() time.Time {
	u.mu.Lock()
	c := u.clock
	u.mu.Unlock()
	if c == nil {
		return time.Now()
	}
	return c.Now()
}

// signal returns a channel closed when kind gr is next found unreadable.
func (u *unreadableKinds) signal(gr schema.GroupResource) <-chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	ch := u.waiting[gr]
	if ch == nil {
		if u.waiting == nil || len(u.waiting) >= maxMappings {
			u.waiting = make(map[schema.GroupResource]chan struct{})
		}
		ch = make(chan struct{})
		u.waiting[gr] = ch
	}
	return ch
}

// known returns why kind gr cannot be read, or nil when it is not known to
// be unreadable. Once the re-check interval has passed it returns nil once,
// to one reader, and moves the next re-check on; probe says it is that one.
func (u *unreadableKinds) known(gr schema.GroupResource, now time.Time) (err error, probe bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := u.kinds[gr]
	if k == nil {
		return nil, false
	}
	if now.Before(k.next) {
		return k.err, false
	}
	k.every = min(2*k.every, recheckMax)
	k.next = now.Add(k.every)
	return nil, true
}

// why returns why kind gr cannot be read, whatever the schedule, or nil.
func (u *unreadableKinds) why(gr schema.GroupResource) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if k := u.kinds[gr]; k != nil {
		return k.err
	}
	return nil
}

// readable records that kind gr was read.
func (u *unreadableKinds) readable(gr schema.GroupResource) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.kinds, gr)
}

// An unreadableError is why a kind of source cannot be read. Its message
// names the kind and the problem, and stays the same while the kind stays
// unreadable, so that the condition reporting it is not written again on
// every retry.
type unreadableError struct {
	resource schema.GroupResource
	problem  string
	cause    error
}

func (e *unreadableError) Error() string {
	return "cannot read the source: " + e.resource.String() + " cannot be read: " + e.problem
}

func (e *unreadableError) Unwrap() error { return e.cause }

// listFailed is the cache's watch error handler: after the handler it
// replaces has logged err, a list or watch of a kind that the API server
// forbids, or no longer serves, makes the kind unreadable at once, rather
// than after a read has waited for the read timeout.
func (u *unreadableKinds) listFailed(ctx context.Context, r *toolscache.Reflector, err error) {
	toolscache.DefaultWatchErrorHandler(ctx, r, err)
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return
	}
	d := status.Status().Details
	if d == nil || d.Kind == "" {
		return
	}
	gr := schema.GroupResource{Group: d.Group, Resource: d.Kind}
	switch {
	case apierrors.IsForbidden(err):
		u.failed(gr, &unreadableError{resource: gr, problem: "the controller may not list and watch it (forbidden)", cause: err}, u.now())
	case apierrors.IsNotFound(err):
		u.failed(gr, &unreadableError{resource: gr, problem: "the API server does not serve it (not found)", cause: err}, u.now())
	}
}

// sharedKinds is SetupReconciler's option of NewResolver: the Resolver
// keeps its unreadable kinds in kinds, which the informers of its cache
// report to.
type sharedKinds struct{ kinds *unreadableKinds }

func (o sharedKinds) applyToResolver(r *Resolver) { r.kinds = o.kinds }

// UnreadableKinds lets a Resolver that reads through a cache of the
// caller's, such as the manager's, learn that a kind cannot be read as soon
// as the cache's list or watch of it fails (the controller may not list and
// watch it, or the API server does not serve it), rather than once a read
// has waited for the read timeout: set its WatchErrorHandler as the cache's
// (cache.Options.DefaultWatchErrorHandler, before the manager is created)
// and give it to NewResolver with WithUnreadableKinds. SetupReconciler does
// the same with a cache of its own. It is safe for concurrent use; the
// zero value is ready to use.
type UnreadableKinds struct{ kinds unreadableKinds }

// WatchErrorHandler is the watch error handler of the cache: it logs err as
// client-go's default handler does and records a kind the API server
// forbids or does not serve.
func (u *UnreadableKinds) WatchErrorHandler(ctx context.Context, r *toolscache.Reflector, err error) {
	u.kinds.listFailed(ctx, r, err)
}

// WithUnreadableKinds is an option of NewResolver: the Resolver learns from
// u which kinds its cache cannot read.
func WithUnreadableKinds(u *UnreadableKinds) ResolverOption { return sharedKinds{&u.kinds} }
