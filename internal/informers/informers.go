// Package informers keeps the informers that the objects of a controller's
// tenants choose: the kinds a referencer reads (extref), the workloads a
// HealthScope holds and their children (examples/healthscope). Every one of
// them is a cluster-wide list and watch, so a Set
//
//   - starts none of a kind the operator does not allow (Options.Allows):
//     Update and Touch ignore it, and a Reader refuses to read it, so that no
//     read through the cache starts it either;
//   - adds one event handler to each kind's informer, on the first use;
//   - counts the users of each kind, and removes from the cache, which stops
//     it, an informer that has had no user, and was not read, for
//     Options.Idle. Limit: an informer nobody needs stops within Idle of
//     its last user letting go of it (or of its last read), plus the time
//     RemoveInformer takes, about a second at most.
//
// The cache must be the Set's alone (NewCache): removing an informer from a
// shared cache would stop it for its other users. Idle 0 keeps informers
// for ever; then a shared cache is fine.
package informers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// A Kind is an informer of a Set: the objects of a kind, or only their
// metadata.
type Kind struct {
	GVK      schema.GroupVersionKind
	Metadata bool // PartialObjectMetadata rather than whole objects
}

// Object is an empty object of kind k, to ask a cache for its informer.
func (k Kind) Object() client.Object {
	if k.Metadata {
		pm := &metav1.PartialObjectMetadata{}
		pm.SetGroupVersionKind(k.GVK)
		return pm
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.GVK)
	return u
}

// Options configure a Set.
type Options struct {
	// Idle is how long an informer that no user needs, and that nothing
	// read, keeps running before it is removed from the cache. 0 keeps
	// informers for ever.
	Idle time.Duration

	// Allows reports whether objects of a kind may be watched and read;
	// nil allows every kind.
	Allows func(schema.GroupKind) bool

	// Handler returns the event handler added to the informer of a kind on
	// its first use; nil adds none.
	Handler func(Kind) toolscache.ResourceEventHandler

	// Running, when set, is called with +1 when a kind's handler is added
	// and -1 when that kind's informer is removed, e.g. to keep a gauge of
	// the informers running.
	Running func(delta int)
}

// A Set keeps the informers of a cache that some user needs. It is safe for
// concurrent use.
type Set struct {
	informers cache.Informers
	o         Options

	ops      sync.Mutex // serialises adding handlers and removing informers
	mu       sync.Mutex
	kinds    map[Kind]bool // true once its handler is added
	users    map[Kind]int
	lastUsed map[Kind]time.Time
	checking map[Kind]bool // an idle check is scheduled
	ctx      context.Context
}

// New returns a Set of the informers of c.
func New(c cache.Informers, o Options) *Set {
	return &Set{
		informers: c,
		o:         o,
		kinds:     make(map[Kind]bool),
		users:     make(map[Kind]int),
		lastUsed:  make(map[Kind]time.Time),
		checking:  make(map[Kind]bool),
	}
}

// Allows reports whether objects of kind gk may be watched and read.
func (s *Set) Allows(gk schema.GroupKind) bool {
	return s.o.Allows == nil || s.o.Allows(gk)
}

// Start adds the handlers of the kinds used so far, and those of kinds used
// from now on as they come; ctx is for logging and stops nothing. Before
// Start, uses are only counted.
func (s *Set) Start(ctx context.Context) {
	s.mu.Lock()
	s.ctx = ctx
	var pending []Kind
	for k, added := range s.kinds {
		if !added {
			pending = append(pending, k)
		}
	}
	s.mu.Unlock()
	for _, k := range pending {
		s.add(k)
	}
}

// Update replaces a user's kinds: each kind of now gains a user, each of
// old loses one, and an informer left with none is removed once it has been
// idle for Options.Idle. A kind may appear in each list once at most.
// Kinds that Options.Allows refuses are ignored.
func (s *Set) Update(old, now []Kind) {
	s.mu.Lock()
	var add []Kind
	for _, k := range now {
		if !s.Allows(k.GVK.GroupKind()) {
			continue
		}
		s.users[k]++
		if _, known := s.kinds[k]; !known {
			s.kinds[k] = false
			if s.ctx != nil {
				add = append(add, k)
			}
		}
	}
	var idle []Kind
	for _, k := range old {
		if _, used := s.users[k]; !used {
			continue
		}
		if s.users[k]--; s.users[k] <= 0 {
			delete(s.users, k)
			s.lastUsed[k] = time.Now()
			idle = append(idle, k)
		}
	}
	s.mu.Unlock()
	for _, k := range add {
		s.add(k)
	}
	for _, k := range idle {
		s.scheduleCheck(k)
	}
}

// Touch records that kind k is about to be read, which may start its
// informer: one that no user needs is kept for Options.Idle from now, then
// removed. It reports whether k is allowed.
func (s *Set) Touch(k Kind) bool {
	if !s.Allows(k.GVK.GroupKind()) {
		return false
	}
	s.mu.Lock()
	s.lastUsed[k] = time.Now()
	_, used := s.users[k]
	s.mu.Unlock()
	if !used {
		s.scheduleCheck(k)
	}
	return true
}

