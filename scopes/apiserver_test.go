package scopes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/scopes"
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDDirs("testdata/crds"))
}

var (
	healthScope     = schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "HealthScope"}
	demoScope       = schema.GroupVersionKind{Group: "demo.oam.dev", Version: "v1beta2", Kind: "DemoScope"}
	plainScope      = schema.GroupVersionKind{Group: "test.ctrlkit.dev", Version: "v1", Kind: "PlainScope"}
	exampleWorkload = schema.GroupVersionKind{Group: "oam.dev", Version: "v1alpha2", Kind: "example-workload"}
	deploymentKind  = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	replicaSetKind  = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
)

func newObject(gvk schema.GroupVersionKind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// applyDefinition creates a cluster-scoped definition, or replaces the spec
// of the one that exists.
func applyDefinition(t *testing.T, env *testenv.Env, kind, name string, spec map[string]any) {
	t.Helper()
	ctx := context.Background()
	def := newObject(schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: kind}, "", name)
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(def), def)
	switch {
	case apierrors.IsNotFound(err):
		def.Object["spec"] = spec
		require.NoError(t, env.Client.Create(ctx, def))
	case err == nil:
		def.Object["spec"] = spec
		require.NoError(t, env.Client.Update(ctx, def))
	default:
		require.NoError(t, err)
	}
}

func get(t *testing.T, env *testenv.Env, gvk schema.GroupVersionKind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u := newObject(gvk, namespace, name)
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(u), u))
	return u
}

func refs(t *testing.T, u *unstructured.Unstructured, path string) []scopes.WorkloadRef {
	t.Helper()
	r, err := scopes.WorkloadRefs(u, path)
	require.NoError(t, err)
	return r
}

// replicated builds a Deployment or a ReplicaSet, owned by owner (as its
// controller) when owner is not nil.
func replicated(gvk schema.GroupVersionKind, namespace, name string, owner *unstructured.Unstructured, controller bool) *unstructured.Unstructured {
	u := newObject(gvk, namespace, name)
	labels := map[string]any{"app": name}
	u.Object["spec"] = map[string]any{
		"replicas": int64(1),
		"selector": map[string]any{"matchLabels": labels},
		"template": map[string]any{
			"metadata": map[string]any{"labels": labels},
			"spec": map[string]any{"containers": []any{
				map[string]any{"name": "c", "image": "registry.k8s.io/pause:3.10"},
			}},
		},
	}
	if owner != nil {
		u.SetOwnerReferences([]metav1.OwnerReference{{
			APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(),
			Controller: ptr.To(controller),
		}})
	}
	return u
}

// countingClient counts the patches a client sends and the conflicts they
// meet.
type countingClient struct {
	client.Client
	patches, conflicts atomic.Int64
}

func (c *countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.patches.Add(1)
	err := c.Client.Patch(ctx, obj, patch, opts...)
	if apierrors.IsConflict(err) {
		c.conflicts.Add(1)
	}
	return err
}

