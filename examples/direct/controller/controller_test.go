package controller_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/examples/direct/cloudapi"
	"github.com/ctrlkit/ctrlkit/examples/direct/controller"
	"github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDDirs("../crds"), testenv.WithScheme(v1alpha1.AddToScheme))
}

const syncPeriod = time.Hour

var ignoreTime = cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")

func newCloud(t *testing.T) (*cloudapi.Server, *cloudapi.Client) {
	t.Helper()
	s, err := cloudapi.NewServer(0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, &cloudapi.Client{BaseURL: s.URL(), Project: "test"}
}

func newDataset(name string) *v1alpha1.Dataset {
	return &v1alpha1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1alpha1.DatasetSpec{
			Description: "Orders of the web shop",
			Labels:      map[string]string{"team": "shop"},
			Location:    "EU",
			Access:      []v1alpha1.Access{{Role: "READER", UserByEmail: "ana@example.com"}},
		},
	}
}

// edit changes a Dataset on the API server, on a fresh copy.
func edit(t *testing.T, ctx context.Context, c client.Client, key types.NamespacedName, f func(*v1alpha1.Dataset)) *v1alpha1.Dataset {
	t.Helper()
	ds := &v1alpha1.Dataset{}
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, key, ds); err != nil {
			return err
		}
		f(ds)
		return c.Update(ctx, ds)
	}))
	return ds
}

