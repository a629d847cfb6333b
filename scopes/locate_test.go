package scopes

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, k := range []struct {
		gvk        schema.GroupVersionKind
		namespaced bool
	}{
		{OAMScopeDefinition, false},
		{OAMWorkloadDefinition, false},
		{oamTraitDefinition, false},
		{velaWorkloadDefinition, true},
		{velaScopeDefinition, true},
		{schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "ManualScalerTrait"}, true},
		{schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "HealthScope"}, true},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}, true},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "Service"}, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, true},
	} {
		scope := meta.RESTScopeRoot
		if k.namespaced {
			scope = meta.RESTScopeNamespace
		}
		m.Add(k.gvk, scope)
	}
	// The design's workload kind has the plural of its CRD name,
	// example-workload.oam.dev, which the guess above would not give.
	w := schema.GroupVersionKind{Group: "oam.dev", Version: "v1alpha2", Kind: "example-workload"}
	m.AddSpecific(w, w.GroupVersion().WithResource("example-workload"), w.GroupVersion().WithResource("example-workload"), meta.RESTScopeNamespace)
	return m
}

func definition(kind, name, spec string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("core.oam.dev/v1alpha2")
	u.SetKind(kind)
	u.SetName(name)
	if spec != "" {
		u.Object["spec"] = mustDoc(`{"spec":` + spec + `}`)["spec"]
	}
	return u
}

func mustDoc(s string) map[string]any {
	var m map[string]any
	if err := utiljson.Unmarshal([]byte(s), &m); err != nil {
		panic(err)
	}
	return m
}

func TestLocate(t *testing.T) {
	ctx := t.Context()
	mapper := testMapper()
	base := func() *memReader {
		r := cluster()
		r.add(
			definition("ScopeDefinition", "healthscopes.core.oam.dev", `{"workloadRefPath":"spec.workloadRefs"}`),
			definition("WorkloadDefinition", "example-workload.oam.dev", `{"childResourceKinds":[{"apiVersion":"apps/v1","kind":"Deployment"},{"apiVersion":"v1","kind":"Service"}]}`),
			object("oam.dev/v1alpha2", "example-workload", "prod", "w", "W", nil),
			object("oam.dev/v1alpha2", "example-workload", "prod", "x", "X", nil),
			object("apps/v1", "StatefulSet", "prod", "db", "S", nil),
		)
		return r
	}
	scope := scopeOf(t, `{"workloadRefs":[
		{"apiVersion":"oam.dev/v1alpha2","kind":"example-workload","name":"w"},
		{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db"},
		{"apiVersion":"oam.dev/v1alpha2","kind":"example-workload","name":"gone"},
		{"apiVersion":"unknown.dev/v1","kind":"Thing","name":"t"},
		{"apiVersion":"oam.dev/v1alpha2","kind":"example-workload","name":"x"}]}`)
	scope.SetNamespace("prod")

	r := base()
	got, err := Locate(ctx, r, mapper, scope, ControllerOnly(true))
	require.Error(t, err)
	require.Len(t, got, 5, "one Located per reference, even when some fail")

	type summary struct {
		Ref        string
		Workload   string
		Definition string
		Children   []string
		Err        bool
	}
	sum := func(l Located) summary {
		s := summary{Ref: l.Ref.String(), Children: ids(l.Children), Err: l.Err != nil}
		if l.Workload != nil {
			s.Workload = l.Workload.GetName()
		}
		if l.Definition != nil {
			s.Definition = l.Definition.GetName()
		}
		return s
	}
	var sums []summary
	for _, l := range got {
		sums = append(sums, sum(l))
	}
	want := []summary{
		{Ref: `oam.dev/v1alpha2 example-workload "w"`, Workload: "w", Definition: "example-workload.oam.dev",
			Children: []string{"Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b", "Service v1 prod/web", "Service v1 prod/web-internal"}},
		{Ref: `apps/v1 StatefulSet "db"`, Workload: "db"},
		{Ref: `oam.dev/v1alpha2 example-workload "gone"`, Err: true},
		{Ref: `unknown.dev/v1 Thing "t"`, Err: true},
		{Ref: `oam.dev/v1alpha2 example-workload "x"`, Workload: "x", Definition: "example-workload.oam.dev",
			Children: []string{"Deployment apps/v1 prod/other", "Deployment apps/v1 prod/shared"}},
	}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("Locate(...): -want, +got:\n%s", diff)
	}
	if !apierrors.IsNotFound(got[2].Err) {
		t.Errorf("a missing workload's error is a NotFound: %v", got[2].Err)
	}
	if err == nil || !strings.Contains(err.Error(), `cannot locate workload oam.dev/v1alpha2 example-workload "gone" of HealthScope prod/hs`) {
		t.Errorf("err = %v, want it to contain %q", err, `cannot locate workload oam.dev/v1alpha2 example-workload "gone" of HealthScope prod/hs`)
	}
	if err == nil || !strings.Contains(err.Error(), `cannot locate workload unknown.dev/v1 Thing "t" of HealthScope prod/hs`) {
		t.Errorf("err = %v, want it to contain %q", err, `cannot locate workload unknown.dev/v1 Thing "t" of HealthScope prod/hs`)
	}
	// Two child kinds, and the WorkloadDefinitions once, for the
	// StatefulSet that has no definition by name.
	if diff := cmp.Diff(3, r.lists); diff != "" {
		t.Errorf("each kind is listed once per call, however many workloads need it: -want, +got:\n%s", diff)
	}
	if got[0].Definition != got[4].Definition {
		t.Errorf("one definition per kind: got two definitions %p and %p", got[0].Definition, got[4].Definition)
	}
}