// TestSeedEndToEnd applies the design's example and plays the
// ApplicationConfiguration controller with this package: it creates the
// component's workload and patches a reference to it into each scope the
// application configuration names, without knowing the scope's schema. It
// then plays the workload's controller, which creates a Deployment, and the
// HealthScope's controller, which locates that Deployment in one call.
func TestSeedEndToEnd(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "seed")

	seed, err := os.ReadFile("testdata/seed.yaml")
	require.NoError(t, err)
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(seed), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		if u.GetKind() == "WorkloadDefinition" || u.GetKind() == "ScopeDefinition" {
			applyDefinition(t, env, u.GetKind(), u.GetName(), u.Object["spec"].(map[string]any))
			continue
		}
		u.SetNamespace(ns)
		require.NoError(t, env.Client.Create(ctx, u), "creating %s %s", u.GetKind(), u.GetName())
	}

	// The ApplicationConfiguration controller.
	cc := &countingClient{Client: env.Client}
	reconcileAppConfig := func() {
		ac := get(t, env, schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "ApplicationConfiguration"}, ns, "example-appconfig")
		var components []struct {
			ComponentName string `json:"componentName"`
			Scopes        []struct {
				ScopeRef scopes.ScopeRef `json:"scopeRef"`
			} `json:"scopes"`
		}
		require.NoError(t, decode(ac.Object["spec"].(map[string]any)["components"], &components))
		for _, c := range components {
			comp := get(t, env, schema.GroupVersionKind{Group: "core.oam.dev", Version: "v1alpha2", Kind: "Component"}, ns, c.ComponentName)
			workload := &unstructured.Unstructured{Object: comp.Object["spec"].(map[string]any)["workload"].(map[string]any)}
			workload.SetNamespace(ns)
			if err := env.Client.Create(ctx, workload); apierrors.IsAlreadyExists(err) {
				require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(workload), workload))
			} else {
				require.NoError(t, err)
			}
			for _, s := range c.Scopes {
				s.ScopeRef.Namespace = ns
				_, err := scopes.PatchWorkloadRefs(ctx, cc, env.Mapper, s.ScopeRef, scopes.Change{Add: []scopes.WorkloadRef{scopes.RefOf(workload)}})
				require.NoError(t, err)
			}
		}
	}
	reconcileAppConfig()
	if diff := cmp.Diff(int64(1), cc.patches.Load()); diff != "" {
		t.Errorf("one patch for one scope: -want, +got:\n%s", diff)
	}

	scope := get(t, env, healthScope, ns, "example-health-scope")
	want := []scopes.WorkloadRef{{APIVersion: "oam.dev/v1alpha2", Kind: "example-workload", Name: "my-example-workload"}}
	if diff := cmp.Diff(want, refs(t, scope, "spec.workloadRefs")); diff != "" {
		t.Errorf("the scope's references (the uid is pruned by its schema): -want, +got:\n%s", diff)
	}

	// A second reconcile writes nothing, although the reference it adds
	// carries a UID that the scope's schema prunes.
	reconcileAppConfig()
	if diff := cmp.Diff(int64(1), cc.patches.Load()); diff != "" {
		t.Errorf("a settled reconcile sends no patch: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(scope.GetResourceVersion(), get(t, env, healthScope, ns, "example-health-scope").GetResourceVersion()); diff != "" {
		t.Errorf("get(t, env, healthScope, ns, \"example-health-scope\").GetResourceVersion(): -want, +got:\n%s", diff)
	}

	// The workload's controller creates a Deployment; an unrelated one exists too.
	workload := get(t, env, exampleWorkload, ns, "my-example-workload")
	require.NoError(t, env.Client.Create(ctx, replicated(deploymentKind, ns, "my-example-workload", workload, true)))
	require.NoError(t, env.Client.Create(ctx, replicated(deploymentKind, ns, "unrelated", nil, false)))

	// The HealthScope controller locates it.
	located, err := scopes.Locate(ctx, env.Client, env.Mapper, scope)
	require.NoError(t, err)
	require.Len(t, located, 1)
	l := located[0]
	if diff := cmp.Diff(want[0], l.Ref); diff != "" {
		t.Errorf("l.Ref: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(workload.GetUID(), l.Workload.GetUID()); diff != "" {
		t.Errorf("l.Workload.GetUID(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff("example-workload.oam.dev", l.Definition.GetName()); diff != "" {
		t.Errorf("l.Definition.GetName(): -want, +got:\n%s", diff)
	}
	require.Len(t, l.Children, 1)
	if diff := cmp.Diff("Deployment", l.Children[0].GetKind()); diff != "" {
		t.Errorf("l.Children[0].GetKind(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff("my-example-workload", l.Children[0].GetName()); diff != "" {
		t.Errorf("l.Children[0].GetName(): -want, +got:\n%s", diff)
	}
}

// decode converts JSON content into out.
func decode(in any, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// TestDemoScope patches references into the design's DemoScope, whose
// schema knows nothing of OAM: they go where its ScopeDefinition says,
// spec.TargetEndpoints, and the rest of the scope is left alone.
func TestDemoScope(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "demo")
	applyDefinition(t, env, "ScopeDefinition", "demoscopes.demo.oam.dev", map[string]any{
		"workloadRefPath": "spec.TargetEndpoints",
		"definitionRef":   map[string]any{"name": "demoscopes.demo.oam.dev"},
	})
	scope := newObject(demoScope, ns, "demo-scope")
	scope.Object["spec"] = map[string]any{"region": "eu-west-1"}
	require.NoError(t, env.Client.Create(ctx, scope))

	a := scopes.WorkloadRef{APIVersion: "demo.oam.dev/v1beta2", Kind: "DemoTarget", Name: "a"}
	b := scopes.WorkloadRef{APIVersion: "demo.oam.dev/v1beta2", Kind: "DemoTarget", Name: "b", UID: "uid-b"}
	c := scopes.WorkloadRef{APIVersion: "demo.oam.dev/v1beta2", Kind: "DemoTarget", Name: "c"}
	ref := scopes.ScopeRef{APIVersion: "demo.oam.dev/v1beta2", Kind: "DemoScope", Namespace: ns, Name: "demo-scope"}

	got, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{a, b, c}})
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{Path: "spec.TargetEndpoints", Changed: true}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}

	got, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Remove: []scopes.WorkloadRef{b}, Add: []scopes.WorkloadRef{a}})
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{Path: "spec.TargetEndpoints", Changed: true}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}

	scope = get(t, env, demoScope, ns, "demo-scope")
	wantSpec := map[string]any{
		"region": "eu-west-1",
		"TargetEndpoints": []any{
			map[string]any{"apiVersion": "demo.oam.dev/v1beta2", "kind": "DemoTarget", "name": "a"},
			map[string]any{"apiVersion": "demo.oam.dev/v1beta2", "kind": "DemoTarget", "name": "c"},
		},
	}
	if diff := cmp.Diff(wantSpec, scope.Object["spec"]); diff != "" {
		t.Errorf("DemoScope spec: -want, +got:\n%s", diff)
	}
}

