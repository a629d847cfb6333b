package scopes

import (
	"errors"
	"github.com/google/go-cmp/cmp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// Upstream-shaped definition kinds: OAM's cluster-scoped v1alpha2 ones, and
// KubeVela's namespaced v1beta1 ones.
var (
	oamTraitDefinition     = schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "TraitDefinition"}
	velaWorkloadDefinition = schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1beta1", Kind: "WorkloadDefinition"}
	velaScopeDefinition    = schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1beta1", Kind: "ScopeDefinition"}
)

// def builds a definition of kind gvk; ns is empty for a cluster-scoped one.
func def(gvk schema.GroupVersionKind, ns, name, definitionRef string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(ns)
	u.SetName(name)
	if definitionRef != "" {
		u.Object["spec"] = map[string]any{"definitionRef": map[string]any{"name": definitionRef}}
	}
	return u
}

func labelled(apiVersion, kind, ns, name string, labels map[string]string) *unstructured.Unstructured {
	u := object(apiVersion, kind, ns, name, "uid-"+name, nil)
	u.SetLabels(labels)
	return u
}

func TestFindDefinition(t *testing.T) {
	webservice := map[string]string{WorkloadTypeLabel: "webservice"}
	deploy := labelled("apps/v1", "Deployment", "prod", "web", nil)
	deployWebservice := labelled("apps/v1", "Deployment", "prod", "web", webservice)
	hs := labelled("core.oam.dev/v1alpha2", "HealthScope", "prod", "hs", map[string]string{WorkloadTypeLabel: "webservice"})

	type want struct {
		ns, name string
		err      error
		contains []string
	}
	cases := map[string]struct {
		reason     string
		obj        *unstructured.Unstructured
		defKind    schema.GroupVersionKind
		typeLabel  string
		namespaces []string
		defs       []client.Object
		want       want
	}{
		"LabelFirst": {
			reason: "OAM and KubeVela take the definition named by the workload.oam.dev/type label before <plural>.<group>.",
			obj:    deployWebservice, defKind: OAMWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			defs: []client.Object{def(OAMWorkloadDefinition, "", "deployments.apps", ""), def(OAMWorkloadDefinition, "", "webservice", "deployments.apps")},
			want: want{name: "webservice"},
		},
		"LabelDefinitionGone": {
			reason: "A label whose definition does not exist falls back to <plural>.<group>.",
			obj:    labelled("apps/v1", "Deployment", "prod", "web", map[string]string{WorkloadTypeLabel: "gone"}), defKind: OAMWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			defs: []client.Object{def(OAMWorkloadDefinition, "", "deployments.apps", "")},
			want: want{name: "deployments.apps"},
		},
		"NoLabel": {
			obj: deploy, defKind: OAMWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			defs: []client.Object{def(OAMWorkloadDefinition, "", "deployments.apps", ""), def(OAMWorkloadDefinition, "", "webservice", "")},
			want: want{name: "deployments.apps"},
		},
		"TraitLabel": {
			obj:     labelled("core.oam.dev/v1alpha2", "ManualScalerTrait", "prod", "t", map[string]string{TraitTypeLabel: "scaler"}),
			defKind: oamTraitDefinition, typeLabel: TraitTypeLabel,
			defs: []client.Object{def(oamTraitDefinition, "", "manualscalertraits.core.oam.dev", ""), def(oamTraitDefinition, "", "scaler", "")},
			want: want{name: "scaler"},
		},
		"ScopeHasNoLabel": {
			reason: "Scopes have no type label upstream: a workload label on a scope is not read.",
			obj:    hs, defKind: OAMScopeDefinition,
			defs: []client.Object{def(OAMScopeDefinition, "", "healthscopes.core.oam.dev", ""), def(OAMScopeDefinition, "", "webservice", "")},
			want: want{name: "healthscopes.core.oam.dev"},
		},
		"DefinitionRef": {
			reason: "A ScopeDefinition named otherwise (the design's healthscope.core.oam.dev) is found through spec.definitionRef.name.",
			obj:    hs, defKind: OAMScopeDefinition,
			defs: []client.Object{def(OAMScopeDefinition, "", "healthscope.core.oam.dev", "healthscopes.core.oam.dev"), def(OAMScopeDefinition, "", "other", "others.core.oam.dev")},
			want: want{name: "healthscope.core.oam.dev"},
		},
		"Ambiguous": {
			reason: "Two definitions refer to deployments.apps and none has its name: an error that says how to choose.",
			obj:    deploy, defKind: OAMWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			defs: []client.Object{def(OAMWorkloadDefinition, "", "webservice", "deployments.apps"), def(OAMWorkloadDefinition, "", "worker", "deployments.apps")},
			want: want{err: ErrAmbiguousDefinition, contains: []string{`"webservice" or "worker"`, "label the object workload.oam.dev/type=<definition>"}},
		},
		"NotFound": {
			reason: "The error says every name looked up.",
			obj:    hs, defKind: OAMScopeDefinition,
			defs: []client.Object{def(OAMScopeDefinition, "", "other", "others.core.oam.dev")},
			want: want{err: ErrDefinitionNotFound, contains: []string{
				`HealthScope prod/hs has no ScopeDefinition: looked for ScopeDefinition named "healthscopes.core.oam.dev", or one whose spec.definitionRef.name is "healthscopes.core.oam.dev"`,
			}},
		},
		"NotFoundLabel": {
			obj: deployWebservice, defKind: OAMWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			want: want{err: ErrDefinitionNotFound, contains: []string{
				`named "webservice" or "deployments.apps" (its workload.oam.dev/type label, then its kind's name)`,
			}},
		},
		"AppNamespaceFirst": {
			reason: "KubeVela looks in the application's namespace, then in vela-system.",
			obj:    deployWebservice, defKind: velaWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			defs: []client.Object{def(velaWorkloadDefinition, "vela-system", "webservice", ""), def(velaWorkloadDefinition, "prod", "webservice", "")},
			want: want{ns: "prod", name: "webservice"},
		},
		"VelaSystem": {
			obj: deployWebservice, defKind: velaWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			defs: []client.Object{def(velaWorkloadDefinition, "vela-system", "webservice", ""), def(velaWorkloadDefinition, "other", "webservice", "")},
			want: want{ns: "vela-system", name: "webservice"},
		},
		"LabelBeforeNamespace": {
			reason: "Each name is looked for in every namespace before the next name.",
			obj:    deployWebservice, defKind: velaWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			defs: []client.Object{def(velaWorkloadDefinition, "prod", "deployments.apps", ""), def(velaWorkloadDefinition, "vela-system", "webservice", "")},
			want: want{ns: "vela-system", name: "webservice"},
		},
		"CustomOrder": {
			obj: deployWebservice, defKind: velaWorkloadDefinition, typeLabel: WorkloadTypeLabel, namespaces: []string{"vela-system", AppNamespace},
			defs: []client.Object{def(velaWorkloadDefinition, "vela-system", "webservice", ""), def(velaWorkloadDefinition, "prod", "webservice", "")},
			want: want{ns: "vela-system", name: "webservice"},
		},
		"OtherNamespaceNotSearched": {
			obj: deployWebservice, defKind: velaWorkloadDefinition, typeLabel: WorkloadTypeLabel,
			defs: []client.Object{def(velaWorkloadDefinition, "other", "webservice", "")},
			want: want{err: ErrDefinitionNotFound, contains: []string{"in namespace prod or vela-system"}},
		},
		"NamespacedDefinitionRef": {
			obj: hs, defKind: velaScopeDefinition,
			defs: []client.Object{def(velaScopeDefinition, "vela-system", "healthscope", "healthscopes.core.oam.dev")},
			want: want{ns: "vela-system", name: "healthscope"},
		},
		"KindNotInstalled": {
			obj: deploy, defKind: schema.GroupVersionKind{Group: "gone.dev", Version: "v1", Kind: "WorkloadDefinition"},
			want: want{err: ErrDefinitionNotFound, contains: []string{"is not installed"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithRESTMapper(testMapper()).WithObjects(tc.defs...).Build()
			got, err := FindDefinition(t.Context(), c, testMapper(), tc.obj, tc.defKind, tc.typeLabel, tc.namespaces...)
			if tc.want.err != nil {
				if !errors.Is(err, tc.want.err) {
					t.Errorf("%s: err = %v, want %v", tc.reason, err, tc.want.err)
				}
				for _, s := range tc.want.contains {
					if err == nil || !strings.Contains(err.Error(), s) {
						t.Errorf("%s: err = %v, want it to contain %q", tc.reason, err, s)
					}
				}
				return
			}
			require.NoError(t, err, tc.reason)
			if diff := cmp.Diff(tc.want.ns+"/"+tc.want.name, got.GetNamespace()+"/"+got.GetName()); diff != "" {
				t.Errorf("%s: namespace/name: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPatchByDefinitionRef: the design's ScopeDefinition, named
// healthscope.core.oam.dev with definitionRef healthscopes.core.oam.dev,
// gives its path to PatchWorkloadRefs and Locate.
func TestPatchByDefinitionRef(t *testing.T) {
	sd := def(OAMScopeDefinition, "", "healthscope.core.oam.dev", "healthscopes.core.oam.dev")
	sd.Object["spec"].(map[string]any)["workloadRefPath"] = "spec.workloadRefs"
	c := fake.NewClientBuilder().WithRESTMapper(testMapper()).WithObjects(scopeOf(t, `{}`), sd).Build()
	got, err := PatchWorkloadRefs(t.Context(), c, testMapper(), hsRef, Change{Add: []WorkloadRef{web}})
	require.NoError(t, err)
	if diff := cmp.Diff(Patched{Path: "spec.workloadRefs", Changed: true}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}
}

// TestLocateByLabel: a KubeVela workload finds its WorkloadDefinition, in
// the scope's namespace, through its type label, and so its children.
func TestLocateByLabel(t *testing.T) {
	w := labelled("apps/v1", "Deployment", "prod", "web", map[string]string{WorkloadTypeLabel: "webservice"})
	wd := def(velaWorkloadDefinition, "prod", "webservice", "deployments.apps")
	wd.Object["spec"].(map[string]any)["childResourceKinds"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet"}}
	rs := object("apps/v1", "ReplicaSet", "prod", "web-1", "rs1", nil, "uid-web!")
	scope := scopeOf(t, `{"workloadRefs":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}]}`)
	scope.SetNamespace("prod")
	r := (&memReader{}).add(w, wd, rs)
	got, err := Locate(t.Context(), r, testMapper(), scope, AtPath("spec.workloadRefs"),
		Definitions{WorkloadDefinition: velaWorkloadDefinition})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.NotNil(t, got[0].Definition)
	if diff := cmp.Diff("webservice", got[0].Definition.GetName()); diff != "" {
		t.Errorf("got[0].Definition.GetName(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ReplicaSet apps/v1 prod/web-1"}, ids(got[0].Children)); diff != "" {
		t.Errorf("ids(got[0].Children): -want, +got:\n%s", diff)
	}
}

// TestForeignEntries: Add keeps entries that are not references, and
// Locate skips and reports the same entries instead of failing.
func TestForeignEntries(t *testing.T) {
	scope := scopeOf(t, `{"workloadRefs":["a.b.c",{"apiVersion":"","kind":"","name":""}]}`)
	scope.SetNamespace("prod")
	changed, err := AddWorkloadRef(scope, "spec.workloadRefs", WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"})
	require.NoError(t, err)
	if !changed {
		t.Errorf("changed: want true, got false")
	}

	w := labelled("apps/v1", "Deployment", "prod", "web", nil)
	var skipped []SkippedEntry
	got, err := Locate(t.Context(), (&memReader{}).add(w), testMapper(), scope, AtPath("spec.workloadRefs"), ReportSkipped(&skipped))
	require.NoError(t, err)
	require.Len(t, got, 1)
	if diff := cmp.Diff("web", got[0].Workload.GetName()); diff != "" {
		t.Errorf("got[0].Workload.GetName(): -want, +got:\n%s", diff)
	}
	wantSkipped := []SkippedEntry{
		{Path: "spec.workloadRefs[0]", Reason: `is a string of 5 bytes, not a workload reference`},
		{Path: "spec.workloadRefs[1]", Reason: "is an object with no string apiVersion, kind or name, not a workload reference"},
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped entries: -want, +got:\n%s", diff)
	}

	// Remove keeps them too.
	changed, err = RemoveWorkloadRef(scope, "spec.workloadRefs", WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"})
	require.NoError(t, err)
	if !changed {
		t.Errorf("changed: want true, got false")
	}
	if diff := cmp.Diff([]any{"a.b.c", map[string]any{"apiVersion": "", "kind": "", "name": ""}}, scope.Object["spec"].(map[string]any)["workloadRefs"]); diff != "" {
		t.Errorf("scope.Object[\"spec\"].(map[string]any)[\"workloadRefs\"]: -want, +got:\n%s", diff)
	}
}
