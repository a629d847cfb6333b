package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/demo"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	log.SetLogger(logr.Discard())
	testenv.Main(m, testenv.CRDDirs("../crds"), testenv.WithScheme(v1alpha1.AddToScheme))
}

// startManager runs the controllers, with o, until the test ends.
func startManager(t *testing.T, env *testenv.Env, o ...controllers.Options) {
	t.Helper()
	mgr, err := manager.New(env.Config, env.ManagerOptions())
	require.NoError(t, err)
	require.NoError(t, controllers.Setup(mgr, append(o, controllers.Options{})[0]))
	testenv.StartManager(t, mgr)
}

func healthScope(t *testing.T, env *testenv.Env, ns, name string) *v1alpha1.HealthScope {
	t.Helper()
	hs := &v1alpha1.HealthScope{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, hs))
	return hs
}

// health renders a scope's health the way the tests expect it.
func health(hs *v1alpha1.HealthScope) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d/%d", hs.Status.ScopeHealthCondition.HealthStatus, hs.Status.ScopeHealthCondition.HealthyWorkloads, hs.Status.ScopeHealthCondition.Total)
	for _, w := range hs.Status.HealthConditions {
		fmt.Fprintf(&b, "; %s %s", w.TargetWorkload.Name, w.HealthStatus)
		if w.Diagnosis != "" {
			fmt.Fprintf(&b, " (%s)", w.Diagnosis)
		}
	}
	return b.String()
}

func waitForHealth(t *testing.T, env *testenv.Env, ns, name, want string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "HealthScope "+name+" to be "+want, func() error {
		if got := health(healthScope(t, env, ns, name)); got != want {
			return errors.New(got)
		}
		return nil
	})
}

func object(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// setReady writes status.readyReplicas through the status subresource, as
// kube-controller-manager would; a local control plane runs none.
func setReady(t *testing.T, env *testenv.Env, u *unstructured.Unstructured, replicas, ready int64) {
	t.Helper()
	patch := fmt.Sprintf(`{"status":{"replicas":%d,"readyReplicas":%d,"availableReplicas":%d}}`, replicas, ready, ready)
	require.NoError(t, env.Client.Status().Patch(context.Background(), u, client.RawPatch(types.MergePatchType, []byte(patch))))
}

// createReplicaSet creates the ReplicaSet the Deployment controller would.
func createReplicaSet(t *testing.T, env *testenv.Env, ns, deployment, name string, replicas int64) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	d := object("apps/v1", "Deployment", ns, deployment)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(d), d))
	rs := object("apps/v1", "ReplicaSet", ns, name)
	rs.Object["spec"] = map[string]any{"replicas": replicas, "selector": d.Object["spec"].(map[string]any)["selector"], "template": d.Object["spec"].(map[string]any)["template"]}
	rs.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: deployment, UID: d.GetUID(), Controller: ptr.To(true)}})
	require.NoError(t, env.Client.Create(ctx, rs))
	return rs
}

// writeCounter is a client that counts the writes it sends.
type writeCounter struct {
	client.Client
	writes atomic.Int64
}

func (c *writeCounter) Create(ctx context.Context, o client.Object, opts ...client.CreateOption) error {
	c.writes.Add(1)
	return c.Client.Create(ctx, o, opts...)
}

func (c *writeCounter) Update(ctx context.Context, o client.Object, opts ...client.UpdateOption) error {
	c.writes.Add(1)
	return c.Client.Update(ctx, o, opts...)
}

func (c *writeCounter) Patch(ctx context.Context, o client.Object, p client.Patch, opts ...client.PatchOption) error {
	c.writes.Add(1)
	return c.Client.Patch(ctx, o, p, opts...)
}

func (c *writeCounter) Delete(ctx context.Context, o client.Object, opts ...client.DeleteOption) error {
	c.writes.Add(1)
	return c.Client.Delete(ctx, o, opts...)
}

func (c *writeCounter) Status() client.SubResourceWriter { return &statusCounter{c.Client.Status(), c} }

type statusCounter struct {
	client.SubResourceWriter
	c *writeCounter
}

func (s *statusCounter) Update(ctx context.Context, o client.Object, opts ...client.SubResourceUpdateOption) error {
	s.c.writes.Add(1)
	return s.SubResourceWriter.Update(ctx, o, opts...)
}

func (s *statusCounter) Patch(ctx context.Context, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
	s.c.writes.Add(1)
	return s.SubResourceWriter.Patch(ctx, o, p, opts...)
}

type noEvents struct{}

func (noEvents) Eventf(_, _ runtime.Object, _, _, _, _ string, _ ...any) {}

