package scopes

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// A ChildOption configures ChildResources. ControllerOnly, Depth and
// ReadKinds are ChildOptions, and LocateOptions too; InNamespace is a
// ChildOption.
type ChildOption interface {
	applyToChildren(*childOptions)
}

type childOptions struct {
	controllerOnly bool
	depth          int
	kinds          ReadKinds
	namespace      string
}

func newChildOptions(opts []ChildOption) childOptions {
	o := childOptions{depth: 1}
	for _, opt := range opts {
		opt.applyToChildren(&o)
	}
	return o
}

// ControllerOnly is an option that keeps only resources whose controller
// reference (the owner reference marked controller: true) points to the
// workload, or below the first level to a resource already found. By default
// any owner reference counts, as in OAM.
type ControllerOnly bool

func (c ControllerOnly) applyToChildren(o *childOptions) { o.controllerOnly = bool(c) }
func (c ControllerOnly) applyToLocate(o *locateOptions)  { c.applyToChildren(&o.child) }

// Depth is an option that sets how many levels of ownership ChildResources
// follows. 1, the default (and OAM's only behaviour), finds the resources
// owned by the workload; 2 also finds those owned by them, and so on: with
// kinds ReplicaSet and Pod and Depth(2), a Deployment's ReplicaSets and their
// Pods. Every level searches every kind. Values below 1 mean 1.
type Depth int

func (d Depth) applyToChildren(o *childOptions) { o.depth = max(1, int(d)) }
func (d Depth) applyToLocate(o *locateOptions)  { d.applyToChildren(&o.child) }

// InNamespace is an option that lists child resources in namespace ns only,
// whatever the workload's scope: a namespaced scope's controller passes the
// scope's namespace, so that the children of a cluster-scoped workload are
// never read in other namespaces. Locate does so for a namespaced scope. By
// default (and for ""), children are listed in the workload's namespace,
// and in every namespace for a cluster-scoped workload.
type InNamespace string

func (n InNamespace) applyToChildren(o *childOptions) { o.namespace = string(n) }

// ReadKinds is an option that says which kinds of object Locate and
// ChildResources may read: a workload reference, or a child resource kind,
// whose group and kind (as written, the version left out) it returns false
// for is not read, and reported with an error wrapping ErrKindNotAllowed.
// It replaces the default, NotSecret: any kind but Secrets. A scope's
// references and a WorkloadDefinition's spec.childResourceKinds are written
// by tenants, and a reader backed by a manager's cache starts an informer,
// cluster-wide, for each kind it reads; a caller that means to read Secrets
// says so:
//
//	scopes.ReadKinds(func(schema.GroupKind) bool { return true })
//
// A nil ReadKinds is the default.
type ReadKinds func(schema.GroupKind) bool

func (f ReadKinds) applyToChildren(o *childOptions) { o.kinds = f }
func (f ReadKinds) applyToLocate(o *locateOptions)  { f.applyToChildren(&o.child) }

// Allows reports whether objects of kind gk may be read: f(gk), or
// NotSecret(gk) when f is nil.
func (f ReadKinds) Allows(gk schema.GroupKind) bool {
	if f == nil {
		return NotSecret(gk)
	}
	return f(gk)
}

// NotSecret reports whether gk is anything but the core group's Secret (its
// kind compared without regard to case): the kinds that Locate and
// ChildResources read by default.
func NotSecret(gk schema.GroupKind) bool {
	return gk.Group != "" || !strings.EqualFold(gk.Kind, "Secret")
}

// notAllowed is the error for kinds (written as schema.GroupKind.String
// writes them) that ReadKinds does not allow.
func notAllowed(kinds ...string) error {
	what := "kind "
	if len(kinds) > 1 {
		what = "kinds "
	}
	return fmt.Errorf("objects of %s%s are not read unless the ReadKinds option allows them: %w", what, strings.Join(kinds, ", "), ErrKindNotAllowed)
}

var ownerReferences = fieldpath.MustCompile("metadata.ownerReferences")

