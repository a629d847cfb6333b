package controllers_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/scopes"
)

// TestUpstreamShapes creates the definitions OAM's runtime ships (its Helm
// chart's ScopeDefinition and WorkloadDefinition, every field of their specs
// set) and a HealthScope as OAM and KubeVela write them, in this example's
// group, and checks that none of their fields is refused or dropped and that
// the HealthScope controller reads the references as OAM's runtime would:
// the placeholder entry OAM's tests use is skipped, a KubeVela-style entry
// naming the scope's namespace is an ordinary reference, and one naming
// another namespace is refused rather than read.
func TestUpstreamShapes(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "upstream")
	other := env.Namespace(t, "upstream-other")

	defs := env.ApplyStrict(t, "", `apiVersion: healthscope.example.ctrlkit.dev/v1alpha1
kind: ScopeDefinition
metadata:
  name: upstreamscopes.healthscope.example.ctrlkit.dev
spec:
  workloadRefsPath: spec.workloadRefs
  allowComponentOverlap: true
  definitionRef:
    name: upstreamscope.healthscope.example.ctrlkit.dev
    version: v1alpha1
  extension:
    anything: [1, "two"]
---
apiVersion: healthscope.example.ctrlkit.dev/v1alpha1
kind: WorkloadDefinition
metadata:
  name: upstreamworkloads.healthscope.example.ctrlkit.dev
spec:
  definitionRef:
    name: upstreamworkloads.healthscope.example.ctrlkit.dev
  childResourceKinds:
  - apiVersion: apps/v1
    kind: Deployment
  - apiVersion: v1
    kind: Service
    selector:
      app: web
  revisionLabel: app.oam.dev/revision
  podSpecPath: spec.podSpec
  extension:
    note: kept`)
	for _, u := range defs {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(u.GroupVersionKind())
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(u), got))
		if diff := cmp.Diff(u.Object["spec"], got.Object["spec"]); diff != "" {
			t.Errorf("spec of %s %s as stored: -want, +got:\n%s", u.GetKind(), u.GetName(), diff)
		}
	}
	if path, ok := scopes.RefPath(defs[0]); !ok || path != "spec.workloadRefs" {
		t.Errorf("RefPath(OAM's ScopeDefinition) = %q, %t; want spec.workloadRefs, true", path, ok)
	}

	for _, n := range []string{ns, other} {
		sts := object("apps/v1", "StatefulSet", n, "db")
		sts.Object["spec"] = map[string]any{
			"replicas":    int64(1),
			"serviceName": "db",
			"selector":    map[string]any{"matchLabels": map[string]any{"app": "db"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "db"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}},
			},
		}
		require.NoError(t, env.Client.Create(ctx, sts))
	}
	hs := env.ApplyStrict(t, ns, fmt.Sprintf(`apiVersion: healthscope.example.ctrlkit.dev/v1alpha1
kind: HealthScope
metadata:
  name: upstream
spec:
  probe-timeout: 10
  probe-interval: 60
  workloadRefs:
  - apiVersion: ""
    kind: ""
    name: ""
  - apiVersion: apps/v1
    kind: StatefulSet
    name: db
    namespace: %s
  - apiVersion: apps/v1
    kind: StatefulSet
    name: db
    namespace: %s`, ns, other))[0]
	got := healthScope(t, env, ns, "upstream")
	if diff := cmp.Diff(hs.Object["spec"].(map[string]any)["probe-timeout"], int64(*got.Spec.ProbeTimeout)); diff != "" {
		t.Errorf("spec.probe-timeout as stored: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(3, len(got.Spec.WorkloadRefs)); diff != "" {
		t.Errorf("entries of spec.workloadRefs as stored: -want, +got:\n%s", diff)
	}

	startManager(t, env)
	waitForHealth(t, env, ns, "upstream", fmt.Sprintf(
		"Unhealthy 0/2; db Unhealthy (StatefulSet db has 0/1 replicas ready); db Unknown "+
			"(spec.workloadRefs[2] names namespace %q, and a scope's workloads are read in the scope's own namespace %q: invalid workload reference)", other, ns))

	// Settled, the scope gets no write.
	settled := healthScope(t, env, ns, "upstream")
	counter := &writeCounter{Client: env.Client}
	r := controllers.NewHealthScopeReconciler(counter, env.Client, env.Mapper, controllers.Options{})
	_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "upstream"}})
	require.NoError(t, err, "a reference to another namespace waits for a change of the scope")
	if n := counter.writes.Load(); n != 0 {
		t.Errorf("writes by a settled HealthScope reconcile: want 0, got %d", n)
	}
	if got := healthScope(t, env, ns, "upstream").ResourceVersion; got != settled.ResourceVersion {
		t.Errorf("HealthScope resourceVersion after a settled reconcile: want %s, got %s", settled.ResourceVersion, got)
	}
}
