package scopes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A LocateOption configures Locate: AtPath, Definitions, ControllerOnly,
// Depth, ReadKinds, ClusterScopedWorkloads and ReportSkipped.
type LocateOption interface {
	applyToLocate(*locateOptions)
}

type locateOptions struct {
	path    string
	defs    Definitions
	child   childOptions
	skipped *[]SkippedEntry
	cluster []schema.GroupKind
}

type clusterScoped []schema.GroupKind

func (k clusterScoped) applyToLocate(o *locateOptions) { o.cluster = append(o.cluster, k...) }

// ClusterScopedWorkloads is an option that lets a namespaced scope hold
// workloads of the cluster-scoped kinds it names (group and kind, as the
// RESTMapper spells them: {Group: "example.org", Kind: "XDatabase"}). By
// default a namespaced scope's reference to a cluster-scoped kind (a
// Namespace, a ClusterRole, a cluster-scoped composite) is refused with
// ErrInvalidRef and nothing is read for it: a scope is written by the
// tenants of its namespace, and its controller, which reads with rights
// across the cluster, would otherwise report on objects they may not see.
// An operator who means such workloads to be judged from namespaced scopes
// names their kinds. Their child resources are still listed in the scope's
// namespace only.
func ClusterScopedWorkloads(kinds ...schema.GroupKind) LocateOption { return clusterScoped(kinds) }

type reportSkipped struct{ to *[]SkippedEntry }

func (r reportSkipped) applyToLocate(o *locateOptions) { o.skipped = r.to }

// ReportSkipped is an option that makes Locate set *to to the entries of
// the scope's reference list that are not workload references (a string,
// OAM's placeholder {"apiVersion":"","kind":"","name":""}), which it skips,
// as AddWorkloadRef and RemoveWorkloadRef keep them. *to is set to nil when
// there are none.
func ReportSkipped(to *[]SkippedEntry) LocateOption { return reportSkipped{to} }

// AtPath is an option that gives a scope's reference path, so that Locate
// and PatchWorkloadRefs need not read it from the ScopeDefinition. A scope's
// own controller knows its schema; an application controller that removes
// the references it wrote can pass the path it recorded, which keeps working
// after the ScopeDefinition is deleted.
type AtPath string

func (p AtPath) applyToLocate(o *locateOptions) { o.path = string(p) }
func (p AtPath) applyToPatch(o *patchOptions)   { o.path = string(p) }

func (d Definitions) applyToLocate(o *locateOptions) { o.defs = d }
func (d Definitions) applyToPatch(o *patchOptions)   { o.defs = d }

// Located is what Locate found for one workload reference of a scope.
type Located struct {
	// Ref is the reference, as the scope holds it.
	Ref WorkloadRef
	// Path is the reference's entry in the scope: spec.workloadRefs[2].
	Path string
	// Workload is the referenced object; nil when it could not be read.
	Workload *unstructured.Unstructured
	// Definition is the workload's WorkloadDefinition, nil when its kind
	// has none. Entries of one kind share it: do not modify it.
	Definition *unstructured.Unstructured
	// Children are the workload's child resources (see ChildResources).
	Children []unstructured.Unstructured
	// Err says why the reference could not be located fully, naming it; the
	// fields above hold what was found before the failure.
	Err error
}