// ChildResources returns the child resources of workload: the objects of
// kinds, listed in the workload's namespace (every namespace for a
// cluster-scoped workload; the InNamespace option narrows that to one) with
// each kind's label selector, that have an
// owner reference to the workload's UID. They are sorted by kind, apiVersion,
// namespace and name, and each appears once even when several kinds or
// levels match it: an object is known by its UID or, when it has none (as
// with controller-runtime's fake client), by its group, kind, namespace and
// name. workload must carry its UID, as objects read from the API server do;
// no kinds means no children.
//
// Errors name the kind that could not be listed (a kind that is not
// installed gives one that meta.IsNoMatchError recognizes). Kinds that
// ReadKinds does not allow (Secrets, by default) are not listed: the
// children of the other kinds are returned with an error that names them and
// wraps ErrKindNotAllowed.
func ChildResources(ctx context.Context, r client.Reader, workload *unstructured.Unstructured, kinds []ChildResourceKind, opts ...ChildOption) ([]unstructured.Unstructured, error) {
	l := &lister{r: r}
	return l.children(ctx, workload, kinds, newChildOptions(opts))
}

// A lister lists child resources, keeping each list for the rest of its life
// so that workloads of one Locate call share them.
type lister struct {
	r     client.Reader
	lists map[listKey][]unstructured.Unstructured
	// shared records the items already returned when lists are shared, so
	// that an item returned twice is copied rather than aliased.
	shared map[*unstructured.Unstructured]bool
}

type listKey struct {
	gvk       schema.GroupVersionKind
	namespace string
	selector  string
}

func (l *lister) children(ctx context.Context, workload *unstructured.Unstructured, kinds []ChildResourceKind, o childOptions) ([]unstructured.Unstructured, error) {
	if workload == nil {
		return nil, fmt.Errorf("cannot find the child resources of a nil workload: %w", ErrInvalidRef)
	}
	uid := workload.GetUID()
	if uid == "" {
		return nil, fmt.Errorf("cannot find the child resources of %s: it has no UID (read it from the API server first): %w", describeScope(workload), ErrInvalidRef)
	}
	if len(kinds) == 0 {
		return nil, nil
	}

	ns := workload.GetNamespace()
	if o.namespace != "" {
		ns = o.namespace
	}
	var pool []listed
	var refused []string
	done := make(map[listKey]bool, len(kinds))
	for _, k := range kinds {
		gvk, err := k.gvk()
		if err != nil {
			return nil, fmt.Errorf("cannot find the child resources of %s: %w", describeScope(workload), err)
		}
		if gk := gvk.GroupKind(); !o.kinds.Allows(gk) {
			if s := gk.String(); !slices.Contains(refused, s) {
				refused = append(refused, s)
			}
			continue
		}
		key := listKey{gvk: gvk, namespace: ns, selector: selectorString(k.Selector)}
		if done[key] {
			continue
		}
		done[key] = true
		items, err := l.list(ctx, key, k.Selector)
		if err != nil {
			return nil, fmt.Errorf("cannot find the child resources of %s: %w", describeScope(workload), err)
		}
		pool = append(pool, listed{kind: gvk.GroupKind(), items: items})
	}

	found := seen{uids: map[types.UID]bool{uid: true}}
	owners := map[types.UID]bool{uid: true}
	var out []unstructured.Unstructured
	for level := 0; level < o.depth && len(owners) > 0; level++ {
		next := map[types.UID]bool{}
		for _, p := range pool {
			for i := range p.items {
				item := &p.items[i]
				if !ownedBy(item.Object, owners, o.controllerOnly) || !found.add(item, p.kind) {
					continue
				}
				// An object without a UID owns nothing: owner
				// references name their owner's UID.
				if id := item.GetUID(); id != "" {
					next[id] = true
				}
				out = append(out, l.take(item))
			}
		}
		owners = next
	}
	slices.SortFunc(out, compareObjects)
	if len(refused) > 0 {
		return out, fmt.Errorf("cannot find the child resources of %s: %w", describeScope(workload), notAllowed(refused...))
	}
	return out, nil
}

