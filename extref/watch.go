package extref

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/informers"
)

// A Watcher enqueues referencers when their sources change, so that Always
// references follow their sources and a missing source that appears is
// resolved at once.
//
// A Watcher is a controller-runtime source: add it to the referencer's
// controller with the builder, and give it to the Resolver (WithWatcher),
// which tells it what each referencer read:
//
//	w := extref.NewWatcher(mgr.GetCache())
//	r := extref.NewResolver(mgr.GetCache(), mgr.GetRESTMapper(), policy, extref.WithWatcher(w))
//	err := ctrl.NewControllerManagedBy(mgr).For(&v1alpha1.Subnet{}).WatchesRawSource(w).Complete(rec)
//
// It keeps an index from each source object to the referencers that read
// it, and adds one event handler to the cache's shared informer of each
// source kind, only for kinds some referencer actually reads: the informer
// the Resolver's reads from the same cache already started. A reference to
// a resource the RESTMapper does not know yet is watched through the
// metadata of CustomResourceDefinitions, so installing its CRD resolves it
// (the manager then needs to list and watch customresourcedefinitions).
//
// One Watcher serves one controller (one referencer kind). A reconciler
// should call Forget when a referencer is gone; until then a stale entry
// costs only a reconcile that finds nothing, and keeps its informers.
//
// With the StopIdleInformers option, an informer no referencer needs any
// more is removed from the cache, and stops, after that long: the cache
// must then be the Watcher's and its Resolver's alone (NewSourceCache), since
// other users of a shared cache would lose their informers.
type Watcher struct {
	informers *informers.Set // the informers referencers depend on
	idle      time.Duration  // StopIdleInformers; 0 keeps informers
	wakeEvery time.Duration  // wakeInterval; tests set 0

	mu           sync.Mutex
	bySource     map[watchKey]*referencers
	byReferencer map[types.NamespacedName][]watchKey
	woken        map[types.NamespacedName]time.Time // when changed last enqueued each referencer
	queue        workqueue.TypedRateLimitingInterface[reconcile.Request]
}

// A WatcherOption configures a Watcher.
type WatcherOption interface {
	applyToWatcher(w *Watcher)
}

// StopIdleInformers is an option of NewWatcher: an informer that no
// referencer has needed for this long is removed from the cache, which
// stops it. Use it only with a cache of the Watcher's own (NewSourceCache).
type StopIdleInformers time.Duration

func (d StopIdleInformers) applyToWatcher(w *Watcher) { w.idle = time.Duration(d) }

// DefaultInformerIdle is how long SetupReconciler keeps an informer of
// sources that no referencer needs any more.
const DefaultInformerIdle = time.Minute

// NewSourceCache returns a cache for the sources of external values, added
// to mgr so that it starts with the manager's other caches: give it to the
// Resolver and to a Watcher with StopIdleInformers. It reads with the
// manager's credentials and HTTP client, and starts an informer only for a
// kind a referencer is allowed to read.
func NewSourceCache(mgr manager.Manager) (cache.Cache, error) {
	return newSourceCache(mgr, nil)
}

// newSourceCache is NewSourceCache, whose informers report to kinds, when
// not nil, a kind they may not list or that is not served.
func newSourceCache(mgr manager.Manager, kinds *unreadableKinds) (cache.Cache, error) {
	var onWatchError toolscache.WatchErrorHandlerWithContext
	if kinds != nil {
		onWatchError = kinds.listFailed
	}
	return informers.NewCache(mgr, "external values' sources", onWatchError)
}

var _ source.Source = &Watcher{}

// watchKey identifies what a referencer depends on: a source object (gk,
// namespace, name), or the CRD of a resource the mapper does not know.
type watchKey struct {
	gk        schema.GroupKind
	gvk       schema.GroupVersionKind // the informer, not part of the index key
	field     *fieldpath.Path         // the field read, not part of the index key; nil: any
	namespace string
	name      string
	crd       schema.GroupResource
}

func (k watchKey) index() watchKey {
	k.gvk, k.field = schema.GroupVersionKind{}, nil
	return k
}

// A fieldSet is what a referencer reads of one source: the fields, or any
// change of it when all is set.
type fieldSet struct {
	all    bool
	fields []*fieldpath.Path
}

// with returns s with the field of k, nil for any change.
func (s fieldSet) with(f *fieldpath.Path) fieldSet {
	switch {
	case f == nil:
		s.all = true
	case !slices.Contains(s.fields, f):
		s.fields = append(s.fields, f)
	}
	return s
}

// referencers are the referencers of one source, each with what it reads
// of it. Most sources have one, kept inline: a map for each would take most
// of the index's memory.
type referencers struct {
	one       types.NamespacedName // none when its name is empty
	oneFields fieldSet
	more      map[types.NamespacedName]fieldSet
}