// TestDatasetLifecycle runs the controller in a manager against the API
// server and the fake cloud, edits a Dataset, and checks every Ready
// condition a watcher sees: Creating and Updating written before the cloud
// call (the cloud itself checks, when each call arrives), an injected failure
// reported with the first field path and the error, exactly one Ready
// condition and the right observedGeneration in every event, another
// controller's condition left alone, and a golden status at the end.
func TestDatasetLifecycle(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	server, cloud := newCloud(t)

	// What the Dataset said when each create or update reached the cloud.
	var mu sync.Mutex
	var atCall []string
	key := types.NamespacedName{Namespace: "default", Name: "lifecycle"}
	server.Observe(func(method, _ string) {
		if method != http.MethodPost && method != http.MethodPatch {
			return
		}
		ds := &v1alpha1.Dataset{}
		if err := env.Client.Get(context.Background(), key, ds); err != nil {
			t.Errorf("cannot read the Dataset during a cloud call: %v", err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if r := conditions.Get(ds.Status.Conditions, "Ready"); r != nil {
			atCall = append(atCall, method+" "+r.Reason+" "+r.Message)
		} else {
			atCall = append(atCall, method+" without Ready")
		}
	})

	startManager(t, env, cloud)
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)
	w, err := wc.Watch(ctx, &v1alpha1.DatasetList{}, client.InNamespace("default"), client.MatchingFields{"metadata.name": key.Name})
	require.NoError(t, err)
	defer w.Stop()
	rec := &recorder{t: t}

	ds := newDataset(key.Name)
	require.NoError(t, env.Client.Create(ctx, ds))
	rec.until(ctx, w, 1, "UpToDate")

	// Another controller's condition appears, and must stay as it is.
	audited := metav1.Condition{Type: "example.com/Audited", Status: metav1.ConditionTrue, Reason: "Audited", Message: "audited by the test", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, key, ds); err != nil {
			return err
		}
		conditions.Set(&ds.Status.Conditions, audited)
		return env.Client.Status().Update(ctx, ds)
	}))
	rec.setAudited(audited)

	edit(t, ctx, env.Client, key, func(d *v1alpha1.Dataset) { d.Spec.Description = "Orders, by day" })
	rec.until(ctx, w, 2, "UpToDate")

	server.InjectFailure(cloudapi.Failure{Method: http.MethodPatch, Code: http.StatusServiceUnavailable, Message: "the backend is unavailable"})
	edit(t, ctx, env.Client, key, func(d *v1alpha1.Dataset) {
		d.Spec.Labels["team"] = "data"
		d.Spec.Access[0].Role = "WRITER"
	})
	rec.until(ctx, w, 3, "UpToDate")

	want := []metav1.Condition{
		{Type: "Ready", Status: "False", Reason: "Creating", Message: "Creating resource", ObservedGeneration: 1},
		{Type: "Ready", Status: "True", Reason: "UpToDate", Message: "Resource is up to date", ObservedGeneration: 1},
		{Type: "Ready", Status: "False", Reason: "Updating", Message: "Updating resource (first field path: spec.description)", ObservedGeneration: 2},
		{Type: "Ready", Status: "True", Reason: "UpToDate", Message: "Resource is up to date", ObservedGeneration: 2},
		{Type: "Ready", Status: "False", Reason: "Updating", Message: "Updating resource (first field path: spec.labels[team])", ObservedGeneration: 3},
		{Type: "Ready", Status: "False", Reason: "UpdateFailure", Message: "Failed to update resource (first field path: spec.labels[team]): cannot update dataset default_lifecycle: cloud API error 503 UNAVAILABLE: the backend is unavailable", ObservedGeneration: 3},
		{Type: "Ready", Status: "False", Reason: "Updating", Message: "Updating resource (first field path: spec.labels[team])", ObservedGeneration: 3},
		{Type: "Ready", Status: "True", Reason: "UpToDate", Message: "Resource is up to date", ObservedGeneration: 3},
	}
	if diff := cmp.Diff(want, rec.seen, ignoreTime); diff != "" {
		t.Errorf("Ready conditions a watcher saw: -want, +got:\n%s", diff)
	}
	mu.Lock()
	wantAtCall := []string{
		"POST Creating Creating resource",
		"PATCH Updating Updating resource (first field path: spec.description)",
		"PATCH Updating Updating resource (first field path: spec.labels[team])",
		"PATCH Updating Updating resource (first field path: spec.labels[team])",
	}
	if diff := cmp.Diff(wantAtCall, atCall); diff != "" {
		t.Errorf("the Dataset's Ready condition when each cloud call arrived: -want, +got:\n%s", diff)
	}
	mu.Unlock()

	// The cloud has the spec; the update sent only what changed.
	got, ok := server.Dataset(cloud.Name(controller.ExternalID(ds)))
	if !ok {
		t.Fatalf("the cloud has no dataset %s", cloud.Name(controller.ExternalID(ds)))
	}
	if got.Description != "Orders, by day" || got.Labels["team"] != "data" || got.Access[0].Role != "WRITER" {
		t.Errorf("cloud dataset: want the spec's description, labels and access, got %v", got)
	}

	require.NoError(t, env.Client.Get(ctx, key, ds))
	checkGolden(t, "testdata/lifecycle-status.yaml", ds.Status)

	// Deleting the Dataset deletes the cloud dataset, then the finalizer goes.
	require.NoError(t, env.Client.Delete(ctx, ds))
	testenv.Eventually(t, time.Minute, "the Dataset to be deleted once its finalizer is removed", func() error {
		if err := env.Client.Get(ctx, key, &v1alpha1.Dataset{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (read: %v)", err)
		}
		return nil
	})
	if _, ok := server.Dataset(cloud.Name(controller.ExternalID(ds))); ok {
		t.Errorf("the cloud dataset still exists after the Dataset was deleted")
	}
}

// recorder collects the distinct Ready conditions a watch delivers, checking
// every event on the way.
type recorder struct {
	t        *testing.T
	seen     []metav1.Condition
	audited  *metav1.Condition
	lastSeen string
}

func (r *recorder) setAudited(c metav1.Condition) { r.audited = &c }