// TestDesignExample runs the design's example (demo/example.yaml): the
// Application controller places a Deployment and a StatefulSet into the
// HealthScope, which turns healthy when their replicas become ready, and a
// settled reconcile writes nothing.
func TestDesignExample(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "design")
	require.NoError(t, demo.Apply(ctx, env.Client, ns))
	startManager(t, env)

	// The Application controller writes both references at the path the
	// ScopeDefinition declares, and records where.
	testenv.Eventually(t, time.Minute, "the scope to hold both workloads", func() error {
		hs := healthScope(t, env, ns, demo.ScopeName)
		got := fmt.Sprint(hs.Spec.WorkloadRefs)
		if len(hs.Spec.WorkloadRefs) != 2 {
			return errors.New(got)
		}
		return nil
	})
	hs := healthScope(t, env, ns, demo.ScopeName)
	d := object("apps/v1", "Deployment", ns, "web")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(d), d))
	sts := object("apps/v1", "StatefulSet", ns, "db")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(sts), sts))
	want := []v1alpha1.WorkloadReference{
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: d.GetUID()},
		{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: sts.GetUID()},
	}
	if diff := cmp.Diff(want, hs.Spec.WorkloadRefs); diff != "" {
		t.Errorf("spec.workloadRefs: -want, +got:\n%s", diff)
	}
	testenv.Eventually(t, time.Minute, "the application to be Ready", func() error {
		app := &v1alpha1.Application{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: demo.ApplicationName}, app))
		if !conditions.IsTrue(app.Status.Conditions, "Ready") || len(app.Status.Workloads) != 2 {
			return fmt.Errorf("%+v", app.Status)
		}
		return nil
	})

	// The Deployment is judged by its ReplicaSets, the StatefulSet (no
	// WorkloadDefinition) by itself.
	waitForHealth(t, env, ns, demo.ScopeName, "Unhealthy 0/2; web Unknown (no child resources of kind ReplicaSet yet); db Unhealthy (StatefulSet db has 0/1 replicas ready)")
	rs := createReplicaSet(t, env, ns, "web", "web-1", 2)
	waitForHealth(t, env, ns, demo.ScopeName, "Unhealthy 0/2; web Unhealthy (ReplicaSet web-1 has 0/2 replicas ready); db Unhealthy (StatefulSet db has 0/1 replicas ready)")
	setReady(t, env, rs, 2, 2)
	waitForHealth(t, env, ns, demo.ScopeName, "Unhealthy 1/2; web Healthy; db Unhealthy (StatefulSet db has 0/1 replicas ready)")
	setReady(t, env, object("apps/v1", "StatefulSet", ns, "db"), 1, 1)
	waitForHealth(t, env, ns, demo.ScopeName, "Healthy 2/2; web Healthy; db Healthy")

	hs = healthScope(t, env, ns, demo.ScopeName)
	ready := conditions.Get(hs.Status.Conditions, "Ready")
	require.NotNil(t, ready, "the HealthScope has a Ready condition")
	if ready.Status != metav1.ConditionTrue || ready.ObservedGeneration != hs.Generation || hs.Status.ObservedGeneration != hs.Generation {
		t.Errorf("settled HealthScope: Ready %s at generation %d, status.observedGeneration %d; want True at generation %d for both",
			ready.Status, ready.ObservedGeneration, hs.Status.ObservedGeneration, hs.Generation)
	}

	// A settled reconcile of either controller writes nothing.
	hsCounter := &writeCounter{Client: env.Client}
	r := controllers.NewHealthScopeReconciler(hsCounter, env.Client, env.Mapper, controllers.Options{})
	_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: demo.ScopeName}})
	require.NoError(t, err)
	if n := hsCounter.writes.Load(); n != 0 {
		t.Errorf("writes by a settled HealthScope reconcile: want 0, got %d", n)
	}

	appCounter := &writeCounter{Client: env.Client}
	a := controllers.NewApplicationReconciler(appCounter, env.Client, env.Mapper, env.Scheme, noEvents{}, controllers.Options{})
	_, err = a.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: demo.ApplicationName}})
	require.NoError(t, err)
	if n := appCounter.writes.Load(); n != 0 {
		t.Errorf("writes by a settled Application reconcile: want 0, got %d", n)
	}
	if got := healthScope(t, env, ns, demo.ScopeName).ResourceVersion; got != hs.ResourceVersion {
		t.Errorf("HealthScope resourceVersion after settled reconciles: want %s (unchanged), got %s", hs.ResourceVersion, got)
	}
}

func application(t *testing.T, env *testenv.Env, ns, name string) *v1alpha1.Application {
	t.Helper()
	app := &v1alpha1.Application{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, app))
	return app
}