// TestConcurrentWriters has 20 writers add 20 different references to one
// scope at once, through the API server: none may be lost.
func TestConcurrentWriters(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "writers")
	applyDefinition(t, env, "ScopeDefinition", "healthscopes.core.oam.dev", map[string]any{"workloadRefPath": "spec.workloadRefs", "allowComponentOverlap": true})
	// The scope starts with a reference that half of the writers remove while
	// the others add theirs.
	scope := newObject(healthScope, ns, "busy")
	scope.Object["spec"] = map[string]any{"probe-timeout": int64(5)}
	require.NoError(t, env.Client.Create(ctx, scope))
	ref := scopes.ScopeRef{APIVersion: healthScope.GroupVersion().String(), Kind: healthScope.Kind, Namespace: ns, Name: "busy"}

	const writers = 20
	cc := &countingClient{Client: env.Client}
	var want []scopes.WorkloadRef
	for i := range writers {
		want = append(want, scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: fmt.Sprintf("w%02d", i)})
	}
	before := patchMetrics(t)
	start := make(chan struct{})
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			<-start
			_, errs[i] = scopes.PatchWorkloadRefs(ctx, cc, env.Mapper, ref, scopes.Change{Add: want[i : i+1]})
		})
	}
	close(start)
	wg.Wait()
	require.NoError(t, errors.Join(errs...))

	got := refs(t, get(t, env, healthScope, ns, "busy"), "spec.workloadRefs")
	// The order is the order in which the writers won; every reference is there once.
	if diff := cmp.Diff(want, got, cmpSortRefs); diff != "" {
		t.Errorf("references after %d concurrent writers: -want, +got:\n%s", writers, diff)
	}
	if cc.patches.Load()-cc.conflicts.Load() > int64(writers) {
		t.Errorf("concurrent writers share patches: cc.patches.Load()-cc.conflicts.Load() = %v, want at most %v", cc.patches.Load()-cc.conflicts.Load(), int64(writers))
	}
	t.Logf("%d writers: %d patches, %d conflicts retried", writers, cc.patches.Load(), cc.conflicts.Load())
	after := patchMetrics(t)
	for result, want := range map[string]float64{"success": float64(cc.patches.Load() - cc.conflicts.Load()), "conflict": float64(cc.conflicts.Load()), "error": 0} {
		if d := after[result] - before[result]; d != want {
			t.Errorf("ctrlkit_scopes_patches_total{result=%q} grew by %v, want %v (the patches the client saw)", result, d, want)
		}
	}

	// Half remove theirs while the other half add theirs again (no change for them).
	cc = &countingClient{Client: env.Client}
	for i := range writers {
		wg.Go(func() {
			change := scopes.Change{Add: want[i : i+1]}
			if i%2 == 0 {
				change = scopes.Change{Remove: want[i : i+1]}
			}
			_, errs[i] = scopes.PatchWorkloadRefs(ctx, cc, env.Mapper, ref, change)
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	var odd []scopes.WorkloadRef
	for i := 1; i < writers; i += 2 {
		odd = append(odd, want[i])
	}
	got = refs(t, get(t, env, healthScope, ns, "busy"), "spec.workloadRefs")
	if diff := cmp.Diff(odd, got, cmpSortRefs); diff != "" {
		t.Errorf("references after concurrent removals: -want, +got:\n%s", diff)
	}
	if cc.patches.Load()-cc.conflicts.Load() > int64(writers/2) {
		t.Errorf("only the removals write: cc.patches.Load()-cc.conflicts.Load() = %v, want at most %v", cc.patches.Load()-cc.conflicts.Load(), int64(writers/2))
	}
	if diff := cmp.Diff(int64(5), get(t, env, healthScope, ns, "busy").Object["spec"].(map[string]any)["probe-timeout"]); diff != "" {
		t.Errorf("other fields are kept: -want, +got:\n%s", diff)
	}
}

// TestContention: 50 writers at once, each adding 10 references to one
// scope and removing 5 of them, one call each, in one process (their calls
// are combined) and spread over 5 processes (5 clients, whose writes
// conflict). No call returns an error, no reference is lost or written
// twice, the scope's other fields are kept, and the latency of the calls is
// logged.
func TestContention(t *testing.T) {
	for _, processes := range []int{1, 5} {
		t.Run(fmt.Sprintf("%dProcesses", processes), func(t *testing.T) { contention(t, processes) })
	}
}

func contention(t *testing.T, processes int) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ns := env.Namespace(t, "contention")
	applyDefinition(t, env, "ScopeDefinition", "healthscopes.core.oam.dev", map[string]any{"workloadRefPath": "spec.workloadRefs", "allowComponentOverlap": true})
	scope := newObject(healthScope, ns, "busy")
	scope.SetAnnotations(map[string]string{"keep": "me"})
	scope.Object["spec"] = map[string]any{"probe-timeout": int64(5)}
	require.NoError(t, env.Client.Create(ctx, scope))
	ref := scopes.ScopeRef{APIVersion: healthScope.GroupVersion().String(), Kind: healthScope.Kind, Namespace: ns, Name: "busy"}

	// As a manager's client (controller-runtime's GetConfig), this one has
	// no client-side rate limit: the API server's priority and fairness
	// applies. client-go's default (5 requests a second) would measure the
	// limiter.
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS = -1
	direct, err := client.New(cfg, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)

	// Five processes that write one scope without pause meet more conflicts
	// than DefaultBackoff's attempts allow (a reconciler would return the
	// error and come back later); the calls here keep retrying, to count
	// every conflict.
	contended := scopes.Backoff{Attempts: 1000}

	const writers, adds, removes = 50, 10, 5
	clients := make([]*countingClient, processes)
	for i := range clients {
		clients[i] = &countingClient{Client: direct}
	}
	var want []scopes.WorkloadRef
	latencies := make([][]time.Duration, writers)
	errs := make([]error, writers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		var mine []scopes.WorkloadRef
		for i := range adds {
			mine = append(mine, scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: fmt.Sprintf("w%02d-%02d", w, i)})
		}
		want = append(want, mine[removes:]...)
		cc := clients[w%processes]
		wg.Go(func() {
			<-start
			call := func(c scopes.Change) error {
				began := time.Now()
				_, err := scopes.PatchWorkloadRefs(ctx, cc, env.Mapper, ref, c, contended)
				latencies[w] = append(latencies[w], time.Since(began))
				return err
			}
			for _, r := range mine {
				if errs[w] = call(scopes.Change{Add: []scopes.WorkloadRef{r}}); errs[w] != nil {
					return
				}
			}
			for _, r := range mine[:removes] {
				if errs[w] = call(scopes.Change{Remove: []scopes.WorkloadRef{r}}); errs[w] != nil {
					return
				}
			}
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(began)
	require.NoError(t, errors.Join(errs...), "no call returns an error")

	got := get(t, env, healthScope, ns, "busy")
	gotRefs := refs(t, got, "spec.workloadRefs")
	if len(gotRefs) != writers*(adds-removes) {
		t.Errorf("no reference lost or written twice: want %d references, got %d", writers*(adds-removes), len(gotRefs))
	}
	if diff := cmp.Diff(want, gotRefs, cmpSortRefs); diff != "" {
		t.Errorf("references after %d writers: -want, +got:\n%s", writers, diff)
	}
	if diff := cmp.Diff(int64(5), got.Object["spec"].(map[string]any)["probe-timeout"]); diff != "" {
		t.Errorf("other fields are kept: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"keep": "me"}, got.GetAnnotations()); diff != "" {
		t.Errorf("got.GetAnnotations(): -want, +got:\n%s", diff)
	}
	var patches, conflicts int64
	for _, cc := range clients {
		patches, conflicts = patches+cc.patches.Load(), conflicts+cc.conflicts.Load()
	}
	if patches-conflicts > int64(writers*(adds+removes)) {
		t.Errorf("concurrent calls share patches: patches-conflicts = %v, want at most %v", patches-conflicts, int64(writers*(adds+removes)))
	}

	var all []time.Duration
	for _, l := range latencies {
		all = append(all, l...)
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[int(p*float64(len(all)-1))] }
	t.Logf("%d writers × %d calls in %d processes, in %v: %d patches, %d conflicts retried; latency per call p50 %v, p99 %v, max %v",
		writers, adds+removes, processes, took.Round(time.Millisecond), patches, conflicts,
		pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond))

	// Settled: adding what is there writes nothing.
	cc := &countingClient{Client: env.Client}
	_, err = scopes.PatchWorkloadRefs(ctx, cc, env.Mapper, ref, scopes.Change{Add: want[:1]})
	require.NoError(t, err)
	if n := cc.patches.Load(); n != 0 {
		t.Errorf("a settled scope takes no write: want 0 patches, got %d", n)
	}
}

var cmpSortRefs = cmp.Transformer("sort", func(in []scopes.WorkloadRef) []string {
	var out []string
	for _, r := range in {
		out = append(out, r.String())
	}
	slices.Sort(out)
	return out
})

// TestPatchDefinitions covers what the ScopeDefinition decides: the path,
// opting out, and what happens without one.
func TestPatchDefinitions(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "defs")
	web := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}

	// PlainScope has no definition yet.
	scope := newObject(plainScope, ns, "plain")
	scope.Object["spec"] = map[string]any{"refs": []any{}}
	require.NoError(t, env.Client.Create(ctx, scope))
	ref := scopes.ScopeRef{APIVersion: "test.ctrlkit.dev/v1", Kind: "PlainScope", Namespace: ns, Name: "plain"}
	deleteDefinition(t, env, "plainscopes.test.ctrlkit.dev")

	_, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{web}})
	if !errors.Is(err, scopes.ErrDefinitionNotFound) {
		t.Errorf("err = %v, want %v", err, scopes.ErrDefinitionNotFound)
	}
	if err == nil || !strings.Contains(err.Error(), "cannot patch the workload references of PlainScope "+ns+"/plain: it has no ScopeDefinition") {
		t.Errorf("err = %v, want it to contain %q", err, "cannot patch the workload references of PlainScope "+ns+"/plain: it has no ScopeDefinition")
	}

	// With AtPath, no definition is needed.
	got, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{web}}, scopes.AtPath("spec.refs"))
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{Path: "spec.refs", Changed: true}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}

	// A definition that declares no path opts out: nothing is written.
	applyDefinition(t, env, "ScopeDefinition", "plainscopes.test.ctrlkit.dev", map[string]any{"allowComponentOverlap": true})
	rv := get(t, env, plainScope, ns, "plain").GetResourceVersion()
	db := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db"}
	got, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{db}})
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(rv, get(t, env, plainScope, ns, "plain").GetResourceVersion()); diff != "" {
		t.Errorf("an opted-out scope is not written: -want, +got:\n%s", diff)
	}

	// The definition's path (OAM's field name) is used.
	applyDefinition(t, env, "ScopeDefinition", "plainscopes.test.ctrlkit.dev", map[string]any{"workloadRefsPath": "spec.refs"})
	got, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{db, web}})
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{Path: "spec.refs", Changed: true}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]scopes.WorkloadRef{web, db}, refs(t, get(t, env, plainScope, ns, "plain"), "spec.refs")); diff != "" {
		t.Errorf("refs(t, get(t, env, plainScope, ns, \"plain\"), \"spec.refs\"): -want, +got:\n%s", diff)
	}

	// No change, no write.
	rv = get(t, env, plainScope, ns, "plain").GetResourceVersion()
	got, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{db}, Remove: []scopes.WorkloadRef{{APIVersion: "v1", Kind: "Service", Name: "absent"}}})
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{Path: "spec.refs"}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(rv, get(t, env, plainScope, ns, "plain").GetResourceVersion()); diff != "" {
		t.Errorf("get(t, env, plainScope, ns, \"plain\").GetResourceVersion(): -want, +got:\n%s", diff)
	}

	// A malformed value at the path is reported and left alone.
	bad := newObject(plainScope, ns, "bad")
	bad.Object["spec"] = map[string]any{"refs": "a.b.c"}
	require.NoError(t, env.Client.Create(ctx, bad))
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scopes.ScopeRef{APIVersion: "test.ctrlkit.dev/v1", Kind: "PlainScope", Namespace: ns, Name: "bad"}, scopes.Change{Add: []scopes.WorkloadRef{db}})
	if !errors.Is(err, scopes.ErrMalformed) {
		t.Errorf("err = %v, want %v", err, scopes.ErrMalformed)
	}
	if err == nil || !strings.Contains(err.Error(), `spec.refs holds a string of 5 bytes,`) {
		t.Errorf("err = %v, want it to contain %q", err, `spec.refs holds a string of 5 bytes,`)
	}
	if diff := cmp.Diff("a.b.c", get(t, env, plainScope, ns, "bad").Object["spec"].(map[string]any)["refs"]); diff != "" {
		t.Errorf("get(t, env, plainScope, ns, \"bad\").Object[\"spec\"].(map[string]any)[\"refs\"]: -want, +got:\n%s", diff)
	}

	// A scope that does not exist: adding fails, removing has nothing to do.
	missing := scopes.ScopeRef{APIVersion: "test.ctrlkit.dev/v1", Kind: "PlainScope", Namespace: ns, Name: "missing"}
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, missing, scopes.Change{Add: []scopes.WorkloadRef{db}})
	if !apierrors.IsNotFound(err) {
		t.Errorf("want NotFound, got %v", err)
	}
	got, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, missing, scopes.Change{Remove: []scopes.WorkloadRef{db}})
	require.NoError(t, err)
	if got.Changed {
		t.Errorf("got.Changed: want false, got true")
	}

	// A kind that is not installed: removing has nothing to do, with or
	// without a recorded path.
	gone := scopes.ScopeRef{APIVersion: "gone.ctrlkit.dev/v1", Kind: "GoneScope", Namespace: ns, Name: "x"}
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, gone, scopes.Change{Remove: []scopes.WorkloadRef{db}}, scopes.AtPath("spec.refs"))
	require.NoError(t, err)
	got, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, gone, scopes.Change{Remove: []scopes.WorkloadRef{db}})
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, gone, scopes.Change{Add: []scopes.WorkloadRef{db}})
	if !meta.IsNoMatchError(err) {
		t.Errorf("want a no-match error, got %v", err)
	}

	// Once the definition is gone, removal succeeds: without a path it
	// writes nothing (the reference stays in a scope nobody reads), with
	// the recorded path it removes the reference.
	deleteDefinition(t, env, "plainscopes.test.ctrlkit.dev")
	rv = get(t, env, plainScope, ns, "plain").GetResourceVersion()
	got, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Remove: []scopes.WorkloadRef{web}})
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{}, got); diff != "" {
		t.Errorf("got: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(rv, get(t, env, plainScope, ns, "plain").GetResourceVersion()); diff != "" {
		t.Errorf("nothing is written without a path: -want, +got:\n%s", diff)
	}
	got, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Remove: []scopes.WorkloadRef{web}}, scopes.AtPath("spec.refs"))
	require.NoError(t, err)
	if !got.Changed {
		t.Errorf("got.Changed: want true, got false")
	}
	if diff := cmp.Diff([]scopes.WorkloadRef{db}, refs(t, get(t, env, plainScope, ns, "plain"), "spec.refs")); diff != "" {
		t.Errorf("refs(t, get(t, env, plainScope, ns, \"plain\"), \"spec.refs\"): -want, +got:\n%s", diff)
	}
}