// Locate finds, in one call, what a scope controller needs: for every
// workload reference of scope, in the scope's order, the workload, its
// WorkloadDefinition (found as FindDefinition does, by the workload's
// WorkloadTypeLabel first) and its child resources, the kinds that
// definition's spec.childResourceKinds lists. A workload without a
// WorkloadDefinition has no children.
//
// The reference path comes from AtPath, or else from the ScopeDefinition of
// the scope's kind: no definition is an error wrapping ErrDefinitionNotFound
// that says what was looked up, and a definition that declares no path one
// wrapping ErrNoRefPath. A path that CheckRefPath refuses, or whose value is
// not a list, is an error wrapping ErrInvalidRefPath that names the option
// or the ScopeDefinition. Such errors return no Located at all. Entries of
// the list that are not references are skipped (see ReportSkipped).
//
// Otherwise Locate returns one Located per reference even when some fail (a
// workload that does not exist, a kind that is not installed, a kind that
// ReadKinds does not allow); the error joins their errors, each naming its
// reference. Nothing of a kind that ReadKinds does not allow (by default,
// Secrets) is read: a reference to one fails with ErrKindNotAllowed, and a
// child resource kind is skipped, the children of the other kinds kept and
// the Located's Err wrapping ErrKindNotAllowed.
//
// A namespaced scope reads and reports nothing outside its namespace. A
// namespaced workload is looked for in the scope's namespace; a reference
// whose namespace field names another namespace, or (unless
// ClusterScopedWorkloads allows its kind) that names a cluster-scoped kind,
// fails with ErrInvalidRef, naming its entry (spec.workloadRefs[2]), and
// nothing is read for it. Child resources are listed in the scope's
// namespace only, whatever the workload's scope (see InNamespace). A
// workload that does not exist and one that the reader may not read (the
// API server answers forbidden) fail with the same message, wrapping
// ErrWorkloadNotFound (and the API server's error, for the operator), so
// that a scope's status cannot tell its tenants whether an object they may
// not see exists. Each list of child resources is made once per call,
// however many workloads share it.
func Locate(ctx context.Context, c client.Reader, mapper meta.RESTMapper, scope *unstructured.Unstructured, opts ...LocateOption) ([]Located, error) {
	o := locateOptions{child: childOptions{depth: 1}}
	for _, opt := range opts {
		opt.applyToLocate(&o)
	}
	defs := o.defs.withDefaults()
	if o.skipped != nil {
		*o.skipped = nil
	}
	if scope == nil {
		return nil, fmt.Errorf("cannot locate the workloads of a nil scope: %w", ErrMalformed)
	}
	if mapper == nil {
		return nil, fmt.Errorf("cannot locate the workloads of %s: no RESTMapper", describeScope(scope))
	}
	fail := func(err error) ([]Located, error) {
		return nil, fmt.Errorf("cannot locate the workloads of %s: %w", describeScope(scope), err)
	}

	path, source := o.path, "option AtPath"
	if path == "" {
		q := definitionQuery{defKind: defs.ScopeDefinition, kind: scope.GroupVersionKind(), appNamespace: scope.GetNamespace(), namespaces: defs.Namespaces}
		def, looked, err := q.find(ctx, c, mapper)
		if err != nil {
			return fail(err)
		}
		if def == nil {
			return fail(fmt.Errorf("it has no %s: looked for %s; create one, or pass AtPath: %w", defs.ScopeDefinition.Kind, looked, ErrDefinitionNotFound))
		}
		var field string
		if path, field, err = refPath(def); err != nil {
			return fail(err)
		}
		if path == "" {
			return fail(fmt.Errorf("%s: %w", describeScope(def), ErrNoRefPath))
		}
		source = describeScope(def) + " (" + field + ")"
	}
	refs, entries, skipped, err := readRefs(scope.Object, path)
	if err != nil {
		return fail(fmt.Errorf("path %q of %s is refused: %w", path, source, err))
	}
	if o.skipped != nil {
		*o.skipped = skipped
	}

	child := o.child
	if ns := scope.GetNamespace(); ns != "" {
		child.namespace = ns
	}
	l := locator{
		c: c, mapper: mapper, scope: scope, defs: defs, child: child, cluster: o.cluster,
		lister:      &lister{r: c, shared: map[*unstructured.Unstructured]bool{}},
		definitions: map[definitionKey]*unstructured.Unstructured{},
	}
	out := make([]Located, len(refs))
	var errs []error
	for i, ref := range refs {
		out[i] = l.locate(ctx, ref, path+"["+strconv.Itoa(entries[i])+"]")
		if out[i].Err != nil {
			errs = append(errs, out[i].Err)
		}
	}
	return out, errors.Join(errs...)
}