// refsOf renders the references a HealthScope holds.
func refsOf(t *testing.T, env *testenv.Env, ns, name string) string {
	t.Helper()
	var names []string
	for _, r := range healthScope(t, env, ns, name).Spec.WorkloadRefs {
		names = append(names, r.Kind+" "+r.Name)
	}
	return strings.Join(names, ", ")
}

func waitForRefs(t *testing.T, env *testenv.Env, ns, name, want string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "HealthScope "+name+" to hold "+want, func() error {
		if got := refsOf(t, env, ns, name); got != want {
			return errors.New(got)
		}
		return nil
	})
}

func waitForReady(t *testing.T, env *testenv.Env, ns, name string, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "Application "+name+" to be Ready "+string(status), func() error {
		c := conditions.Get(application(t, env, ns, name).Status.Conditions, "Ready")
		if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, message) {
			return fmt.Errorf("%+v", c)
		}
		return nil
	})
}

func restoreDefinitions(t *testing.T, env *testenv.Env) {
	t.Cleanup(func() {
		if err := demo.ApplyDefinitions(context.Background(), env.Client); err != nil {
			t.Errorf("cannot restore the definitions: %v", err)
		}
	})
}

// TestDeleteWithoutScopeDefinition deletes the ScopeDefinition, then the
// Application: the finalizer removes the references at the path it recorded
// and lets the Application go (OAM's runtime blocked deletion forever).
func TestDeleteWithoutScopeDefinition(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "delete")
	require.NoError(t, demo.Apply(ctx, env.Client, ns))
	restoreDefinitions(t, env)
	startManager(t, env)
	waitForRefs(t, env, ns, demo.ScopeName, "Deployment web, StatefulSet db")
	waitForReady(t, env, ns, demo.ApplicationName, metav1.ConditionTrue, controllers.ReasonAvailable, "")

	def := &v1alpha1.ScopeDefinition{ObjectMeta: metav1.ObjectMeta{Name: "healthscopes.healthscope.example.ctrlkit.dev"}}
	require.NoError(t, env.Client.Delete(ctx, def))
	require.NoError(t, env.Client.Delete(ctx, &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: demo.ApplicationName}}))

	testenv.Eventually(t, time.Minute, "the Application to be gone", func() error {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: demo.ApplicationName}, &v1alpha1.Application{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (read: %v)", err)
		}
		return nil
	})
	if diff := cmp.Diff("", refsOf(t, env, ns, demo.ScopeName)); diff != "" {
		t.Errorf("references left in the scope (-want, +got):\n%s", diff)
	}
	for _, w := range []*unstructured.Unstructured{object("apps/v1", "Deployment", ns, "web"), object("apps/v1", "StatefulSet", ns, "db")} {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(w), w); !apierrors.IsNotFound(err) {
			t.Errorf("%s %s: want it deleted, got %v", w.GetKind(), w.GetName(), err)
		}
	}
}

// TestMoveToAnotherScope changes the scope a component names: one patch
// removes the reference from the old scope, another adds it to the new one.
func TestMoveToAnotherScope(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "move")
	require.NoError(t, demo.Apply(ctx, env.Client, ns))
	require.NoError(t, env.Client.Create(ctx, &v1alpha1.HealthScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "other"}}))
	startManager(t, env)
	waitForRefs(t, env, ns, demo.ScopeName, "Deployment web, StatefulSet db")

	// The controllers write the Application meanwhile: retry on a conflict.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		app := application(t, env, ns, demo.ApplicationName)
		app.Spec.Components[1].Scopes[0].ScopeRef.Name = "other"
		return env.Client.Update(ctx, app)
	}))

	waitForRefs(t, env, ns, demo.ScopeName, "Deployment web")
	waitForRefs(t, env, ns, "other", "StatefulSet db")
	waitForHealth(t, env, ns, "other", "Unhealthy 0/1; db Unhealthy (StatefulSet db has 0/1 replicas ready)")
	testenv.Eventually(t, time.Minute, "the Application to record the move", func() error {
		var got []string
		for _, w := range application(t, env, ns, demo.ApplicationName).Status.Workloads {
			for _, s := range w.Scopes {
				got = append(got, w.ComponentName+" "+s.ScopeRef.Name+" "+s.Path)
			}
		}
		want := []string{"web " + demo.ScopeName + " spec.workloadRefs", "db other spec.workloadRefs"}
		if diff := cmp.Diff(want, got); diff != "" {
			return errors.New(diff)
		}
		return nil
	})
}