// until reads the watch until the Ready condition at generation gen has
// reason.
func (r *recorder) until(ctx context.Context, w watch.Interface, gen int64, reason string) {
	r.t.Helper()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			r.t.Fatalf("context done waiting for %s at generation %d; last seen %s", reason, gen, r.lastSeen)
		case <-deadline.C:
			r.t.Fatalf("timed out waiting for %s at generation %d; last seen %s", reason, gen, r.lastSeen)
		case ev, ok := <-w.ResultChan():
			if !ok {
				r.t.Fatalf("the watch ended waiting for %s at generation %d", reason, gen)
			}
			ds, ok := ev.Object.(*v1alpha1.Dataset)
			if !ok {
				continue
			}
			r.check(ds)
			ready := conditions.Get(ds.Status.Conditions, "Ready")
			if ready == nil {
				continue
			}
			r.lastSeen = ready.Reason + ": " + ready.Message
			if n := len(r.seen); n == 0 || !cmp.Equal(r.seen[n-1], *ready, ignoreTime) {
				r.seen = append(r.seen, *ready)
			}
			if ready.ObservedGeneration == gen && ready.Reason == reason {
				return
			}
		}
	}
}

// check holds for every version of the Dataset the watch delivers.
func (r *recorder) check(ds *v1alpha1.Dataset) {
	r.t.Helper()
	n := 0
	for _, c := range ds.Status.Conditions {
		if c.Type == "Ready" {
			n++
		}
	}
	if n > 1 {
		r.t.Errorf("generation %d: %d Ready conditions, want at most one", ds.Generation, n)
	}
	if ready := conditions.Get(ds.Status.Conditions, "Ready"); ready != nil {
		if ready.ObservedGeneration != ds.Status.ObservedGeneration || ready.ObservedGeneration > ds.Generation {
			r.t.Errorf("generation %d: Ready observed generation %d, status.observedGeneration %d; want them equal and not above the generation",
				ds.Generation, ready.ObservedGeneration, ds.Status.ObservedGeneration)
		}
	}
	if r.audited != nil {
		got := conditions.Get(ds.Status.Conditions, r.audited.Type)
		if got == nil || !cmp.Equal(*r.audited, *got, cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })) {
			r.t.Errorf("generation %d: another controller's condition changed: want %+v, got %+v", ds.Generation, *r.audited, got)
		}
	}
}

func startManager(t *testing.T, env *testenv.Env, cloud *cloudapi.Client) {
	t.Helper()
	mgr, err := ctrl.NewManager(env.Config, env.ManagerOptions())
	require.NoError(t, err)
	r := &controller.Reconciler{
		Client:     mgr.GetClient(),
		Cloud:      cloud,
		Status:     directstatus.NewWriter(mgr.GetClient(), directstatus.ReadFrom(mgr.GetAPIReader())),
		SyncPeriod: syncPeriod,
	}
	require.NoError(t, r.SetupWithManager(mgr))
	testenv.StartManager(t, mgr)
}

// countingClient counts every write a client makes.
func countingClient(t *testing.T, env *testenv.Env) (client.Client, *atomic.Int64) {
	t.Helper()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)
	n := &atomic.Int64{}
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			n.Add(1)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			n.Add(1)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			n.Add(1)
			return c.Patch(ctx, obj, p, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			n.Add(1)
			return c.Delete(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			n.Add(1)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			n.Add(1)
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
	}), n
}

