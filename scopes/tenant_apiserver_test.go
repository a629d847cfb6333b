package scopes_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/scopes"
)

var (
	namespaceKind   = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	clusterRoleKind = schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}
	statefulSetKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
)

// requestLog records the paths of the requests a client sends.
type requestLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *requestLog) config(cfg *rest.Config) *rest.Config {
	cfg, _ = testenv.CountRequests(cfg, func(r *http.Request) bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.paths = append(l.paths, r.Method+" "+r.URL.Path)
		return false
	})
	return cfg
}

// outside returns the requests that read another namespace than ns, or
// list a kind in every namespace.
func (l *requestLog) outside(ns string, listsAll ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, p := range l.paths {
		_, path, _ := strings.Cut(p, " ")
		if i := strings.Index(path, "/namespaces/"); i >= 0 {
			rest := path[i+len("/namespaces/"):]
			if name, _, _ := strings.Cut(rest, "/"); name != ns && strings.Contains(rest, "/") {
				out = append(out, p)
			}
		}
		for _, a := range listsAll {
			if path == a {
				out = append(out, p)
			}
		}
	}
	return out
}

func ref(gvk schema.GroupVersionKind, name string) map[string]any {
	return map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, "name": name}
}

// TestNamespacedScopeStaysInItsNamespace: a HealthScope in namespace T whose
// references name cluster-scoped objects (a Namespace, a ClusterRole, a
// cluster-scoped custom resource), existing or not, gets each refused with
// ErrInvalidRef naming its entry, with the same message whether the object
// exists or not, and Locate sends no request for them. With
// ClusterScopedWorkloads allowing Namespaces, the Namespace V is read, and
// its child Deployments are listed in T only: the Deployment in V that it
// owns is never read nor reported.
func TestNamespacedScopeStaysInItsNamespace(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	tenant := env.Namespace(t, "tenant")
	victim := env.Namespace(t, "victim")

	var log requestLog
	c, err := client.New(log.config(env.Config), client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)

	applyDefinition(t, env, "WorkloadDefinition", "namespaces", map[string]any{
		"childResourceKinds": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment"}},
	})
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), newObject(scopes.OAMWorkloadDefinition, "", "namespaces"))
	})
	victimNS := get(t, env, namespaceKind, "", victim)
	require.NoError(t, env.Client.Create(ctx, replicated(deploymentKind, victim, "payroll-db", victimNS, true)))
	require.NoError(t, env.Client.Create(ctx, replicated(deploymentKind, tenant, "tenant-db", victimNS, true)))
	cr := newObject(scopes.OAMWorkloadDefinition, "", "tenant-cluster-cr")
	require.NoError(t, env.Client.Create(ctx, cr))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cr) })

	// Pairs of references, the first to an object that exists, the second
	// to one that does not.
	const missing = "no-such-object-anywhere"
	scope := newObject(healthScope, tenant, "hs")
	scope.Object["spec"] = map[string]any{"workloadRefs": []any{
		map[string]any{"apiVersion": "", "kind": "", "name": ""}, // skipped
		ref(namespaceKind, victim), ref(namespaceKind, missing),
		ref(clusterRoleKind, "cluster-admin"), ref(clusterRoleKind, missing),
		ref(scopes.OAMWorkloadDefinition, cr.GetName()), ref(scopes.OAMWorkloadDefinition, missing),
		ref(deploymentKind, "payroll-db"), ref(deploymentKind, missing),
	}}
	require.NoError(t, env.Client.Create(ctx, scope))

	got, err := scopes.Locate(ctx, c, env.Mapper, scope, scopes.AtPath("spec.workloadRefs"))
	require.Error(t, err)
	require.Len(t, got, 8)
	for i := 0; i < 6; i++ {
		entry := "spec.workloadRefs[" + string(rune('1'+i)) + "]"
		l := got[i]
		if !errors.Is(l.Err, scopes.ErrInvalidRef) || l.Workload != nil || l.Children != nil {
			t.Errorf("%s: a cluster-scoped kind from a namespaced scope: want ErrInvalidRef and nothing read, got workload %v, %d children, err %v", entry, l.Workload, len(l.Children), l.Err)
			continue
		}
		if l.Path != entry || !strings.Contains(l.Err.Error(), entry) {
			t.Errorf("the error names the entry %s: path %q, err %v", entry, l.Path, l.Err)
		}
	}
	for i := 0; i < 8; i += 2 {
		exists, absent := got[i], got[i+1]
		if exists.Err == nil || absent.Err == nil {
			t.Errorf("%s and %s: want both to fail, got %v and %v", exists.Path, absent.Path, exists.Err, absent.Err)
			continue
		}
		// The same message, but for the name and the entry.
		norm := func(l scopes.Located) string {
			return strings.NewReplacer(l.Ref.Name, "NAME", l.Path, "ENTRY").Replace(l.Err.Error())
		}
		if diff := cmp.Diff(norm(absent), norm(exists)); diff != "" {
			t.Errorf("%s exists, %s does not: their messages differ: -missing, +existing:\n%s", exists.Ref, absent.Ref, diff)
		}
		if strings.Contains(exists.Err.Error(), victim) && exists.Ref.Name != victim {
			t.Errorf("the message names namespace %s: %v", victim, exists.Err)
		}
	}
	if !errors.Is(got[6].Err, scopes.ErrWorkloadNotFound) || !apierrors.IsNotFound(got[6].Err) {
		t.Errorf("a Deployment of another namespace is looked for in the scope's: want ErrWorkloadNotFound, got %v", got[6].Err)
	}
	if out := log.outside(tenant, "/apis/apps/v1/deployments"); len(out) > 0 {
		t.Errorf("Locate read outside namespace %s: %v", tenant, out)
	}
	for _, p := range log.paths {
		if strings.Contains(p, "/namespaces/"+victim) || strings.Contains(p, "clusterroles") || strings.Contains(p, "workloaddefinitions/") {
			t.Errorf("Locate read a refused reference: %s", p)
		}
	}

	// The operator allows Namespaces as workloads: Namespace V is read, and
	// its children are listed in T only.
	log = requestLog{}
	c, err = client.New(log.config(env.Config), client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)
	got, _ = scopes.Locate(ctx, c, env.Mapper, scope, scopes.AtPath("spec.workloadRefs"),
		scopes.ClusterScopedWorkloads(schema.GroupKind{Kind: "Namespace"}))
	require.Len(t, got, 8)
	require.NoError(t, got[0].Err)
	var children []string
	for _, u := range got[0].Children {
		children = append(children, u.GetNamespace()+"/"+u.GetName())
	}
	if diff := cmp.Diff([]string{tenant + "/tenant-db"}, children); diff != "" {
		t.Errorf("children of an allowed cluster-scoped workload, in the scope's namespace only: -want, +got:\n%s", diff)
	}
	if !errors.Is(got[1].Err, scopes.ErrWorkloadNotFound) {
		t.Errorf("an allowed kind, missing: want ErrWorkloadNotFound, got %v", got[1].Err)
	}
	if !errors.Is(got[2].Err, scopes.ErrInvalidRef) {
		t.Errorf("ClusterRoles are still refused: got %v", got[2].Err)
	}
	if out := log.outside(tenant, "/apis/apps/v1/deployments"); len(out) > 0 {
		t.Errorf("Locate read outside namespace %s: %v", tenant, out)
	}

	// ChildResources itself lists a cluster-scoped workload's children in
	// every namespace, unless InNamespace says which.
	all, err := scopes.ChildResources(ctx, env.Client, victimNS, []scopes.ChildResourceKind{{APIVersion: "apps/v1", Kind: "Deployment"}})
	require.NoError(t, err)
	require.Len(t, all, 2)
	one, err := scopes.ChildResources(ctx, env.Client, victimNS, []scopes.ChildResourceKind{{APIVersion: "apps/v1", Kind: "Deployment"}}, scopes.InNamespace(tenant))
	require.NoError(t, err)
	if len(one) != 1 || one[0].GetNamespace() != tenant {
		t.Errorf("InNamespace(%s): want tenant-db only, got %d children", tenant, len(one))
	}
}

