package scopes

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A LocateOption configures Locate: AtPath, Definitions, ControllerOnly and
// Depth.
type LocateOption interface {
	applyToLocate(*locateOptions)
}

type locateOptions struct {
	path  string
	defs  Definitions
	child childOptions
}

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
// WorkloadDefinition (named `<plural>.<group>` of the workload's kind, found
// through mapper) and its child resources, the kinds that definition's
// spec.childResourceKinds lists. A workload kind without a WorkloadDefinition
// has no children.
//
// The reference path comes from AtPath, or else from the ScopeDefinition of
// the scope's kind: no definition is an error wrapping ErrDefinitionNotFound,
// and a definition that declares no path one wrapping ErrNoRefPath. Such
// errors, and malformed references, return no Located at all.
//
// Otherwise Locate returns one Located per reference even when some fail (a
// workload that does not exist, a kind that is not installed); the error
// joins their errors, each naming its reference. A namespaced workload is
// looked for in the scope's namespace. Each list of child resources is made
// once per call, however many workloads share it.
func Locate(ctx context.Context, c client.Reader, mapper meta.RESTMapper, scope *unstructured.Unstructured, opts ...LocateOption) ([]Located, error) {
	o := locateOptions{child: childOptions{depth: 1}}
	for _, opt := range opts {
		opt.applyToLocate(&o)
	}
	defs := o.defs.withDefaults()
	if scope == nil {
		return nil, fmt.Errorf("cannot locate the workloads of a nil scope: %w", ErrMalformed)
	}
	if mapper == nil {
		return nil, fmt.Errorf("cannot locate the workloads of %s: no RESTMapper", describeScope(scope))
	}

	path := o.path
	if path == "" {
		def, err := definitionOf(ctx, c, mapper, scope.GroupVersionKind(), defs.ScopeDefinition, defs.Namespace)
		if err != nil {
			return nil, fmt.Errorf("cannot locate the workloads of %s: %w", describeScope(scope), err)
		}
		if def == nil {
			return nil, fmt.Errorf("cannot locate the workloads of %s: it has no %s: %w", describeScope(scope), defs.ScopeDefinition.Kind, ErrDefinitionNotFound)
		}
		if path, err = refPath(def); err != nil {
			return nil, fmt.Errorf("cannot locate the workloads of %s: %w", describeScope(scope), err)
		}
		if path == "" {
			return nil, fmt.Errorf("cannot locate the workloads of %s: %s: %w", describeScope(scope), describeScope(def), ErrNoRefPath)
		}
	}
	refs, err := WorkloadRefs(scope, path)
	if err != nil {
		return nil, err
	}

	l := locator{
		c: c, mapper: mapper, scope: scope, defs: defs, child: o.child,
		lister:      &lister{r: c, shared: map[*unstructured.Unstructured]bool{}},
		definitions: map[schema.GroupVersionKind]*unstructured.Unstructured{},
	}
	out := make([]Located, len(refs))
	var errs []error
	for i, ref := range refs {
		out[i] = l.locate(ctx, ref)
		if out[i].Err != nil {
			errs = append(errs, out[i].Err)
		}
	}
	return out, errors.Join(errs...)
}

type locator struct {
	c           client.Reader
	mapper      meta.RESTMapper
	scope       *unstructured.Unstructured
	defs        Definitions
	child       childOptions
	lister      *lister
	definitions map[schema.GroupVersionKind]*unstructured.Unstructured
}

func (l *locator) locate(ctx context.Context, ref WorkloadRef) Located {
	loc := Located{Ref: ref}
	fail := func(err error) Located {
		loc.Err = fmt.Errorf("cannot locate workload %s of %s: %w", ref, describeScope(l.scope), err)
		return loc
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return fail(err)
	}
	gvk := gv.WithKind(ref.Kind)
	mapping, err := l.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fail(err)
	}
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(gvk)
	key := client.ObjectKey{Name: ref.Name}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		key.Namespace = l.scope.GetNamespace()
	}
	if err := l.c.Get(ctx, key, w); err != nil {
		return fail(err)
	}
	loc.Workload = w

	def, ok := l.definitions[gvk]
	if !ok {
		if def, err = definitionOf(ctx, l.c, l.mapper, gvk, l.defs.WorkloadDefinition, l.defs.Namespace); err != nil {
			return fail(err)
		}
		l.definitions[gvk] = def
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