func TestLocateSharedChild(t *testing.T) {
	// A resource owned by two workloads of the scope is returned to each, as
	// two objects: changing one leaves the other alone.
	r := (&memReader{}).add(
		definition("WorkloadDefinition", "example-workload.oam.dev", `{"childResourceKinds":[{"apiVersion":"v1","kind":"Service"}]}`),
		object("oam.dev/v1alpha2", "example-workload", "ns", "a", "A", nil),
		object("oam.dev/v1alpha2", "example-workload", "ns", "b", "B", nil),
		object("v1", "Service", "ns", "shared", "S", nil, "A", "B"),
	)
	scope := scopeOf(t, `{"refs":[{"apiVersion":"oam.dev/v1alpha2","kind":"example-workload","name":"a"},{"apiVersion":"oam.dev/v1alpha2","kind":"example-workload","name":"b"}]}`)
	scope.SetNamespace("ns")
	got, err := Locate(t.Context(), r, testMapper(), scope, AtPath("spec.refs"))
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Len(t, got[0].Children, 1)
	require.Len(t, got[1].Children, 1)
	got[0].Children[0].SetName("changed")
	if diff := cmp.Diff("shared", got[1].Children[0].GetName()); diff != "" {
		t.Errorf("got[1].Children[0].GetName(): -want, +got:\n%s", diff)
	}
}