// TestForbiddenReadsAsMissing: a workload the reader may not read (the API
// server answers forbidden) and one that does not exist give the same
// message, wrapping ErrWorkloadNotFound; the API server's answer is still
// there for the operator.
func TestForbiddenReadsAsMissing(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "forbidden")

	scope := newObject(healthScope, ns, "hs")
	scope.Object["spec"] = map[string]any{"workloadRefs": []any{ref(statefulSetKind, "db")}}
	require.NoError(t, env.Client.Create(ctx, scope))

	missing, err := scopes.Locate(ctx, env.Client, env.Mapper, scope, scopes.AtPath("spec.workloadRefs"))
	require.Error(t, err)
	require.Len(t, missing, 1)

	db := replicated(statefulSetKind, ns, "db", nil, false)
	db.Object["spec"].(map[string]any)["serviceName"] = "db"
	require.NoError(t, env.Client.Create(ctx, db))
	// A user with no rights at all but to read HealthScopes there.
	role := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
		"metadata": map[string]any{"namespace": ns, "name": "scopes-only"},
		"rules":    []any{map[string]any{"apiGroups": []any{"core.oam.dev"}, "resources": []any{"healthscopes"}, "verbs": []any{"get", "list"}}},
	}}
	require.NoError(t, env.Client.Create(ctx, role))
	binding := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"namespace": ns, "name": "scopes-only"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "scopes-only"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "scopes-reader"}},
	}}
	require.NoError(t, env.Client.Create(ctx, binding))
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "scopes-reader"}
	restricted, err := client.New(cfg, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)

	forbidden, err := scopes.Locate(ctx, restricted, env.Mapper, scope, scopes.AtPath("spec.workloadRefs"))
	require.Error(t, err)
	require.Len(t, forbidden, 1)

	if !apierrors.IsNotFound(missing[0].Err) || !apierrors.IsForbidden(forbidden[0].Err) {
		t.Fatalf("want not found, then forbidden; got %v, then %v", missing[0].Err, forbidden[0].Err)
	}
	for _, l := range []scopes.Located{missing[0], forbidden[0]} {
		if !errors.Is(l.Err, scopes.ErrWorkloadNotFound) {
			t.Errorf("want ErrWorkloadNotFound, got %v", l.Err)
		}
	}
	if diff := cmp.Diff(missing[0].Err.Error(), forbidden[0].Err.Error()); diff != "" {
		t.Errorf("missing and forbidden read the same: -missing, +forbidden:\n%s", diff)
	}
	if diff := cmp.Diff(missing[0].Err.Error(), err.Error()); diff != "" {
		t.Errorf("Locate's error is the Located's: -want, +got:\n%s", diff)
	}
}