// definitionKey is what a workload's definition depends on: its kind and
// its type label.
type definitionKey struct {
	kind  schema.GroupVersionKind
	label string
}

type locator struct {
	c           client.Reader
	mapper      meta.RESTMapper
	scope       *unstructured.Unstructured
	defs        Definitions
	child       childOptions
	cluster     []schema.GroupKind
	lister      *lister
	definitions map[definitionKey]*unstructured.Unstructured
}

func (l *locator) locate(ctx context.Context, ref WorkloadRef, entry string) Located {
	loc := Located{Ref: ref, Path: entry}
	fail := func(err error) Located {
		loc.Err = fmt.Errorf("cannot locate workload %s of %s: %w", ref, describeScope(l.scope), err)
		return loc
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return fail(err)
	}
	gvk := gv.WithKind(ref.Kind)
	if gk := gvk.GroupKind(); !l.child.kinds.Allows(gk) {
		return fail(notAllowed(gk.String()))
	}
	// A scope's references are written by its tenants: one that names
	// another namespace would make the scope's controller read, and report
	// on, a workload the tenant may not see.
	scopeNS := l.scope.GetNamespace()
	otherNamespace := func() Located {
		return fail(fmt.Errorf("%s names namespace %q, and a scope's workloads are read in the scope's own namespace %q: %w", entry, ref.Namespace, scopeNS, ErrInvalidRef))
	}
	if scopeNS != "" && ref.Namespace != "" && ref.Namespace != scopeNS {
		return otherNamespace()
	}
	mapping, err := l.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fail(err)
	}
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(gvk)
	key := client.ObjectKey{Name: ref.Name}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if ref.Namespace != "" && ref.Namespace != scopeNS {
			return otherNamespace()
		}
		key.Namespace = scopeNS
	} else if scopeNS != "" && !slices.Contains(l.cluster, mapping.GroupVersionKind.GroupKind()) {
		// Decided from the kind alone, before any read, so that the
		// answer is the same whether such an object exists or not.
		return fail(fmt.Errorf("%s names %s, a cluster-scoped kind, and a namespaced scope's workloads are in its namespace unless the ClusterScopedWorkloads option allows the kind: %w", entry, gvk.GroupKind(), ErrInvalidRef))
	}
	if err := l.c.Get(ctx, key, w); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			loc.Err = &unreadable{msg: fmt.Sprintf("cannot locate workload %s of %s: %s", ref, describeScope(l.scope), ErrWorkloadNotFound), cause: err}
			return loc
		}
		return fail(err)
	}
	loc.Workload = w

	dk := definitionKey{kind: gvk, label: w.GetLabels()[WorkloadTypeLabel]}
	def, ok := l.definitions[dk]
	if !ok {
		q := definitionQuery{
			defKind: l.defs.WorkloadDefinition, kind: gvk, labels: w.GetLabels(), typeLabel: WorkloadTypeLabel,
			appNamespace: l.scope.GetNamespace(), namespaces: l.defs.Namespaces,
		}
		if def, _, err = q.find(ctx, l.c, l.mapper); err != nil {
			return fail(err)
		}
		l.definitions[dk] = def
	}
	loc.Definition = def
	kinds, err := ChildResourceKinds(def)
	if err != nil {
		return fail(err)
	}
	if loc.Children, err = l.lister.children(ctx, w, kinds, l.child); err != nil {
		return fail(err)
	}
	return loc
}

// unreadable is the error of a workload that does not exist or may not be
// read. Its message is the same for both; it wraps ErrWorkloadNotFound and
// the API server's answer, which the operator can inspect
// (apierrors.IsForbidden) but a status that shows the message does not tell.
type unreadable struct {
	msg   string
	cause error
}

func (e *unreadable) Error() string   { return e.msg }
func (e *unreadable) Unwrap() []error { return []error{ErrWorkloadNotFound, e.cause} }
