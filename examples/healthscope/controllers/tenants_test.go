package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/demo"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestClusterScopedWorkloadsRefused: a HealthScope in namespace T names
// cluster-scoped objects (a Namespace V, a ClusterRole, a cluster-scoped
// custom resource), each once existing and once not. Namespace V owns a
// Deployment payroll-db in V, whose kind a WorkloadDefinition for
// Namespaces lists as children. The scope's status never shows anything of
// V, and the diagnosis of an existing object equals that of a missing one.
// With Namespaces allowed by the operator, only children in T are judged.
func TestClusterScopedWorkloadsRefused(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	tenant := env.Namespace(t, "tenant")
	victim := env.Namespace(t, "victim")
	require.NoError(t, demo.ApplyDefinitions(ctx, env.Client))

	def := &v1alpha1.WorkloadDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "namespaces"},
		Spec:       v1alpha1.WorkloadDefinitionSpec{ChildResourceKinds: []v1alpha1.ChildResourceKind{{APIVersion: "apps/v1", Kind: "Deployment"}}},
	}
	require.NoError(t, env.Client.Create(ctx, def))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), def) })
	v := object("v1", "Namespace", "", victim)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(v), v))
	owned := func(ns, name string) {
		d := object("apps/v1", "Deployment", ns, name)
		labels := map[string]any{"app": name}
		d.Object["spec"] = map[string]any{"replicas": int64(3), "selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"}}}}}
		d.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: victim, UID: v.GetUID(), Controller: ptr.To(true)}})
		require.NoError(t, env.Client.Create(ctx, d))
		setReady(t, env, d, 3, 1)
	}
	owned(victim, "payroll-db")
	owned(tenant, "tenant-db")

	const missing = "no-such-object"
	refs := []v1alpha1.WorkloadReference{
		{APIVersion: "v1", Kind: "Namespace", Name: victim}, {APIVersion: "v1", Kind: "Namespace", Name: missing},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "cluster-admin"}, {APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: missing},
		{APIVersion: v1alpha1.GroupVersion.String(), Kind: "WorkloadDefinition", Name: "namespaces"}, {APIVersion: v1alpha1.GroupVersion.String(), Kind: "WorkloadDefinition", Name: missing},
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "payroll-db"}, {APIVersion: "apps/v1", Kind: "Deployment", Name: missing},
	}
	hs := &v1alpha1.HealthScope{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "hs"}, Spec: v1alpha1.HealthScopeSpec{WorkloadRefs: refs}}
	require.NoError(t, env.Client.Create(ctx, hs))

	check := func(t *testing.T, allowed bool) {
		var got *v1alpha1.HealthScope
		testenv.Eventually(t, time.Minute, "the scope's status", func() error {
			got = healthScope(t, env, tenant, "hs")
			if len(got.Status.HealthConditions) != len(refs) {
				return fmt.Errorf("%d health conditions", len(got.Status.HealthConditions))
			}
			if allowed && got.Status.HealthConditions[0].HealthStatus != v1alpha1.StatusUnhealthy {
				return fmt.Errorf("%+v", got.Status.HealthConditions[0])
			}
			return nil
		})
		status, err := json.Marshal(got.Status)
		require.NoError(t, err)
		if strings.Contains(string(status), "payroll-db") && !strings.Contains(string(status), `"name":"payroll-db"`) {
			t.Errorf("the status reports on payroll-db of namespace %s: %s", victim, status)
		}
		for _, r := range got.Status.HealthConditions {
			for _, res := range r.Resources {
				if res.Name == "payroll-db" {
					t.Errorf("the status judges payroll-db of namespace %s: %s", victim, status)
				}
			}
		}
		first := 0
		if allowed {
			first = 2 // Namespaces are read: one exists, one does not.
			if d := got.Status.HealthConditions[0].Diagnosis; d != "Deployment tenant-db has 1/3 replicas ready" {
				t.Errorf("an allowed Namespace is judged by its children in %s only: diagnosis %q", tenant, d)
			}
		}
		for i := first; i < len(refs); i += 2 {
			exists, absent := got.Status.HealthConditions[i], got.Status.HealthConditions[i+1]
			norm := func(w v1alpha1.WorkloadHealthCondition, i int) string {
				return string(w.HealthStatus) + ": " + strings.NewReplacer(w.TargetWorkload.Name, "NAME", fmt.Sprintf("[%d]", i), "[N]").Replace(w.Diagnosis)
			}
			if a, b := norm(exists, i), norm(absent, i+1); a != b {
				t.Errorf("%s %s exists, %s does not; the status tells them apart:\n%s\n%s", exists.TargetWorkload.Kind, exists.TargetWorkload.Name, absent.TargetWorkload.Name, a, b)
			}
			if i < 6 && !strings.Contains(exists.Diagnosis, fmt.Sprintf("spec.workloadRefs[%d]", i)) {
				t.Errorf("the refusal names the entry spec.workloadRefs[%d]: %q", i, exists.Diagnosis)
			}
		}
	}

	t.Run("Default", func(t *testing.T) {
		mgr, err := manager.New(env.Config, env.ManagerOptions())
		require.NoError(t, err)
		require.NoError(t, controllers.Setup(mgr, controllers.Options{}))
		stop := testenv.StartManager(t, mgr)
		check(t, false)
		stop()
	})
	t.Run("NamespacesAllowed", func(t *testing.T) {
		mgr, err := manager.New(env.Config, env.ManagerOptions())
		require.NoError(t, err)
		require.NoError(t, controllers.Setup(mgr, controllers.Options{ClusterScopedWorkloads: []schema.GroupKind{{Kind: "Namespace"}}}))
		testenv.StartManager(t, mgr)
		check(t, true)
	})
}