// referencersOf returns the referencers of source k, adding an empty set.
// Called with w.mu held.
func (w *Watcher) referencersOf(k watchKey) *referencers {
	set := w.bySource[k]
	if set == nil {
		set = &referencers{}
		w.bySource[k] = set
	}
	return set
}

// add records that r reads field (nil: any change) of the source.
func (s *referencers) add(r types.NamespacedName, field *fieldpath.Path) {
	if s.one == r {
		s.oneFields = s.oneFields.with(field)
		return
	}
	if fs, ok := s.more[r]; ok {
		s.more[r] = fs.with(field)
		return
	}
	if s.one.Name == "" {
		s.one, s.oneFields = r, fieldSet{}.with(field)
		return
	}
	if s.more == nil {
		s.more = make(map[types.NamespacedName]fieldSet)
	}
	s.more[r] = fieldSet{}.with(field)
}

func (s *referencers) remove(r types.NamespacedName) {
	if s.one == r {
		s.one, s.oneFields = types.NamespacedName{}, fieldSet{}
		return
	}
	delete(s.more, r)
}

func (s *referencers) empty() bool { return s == nil || s.one.Name == "" && len(s.more) == 0 }

func (s *referencers) len() int {
	if s.empty() {
		return 0
	}
	n := len(s.more)
	if s.one.Name != "" {
		n++
	}
	return n
}

// each calls f for every referencer and what it reads.
func (s *referencers) each(f func(types.NamespacedName, fieldSet)) {
	if s == nil {
		return
	}
	if s.one.Name != "" {
		f(s.one, s.oneFields)
	}
	for r, fs := range s.more {
		f(r, fs)
	}
}

var crdKind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// informer is the informer the Watcher adds a handler to for k: a source
// kind, or the metadata of CRDs.
func (k watchKey) informer() informers.Kind {
	if k.crd != (schema.GroupResource{}) {
		return informers.Kind{GVK: crdKind, Metadata: true}
	}
	return informers.Kind{GVK: k.gvk}
}

// NewWatcher returns a Watcher that adds handlers to informers, normally a
// manager's GetCache(), the same cache the Resolver reads.
func NewWatcher(c cache.Informers, opts ...WatcherOption) *Watcher {
	w := &Watcher{
		bySource:     make(map[watchKey]*referencers),
		byReferencer: make(map[types.NamespacedName][]watchKey),
		woken:        make(map[types.NamespacedName]time.Time),
		wakeEvery:    wakeInterval,
	}
	for _, o := range opts {
		o.applyToWatcher(w)
	}
	w.informers = informers.New(c, informers.Options{Idle: w.idle, Handler: w.handler})
	return w
}

type watcherOption struct{ w *Watcher }

func (o watcherOption) applyToResolver(r *Resolver) { r.watcher = o.w }

// WithWatcher is an option of NewResolver: the Resolver tells w what each
// referencer read, so that w enqueues the referencer when one of those
// sources changes.
func WithWatcher(w *Watcher) ResolverOption { return watcherOption{w} }

// Start implements source.Source; the controller calls it. It must be
// called once.
func (w *Watcher) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	if queue == nil {
		return errors.New("cannot start the extref watcher: no queue")
	}
	w.mu.Lock()
	if w.queue != nil {
		w.mu.Unlock()
		return errors.New("cannot start the extref watcher: already started (use one Watcher per controller)")
	}
	w.queue = queue
	w.mu.Unlock()
	w.informers.Start(ctx)
	return nil
}

// Forget removes a referencer from the index, e.g. when it was deleted.
func (w *Watcher) Forget(referencer types.NamespacedName) {
	w.track(referencer, nil)
	w.mu.Lock()
	delete(w.woken, referencer)
	w.mu.Unlock()
}

// expect adds a referencer to those of a source before the Resolver reads
// it, so that an event between the read and track (a missing source created
// just then) finds it; track, which follows, sets all that the referencer
// depends on.
func (w *Watcher) expect(ref types.NamespacedName, k watchKey) {
	ik := k.index()
	// The read that follows may start the kind's informer: not one to stop
	// for a while.
	w.informers.Touch(k.informer())
	w.mu.Lock()
	w.referencersOf(ik).add(ref, k.field)
	w.mu.Unlock()
}

// track records what a referencer depends on, replacing what it depended on
// before.
func (w *Watcher) track(ref types.NamespacedName, keys []watchKey) {
	w.mu.Lock()
	old := w.byReferencer[ref]
	if slices.Equal(old, keys) {
		w.mu.Unlock()
		return
	}
	for _, k := range old {
		ik := k.index()
		if set := w.bySource[ik]; set != nil {
			set.remove(ref)
			if set.empty() {
				delete(w.bySource, ik)
			}
		}
	}
	if len(keys) == 0 {
		delete(w.byReferencer, ref)
	} else {
		w.byReferencer[ref] = slices.Clone(keys)
	}
	for _, k := range keys {
		w.referencersOf(k.index()).add(ref, k.field)
	}
	w.mu.Unlock()
	w.informers.Update(kindsOf(old), kindsOf(keys))
}

