package scopes

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// Field paths of the definitions, as OAM names them.
const (
	// fieldWorkloadRefPath is where a ScopeDefinition declares its scope's
	// reference path, as the design names it.
	fieldWorkloadRefPath = "spec.workloadRefPath"
	// fieldWorkloadRefsPath is the same declaration under the name OAM's
	// runtime shipped; RefPath reads it when fieldWorkloadRefPath is unset.
	fieldWorkloadRefsPath = "spec.workloadRefsPath"
	// fieldAllowComponentOverlap is the ScopeDefinition's overlap rule.
	fieldAllowComponentOverlap = "spec.allowComponentOverlap"
	// fieldChildResourceKinds is where a WorkloadDefinition lists the kinds
	// of its workload's child resources.
	fieldChildResourceKinds = "spec.childResourceKinds"
)

// OAM's definition kinds, the default of Definitions.
var (
	OAMScopeDefinition    = schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "ScopeDefinition"}
	OAMWorkloadDefinition = schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "WorkloadDefinition"}
)

// Labels with which OAM and KubeVela name an object's definition (such as
// "webservice"), ahead of the name `<plural>.<group>`. Scopes have none.
const (
	WorkloadTypeLabel = "workload.oam.dev/type"
	TraitTypeLabel    = "trait.oam.dev/type"
)

// AppNamespace stands, in a list of definition namespaces, for the
// application's namespace: the namespace of the scope, or of the object
// whose definition is looked for. It is not a valid namespace name.
const AppNamespace = "(app)"

// DefaultDefinitionNamespaces are searched, in order, for definitions of a
// namespaced kind (KubeVela's): the application's namespace, then
// vela-system. Definitions of a cluster-scoped kind (OAM's) are read
// without a namespace.
var DefaultDefinitionNamespaces = []string{AppNamespace, "vela-system"}

// Definitions is an option that says where the definitions live. Zero
// fields keep the defaults: OAM's core.oam.dev/v1alpha2 ScopeDefinition and
// WorkloadDefinition, searched in DefaultDefinitionNamespaces when their
// kind is namespaced. KubeVela users set the kinds their cluster serves.
type Definitions struct {
	ScopeDefinition    schema.GroupVersionKind
	WorkloadDefinition schema.GroupVersionKind
	// Namespaces are searched in order for definitions of a namespaced
	// kind; AppNamespace stands for the application's namespace. They are
	// not used for a cluster-scoped kind.
	Namespaces []string
}

func (d Definitions) withDefaults() Definitions {
	if d.ScopeDefinition.Empty() {
		d.ScopeDefinition = OAMScopeDefinition
	}
	if d.WorkloadDefinition.Empty() {
		d.WorkloadDefinition = OAMWorkloadDefinition
	}
	if len(d.Namespaces) == 0 {
		d.Namespaces = DefaultDefinitionNamespaces
	}
	return d
}

// DefinitionName returns the name of the definition of kind gvk, as OAM names
// definitions: `<plural>.<group>` (healthscopes.core.oam.dev,
// deployments.apps), or the plural alone for the core group (services).
// The plural comes from mapper.
func DefinitionName(mapper meta.RESTMapper, gvk schema.GroupVersionKind) (string, error) {
	if mapper == nil {
		return "", fmt.Errorf("cannot find the resource of kind %s: no RESTMapper", gvk)
	}
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return "", fmt.Errorf("cannot find the resource of kind %s: %w", gvk, err)
	}
	if gvk.Group == "" {
		return m.Resource.Resource, nil
	}
	return m.Resource.Resource + "." + gvk.Group, nil
}

// RefPath returns the reference path a ScopeDefinition declares: its
// spec.workloadRefPath (the design's name) or, when that is unset, its
// spec.workloadRefsPath (the name OAM's runtime and KubeVela ship, and the
// only one their ScopeDefinition CRDs keep: they prune the other). ok is false when
// the definition declares neither (or declares something other than a
// non-empty string): the scope does not take workload references, and
// nothing is patched into it. The path is returned as written; it is parsed
// where it is used.
func RefPath(scopeDefinition *unstructured.Unstructured) (path string, ok bool) {
	path, _, err := refPath(scopeDefinition)
	return path, err == nil && path != ""
}