// Len returns how many kinds have users or a handler, or are known but not
// yet removed.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.kinds)
}

// scheduleCheck makes sure that kind k's idleness is checked once Idle has
// passed: one check at a time per kind.
func (s *Set) scheduleCheck(k Kind) {
	if s.o.Idle <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checking[k] {
		return
	}
	s.checking[k] = true
	time.AfterFunc(s.o.Idle, func() { s.stopIdle(k) })
}

// stopIdle removes the informer of kind k from the cache when no user has
// needed it, nor read it, for Idle.
func (s *Set) stopIdle(k Kind) {
	s.ops.Lock()
	defer s.ops.Unlock()
	s.mu.Lock()
	if _, used := s.users[k]; used {
		delete(s.checking, k)
		s.mu.Unlock()
		return
	}
	if left := s.o.Idle - time.Since(s.lastUsed[k]); left > 0 {
		s.mu.Unlock()
		time.AfterFunc(left, func() { s.stopIdle(k) })
		return
	}
	delete(s.checking, k)
	added := s.kinds[k]
	delete(s.kinds, k)
	delete(s.lastUsed, k)
	ctx := s.ctx
	s.mu.Unlock()
	if added && s.o.Running != nil {
		s.o.Running(-1)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// A read may have started the informer even if no handler was added.
	if err := s.informers.RemoveInformer(ctx, k.Object()); err != nil {
		log.FromContext(ctx).Error(err, "cannot stop an informer nobody needs", "kind", k.GVK.String())
	}
}

// add adds the handler to the informer of kind k. On failure the kind is
// forgotten, so that its next user tries again.
func (s *Set) add(k Kind) {
	s.ops.Lock()
	defer s.ops.Unlock()
	s.mu.Lock()
	added, known := s.kinds[k]
	ctx := s.ctx
	s.mu.Unlock()
	if added || !known {
		return // added meanwhile, or removed as idle before it was added
	}
	var err error
	if s.o.Handler != nil {
		var inf cache.Informer
		inf, err = s.informers.GetInformer(ctx, k.Object(), cache.BlockUntilSynced(false))
		if err == nil {
			_, err = inf.AddEventHandler(s.o.Handler(k))
		}
	}
	s.mu.Lock()
	if err != nil {
		delete(s.kinds, k)
	} else {
		s.kinds[k] = true
	}
	s.mu.Unlock()
	if err == nil && s.o.Running != nil {
		s.o.Running(+1)
	}
	if err != nil {
		log.FromContext(ctx).Error(err, "cannot watch a kind", "kind", k.GVK.String())
	}
}

// NewCache returns a cache for a Set, added to mgr so that it starts with
// the manager's other caches. It reads with the manager's credentials and
// HTTP client; onWatchError, when not nil, replaces the handler of list and
// watch errors. what names it in errors.
func NewCache(mgr manager.Manager, what string, onWatchError toolscache.WatchErrorHandlerWithContext) (cache.Cache, error) {
	o := cache.Options{HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}
	if onWatchError != nil {
		o.DefaultWatchErrorHandler = onWatchError
	}
	c, err := cache.New(mgr.GetConfig(), o)
	if err != nil {
		return nil, fmt.Errorf("cannot create the cache of %s: %w", what, err)
	}
	if err := mgr.Add(ownCache{c}); err != nil {
		return nil, fmt.Errorf("cannot add the cache of %s to the manager: %w", what, err)
	}
	return c, nil
}

// ownCache is a cache the manager starts, and waits for, with its own.
type ownCache struct{ cache.Cache }

func (c ownCache) GetCache() cache.Cache { return c.Cache }

// ErrNotAllowed is the error of a Reader's read of a kind that the Set does
// not allow.
var ErrNotAllowed = errors.New("the operator does not allow this kind to be read")

// Reader returns a reader that reads through r (the Set's cache) only the
// kinds the Set allows, and touches each kind it reads, so that an informer
// a read starts is removed when nobody needs it. A read of another kind
// fails with an error wrapping ErrNotAllowed, and starts nothing.
func (s *Set) Reader(r client.Reader, scheme *runtime.Scheme) client.Reader {
	return &reader{r: r, s: s, scheme: scheme}
}

type reader struct {
	r      client.Reader
	s      *Set
	scheme *runtime.Scheme
}

func (r *reader) check(obj runtime.Object, list bool) error {
	gvk, err := apiutil.GVKForObject(obj, r.scheme)
	if err != nil {
		return err
	}
	if list {
		gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	}
	_, metadata := obj.(*metav1.PartialObjectMetadata)
	if !metadata {
		_, metadata = obj.(*metav1.PartialObjectMetadataList)
	}
	if !r.s.Touch(Kind{GVK: gvk, Metadata: metadata}) {
		return fmt.Errorf("cannot read %s: %w", gvk.GroupKind(), ErrNotAllowed)
	}
	return nil
}

func (r *reader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := r.check(obj, false); err != nil {
		return err
	}
	return r.r.Get(ctx, key, obj, opts...)
}

func (r *reader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := r.check(list, true); err != nil {
		return err
	}
	return r.r.List(ctx, list, opts...)
}
