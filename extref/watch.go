package extref

import (
	"context"
	"errors"
	"hash/maphash"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	crsource "sigs.k8s.io/controller-runtime/pkg/source"

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
// With the InformerIdle option, an informer no referencer needs any
// more is removed from the cache, and stops, after that long: the cache
// must then be the Watcher's and its Resolver's alone (NewSourceCache), since
// other users of a shared cache would lose their informers.
type Watcher struct {
	informers *informers.Set     // the informers referencers depend on
	idle      time.Duration      // InformerIdle; 0 keeps informers
	wakeEvery time.Duration      // wakeInterval; tests set 0
	clock     clock.PassiveClock // WithClock

	mu           sync.Mutex
	seed         maphash.Seed
	bySource     map[uint64]*sourceEntry // by the hash of their sourceID
	byReferencer map[types.NamespacedName]*tracked
	selections   map[sourceID]map[*sourceEntry]struct{} // selector entries by group, kind and namespace
	woken        map[types.NamespacedName]time.Time     // when changed last enqueued each referencer
	queue        workqueue.TypedRateLimitingInterface[reconcile.Request]
}

// A WatcherOption configures a Watcher.
type WatcherOption interface {
	applyToWatcher(w *Watcher)
}

// InformerIdle is an option of NewWatcher: an informer that no
// referencer has needed for this long is removed from the cache, which
// stops it. Use it only with a cache of the Watcher's own (NewSourceCache).
// It is the setting Options.InformerIdle gives SetupReconciler's Watcher.
type InformerIdle time.Duration

func (d InformerIdle) applyToWatcher(w *Watcher) { w.idle = time.Duration(d) }

// StopIdleInformers is InformerIdle.
//
// Deprecated: use InformerIdle, the name of the same setting in Options.
type StopIdleInformers = InformerIdle

// DefaultInformerIdle is how long SetupReconciler keeps an informer of
// sources that no referencer needs any more.
const DefaultInformerIdle = time.Minute

// NewSourceCache returns a cache for the sources of external values, added
// to mgr so that it starts with the manager's other caches: give it to the
// Resolver and to a Watcher with InformerIdle. It reads with the
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

var _ crsource.Source = &Watcher{}

// watchKey identifies what a referencer depends on: a source object (gk,
// namespace, name), or the CRD of a resource the mapper does not know.
type watchKey struct {
	gk        schema.GroupKind
	gvk       schema.GroupVersionKind // the informer, not part of the index key
	field     *fieldpath.Path         // the field read, not part of the index key; nil: any
	namespace string
	name      string
	crd       schema.GroupResource
	sel       *selectorWatch // the objects of namespace that a label selector matches; name is ""
}

// A sourceID identifies an entry of the Watcher's index: a source object
// (group, kind, namespace, name), or, with crd set, the CRD of a resource
// the mapper does not know (kind then holds the resource). Its strings are
// those of the compiled references, not copies.
type sourceID struct {
	group, kind, namespace, name string
	crd                          bool
	selector                     bool // name is a label selector's text
}

func (k watchKey) id() sourceID {
	if k.crd != (schema.GroupResource{}) {
		return sourceID{group: k.crd.Group, kind: k.crd.Resource, crd: true}
	}
	if k.sel != nil {
		return sourceID{group: k.gk.Group, kind: k.gk.Kind, namespace: k.namespace, name: k.sel.text, selector: true}
	}
	return sourceID{group: k.gk.Group, kind: k.gk.Kind, namespace: k.namespace, name: k.name}
}

// A sourceEntry is an entry of the Watcher's index: a source and the
// referencers that read it, each with what it reads of it. Most sources
// have one, kept inline: a map for each would take most of the index's
// memory. Sources whose IDs hash alike are chained through next.
type sourceEntry struct {
	sourceID
	next      *sourceEntry
	one       *tracked // nil: none
	oneFields fieldSet
	more      map[*tracked]fieldSet
	sel       labels.Selector // of a selector's entry
}

// tracked is what one referencer depends on: a slot per watchKey, in the
// order track was given them, and the informer kinds of those keys.
type tracked struct {
	ref   types.NamespacedName
	slots []slot
	kinds []informers.Kind
}

// A slot is one watchKey of a referencer, in 24 bytes rather than the
// key's 152: its source entry, the field read, and its informer kind (an
// index into the referencer's kinds).
type slot struct {
	src   *sourceEntry
	field *fieldpath.Path
	kind  int32
}

// same reports whether keys are the keys t was tracked with, in order.
func (t *tracked) same(keys []watchKey) bool {
	if len(keys) != len(t.slots) {
		return false
	}
	for i, k := range keys {
		sl := t.slots[i]
		if sl.field != k.field || sl.src.sourceID != k.id() || t.kinds[sl.kind] != k.informer() {
			return false
		}
	}
	return true
}

// keys returns the watchKeys t was tracked with.
func (t *tracked) keys() []watchKey {
	if t == nil {
		return nil
	}
	out := make([]watchKey, len(t.slots))
	for i, sl := range t.slots {
		id := sl.src.sourceID
		if id.crd {
			out[i] = watchKey{crd: schema.GroupResource{Group: id.group, Resource: id.kind}, field: sl.field}
			continue
		}
		out[i] = watchKey{gk: schema.GroupKind{Group: id.group, Kind: id.kind}, gvk: t.kinds[sl.kind].GVK, field: sl.field, namespace: id.namespace, name: id.name}
	}
	return out
}

// A fieldSet is what a referencer reads of one source: the fields, anyField
// standing for any change. Most referencers read one field of a source,
// kept inline: 16 bytes with no allocation, where internal/smallset's list
// and map would take a Watcher 8% more memory per referencer
// (TestMemoryPerReferencer).
type fieldSet struct {
	first *fieldpath.Path // nil: none
	rest  *[]*fieldpath.Path
}

// anyField stands for any change of a source in a fieldSet.
var anyField = new(fieldpath.Path)

// with returns s with field f, nil for any change.
func (s fieldSet) with(f *fieldpath.Path) fieldSet {
	if f == nil {
		f = anyField
	}
	switch {
	case s.first == nil:
		s.first = f
	case s.first == f, s.rest != nil && slices.Contains(*s.rest, f):
	default:
		if s.rest == nil {
			s.rest = new([]*fieldpath.Path)
		}
		*s.rest = append(*s.rest, f)
	}
	return s
}

// each calls f for each field of s until it returns true, and reports
// whether one did.
func (s fieldSet) each(f func(*fieldpath.Path) bool) bool {
	if s.first != nil && f(s.first) {
		return true
	}
	if s.rest != nil {
		for _, p := range *s.rest {
			if f(p) {
				return true
			}
		}
	}
	return false
}

// hash is the hash of id in the index.
func (w *Watcher) hash(id sourceID) uint64 {
	var h maphash.Hash
	h.SetSeed(w.seed)
	h.WriteString(id.group)
	h.WriteByte(0)
	h.WriteString(id.kind)
	h.WriteByte(0)
	h.WriteString(id.namespace)
	h.WriteByte(0)
	h.WriteString(id.name)
	if id.crd {
		h.WriteByte(1)
	}
	if id.selector {
		h.WriteByte(2)
	}
	return h.Sum64()
}

// find returns the index's entry of id, or nil. Called with w.mu held.
func (w *Watcher) find(id sourceID) *sourceEntry {
	for s := w.bySource[w.hash(id)]; s != nil; s = s.next {
		if s.sourceID == id {
			return s
		}
	}
	return nil
}

// sourceOf returns the index's entry of id, adding an empty one. Called
// with w.mu held.
func (w *Watcher) sourceOf(id sourceID) *sourceEntry {
	h := w.hash(id)
	for s := w.bySource[h]; s != nil; s = s.next {
		if s.sourceID == id {
			return s
		}
	}
	s := &sourceEntry{sourceID: id, next: w.bySource[h]}
	w.bySource[h] = s
	return s
}

// entryOf returns the index's entry of k, adding an empty one, and a
// selector's entry to the selections of its kind and namespace. Called with
// w.mu held.
func (w *Watcher) entryOf(k watchKey) *sourceEntry {
	s := w.sourceOf(k.id())
	if k.sel != nil && s.sel == nil {
		s.sel = k.sel.selector
		scope := sourceID{group: s.group, kind: s.kind, namespace: s.namespace}
		if w.selections[scope] == nil {
			w.selections[scope] = make(map[*sourceEntry]struct{})
		}
		w.selections[scope][s] = struct{}{}
	}
	return s
}

// drop removes entry s from the index. Called with w.mu held.
func (w *Watcher) drop(s *sourceEntry) {
	if s.sel != nil {
		scope := sourceID{group: s.group, kind: s.kind, namespace: s.namespace}
		if delete(w.selections[scope], s); len(w.selections[scope]) == 0 {
			delete(w.selections, scope)
		}
	}
	h := w.hash(s.sourceID)
	head := w.bySource[h]
	switch {
	case head == s && s.next == nil:
		delete(w.bySource, h)
	case head == s:
		w.bySource[h] = s.next
	default:
		for p := head; p != nil; p = p.next {
			if p.next == s {
				p.next = s.next
				break
			}
		}
	}
	s.next = nil
}

// trackedOf returns what ref depends on, adding an empty record. Called
// with w.mu held.
func (w *Watcher) trackedOf(ref types.NamespacedName) *tracked {
	t := w.byReferencer[ref]
	if t == nil {
		t = &tracked{ref: ref}
		w.byReferencer[ref] = t
	}
	return t
}

// add records that t reads field (nil: any change) of the source.
func (s *sourceEntry) add(t *tracked, field *fieldpath.Path) {
	if s.one == t {
		s.oneFields = s.oneFields.with(field)
		return
	}
	if fs, ok := s.more[t]; ok {
		s.more[t] = fs.with(field)
		return
	}
	if s.one == nil {
		s.one, s.oneFields = t, fieldSet{}.with(field)
		return
	}
	if s.more == nil {
		s.more = make(map[*tracked]fieldSet)
	}
	s.more[t] = fieldSet{}.with(field)
}

func (s *sourceEntry) remove(t *tracked) {
	if s.one == t {
		s.one, s.oneFields = nil, fieldSet{}
		return
	}
	delete(s.more, t)
}

func (s *sourceEntry) empty() bool { return s == nil || s.one == nil && len(s.more) == 0 }

func (s *sourceEntry) len() int {
	if s.empty() {
		return 0
	}
	n := len(s.more)
	if s.one != nil {
		n++
	}
	return n
}

// each calls f for every referencer and what it reads.
func (s *sourceEntry) each(f func(types.NamespacedName, fieldSet)) {
	if s == nil {
		return
	}
	if s.one != nil {
		f(s.one.ref, s.oneFields)
	}
	for t, fs := range s.more {
		f(t.ref, fs)
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
// manager's GetCache(), the same cache the Resolver reads. Options:
// InformerIdle and WithClock.
func NewWatcher(c cache.Informers, opts ...WatcherOption) *Watcher {
	w := &Watcher{
		seed:         maphash.MakeSeed(),
		bySource:     make(map[uint64]*sourceEntry),
		byReferencer: make(map[types.NamespacedName]*tracked),
		selections:   make(map[sourceID]map[*sourceEntry]struct{}),
		woken:        make(map[types.NamespacedName]time.Time),
		wakeEvery:    wakeInterval,
	}
	for _, o := range opts {
		o.applyToWatcher(w)
	}
	if w.clock == nil {
		w.clock = clock.RealClock{}
	}
	w.informers = informers.New(c, informers.Options{Idle: w.idle, Handler: w.handler, Running: countInformers})
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
	// The read that follows may start the kind's informer: not one to stop
	// for a while.
	w.informers.Touch(k.informer())
	w.mu.Lock()
	w.entryOf(k).add(w.trackedOf(ref), k.field)
	w.mu.Unlock()
}

// track records what a referencer depends on, replacing what it depended on
// before.
func (w *Watcher) track(ref types.NamespacedName, keys []watchKey) {
	w.mu.Lock()
	t := w.byReferencer[ref]
	if t == nil && len(keys) == 0 || t != nil && t.same(keys) {
		w.mu.Unlock()
		return
	}
	if t == nil {
		t = w.trackedOf(ref)
	}
	for _, sl := range t.slots {
		if sl.src.remove(t); sl.src.empty() {
			w.drop(sl.src)
		}
	}
	old := t.kinds
	kinds, which := kindsOf(keys)
	var slots []slot
	if len(keys) > 0 {
		slots = make([]slot, len(keys))
	}
	for i, k := range keys {
		s := w.entryOf(k)
		s.add(t, k.field)
		slots[i] = slot{src: s, field: k.field, kind: which[i]}
	}
	t.slots, t.kinds = slots, kinds
	if len(keys) == 0 {
		delete(w.byReferencer, ref)
	}
	w.mu.Unlock()
	w.informers.Update(old, kinds)
}

// kindsOf returns the informer kinds of keys, each once, and the index in
// them of each key's kind.
func kindsOf(keys []watchKey) (kinds []informers.Kind, which []int32) {
	which = make([]int32, len(keys))
	var seen map[informers.Kind]int32 // once there are more than linearSearch
	for i, k := range keys {
		ik := k.informer()
		j := int32(-1)
		if seen != nil {
			if at, ok := seen[ik]; ok {
				j = at
			}
		} else {
			j = int32(slices.Index(kinds, ik))
		}
		if j < 0 {
			j = int32(len(kinds))
			kinds = append(kinds, ik)
			if seen != nil {
				seen[ik] = j
			} else if len(kinds) > linearSearch {
				seen = make(map[informers.Kind]int32, 2*len(kinds))
				for at, kind := range kinds {
					seen[kind] = int32(at)
				}
			}
		}
		which[i] = j
	}
	return kinds, which
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
	var id sourceID
	if k.Metadata {
		// A CRD is named <plural>.<group>.
		resource, group, ok := strings.Cut(m.GetName(), ".")
		if !ok {
			return
		}
		id = sourceID{group: group, kind: resource, crd: true}
	} else {
		id = sourceID{group: k.GVK.Group, kind: k.GVK.Kind, namespace: m.GetNamespace(), name: m.GetName()}
	}
	fields := fieldChanges{old: informerContent(old), now: informerContent(obj)}
	now := w.clock.Now()
	w.mu.Lock()
	type wake struct {
		ref   types.NamespacedName
		after time.Duration
	}
	set := w.find(id)
	wakes := make([]wake, 0, set.len())
	wakeOf := func(r types.NamespacedName, fs fieldSet) {
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
	}
	set.each(wakeOf)
	if !k.Metadata {
		w.selected(id, old, m, wakeOf)
	}
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
	if c.old == nil || c.now == nil {
		return true
	}
	return fs.each(c.fieldChanged)
}

// fieldChanged reports whether field f changed.
func (c *fieldChanges) fieldChanged(f *fieldpath.Path) bool {
	if f == anyField {
		return true
	}
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
	return differs
}

// crdRecheck are the delays after a CRD event at which its referencers are
// reconciled again.
var crdRecheck = []time.Duration{time.Second, 3 * time.Second, 10 * time.Second}

// selected calls wake for the referencers whose selectors of the object's
// kind and namespace (id) select it now or selected it before, old (nil
// for an add or a delete): every referencer of a selector whose match
// changed, and, of one that matched both before and now, each whose fields
// changed, as wake tells. Called with w.mu held.
func (w *Watcher) selected(id sourceID, old any, now metav1.Object, wake func(types.NamespacedName, fieldSet)) {
	entries := w.selections[sourceID{group: id.group, kind: id.kind, namespace: id.namespace}]
	if len(entries) == 0 {
		return
	}
	nowLabels := labels.Set(now.GetLabels())
	var oldLabels labels.Set
	if old != nil {
		if o, err := meta.Accessor(old); err == nil {
			oldLabels = labels.Set(o.GetLabels())
		}
	}
	for s := range entries {
		matchesNow := s.sel.Matches(nowLabels)
		if old == nil {
			if matchesNow {
				s.each(func(r types.NamespacedName, _ fieldSet) { wake(r, fieldSet{first: anyField}) })
			}
			continue
		}
		matchedBefore := s.sel.Matches(oldLabels)
		switch {
		case matchesNow != matchedBefore:
			s.each(func(r types.NamespacedName, _ fieldSet) { wake(r, fieldSet{first: anyField}) })
		case matchesNow:
			s.each(wake)
		}
	}
}
