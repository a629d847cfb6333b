package scopes_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/scopes"
)

// TestUpstreamManifests applies definitions shaped as OAM's runtime ships
// them (the ScopeDefinition and the WorkloadDefinition of its Helm chart,
// with every spec field set, and TraitDefinitions) and a HealthScope holding
// the placeholder entry OAM's tests use, then plays the application
// controller and the scope controller: the path comes from
// workloadRefsPath, adding twice writes once, removing keeps the
// placeholder, traits find their definition by label and by name.
func TestUpstreamManifests(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "upstream")
	t.Cleanup(func() {
		applyDefinition(t, env, "ScopeDefinition", "healthscopes.core.oam.dev", map[string]any{"workloadRefPath": "spec.workloadRefs"})
	})

	objs := env.ApplyStrict(t, ns, `apiVersion: core.oam.dev/v1alpha2
kind: ScopeDefinition
metadata:
  name: healthscopes.core.oam.dev
spec:
  workloadRefsPath: spec.workloadRefs
  allowComponentOverlap: true
  definitionRef:
    name: healthscope.core.oam.dev
    version: v1alpha2
  extension:
    owner: platform
---
apiVersion: core.oam.dev/v1alpha2
kind: WorkloadDefinition
metadata:
  name: deployments.apps
spec:
  definitionRef:
    name: deployments.apps
    version: v1
  childResourceKinds:
  - apiVersion: apps/v1
    kind: ReplicaSet
  - apiVersion: v1
    kind: Service
    selector:
      app: web
  revisionLabel: app.oam.dev/revision
  podSpecPath: spec.template.spec
  extension:
    anything: [1, two]
---
apiVersion: core.oam.dev/v1alpha2
kind: TraitDefinition
metadata:
  name: manualscalertraits.core.oam.dev
spec:
  definitionRef:
    name: manualscalertraits.core.oam.dev
  workloadRefPath: spec.workloadRef
  revisionEnabled: true
  appliesToWorkloads:
  - deployments.apps
---
apiVersion: core.oam.dev/v1alpha2
kind: TraitDefinition
metadata:
  name: scaler
spec:
  definitionRef:
    name: manualscalertraits.core.oam.dev
---
apiVersion: core.oam.dev/v1alpha2
kind: HealthScope
metadata:
  name: example-health-scope
spec:
  probe-timeout: 10
  probe-interval: 60
  workloadRefs:
  - apiVersion: ""
    kind: ""
    name: ""`)
	for _, u := range objs {
		stored := newObject(u.GroupVersionKind(), u.GetNamespace(), u.GetName())
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(stored), stored))
		if diff := cmp.Diff(u.Object["spec"], stored.Object["spec"]); diff != "" {
			t.Errorf("spec of %s %s as stored: -want, +got:\n%s", u.GetKind(), u.GetName(), diff)
		}
	}

	web := replicated(deploymentKind, ns, "web", nil, false)
	require.NoError(t, env.Client.Create(ctx, web))
	require.NoError(t, env.Client.Create(ctx, replicated(replicaSetKind, ns, "web-1", web, true)))

	// The application controller's part: the path is the chart's
	// workloadRefsPath; a second add of the same workload writes nothing.
	counting := &countingClient{Client: env.Client}
	scope := scopes.ScopeRef{APIVersion: healthScope.GroupVersion().String(), Kind: healthScope.Kind, Namespace: ns, Name: "example-health-scope"}
	add := scopes.Change{Add: []scopes.WorkloadRef{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}}
	for i, want := range []scopes.Patched{{Path: "spec.workloadRefs", Changed: true}, {Path: "spec.workloadRefs"}} {
		got, err := scopes.PatchWorkloadRefs(ctx, counting, env.Mapper, scope, add)
		require.NoError(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("PatchWorkloadRefs, call %d: -want, +got:\n%s", i+1, diff)
		}
	}
	if diff := cmp.Diff(int64(1), counting.patches.Load()); diff != "" {
		t.Errorf("patches sent: -want, +got:\n%s", diff)
	}
	placeholder := map[string]any{"apiVersion": "", "kind": "", "name": ""}
	hs := get(t, env, healthScope, ns, "example-health-scope")
	wantRefs := []any{placeholder, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}
	if diff := cmp.Diff(wantRefs, hs.Object["spec"].(map[string]any)["workloadRefs"]); diff != "" {
		t.Errorf("spec.workloadRefs: -want, +got:\n%s", diff)
	}

	// The scope controller's part: the placeholder is skipped and reported,
	// the Deployment's ReplicaSet found through the chart-shaped definition.
	var skipped []scopes.SkippedEntry
	located, err := scopes.Locate(ctx, env.Client, env.Mapper, hs, scopes.ReportSkipped(&skipped))
	require.NoError(t, err)
	require.Len(t, located, 1)
	if diff := cmp.Diff("deployments.apps", located[0].Definition.GetName()); diff != "" {
		t.Errorf("the workload's definition: -want, +got:\n%s", diff)
	}
	var children []string
	for _, c := range located[0].Children {
		children = append(children, c.GetKind()+" "+c.GetName())
	}
	if diff := cmp.Diff([]string{"ReplicaSet web-1"}, children); diff != "" {
		t.Errorf("children: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(1, len(skipped)); diff != "" {
		t.Errorf("skipped entries %v: -want, +got:\n%s", skipped, diff)
	}

	// Removal keeps the placeholder.
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scope, scopes.Change{Remove: add.Add})
	require.NoError(t, err)
	hs = get(t, env, healthScope, ns, "example-health-scope")
	if diff := cmp.Diff([]any{placeholder}, hs.Object["spec"].(map[string]any)["workloadRefs"]); diff != "" {
		t.Errorf("spec.workloadRefs after removal: -want, +got:\n%s", diff)
	}

	// Traits: the trait.oam.dev/type label names the definition, else
	// <plural>.<group>.
	traitDefinition := schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "TraitDefinition"}
	for label, want := range map[string]string{"scaler": "scaler", "": "manualscalertraits.core.oam.dev"} {
		trait := newObject(schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "ManualScalerTrait"}, ns, "t")
		if label != "" {
			trait.SetLabels(map[string]string{scopes.TraitTypeLabel: label})
		}
		def, err := scopes.FindDefinition(ctx, env.Client, env.Mapper, trait, traitDefinition, scopes.TraitTypeLabel)
		require.NoError(t, err)
		if diff := cmp.Diff(want, def.GetName()); diff != "" {
			t.Errorf("TraitDefinition of a trait labelled %q: -want, +got:\n%s", label, diff)
		}
	}
}