// listed is the items of one list and the kind they were listed as.
type listed struct {
	kind  schema.GroupKind
	items []unstructured.Unstructured
}

// seen records the objects a walk has found: by UID, or, for an object
// without one (controller-runtime's fake client sets none), by the group and
// kind it was listed as, namespace and name, so that such objects do not all
// count as one (nor two objects of two kinds whose lists left their kind
// unset).
type seen struct {
	uids  map[types.UID]bool
	names map[objectName]bool
}

type objectName struct {
	group, kind, namespace, name string
}

// add records u, listed as kind gk, and reports whether it was not found
// before.
func (s *seen) add(u *unstructured.Unstructured, gk schema.GroupKind) bool {
	if uid := u.GetUID(); uid != "" {
		if s.uids[uid] {
			return false
		}
		s.uids[uid] = true
		return true
	}
	key := objectName{group: gk.Group, kind: gk.Kind, namespace: u.GetNamespace(), name: u.GetName()}
	if s.names[key] {
		return false
	}
	if s.names == nil {
		s.names = map[objectName]bool{}
	}
	s.names[key] = true
	return true
}

// list returns the objects of one kind, from the API server (or the
// reader's cache) the first time and from memory afterwards.
func (l *lister) list(ctx context.Context, key listKey, selector map[string]string) ([]unstructured.Unstructured, error) {
	if items, ok := l.lists[key]; ok {
		return items, nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(key.gvk.GroupVersion().WithKind(key.gvk.Kind + "List"))
	opts := []client.ListOption{client.InNamespace(key.namespace)}
	if len(selector) > 0 {
		opts = append(opts, client.MatchingLabels(selector))
	}
	if err := l.r.List(ctx, list, opts...); err != nil {
		where := "in namespace " + key.namespace
		if key.namespace == "" {
			where = "in any namespace"
		}
		if key.selector != "" {
			where += " with labels " + key.selector
		}
		return nil, fmt.Errorf("cannot list %s %s %s: %w", key.gvk.GroupVersion(), key.gvk.Kind, where, err)
	}
	if l.lists == nil {
		l.lists = map[listKey][]unstructured.Unstructured{}
	}
	l.lists[key] = list.Items
	return list.Items, nil
}

// take returns an item for a caller. Lists are kept for later calls only
// through Locate, where one object may be a child of two workloads: the
// second caller gets a copy.
func (l *lister) take(item *unstructured.Unstructured) unstructured.Unstructured {
	if l.shared == nil {
		return *item
	}
	if l.shared[item] {
		return *item.DeepCopy()
	}
	l.shared[item] = true
	return *item
}

// ownedBy reports whether the object content has an owner reference to one
// of owners (a controller reference, with controllerOnly).
func ownedBy(content map[string]any, owners map[types.UID]bool, controllerOnly bool) bool {
	v, err := ownerReferences.Get(content)
	if err != nil {
		return false
	}
	refs, _ := v.([]any)
	for _, r := range refs {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		uid, _ := m["uid"].(string)
		if uid == "" || !owners[types.UID(uid)] {
			continue
		}
		if !controllerOnly {
			return true
		}
		if c, _ := m["controller"].(bool); c {
			return true
		}
	}
	return false
}

func compareObjects(a, b unstructured.Unstructured) int {
	return cmp.Or(
		strings.Compare(a.GetKind(), b.GetKind()),
		strings.Compare(a.GetAPIVersion(), b.GetAPIVersion()),
		strings.Compare(a.GetNamespace(), b.GetNamespace()),
		strings.Compare(a.GetName(), b.GetName()),
	)
}

// selectorString renders a selector deterministically, as a key and for
// error messages.
func selectorString(sel map[string]string) string {
	if len(sel) == 0 {
		return ""
	}
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(sel)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(sel[k])
	}
	return b.String()
}