// kindsOf returns the informer kinds of keys, each once.
func kindsOf(keys []watchKey) []informers.Kind {
	var out []informers.Kind
	for _, k := range keys {
		if ik := k.informer(); !slices.Contains(out, ik) {
			out = append(out, ik)
		}
	}
	return out
}

// Informers returns how many informers the Watcher has handlers on.
func (w *Watcher) Informers() int { return w.informers.Len() }

func (w *Watcher) handler(k informers.Kind) toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { w.changed(k, nil, obj) },
		UpdateFunc: func(old, obj any) {
			o, err1 := meta.Accessor(old)
			n, err2 := meta.Accessor(obj)
			if err1 == nil && err2 == nil && o.GetResourceVersion() == n.GetResourceVersion() {
				return // a resync
			}
			w.changed(k, old, obj)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			w.changed(k, nil, obj)
		},
	}
}

// changed enqueues the referencers of a source object that changed: on an
// update (old is not nil), only those whose fields of it changed.
func (w *Watcher) changed(k informers.Kind, old, obj any) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	var key watchKey
	if k.Metadata {
		// A CRD is named <plural>.<group>.
		resource, group, ok := strings.Cut(m.GetName(), ".")
		if !ok {
			return
		}
		key = watchKey{crd: schema.GroupResource{Group: group, Resource: resource}}
	} else {
		key = watchKey{gk: k.GVK.GroupKind(), namespace: m.GetNamespace(), name: m.GetName()}
	}
	fields := fieldChanges{old: informerContent(old), now: informerContent(obj)}
	now := time.Now()
	w.mu.Lock()
	type wake struct {
		ref   types.NamespacedName
		after time.Duration
	}
	set := w.bySource[key]
	wakes := make([]wake, 0, set.len())
	set.each(func(r types.NamespacedName, fs fieldSet) {
		if !fields.changed(fs) {
			return
		}
		after := time.Duration(0)
		if last, ok := w.woken[r]; ok && now.Sub(last) < w.wakeEvery {
			after = w.wakeEvery - now.Sub(last)
		} else {
			w.woken[r] = now
		}
		wakes = append(wakes, wake{r, after})
	})
	q := w.queue
	w.mu.Unlock()
	if q == nil {
		return
	}
	for _, wk := range wakes {
		req := reconcile.Request{NamespacedName: wk.ref}
		if wk.after > 0 {
			q.AddAfter(req, wk.after)
		} else {
			q.Add(req)
		}
		if k.Metadata {
			// The API server serves a new CRD's resource (discovery) a moment
			// after the CRD's own events: look again shortly, rather than
			// only after UnknownResourceRetry. Not with AddAfter: the queue
			// would merge those adds into the one above.
			for _, d := range crdRecheck {
				time.AfterFunc(d, func() { q.Add(req) })
			}
		}
	}
}

// wakeInterval is how often, at most, a source change enqueues one
// referencer: changes in between enqueue it once, when the interval has
// passed, so that a source rewritten many times a second costs each of its
// referencers at most one reconcile a second.
const wakeInterval = time.Second

// informerContent returns the content of an object from an informer, or nil.
func informerContent(obj any) map[string]any {
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.UnstructuredContent()
	}
	return nil
}

// fieldChanges tells which fields of a source differ between its old and
// its new content, each field compared once per change.
type fieldChanges struct {
	old, now map[string]any // old is nil for an add or a delete
	seen     map[string]bool
}

// changed reports whether what fs reads changed.
func (c *fieldChanges) changed(fs fieldSet) bool {
	if fs.all || c.old == nil || c.now == nil {
		return true
	}
	for _, f := range fs.fields {
		text := f.String()
		differs, ok := c.seen[text]
		if !ok {
			a, errA := f.Get(c.old)
			b, errB := f.Get(c.now)
			switch {
			case errA == nil && errB == nil:
				differs = !reflect.DeepEqual(a, b)
			default:
				// Missing from both is no change; any other failure may be.
				differs = !fieldpath.IsNotFound(errA) || !fieldpath.IsNotFound(errB)
			}
			if c.seen == nil {
				c.seen = make(map[string]bool)
			}
			c.seen[text] = differs
		}
		if differs {
			return true
		}
	}
	return false
}

// crdRecheck are the delays after a CRD event at which its referencers are
// reconciled again.
var crdRecheck = []time.Duration{time.Second, 3 * time.Second, 10 * time.Second}