// TestOverlapRefused sets allowComponentOverlap: false and names two
// HealthScopes for one workload: the second is refused, and the Application
// says why.
func TestOverlapRefused(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "overlap")
	require.NoError(t, demo.ApplyDefinitions(ctx, env.Client))
	restoreDefinitions(t, env)
	def := &v1alpha1.ScopeDefinition{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "healthscopes.healthscope.example.ctrlkit.dev"}, def))
	def.Spec.AllowComponentOverlap = ptr.To(false)
	require.NoError(t, env.Client.Update(ctx, def))

	for _, name := range []string{"a", "b"} {
		require.NoError(t, env.Client.Create(ctx, &v1alpha1.HealthScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}))
	}
	scope := func(name string) v1alpha1.ComponentScope {
		return v1alpha1.ComponentScope{ScopeRef: v1alpha1.ScopeReference{APIVersion: v1alpha1.GroupVersion.String(), Kind: "HealthScope", Name: name}}
	}
	app := &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "both"},
		Spec: v1alpha1.ApplicationSpec{Components: []v1alpha1.Component{{
			Name:     "cfg",
			Workload: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"}}`)},
			Scopes:   []v1alpha1.ComponentScope{scope("a"), scope("b")},
		}}},
	}
	require.NoError(t, env.Client.Create(ctx, app))
	// HealthScopes may hold ConfigMaps here.
	startManager(t, env, controllers.Options{WatchKinds: append([]schema.GroupKind{{Kind: "ConfigMap"}}, controllers.DefaultWatchKinds...)})

	waitForReady(t, env, ns, "both", metav1.ConditionFalse, controllers.ReasonScopeFailed,
		`workload v1 ConfigMap "cfg" is already in HealthScope `+ns+`/a, and the HealthScope definition sets allowComponentOverlap to false`)
	for scope, want := range map[string]string{"a": "ConfigMap cfg", "b": ""} {
		if diff := cmp.Diff(want, refsOf(t, env, ns, scope)); diff != "" {
			t.Errorf("references of scope %s (-want, +got):\n%s", scope, diff)
		}
	}
	// A ConfigMap has no replicas: its health cannot be judged.
	waitForHealth(t, env, ns, "a", "Unknown 0/1; cfg Unknown (no resource with spec.replicas to judge)")
}

// TestScopeDefinitionLater creates the Application before the
// ScopeDefinition: it waits, saying why, and the definition's arrival
// requeues it.
func TestScopeDefinitionLater(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "later")
	require.NoError(t, demo.Apply(ctx, env.Client, ns))
	restoreDefinitions(t, env)
	require.NoError(t, env.Client.Delete(ctx, &v1alpha1.ScopeDefinition{ObjectMeta: metav1.ObjectMeta{Name: "healthscopes.healthscope.example.ctrlkit.dev"}}))
	startManager(t, env)

	waitForReady(t, env, ns, demo.ApplicationName, metav1.ConditionFalse, controllers.ReasonScopeFailed, "it has no ScopeDefinition")
	if diff := cmp.Diff("", refsOf(t, env, ns, demo.ScopeName)); diff != "" {
		t.Errorf("references in the scope (-want, +got):\n%s", diff)
	}

	require.NoError(t, demo.ApplyDefinitions(ctx, env.Client))
	waitForReady(t, env, ns, demo.ApplicationName, metav1.ConditionTrue, controllers.ReasonAvailable, "")
	waitForRefs(t, env, ns, demo.ScopeName, "Deployment web, StatefulSet db")
}

// TestSecretsNotWatched: a HealthScope that references a Secret reports that
// it is not read, and the controller neither reads nor watches Secrets: its
// manager sends no request for secrets.
func TestSecretsNotWatched(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "secrets")

	cfg, secretRequests := testenv.CountRequests(env.Config, func(r *http.Request) bool { return slices.Contains(strings.Split(r.URL.Path, "/"), "secrets") })
	mgr, err := manager.New(cfg, env.ManagerOptions())
	require.NoError(t, err)
	require.NoError(t, controllers.Setup(mgr, controllers.Options{}))
	testenv.StartManager(t, mgr)

	require.NoError(t, env.Client.Create(ctx, object("v1", "Secret", ns, "s")))
	hs := &v1alpha1.HealthScope{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hs"},
		Spec:       v1alpha1.HealthScopeSpec{WorkloadRefs: []v1alpha1.WorkloadReference{{APIVersion: "v1", Kind: "Secret", Name: "s"}}},
	}
	require.NoError(t, env.Client.Create(ctx, hs))
	waitForHealth(t, env, ns, "hs", "Unknown 0/1; s Unknown (objects of kind Secret are not read unless the ReadKinds option allows them: kind not allowed)")
	if n := secretRequests.Load(); n != 0 {
		t.Errorf("the manager sent %d requests for secrets, want 0", n)
	}
}
