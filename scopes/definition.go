package scopes

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/fieldpath"
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

// Definitions is an option that says where the definitions live. Zero
// fields keep the defaults: OAM's cluster-scoped core.oam.dev/v1alpha2
// ScopeDefinition and WorkloadDefinition. KubeVela, whose definitions are
// namespaced, would set Namespace (e.g. "vela-system").
type Definitions struct {
	ScopeDefinition    schema.GroupVersionKind
	WorkloadDefinition schema.GroupVersionKind
	// Namespace holds the definitions; empty for cluster-scoped ones.
	Namespace string
}

func (d Definitions) withDefaults() Definitions {
	if d.ScopeDefinition.Empty() {
		d.ScopeDefinition = OAMScopeDefinition
	}
	if d.WorkloadDefinition.Empty() {
		d.WorkloadDefinition = OAMWorkloadDefinition
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
// spec.workloadRefsPath (the name OAM's runtime shipped). ok is false when
// the definition declares neither (or declares something other than a
// non-empty string): the scope does not take workload references, and
// nothing is patched into it. The path is returned as written; it is parsed
// where it is used.
func RefPath(scopeDefinition *unstructured.Unstructured) (path string, ok bool) {
	path, err := refPath(scopeDefinition)
	return path, err == nil && path != ""
}

// refPath is RefPath with an error for a declaration of the wrong type.
func refPath(def *unstructured.Unstructured) (string, error) {
	if def == nil {
		return "", nil
	}
	p := fieldpath.Pave(def.Object)
	for _, f := range []string{fieldWorkloadRefPath, fieldWorkloadRefsPath} {
		v, err := p.GetValue(f)
		if fieldpath.IsNotFound(err) || (err == nil && v == nil) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cannot read %s of %s: %w", f, describeScope(def), pathError(err))
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s of %s is %s, not a field path: %w", f, describeScope(def), describe(v), ErrMalformed)
		}
		if s != "" {
			return s, nil
		}
	}
	return "", nil
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
		return false, fmt.Errorf("%s of %s is %s, not a boolean: %w", fieldAllowComponentOverlap, describeScope(def), describe(v), ErrMalformed)
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
		return schema.GroupVersionKind{}, fmt.Errorf("child resource kind %q %q needs both an apiVersion and a kind: %w", k.APIVersion, k.Kind, ErrMalformed)
	}
	gv, err := schema.ParseGroupVersion(k.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("child resource kind %s: %w (%w)", k.Kind, err, ErrMalformed)
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

// definitionOf reads the definition of kind (named <plural>.<group>), an
// object of kind defKind in namespace. It returns nil, and no error, when
// there is none, including when the definition kind itself is not installed.
func definitionOf(ctx context.Context, r client.Reader, mapper meta.RESTMapper, kind, defKind schema.GroupVersionKind, namespace string) (*unstructured.Unstructured, error) {
	name, err := DefinitionName(mapper, kind)
	if err != nil {
		return nil, err
	}
	def := &unstructured.Unstructured{}
	def.SetGroupVersionKind(defKind)
	if err := r.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, def); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("cannot get %s %s: %w", defKind.Kind, name, err)
	}
	return def, nil
}