func deleteDefinition(t *testing.T, env *testenv.Env, name string) {
	t.Helper()
	def := newObject(scopes.OAMScopeDefinition, "", name)
	if err := env.Client.Delete(context.Background(), def); err != nil && !apierrors.IsNotFound(err) {
		require.NoError(t, err)
	}
}

// TestRefusedPaths: a reference path may only name a list outside metadata
// and status. Every other path, from an option or a ScopeDefinition, is
// refused with an error naming where it came from, the path and why, and
// the scope is not written.
func TestRefusedPaths(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "paths")
	web := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u1"}
	db := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db"}

	owner := newObject(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, ns, "owner")
	require.NoError(t, env.Client.Create(ctx, owner))
	scope := newObject(plainScope, ns, "shapes")
	scope.SetAnnotations(map[string]string{"keep": "me"})
	scope.SetLabels(map[string]string{"app": "x"})
	scope.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.GetUID()}})
	scope.Object["spec"] = map[string]any{
		"probe":       int64(5),
		"workloadRef": map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"},
		"groups":      []any{map[string]any{"name": "a"}, map[string]any{"name": "b", "refs": []any{}}},
	}
	require.NoError(t, env.Client.Create(ctx, scope))
	ref := scopes.ScopeRef{APIVersion: "test.ctrlkit.dev/v1", Kind: "PlainScope", Namespace: ns, Name: "shapes"}
	before := get(t, env, plainScope, ns, "shapes")

	refusedByOption := map[string]string{
		"spec":                     "spec holds an object of 3 fields, not a list",
		"spec.workloadRef":         "spec.workloadRef holds an object of 3 fields, not a list",
		"spec.probe":               "spec.probe holds a number, not a list",
		"metadata":                 "metadata is in metadata",
		"metadata.annotations":     "metadata.annotations is in metadata",
		"metadata.ownerReferences": "metadata.ownerReferences is in metadata",
		"metadata.finalizers":      "metadata.finalizers is in metadata",
		"status.workloads":         "status.workloads is in status",
		"kind":                     "kind is the scope's kind",
	}
	for path, why := range refusedByOption {
		for _, change := range []scopes.Change{{Add: []scopes.WorkloadRef{web}}, {Remove: []scopes.WorkloadRef{db}}} {
			_, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, change, scopes.AtPath(path))
			if !errors.Is(err, scopes.ErrInvalidRefPath) {
				t.Errorf("%s: err = %v, want %v", path, err, scopes.ErrInvalidRefPath)
			}
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("path %q of option AtPath is refused", path)) {
				t.Errorf("err = %v, want it to contain %q", err, fmt.Sprintf("path %q of option AtPath is refused", path))
			}
			if err == nil || !strings.Contains(err.Error(), why) {
				t.Errorf("err = %v, want it to contain %q", err, why)
			}
		}
	}

	// The same from a ScopeDefinition, which the error names.
	t.Cleanup(func() { deleteDefinition(t, env, "plainscopes.test.ctrlkit.dev") })
	for path, why := range map[string]string{
		"metadata.annotations": "metadata.annotations is in metadata",
		"spec":                 "spec holds an object of 3 fields, not a list",
	} {
		applyDefinition(t, env, "ScopeDefinition", "plainscopes.test.ctrlkit.dev", map[string]any{"workloadRefPath": path})
		_, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{web}})
		if !errors.Is(err, scopes.ErrInvalidRefPath) {
			t.Errorf("%s: err = %v, want %v", path, err, scopes.ErrInvalidRefPath)
		}
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("path %q of ScopeDefinition plainscopes.test.ctrlkit.dev (spec.workloadRefPath) is refused", path)) {
			t.Errorf("err = %v, want it to contain %q", err, fmt.Sprintf("path %q of ScopeDefinition plainscopes.test.ctrlkit.dev (spec.workloadRefPath) is refused", path))
		}
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("err = %v, want it to contain %q", err, why)
		}
		_, err = scopes.Locate(ctx, env.Client, env.Mapper, get(t, env, plainScope, ns, "shapes"))
		if !errors.Is(err, scopes.ErrInvalidRefPath) {
			t.Errorf("%s: err = %v, want %v", path, err, scopes.ErrInvalidRefPath)
		}
	}
	after := get(t, env, plainScope, ns, "shapes")
	if diff := cmp.Diff(before.GetResourceVersion(), after.GetResourceVersion()); diff != "" {
		t.Errorf("a refused path writes nothing: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(before.Object, after.Object); diff != "" {
		t.Errorf("after.Object: -want, +got:\n%s", diff)
	}

	// A list inside an array element, and a list created where none was.
	_, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{db, web}}, scopes.AtPath("spec.groups[1].refs"))
	require.NoError(t, err)
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Add: []scopes.WorkloadRef{db}}, scopes.AtPath("spec.new.refs"))
	require.NoError(t, err)
	want := map[string]any{
		"probe":       int64(5),
		"workloadRef": map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"},
		"groups": []any{map[string]any{"name": "a"}, map[string]any{"name": "b", "refs": []any{
			map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"},
			map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u1"},
		}}},
		"new": map[string]any{"refs": []any{map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"}}},
	}
	after = get(t, env, plainScope, ns, "shapes")
	if diff := cmp.Diff(want, after.Object["spec"]); diff != "" {
		t.Errorf("spec: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(before.Object["metadata"].(map[string]any)["annotations"], after.Object["metadata"].(map[string]any)["annotations"]); diff != "" {
		t.Errorf("after.Object[\"metadata\"].(map[string]any)[\"annotations\"]: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(before.GetOwnerReferences(), after.GetOwnerReferences()); diff != "" {
		t.Errorf("after.GetOwnerReferences(): -want, +got:\n%s", diff)
	}
}

// TestOverlap enforces allowComponentOverlap: false.
func TestOverlap(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "overlap")
	other := env.Namespace(t, "overlap-other")
	applyDefinition(t, env, "ScopeDefinition", "demoscopes.demo.oam.dev", map[string]any{"workloadRefPath": "spec.TargetEndpoints", "allowComponentOverlap": false})
	t.Cleanup(func() {
		applyDefinition(t, env, "ScopeDefinition", "demoscopes.demo.oam.dev", map[string]any{"workloadRefPath": "spec.TargetEndpoints"})
	})
	for _, s := range []struct{ ns, name string }{{ns, "a"}, {ns, "b"}, {other, "c"}} {
		require.NoError(t, env.Client.Create(ctx, newObject(demoScope, s.ns, s.name)))
	}
	scope := func(ns, name string) scopes.ScopeRef {
		return scopes.ScopeRef{APIVersion: "demo.oam.dev/v1beta2", Kind: "DemoScope", Namespace: ns, Name: name}
	}
	web := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	db := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db"}

	_, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scope(ns, "a"), scopes.Change{Add: []scopes.WorkloadRef{web}})
	require.NoError(t, err)

	rv := get(t, env, demoScope, ns, "b").GetResourceVersion()
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scope(ns, "b"), scopes.Change{Add: []scopes.WorkloadRef{db, web}})
	if !errors.Is(err, scopes.ErrOverlap) {
		t.Errorf("err = %v, want %v", err, scopes.ErrOverlap)
	}
	if err == nil || !strings.Contains(err.Error(), `workload apps/v1 Deployment "web" is already in DemoScope `+ns+`/a, and the DemoScope definition sets allowComponentOverlap to false`) {
		t.Errorf("err = %v, want it to contain %q", err, `workload apps/v1 Deployment "web" is already in DemoScope `+ns+`/a, and the DemoScope definition sets allowComponentOverlap to false`)
	}
	if diff := cmp.Diff(rv, get(t, env, demoScope, ns, "b").GetResourceVersion()); diff != "" {
		t.Errorf("a refused change writes nothing: -want, +got:\n%s", diff)
	}

	// Other workloads, and other namespaces, are fine; so is adding again to
	// the scope that holds the workload.
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scope(ns, "b"), scopes.Change{Add: []scopes.WorkloadRef{db}})
	require.NoError(t, err)
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scope(other, "c"), scopes.Change{Add: []scopes.WorkloadRef{web}})
	require.NoError(t, err)
	got, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scope(ns, "a"), scopes.Change{Add: []scopes.WorkloadRef{web}})
	require.NoError(t, err)
	if got.Changed {
		t.Errorf("got.Changed: want false, got true")
	}

	// Once it leaves a, it may join b.
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scope(ns, "a"), scopes.Change{Remove: []scopes.WorkloadRef{web}})
	require.NoError(t, err)
	_, err = scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, scope(ns, "b"), scopes.Change{Add: []scopes.WorkloadRef{web}})
	require.NoError(t, err)
	if diff := cmp.Diff([]scopes.WorkloadRef{db, web}, refs(t, get(t, env, demoScope, ns, "b"), "spec.TargetEndpoints")); diff != "" {
		t.Errorf("refs(t, get(t, env, demoScope, ns, \"b\"), \"spec.TargetEndpoints\"): -want, +got:\n%s", diff)
	}
}