func TestLocateScopeErrors(t *testing.T) {
	ctx := t.Context()
	scope := scopeOf(t, `{"workloadRefs":[]}`)
	cases := map[string]struct {
		defs    []*unstructured.Unstructured
		scope   *unstructured.Unstructured
		opts    []LocateOption
		wantErr error
		want    string
	}{
		"NoDefinition": {
			scope: scope, wantErr: ErrDefinitionNotFound, want: "cannot locate the workloads of HealthScope default/hs: it has no ScopeDefinition",
		},
		"NoPath": {
			defs:  []*unstructured.Unstructured{definition("ScopeDefinition", "healthscopes.core.oam.dev", `{"allowComponentOverlap":true}`)},
			scope: scope, wantErr: ErrNoRefPath, want: "ScopeDefinition healthscopes.core.oam.dev",
		},
		"PathOfWrongType": {
			defs:  []*unstructured.Unstructured{definition("ScopeDefinition", "healthscopes.core.oam.dev", `{"workloadRefPath":["spec"]}`)},
			scope: scope, wantErr: ErrMalformed, want: "spec.workloadRefPath of ScopeDefinition healthscopes.core.oam.dev is an array of 1 element, not a field path",
		},
		"ObjectAtPath": {
			scope: scopeOf(t, `{"workloadRefs":{"kind":"x"}}`), opts: []LocateOption{AtPath("spec.workloadRefs")},
			wantErr: ErrInvalidRefPath, want: `path "spec.workloadRefs" of option AtPath is refused: spec.workloadRefs holds an object of 1 field, not a list`,
		},
		"DefinitionPathInMetadata": {
			defs:  []*unstructured.Unstructured{definition("ScopeDefinition", "healthscopes.core.oam.dev", `{"workloadRefPath":"metadata.annotations"}`)},
			scope: scope, wantErr: ErrInvalidRefPath,
			want: `path "metadata.annotations" of ScopeDefinition healthscopes.core.oam.dev (spec.workloadRefPath) is refused: metadata.annotations is in metadata`,
		},
		"Nil": {wantErr: ErrMalformed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := (&memReader{}).add(tc.defs...)
			got, err := Locate(ctx, r, testMapper(), tc.scope, tc.opts...)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
			if got != nil {
				t.Errorf("want nil, got = %v", got)
			}
		})
	}

	// The definition's path is used; AtPath overrides it.
	r := (&memReader{}).add(definition("ScopeDefinition", "healthscopes.core.oam.dev", `{"workloadRefsPath":"spec.other"}`))
	got, err := Locate(ctx, r, testMapper(), scope)
	require.NoError(t, err)
	if len(got) != 0 {
		t.Errorf("spec.other holds no references: want empty, got = %v", got)
	}
}

func TestLocateReferenceNamespace(t *testing.T) {
	// KubeVela's references are core/v1 ObjectReferences, which may carry a
	// namespace. One that names the scope's namespace is an ordinary
	// reference; one that names another is refused before anything is read
	// for it, although a workload of that name exists there.
	r := (&memReader{}).add(
		object("apps/v1", "StatefulSet", "prod", "db", "P", nil),
		object("apps/v1", "StatefulSet", "other", "db", "O", nil),
	)
	scope := scopeOf(t, `{"refs":[
		{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db","namespace":"prod"},
		{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db","namespace":"other"},
		{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db","namespace":""}]}`)
	scope.SetNamespace("prod")
	got, err := Locate(t.Context(), r, testMapper(), scope, AtPath("spec.refs"))
	require.Len(t, got, 3)

	type summary struct {
		Ref, WorkloadUID string
		Err              bool
	}
	var sums []summary
	for _, l := range got {
		s := summary{Ref: l.Ref.String(), Err: l.Err != nil}
		if l.Workload != nil {
			s.WorkloadUID = string(l.Workload.GetUID())
		}
		sums = append(sums, s)
	}
	want := []summary{
		{Ref: `apps/v1 StatefulSet "prod/db"`, WorkloadUID: "P"},
		{Ref: `apps/v1 StatefulSet "other/db"`, Err: true},
		{Ref: `apps/v1 StatefulSet "db"`, WorkloadUID: "P"},
	}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("Locate(...): -want, +got:\n%s", diff)
	}
	if !errors.Is(err, ErrInvalidRef) || !errors.Is(got[1].Err, ErrInvalidRef) {
		t.Errorf("err = %v, got[1].Err = %v, want both to wrap %v", err, got[1].Err, ErrInvalidRef)
	}
	const msg = `cannot locate workload apps/v1 StatefulSet "other/db" of HealthScope prod/hs: spec.refs[1] names namespace "other", and a scope's workloads are read in the scope's own namespace "prod"`
	if got[1].Err == nil || !strings.Contains(got[1].Err.Error(), msg) {
		t.Errorf("got[1].Err = %v, want it to contain %q", got[1].Err, msg)
	}
}
