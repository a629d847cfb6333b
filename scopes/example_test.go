package scopes_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/scopes"
)

func printSpec(u *unstructured.Unstructured) {
	b, _ := json.Marshal(u.Object["spec"])
	fmt.Println(string(b))
}

// The design's DemoScope takes its references at spec.TargetEndpoints; the
// list need not exist.
func ExampleAddWorkloadRef() {
	scope := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "demo.oam.dev/v1beta2",
		"kind":       "DemoScope",
		"metadata":   map[string]any{"name": "demo-scope", "namespace": "default"},
		"spec":       map[string]any{"region": "eu-west-1"},
	}}
	web := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}

	changed, err := scopes.AddWorkloadRef(scope, "spec.TargetEndpoints", web)
	fmt.Println(changed, err)
	changed, err = scopes.AddWorkloadRef(scope, "spec.TargetEndpoints", web)
	fmt.Println(changed, err)
	printSpec(scope)
	// Output:
	// true <nil>
	// false <nil>
	// {"TargetEndpoints":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}],"region":"eu-west-1"}
}

func ExampleAddWorkloadRef_wrongType() {
	scope := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "HealthScope",
		"metadata": map[string]any{"name": "hs", "namespace": "default"},
		"spec":     map[string]any{"workloadRefs": "web"},
	}}
	_, err := scopes.AddWorkloadRef(scope, "spec.workloadRefs", scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, scopes.ErrMalformed))
	printSpec(scope)
	// Output:
	// cannot add workload reference apps/v1 Deployment "web" to HealthScope default/hs at spec.workloadRefs: spec.workloadRefs holds a string of 3 bytes, not a list of workload references: invalid workload reference path (malformed workload references)
	// true
	// {"workloadRefs":"web"}
}

func ExampleRemoveWorkloadRef() {
	scope := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"workloadRefs": []any{
			map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "a"},
			map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "b"},
			map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "c"},
		}},
	}}
	changed, err := scopes.RemoveWorkloadRef(scope, "spec.workloadRefs", scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "a"})
	fmt.Println(changed, err)
	refs, _ := scopes.WorkloadRefs(scope, "spec.workloadRefs")
	fmt.Println(refs)
	// Output:
	// true <nil>
	// [apps/v1 Deployment "b" apps/v1 Deployment "c"]
}

func ExampleRefPath() {
	def := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.oam.dev/v1alpha2",
		"kind":       "ScopeDefinition",
		"metadata":   map[string]any{"name": "healthscopes.core.oam.dev"},
		"spec":       map[string]any{"workloadRefsPath": "spec.workloadRefs"},
	}}
	fmt.Println(scopes.RefPath(def))

	delete(def.Object, "spec")
	fmt.Println(scopes.RefPath(def))
	// Output:
	// spec.workloadRefs true
	//  false
}

func ExampleDefinitionName() {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "HealthScope"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "Service"}, meta.RESTScopeNamespace)

	fmt.Println(scopes.DefinitionName(mapper, schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "HealthScope"}))
	fmt.Println(scopes.DefinitionName(mapper, schema.GroupVersionKind{Version: "v1", Kind: "Service"}))
	// Output:
	// healthscopes.core.oam.dev <nil>
	// services <nil>
}

// An application controller puts its workload into the scopes it names, in
// one patch per scope, and records the path for its finalizer.
func ExamplePatchWorkloadRefs() {
	var (
		ctx    = context.Background()
		c      client.Client   // e.g. mgr.GetClient()
		reader client.Reader   // e.g. mgr.GetAPIReader()
		mapper meta.RESTMapper // e.g. mgr.GetRESTMapper()
	)
	scope := scopes.ScopeRef{APIVersion: "core.oam.dev/v1alpha2", Kind: "HealthScope", Namespace: "default", Name: "example-health-scope"}
	patched, err := scopes.PatchWorkloadRefs(ctx, c, mapper, scope,
		scopes.Change{Add: []scopes.WorkloadRef{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}},
		scopes.ReadFrom(reader))
	switch {
	case errors.Is(err, scopes.ErrOverlap):
		// Report it in a condition; retrying will not help.
	case err != nil:
		// Requeue.
	case patched.Path == "":
		// The scope's definition does not take references.
	default:
		// Record patched.Path, to remove the reference when the
		// application goes, even if the ScopeDefinition is gone by then.
	}
}

// A scope controller finds what to look at in one call.
func ExampleLocate() {
	var (
		ctx    = context.Background()
		c      client.Reader   // e.g. mgr.GetClient()
		mapper meta.RESTMapper // e.g. mgr.GetRESTMapper()
		scope  *unstructured.Unstructured
	)
	located, err := scopes.Locate(ctx, c, mapper, scope, scopes.AtPath("spec.workloadRefs"), scopes.ControllerOnly(true))
	for _, l := range located {
		if l.Err != nil {
			fmt.Println(l.Ref, "is unknown:", l.Err)
			continue
		}
		for _, child := range l.Children {
			fmt.Println(l.Ref, "has", child.GetKind(), child.GetName())
		}
	}
	_ = err // joins the errors of the references above
}