// TestChildResourcesAPIServer finds a workload's Deployments and their
// ReplicaSets on the API server.
func TestChildResourcesAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "children")
	other := env.Namespace(t, "children-other")

	workload := newObject(exampleWorkload, ns, "w")
	require.NoError(t, env.Client.Create(ctx, workload))
	create := func(u *unstructured.Unstructured) *unstructured.Unstructured {
		require.NoError(t, env.Client.Create(ctx, u))
		return u
	}
	b := create(replicated(deploymentKind, ns, "b", workload, true))
	a := create(replicated(deploymentKind, ns, "a", workload, true))
	create(replicated(deploymentKind, ns, "weak", workload, false))
	create(replicated(deploymentKind, ns, "unowned", nil, false))
	create(replicated(deploymentKind, other, "elsewhere", workload, true))
	create(replicated(replicaSetKind, ns, "a-1", a, true))
	create(replicated(replicaSetKind, ns, "b-1", b, true))

	kinds := []scopes.ChildResourceKind{{APIVersion: "apps/v1", Kind: "ReplicaSet"}, {APIVersion: "apps/v1", Kind: "Deployment"}}
	names := func(us []unstructured.Unstructured) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.GetKind()+" "+u.GetNamespace()+"/"+u.GetName())
		}
		return out
	}
	got, err := scopes.ChildResources(ctx, env.Client, workload, kinds)
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"Deployment " + ns + "/a", "Deployment " + ns + "/b", "Deployment " + ns + "/weak"}, names(got)); diff != "" {
		t.Errorf("one level: -want, +got:\n%s", diff)
	}
	got, err = scopes.ChildResources(ctx, env.Client, workload, kinds, scopes.ControllerOnly(true), scopes.Depth(2))
	require.NoError(t, err)
	want := []string{"Deployment " + ns + "/a", "Deployment " + ns + "/b", "ReplicaSet " + ns + "/a-1", "ReplicaSet " + ns + "/b-1"}
	if diff := cmp.Diff(want, names(got)); diff != "" {
		t.Errorf("two levels, controllers only: -want, +got:\n%s", diff)
	}

	_, err = scopes.ChildResources(ctx, env.Client, workload, []scopes.ChildResourceKind{{APIVersion: "nothing.ctrlkit.dev/v1", Kind: "Nothing"}})
	if !meta.IsNoMatchError(err) {
		t.Errorf("want a no-match error, got %v", err)
	}
	if err == nil || !strings.Contains(err.Error(), "cannot find the child resources of example-workload "+ns+"/w: cannot list nothing.ctrlkit.dev/v1 Nothing in namespace "+ns) {
		t.Errorf("err = %v, want it to contain %q", err, "cannot find the child resources of example-workload "+ns+"/w: cannot list nothing.ctrlkit.dev/v1 Nothing in namespace "+ns)
	}
}