// refPath is RefPath with the field that declared the path, and an error
// for a declaration of the wrong type.
func refPath(def *unstructured.Unstructured) (path, field string, err error) {
	if def == nil {
		return "", "", nil
	}
	p := fieldpath.Pave(def.Object)
	for _, f := range []string{fieldWorkloadRefPath, fieldWorkloadRefsPath} {
		v, err := p.GetValue(f)
		if fieldpath.IsNotFound(err) || (err == nil && v == nil) {
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("cannot read %s of %s: %w", f, describeScope(def), pathError(err))
		}
		s, ok := v.(string)
		if !ok {
			return "", "", fmt.Errorf("%s of %s is %s, not a field path: %w", f, describeScope(def), jsonvalue.Shape(v), ErrMalformed)
		}
		if s != "" {
			return s, f, nil
		}
	}
	return "", "", nil
}

// allowOverlap reports a ScopeDefinition's allowComponentOverlap. Only an
// explicit false forbids overlap: OAM's runtime never enforced the field, so
// treating a missing one as false would break scopes that relied on that.
func allowOverlap(def *unstructured.Unstructured) (bool, error) {
	v, err := fieldpath.Pave(def.Object).GetValue(fieldAllowComponentOverlap)
	if fieldpath.IsNotFound(err) || (err == nil && v == nil) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot read %s of %s: %w", fieldAllowComponentOverlap, describeScope(def), pathError(err))
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s of %s is %s, not a boolean: %w", fieldAllowComponentOverlap, describeScope(def), jsonvalue.Shape(v), ErrMalformed)
	}
	return b, nil
}

// A ChildResourceKind is an entry of a WorkloadDefinition's
// spec.childResourceKinds: a kind of resource that the workload's controller
// creates, optionally narrowed by a label selector.
type ChildResourceKind struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Selector   map[string]string `json:"selector,omitempty"`
}

func (k ChildResourceKind) gvk() (schema.GroupVersionKind, error) {
	if k.APIVersion == "" || k.Kind == "" {
		return schema.GroupVersionKind{}, fmt.Errorf("needs both an apiVersion and a kind: %w", ErrMalformed)
	}
	gv, err := schema.ParseGroupVersion(k.APIVersion)
	if err != nil {
		// ParseGroupVersion's message quotes the apiVersion: name it by
		// its size, as every error here names a value read from an object.
		return schema.GroupVersionKind{}, fmt.Errorf("its apiVersion, %s, is not a group/version: %w", jsonvalue.Shape(k.APIVersion), ErrMalformed)
	}
	return gv.WithKind(k.Kind), nil
}

// ChildResourceKinds returns the spec.childResourceKinds of a
// WorkloadDefinition: none when the definition is nil or lists none. An
// entry without an apiVersion or a kind, or a field of the wrong type, is an
// error wrapping ErrMalformed.
func ChildResourceKinds(workloadDefinition *unstructured.Unstructured) ([]ChildResourceKind, error) {
	if workloadDefinition == nil {
		return nil, nil
	}
	var kinds []ChildResourceKind
	err := fieldpath.Pave(workloadDefinition.Object).GetValueInto(fieldChildResourceKinds, &kinds)
	if fieldpath.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s of %s: %w (%w)", fieldChildResourceKinds, describeScope(workloadDefinition), err, ErrMalformed)
	}
	for i, k := range kinds {
		if _, err := k.gvk(); err != nil {
			return nil, fmt.Errorf("%s[%d] of %s: %w", fieldChildResourceKinds, i, describeScope(workloadDefinition), err)
		}
	}
	return kinds, nil
}

// A definitionQuery says how to find the definition of an object: by the
// value of its type label, then by its name `<plural>.<group>`, each in
// every namespace in order, and last by a definition whose
// spec.definitionRef.name is `<plural>.<group>`.
type definitionQuery struct {
	defKind      schema.GroupVersionKind
	kind         schema.GroupVersionKind
	labels       map[string]string
	typeLabel    string
	appNamespace string
	namespaces   []string
}

// FindDefinition returns the definition of obj, an object of kind defKind
// (a WorkloadDefinition, TraitDefinition, ScopeDefinition or KubeVela's
// ComponentDefinition), found as OAM and KubeVela find them: the name is
// the value of obj's typeLabel (WorkloadTypeLabel, TraitTypeLabel; none
// for scopes) when obj has it, then `<plural>.<group>` of obj's kind (see
// DefinitionName). A namespaced defKind is looked for under each name in
// namespaces in order (DefaultDefinitionNamespaces when none; AppNamespace
// is obj's namespace). Last, a definition whose spec.definitionRef.name is
// `<plural>.<group>` is taken, so that a definition whose own name differs
// from its definitionRef is still found; two such definitions in one
// namespace are an error naming both.
//
// When there is no definition, or defKind is not installed, the error wraps
// ErrDefinitionNotFound and says every name and namespace looked up.
func FindDefinition(ctx context.Context, r client.Reader, mapper meta.RESTMapper, obj *unstructured.Unstructured, defKind schema.GroupVersionKind, typeLabel string, namespaces ...string) (*unstructured.Unstructured, error) {
	if obj == nil {
		return nil, fmt.Errorf("cannot find the %s of a nil object: %w", defKind.Kind, ErrDefinitionNotFound)
	}
	if len(namespaces) == 0 {
		namespaces = DefaultDefinitionNamespaces
	}
	q := definitionQuery{
		defKind: defKind, kind: obj.GroupVersionKind(), labels: obj.GetLabels(), typeLabel: typeLabel,
		appNamespace: obj.GetNamespace(), namespaces: namespaces,
	}
	def, looked, err := q.find(ctx, r, mapper)
	if err != nil {
		return nil, err
	}
	if def == nil {
		return nil, fmt.Errorf("%s has no %s: looked for %s: %w", describeScope(obj), defKind.Kind, looked, ErrDefinitionNotFound)
	}
	return def, nil
}