// TestPeriodicSync calls Reconcile directly, as the sync period would: with
// nothing to change it writes nothing at all, neither to the API server nor
// to the cloud; after a change made in the cloud behind the controller's
// back, it repairs it and says so.
func TestPeriodicSync(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	server, cloud := newCloud(t)
	c, writes := countingClient(t, env)
	r := &controller.Reconciler{Client: c, Cloud: cloud, Status: directstatus.NewWriter(c), SyncPeriod: syncPeriod}

	ds := newDataset("periodic")
	require.NoError(t, env.Client.Create(ctx, ds))
	t.Cleanup(func() { removeFinalizerAndDelete(env, ds) })
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ds)}

	res, err := r.Reconcile(ctx, req)
	require.NoError(t, err)
	if res.RequeueAfter != syncPeriod {
		t.Errorf("RequeueAfter of a settled Dataset: want the sync period %s, got %s", syncPeriod, res.RequeueAfter)
	}
	require.NoError(t, env.Client.Get(ctx, req.NamespacedName, ds))
	if !conditions.IsTrue(ds.Status.Conditions, "Ready") {
		t.Errorf("Ready after the first reconcile: %v", ds.Status.Conditions)
	}

	// Periodic syncs with nothing to do: zero writes.
	before, rv := writes.Load(), ds.ResourceVersion
	patches, posts := server.Calls(http.MethodPatch), server.Calls(http.MethodPost)
	for range 3 {
		res, err := r.Reconcile(ctx, req)
		require.NoError(t, err)
		if res.RequeueAfter != syncPeriod {
			t.Errorf("RequeueAfter of a periodic sync: want %s, got %s", syncPeriod, res.RequeueAfter)
		}
	}
	require.NoError(t, env.Client.Get(ctx, req.NamespacedName, ds))
	if n := writes.Load() - before; n != 0 || ds.ResourceVersion != rv {
		t.Errorf("periodic syncs with nothing to change: %d writes, resourceVersion %s -> %s; want no write", n, rv, ds.ResourceVersion)
	}
	if server.Calls(http.MethodPatch) != patches || server.Calls(http.MethodPost) != posts {
		t.Errorf("periodic syncs with nothing to change called the cloud to write")
	}

	// Someone changes the cloud dataset directly; the next sync repairs it.
	_, err = cloud.Update(ctx, controller.ExternalID(ds), &cloudapi.Dataset{Labels: map[string]string{"team": "shop", "cost-center": "42"}}, []string{"labels"}, "")
	require.NoError(t, err)
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)
	w, err := wc.Watch(ctx, &v1alpha1.DatasetList{}, client.InNamespace("default"), client.MatchingFields{"metadata.name": ds.Name},
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: ds.ResourceVersion}})
	require.NoError(t, err)
	defer w.Stop()
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	rec := &recorder{t: t}
	rec.until(ctx, w, 1, "UpToDate")
	want := []metav1.Condition{
		{Type: "Ready", Status: "False", Reason: "Updating", Message: "Updating resource (first field path: spec.labels[cost-center])", ObservedGeneration: 1},
		{Type: "Ready", Status: "True", Reason: "UpToDate", Message: "Resource is up to date", ObservedGeneration: 1},
	}
	if diff := cmp.Diff(want, rec.seen, ignoreTime); diff != "" {
		t.Errorf("Ready conditions of the repair: -want, +got:\n%s", diff)
	}
	got, _ := server.Dataset(cloud.Name(controller.ExternalID(ds)))
	if diff := cmp.Diff(map[string]string{"team": "shop"}, got.Labels); diff != "" {
		t.Errorf("cloud labels after the repair: -want, +got:\n%s", diff)
	}
}

// TestCreateFailure injects a cloud failure on create.
func TestCreateFailure(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	server, cloud := newCloud(t)
	r := &controller.Reconciler{Client: env.Client, Cloud: cloud, Status: directstatus.NewWriter(env.Client), SyncPeriod: syncPeriod}

	ds := newDataset("create-failure")
	require.NoError(t, env.Client.Create(ctx, ds))
	t.Cleanup(func() { removeFinalizerAndDelete(env, ds) })
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ds)}

	server.InjectFailure(cloudapi.Failure{Method: http.MethodPost, Code: http.StatusTooManyRequests, Message: "quota exceeded"})
	_, err := r.Reconcile(ctx, req)
	var apiErr *cloudapi.APIError
	require.ErrorAs(t, err, &apiErr, "Reconcile returns the cloud's error, to be retried with backoff")

	require.NoError(t, env.Client.Get(ctx, req.NamespacedName, ds))
	const msg = "Failed to create resource: cannot create dataset default_create_failure: cloud API error 429 RESOURCE_EXHAUSTED: quota exceeded"
	want := []metav1.Condition{
		{Type: "Ready", Status: "False", Reason: "CreateFailure", Message: msg, ObservedGeneration: 1},
		// A failure the controller retries: it is still at work.
		{Type: "Reconciling", Status: "True", Reason: "CreateFailure", Message: msg, ObservedGeneration: 1},
	}
	if diff := cmp.Diff(want, ds.Status.Conditions, ignoreTime); diff != "" {
		t.Errorf("conditions after a failed create: -want, +got:\n%s", diff)
	}

	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.NoError(t, env.Client.Get(ctx, req.NamespacedName, ds))
	checkStatuses(t, "after the retry", ds, map[string]metav1.ConditionStatus{"Ready": "True", "Reconciling": ""})
}