// TestDefinitionByLabel: a workload labelled workload.oam.dev/type, as
// KubeVela labels the workloads it renders, finds the WorkloadDefinition
// of that name (and so its children) before `<plural>.<group>`; without
// the label, `<plural>.<group>`. A ScopeDefinition named otherwise is found
// through spec.definitionRef.name.
func TestDefinitionByLabel(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "bylabel")
	applyDefinition(t, env, "WorkloadDefinition", "bylabel-webservice", map[string]any{
		"definitionRef":      map[string]any{"name": "deployments.apps"},
		"childResourceKinds": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet"}},
	})
	applyDefinition(t, env, "WorkloadDefinition", "deployments.apps", map[string]any{"definitionRef": map[string]any{"name": "deployments.apps"}})
	t.Cleanup(func() {
		for _, n := range []string{"bylabel-webservice", "deployments.apps"} {
			def := newObject(scopes.OAMWorkloadDefinition, "", n)
			_ = env.Client.Delete(context.Background(), def)
		}
	})

	web := replicated(deploymentKind, ns, "web", nil, false)
	web.SetLabels(map[string]string{scopes.WorkloadTypeLabel: "bylabel-webservice"})
	require.NoError(t, env.Client.Create(ctx, web))
	require.NoError(t, env.Client.Create(ctx, replicated(replicaSetKind, ns, "web-1", web, true)))
	plain := replicated(deploymentKind, ns, "plain", nil, false)
	require.NoError(t, env.Client.Create(ctx, plain))

	scope := newObject(healthScope, ns, "hs")
	scope.Object["spec"] = map[string]any{"workloadRefs": []any{
		map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
		map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "plain"},
	}}
	require.NoError(t, env.Client.Create(ctx, scope))
	got, err := scopes.Locate(ctx, env.Client, env.Mapper, scope, scopes.AtPath("spec.workloadRefs"))
	require.NoError(t, err)
	require.Len(t, got, 2)
	if diff := cmp.Diff("bylabel-webservice", got[0].Definition.GetName()); diff != "" {
		t.Errorf("the label names the definition: -want, +got:\n%s", diff)
	}
	require.Len(t, got[0].Children, 1)
	if diff := cmp.Diff("web-1", got[0].Children[0].GetName()); diff != "" {
		t.Errorf("got[0].Children[0].GetName(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff("deployments.apps", got[1].Definition.GetName()); diff != "" {
		t.Errorf("without the label, <plural>.<group>: -want, +got:\n%s", diff)
	}

	// The design's first ScopeDefinition: its name is not the CRD's, its
	// definitionRef is.
	deleteDefinition(t, env, "healthscopes.core.oam.dev")
	applyDefinition(t, env, "ScopeDefinition", "healthscope.core.oam.dev", map[string]any{
		"definitionRef": map[string]any{"name": "healthscopes.core.oam.dev"}, "workloadRefPath": "spec.workloadRefs",
	})
	t.Cleanup(func() {
		deleteDefinition(t, env, "healthscope.core.oam.dev")
		applyDefinition(t, env, "ScopeDefinition", "healthscopes.core.oam.dev", map[string]any{"workloadRefPath": "spec.workloadRefs"})
	})
	ref := scopes.ScopeRef{APIVersion: healthScope.GroupVersion().String(), Kind: healthScope.Kind, Namespace: ns, Name: "hs"}
	patched, err := scopes.PatchWorkloadRefs(ctx, env.Client, env.Mapper, ref, scopes.Change{Remove: []scopes.WorkloadRef{scopes.RefOf(plain)}})
	require.NoError(t, err)
	if diff := cmp.Diff(scopes.Patched{Path: "spec.workloadRefs", Changed: true}, patched); diff != "" {
		t.Errorf("patched: -want, +got:\n%s", diff)
	}
}