// find returns the definition, or nil and a description of what it looked
// up. A definition kind that is not installed is no definition.
func (q definitionQuery) find(ctx context.Context, r client.Reader, mapper meta.RESTMapper) (*unstructured.Unstructured, string, error) {
	crdName, err := DefinitionName(mapper, q.kind)
	if err != nil {
		return nil, "", err
	}
	var names []string
	if v := q.labels[q.typeLabel]; q.typeLabel != "" && v != "" && v != crdName {
		names = append(names, v)
	}
	names = append(names, crdName)

	var quoted []string
	for _, n := range names {
		quoted = append(quoted, strconv.Quote(n))
	}
	looked := q.defKind.Kind + " named " + join(quoted)
	if len(names) > 1 {
		looked += " (its " + q.typeLabel + " label, then its kind's name)"
	}

	m, err := mapper.RESTMapping(q.defKind.GroupKind(), q.defKind.Version)
	if meta.IsNoMatchError(err) {
		return nil, looked + "; the " + q.defKind.Kind + " kind (" + q.defKind.GroupVersion().String() + ") is not installed", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("cannot find the resource of kind %s: %w", q.defKind, err)
	}
	namespaces := []string{""}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		namespaces = q.resolve()
		looked += " in namespace " + join(namespaces)
	}
	looked += ", or one whose spec.definitionRef.name is " + strconv.Quote(crdName)
	if len(namespaces) == 0 {
		return nil, looked, nil
	}

	for _, name := range names {
		for _, ns := range namespaces {
			def := &unstructured.Unstructured{}
			def.SetGroupVersionKind(q.defKind)
			err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, def)
			if err == nil {
				return def, "", nil
			}
			if !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
				return nil, "", fmt.Errorf("cannot get %s %s: %w", q.defKind.Kind, qualify(ns, name), err)
			}
		}
	}
	for _, ns := range namespaces {
		def, err := q.byDefinitionRef(ctx, r, ns, crdName)
		if def != nil || err != nil {
			return def, "", err
		}
	}
	return nil, looked, nil
}

// byDefinitionRef returns the one definition in ns whose
// spec.definitionRef.name is crdName, nil when there is none.
func (q definitionQuery) byDefinitionRef(ctx context.Context, r client.Reader, ns, crdName string) (*unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(q.defKind.GroupVersion().WithKind(q.defKind.Kind + "List"))
	var opts []client.ListOption
	if ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := r.List(ctx, list, opts...); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot list the %s objects to find the one whose spec.definitionRef.name is %q: %w", q.defKind.Kind, crdName, err)
	}
	var found []*unstructured.Unstructured
	for i := range list.Items {
		ref, _, _ := unstructured.NestedString(list.Items[i].Object, "spec", "definitionRef", "name")
		if ref == crdName {
			found = append(found, &list.Items[i])
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	var names []string
	for _, d := range found {
		names = append(names, strconv.Quote(d.GetName()))
	}
	hint := "name the one to use " + strconv.Quote(crdName)
	if q.typeLabel != "" {
		hint = "label the object " + q.typeLabel + "=<definition>, or " + hint
	}
	return nil, fmt.Errorf("%s %s all have spec.definitionRef.name %q; %s: %w",
		q.defKind.Kind, join(names), crdName, hint, ErrAmbiguousDefinition)
}

// resolve returns the namespaces to search, AppNamespace replaced and
// duplicates dropped.
func (q definitionQuery) resolve() []string {
	out := make([]string, 0, len(q.namespaces))
	for _, ns := range q.namespaces {
		if ns == AppNamespace {
			ns = q.appNamespace
		}
		if ns != "" && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

func qualify(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