// hammeringManager is a manager whose API reader plays a tenant that
// rewrites its own scope as fast as it can, at the worst moment for the
// Application controller: right after each read of one of its scopes, so
// that every patch the controller sends for that scope meets a conflict.
type hammeringManager struct {
	manager.Manager
	reader client.Reader
}

func (m hammeringManager) GetAPIReader() client.Reader { return m.reader }

type hammeringReader struct {
	client.Reader
	hammer func()
	ns     string
}

func (r hammeringReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := r.Reader.Get(ctx, key, obj, opts...)
	if _, ok := obj.(*unstructured.Unstructured); ok && key.Namespace == r.ns && obj.GetObjectKind().GroupVersionKind().Kind == "HealthScope" {
		r.hammer()
	}
	return err
}

// TestTenantCannotStallOthers: tenant A rewrites its own HealthScope
// without pause (a goroutine, as fast as it can, and again right after each
// read of it by the Application controller), so that A's Application never
// gets its reference written. The Application controller, at its default
// worker count (one), still reconciles tenant B's Application within the
// documented bound: A's reconcile gives up after DefaultBackoff's attempts
// and is requeued with back-off.
func TestTenantCannotStallOthers(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	defer cancel()
	a, b := env.Namespace(t, "tenant-a"), env.Namespace(t, "tenant-b")
	require.NoError(t, demo.ApplyDefinitions(ctx, env.Client))

	var writes atomic.Int64
	hammer := func() {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"hammer":"%d"}}}`, writes.Add(1))
		_ = env.Client.Patch(ctx, &v1alpha1.HealthScope{ObjectMeta: metav1.ObjectMeta{Namespace: a, Name: "hs"}}, client.RawPatch(types.MergePatchType, []byte(patch)))
	}
	mgr, err := manager.New(env.Config, env.ManagerOptions())
	require.NoError(t, err)
	var reads atomic.Int64
	hm := hammeringManager{Manager: mgr, reader: hammeringReader{Reader: mgr.GetAPIReader(), ns: a, hammer: func() {
		reads.Add(1)
		hammer()
	}}}
	require.NoError(t, controllers.Setup(hm, controllers.Options{}))
	testenv.StartManager(t, mgr)

	app := func(ns string) *v1alpha1.Application {
		w, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "w"}})
		require.NoError(t, err)
		return &v1alpha1.Application{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
			Spec: v1alpha1.ApplicationSpec{Components: []v1alpha1.Component{{
				Name: "w", Workload: runtime.RawExtension{Raw: w},
				Scopes: []v1alpha1.ComponentScope{{ScopeRef: v1alpha1.ScopeReference{APIVersion: v1alpha1.GroupVersion.String(), Kind: "HealthScope", Name: "hs"}}},
			}}},
		}
	}
	for _, ns := range []string{a, b} {
		require.NoError(t, env.Client.Create(ctx, &v1alpha1.HealthScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hs"}}))
	}
	go func() {
		for ctx.Err() == nil {
			hammer()
		}
	}()
	require.NoError(t, env.Client.Create(ctx, app(a)))
	// A's first reconcile is under way, retrying its scope.
	testenv.Eventually(t, time.Minute, "tenant A's Application to meet conflicts", func() error {
		if n := reads.Load(); n < 3 {
			return fmt.Errorf("%d reads of tenant A's scope", n)
		}
		return nil
	})

	began := time.Now()
	require.NoError(t, env.Client.Create(ctx, app(b)))
	// Two of A's reconciles (the one under way and one requeued before B
	// came), each at most DefaultBackoff's waits plus its attempts' requests,
	// and B's own.
	const bound = 15 * time.Second
	testenv.Eventually(t, bound, "tenant B's Application to be Ready", func() error {
		if c := conditions.Get(application(t, env, b, "app").Status.Conditions, conditions.TypeReady); c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("Ready: %+v", c)
		}
		return nil
	})
	took := time.Since(began)
	cancel()
	t.Logf("tenant B's Application was Ready %v after its creation, while tenant A rewrote its scope %d times", took.Round(time.Millisecond), writes.Load())
	if c := conditions.Get(application(t, env, a, "app").Status.Conditions, conditions.TypeReady); c == nil || !strings.Contains(c.Message, "gave up after 10 attempts") {
		t.Errorf("tenant A's Application says why it is not Ready: %+v", c)
	}
}