// TestReadKindsAPIServer: a scope that references a Secret, and a
// WorkloadDefinition that lists Secrets as child resources, make Locate send
// no request for secrets; each is reported with ErrKindNotAllowed, and the
// workload's children of other kinds are still found. With ReadKinds allowing
// Secrets, both are read.
func TestReadKindsAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "readkinds")

	cfg, secretRequests := testenv.CountRequests(env.Config, func(r *http.Request) bool { return slices.Contains(strings.Split(r.URL.Path, "/"), "secrets") })
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)

	const defName = "readkinds-secrets"
	applyDefinition(t, env, "WorkloadDefinition", defName, map[string]any{
		"childResourceKinds": []any{
			map[string]any{"apiVersion": "v1", "kind": "Secret"},
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
		},
	})
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), newObject(scopes.OAMWorkloadDefinition, "", defName))
	})

	workload := newObject(exampleWorkload, ns, "w")
	workload.SetLabels(map[string]string{scopes.WorkloadTypeLabel: defName})
	require.NoError(t, env.Client.Create(ctx, workload))
	owned := func(kind, name string) *unstructured.Unstructured {
		u := newObject(schema.GroupVersionKind{Version: "v1", Kind: kind}, ns, name)
		u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: workload.GetAPIVersion(), Kind: workload.GetKind(), Name: workload.GetName(), UID: workload.GetUID()}})
		return u
	}
	require.NoError(t, env.Client.Create(ctx, owned("Secret", "w-creds")))
	require.NoError(t, env.Client.Create(ctx, owned("ConfigMap", "w-config")))
	require.NoError(t, env.Client.Create(ctx, newObject(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, ns, "s")))

	scope := newObject(healthScope, ns, "hs")
	scope.Object["spec"] = map[string]any{"workloadRefs": []any{
		map[string]any{"apiVersion": "v1", "kind": "Secret", "name": "s"},
		map[string]any{"apiVersion": exampleWorkload.GroupVersion().String(), "kind": exampleWorkload.Kind, "name": "w"},
	}}
	require.NoError(t, env.Client.Create(ctx, scope))

	names := func(us []unstructured.Unstructured) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.GetKind()+" "+u.GetName())
		}
		return out
	}

	got, err := scopes.Locate(ctx, c, env.Mapper, scope, scopes.AtPath("spec.workloadRefs"))
	if !errors.Is(err, scopes.ErrKindNotAllowed) {
		t.Errorf("err = %v, want it to wrap ErrKindNotAllowed", err)
	}
	if n := secretRequests.Load(); n != 0 {
		t.Errorf("by default, Locate sent %d requests for secrets, want 0", n)
	}
	require.Len(t, got, 2)
	want := `cannot locate workload v1 Secret "s" of HealthScope ` + ns + `/hs: objects of kind Secret are not read unless the ReadKinds option allows them`
	if got[0].Workload != nil || !errors.Is(got[0].Err, scopes.ErrKindNotAllowed) || !strings.Contains(got[0].Err.Error(), want) {
		t.Errorf("got[0] = workload %v, err %v; want no workload and an error containing %q", got[0].Workload, got[0].Err, want)
	}
	want = `cannot find the child resources of example-workload ` + ns + `/w: objects of kind Secret are not read`
	if !errors.Is(got[1].Err, scopes.ErrKindNotAllowed) || !strings.Contains(got[1].Err.Error(), want) {
		t.Errorf("got[1].Err = %v, want it to contain %q and wrap ErrKindNotAllowed", got[1].Err, want)
	}
	if diff := cmp.Diff([]string{"ConfigMap w-config"}, names(got[1].Children)); diff != "" {
		t.Errorf("children of the other kinds: -want, +got:\n%s", diff)
	}

	got, err = scopes.Locate(ctx, c, env.Mapper, scope, scopes.AtPath("spec.workloadRefs"),
		scopes.ReadKinds(func(schema.GroupKind) bool { return true }))
	require.NoError(t, err)
	if secretRequests.Load() == 0 {
		t.Errorf("with ReadKinds allowing Secrets, Locate sent no request for secrets")
	}
	require.Len(t, got, 2)
	if got[0].Workload == nil || got[0].Workload.GetName() != "s" {
		t.Errorf("got[0].Workload = %v, want Secret s", got[0].Workload)
	}
	if diff := cmp.Diff([]string{"ConfigMap w-config", "Secret w-creds"}, names(got[1].Children)); diff != "" {
		t.Errorf("with Secrets allowed, children: -want, +got:\n%s", diff)
	}
}

// patchMetrics reads ctrlkit_scopes_patches_total by result from
// controller-runtime's registry, which a manager's metrics endpoint serves.
func patchMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "ctrlkit_scopes_patches_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" {
					got[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return got
}