// TestRefusedSpecStalls: a spec the cloud refuses (400) is Stalled, with
// Ready=False, and the reconcile error is terminal (not retried until the
// spec changes); fixing the spec clears Stalled.
func TestRefusedSpecStalls(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, cloud := newCloud(t)
	r := &controller.Reconciler{Client: env.Client, Cloud: cloud, Status: directstatus.NewWriter(env.Client), SyncPeriod: syncPeriod}

	ds := newDataset("refused")
	ds.Spec.DefaultTableExpirationMs = ptr.To(int64(1000))
	require.NoError(t, env.Client.Create(ctx, ds))
	t.Cleanup(func() { removeFinalizerAndDelete(env, ds) })
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ds)}

	_, err := r.Reconcile(ctx, req)
	if !errors.Is(err, reconcile.TerminalError(nil)) {
		t.Errorf("a refused spec is a terminal error: err = %v, want %v", err, reconcile.TerminalError(nil))
	}
	require.NoError(t, env.Client.Get(ctx, req.NamespacedName, ds))
	checkStatuses(t, "with a refused spec", ds, map[string]metav1.ConditionStatus{"Stalled": "True", "Ready": "False", "Reconciling": ""})

	ds.Spec.DefaultTableExpirationMs = nil
	require.NoError(t, env.Client.Update(ctx, ds))
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.NoError(t, env.Client.Get(ctx, req.NamespacedName, ds))
	checkStatuses(t, "after the fix", ds, map[string]metav1.ConditionStatus{"Ready": "True", "Stalled": ""})
}

// checkStatuses compares the status of each condition type in want with
// ds's; "" stands for a condition that is not there.
func checkStatuses(t *testing.T, when string, ds *v1alpha1.Dataset, want map[string]metav1.ConditionStatus) {
	t.Helper()
	got := map[string]metav1.ConditionStatus{}
	for typ := range want {
		got[typ] = ""
		if c := conditions.Get(ds.Status.Conditions, typ); c != nil {
			got[typ] = c.Status
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("condition statuses %s (-want, +got):\n%s", when, diff)
	}
}

func removeFinalizerAndDelete(env *testenv.Env, ds *v1alpha1.Dataset) {
	ctx := context.Background()
	_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d := &v1alpha1.Dataset{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ds), d); err != nil {
			return client.IgnoreNotFound(err)
		}
		d.Finalizers = nil
		return env.Client.Update(ctx, d)
	})
	_ = env.Client.Delete(ctx, ds)
}

// checkGolden compares status, as YAML with every lastTransitionTime
// replaced by a placeholder, with the golden file; -update rewrites it.
func checkGolden(t *testing.T, file string, status v1alpha1.DatasetStatus) {
	t.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&status)
	require.NoError(t, err)
	conds, _, _ := unstructured.NestedSlice(content, "conditions")
	for _, c := range conds {
		c.(map[string]any)["lastTransitionTime"] = "<normalised>"
	}
	require.NoError(t, unstructured.SetNestedSlice(content, conds, "conditions"))
	var buf bytes.Buffer
	yaml := json.NewSerializerWithOptions(json.DefaultMetaFactory, nil, nil, json.SerializerOptions{Yaml: true})
	require.NoError(t, yaml.Encode(&unstructured.Unstructured{Object: map[string]any{"status": content}}, &buf))

	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "run go test -update to write the golden file")
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("status (%s): -want, +got:\n%s", file, diff)
	}
}
