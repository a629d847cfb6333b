package core_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	"github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/results"
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDDirs("../crds"), testenv.WithScheme(v1alpha1.AddToScheme))
}

const (
	imageGood    = "ghcr.io/acme/shop:v1"
	imageMissing = "ghcr.io/acme/shop:v2-typo"
)

// errCatalog is the platform's failure in the internal-error scenario.
var errCatalog = errors.New("dial tcp 10.0.0.7:5432: connect: connection refused")

// platform is shared by every test's manager, so that a manager that
// reconciles an earlier test's claims sees what that test saw.
var platform = function.NewStaticPlatform().
	AddDatabase("orders", function.Database{Host: "orders.db.internal", SecretName: "orders-db"}).
	AddDatabase("payroll", function.Database{Host: "payroll.db.internal", SecretName: "payroll-db"}, "finance").
	FailDatabase("ledger", errCatalog).
	AddImage(imageGood)

func options() core.Options {
	return core.Options{Pipeline: core.Pipeline{{Name: "app", Function: &function.Function{Platform: platform}}}}
}

// startManager runs the claim and XR controllers until the test ends.
func startManager(t *testing.T, env *testenv.Env) {
	t.Helper()
	mgr, err := manager.New(env.Config, env.ManagerOptions())
	require.NoError(t, err)
	require.NoError(t, core.Setup(mgr, options()))
	testenv.StartManager(t, mgr)
}

func createClaim(t *testing.T, env *testenv.Env, namespace, name, database, image string) *v1alpha1.App {
	t.Helper()
	app := &v1alpha1.App{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       v1alpha1.AppSpec{AppParameters: v1alpha1.AppParameters{Database: database, Image: image}},
	}
	require.NoError(t, env.Client.Create(context.Background(), app))
	return app
}

// claimStatus returns the claim's conditions, split into those the
// function's results set (in order) and those of the control plane (Ready,
// Synced, Reconciling, Stalled).
func claimStatus(ctx context.Context, env *testenv.Env, namespace, name string) (custom []metav1.Condition, reserved map[string]metav1.Condition, err error) {
	app := &v1alpha1.App{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, app); err != nil {
		return nil, nil, err
	}
	reserved = map[string]metav1.Condition{}
	for _, c := range app.Status.Conditions {
		if conditions.IsReserved(c.Type) || c.Type == conditions.TypeReconciling || c.Type == conditions.TypeStalled {
			reserved[c.Type] = c
			continue
		}
		custom = append(custom, c)
	}
	return custom, reserved, nil
}

// seed compares conditions as the seed writes them: type, status, reason
// and message, in order.
var seed = cmp.Options{
	cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime", "ObservedGeneration"),
	cmpopts.EquateEmpty(),
}

// fatalMessage is the message of Synced and of the XR's event for a fatal
// result of the "app" step, as Crossplane words it.
func fatalMessage(msg string) string {
	return `cannot compose resources: pipeline step "app" returned a fatal result: ` + msg
}

func cond(typ string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg}
}

// waitForClaim waits until the claim shows the custom conditions want and
// Ready and Synced as wantReserved (type, status, reason; message when set).
func waitForClaim(t *testing.T, env *testenv.Env, namespace, name string, want []metav1.Condition, wantReserved map[string]metav1.Condition) {
	t.Helper()
	testenv.Eventually(t, time.Minute, fmt.Sprintf("claim %s/%s status.conditions", namespace, name), func() error {
		custom, reserved, err := claimStatus(context.Background(), env, namespace, name)
		if err != nil {
			return err
		}
		diff := cmp.Diff(want, custom, seed)
		for typ, w := range wantReserved {
			g := reserved[typ]
			if w.Message == "" {
				g.Message = ""
			}
			if d := cmp.Diff(w, g, seed); d != "" {
				diff += fmt.Sprintf("\n%s: -want, +got:\n%s", typ, d)
			}
		}
		if diff != "" {
			return fmt.Errorf("-want, +got:\n%s\nall: %+v", diff, append(custom, values(reserved)...))
		}
		return nil
	})
}

func values(m map[string]metav1.Condition) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range m {
		out = append(out, c)
	}
	return out
}

// getXR returns the XApp of claim namespace/name. The claim records the
// XApp's name before the XApp is created, so it waits for the XApp too.
func getXR(t *testing.T, env *testenv.Env, namespace, name string) *v1alpha1.XApp {
	t.Helper()
	xr := &v1alpha1.XApp{}
	key := client.ObjectKey{Name: compositeName(t, env, namespace, name)}
	testenv.Eventually(t, 30*time.Second, "XApp "+key.Name+" created", func() error {
		return env.Client.Get(context.Background(), key, xr)
	})
	return xr
}

// compositeName is the name of the XApp of claim namespace/name, once the
// claim reconciler has recorded it.
func compositeName(t *testing.T, env *testenv.Env, namespace, name string) string {
	t.Helper()
	var xr string
	testenv.Eventually(t, time.Minute, "the claim to record its XApp's name", func() error {
		app := &v1alpha1.App{}
		if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, app); err != nil {
			return err
		}
		if xr = core.CompositeName(app); xr == "" {
			return fmt.Errorf("no status.compositeName in %+v", app.Status)
		}
		return nil
	})
	return xr
}

// TestImageNotFound is the seed's first scenario: the database is found and
// may be used, the image is not found.
func TestImageNotFound(t *testing.T) {
	env := testenv.Get(t)
	startManager(t, env)
	ns := env.Namespace(t, "image-not-found")
	createClaim(t, env, ns, "shop", "orders", imageMissing)

	waitForClaim(t, env, ns, "shop", []metav1.Condition{
		cond("DatabaseReady", metav1.ConditionTrue, "Available", ""),
		cond("ImageReady", metav1.ConditionFalse, "NotFound", "The image provided does not exist or you are not authorized to use it."),
	}, map[string]metav1.Condition{
		"Synced": cond("Synced", metav1.ConditionTrue, "ReconcileSuccess", ""),
		"Ready":  cond("Ready", metav1.ConditionFalse, "NotFound", "ImageReady: The image provided does not exist or you are not authorized to use it."),
	})

	// The XR says the run failed; nothing was composed.
	xr := getXR(t, env, ns, "shop")
	synced := conditions.Get(xr.Status.Conditions, "Synced")
	require.NotNil(t, synced, "XR conditions: %+v", xr.Status.Conditions)
	if diff := cmp.Diff(cond("Synced", metav1.ConditionFalse, "ReconcileError", fatalMessage(function.MessageImageNotFound)), *synced, seed); diff != "" {
		t.Errorf("XR Synced: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"DatabaseReady", "ImageReady"}, xr.Status.ClaimConditions); diff != "" {
		t.Errorf("XR status.claimConditions: -want, +got:\n%s", diff)
	}
	deployments := &unstructured.UnstructuredList{}
	deployments.SetGroupVersionKind(core.DeploymentKind.GroupVersion().WithKind("DeploymentList"))
	require.NoError(t, env.Client.List(t.Context(), deployments, client.InNamespace(ns)))
	if len(deployments.Items) != 0 {
		t.Errorf("a fatal run composed %d deployment(s)", len(deployments.Items))
	}
}

// TestUnauthorized: the database exists but this namespace may not use it.
func TestUnauthorized(t *testing.T) {
	env := testenv.Get(t)
	startManager(t, env)
	ns := env.Namespace(t, "unauthorized")
	createClaim(t, env, ns, "payroll-ui", "payroll", imageGood)

	waitForClaim(t, env, ns, "payroll-ui", []metav1.Condition{
		cond("DatabaseReady", metav1.ConditionFalse, "Unauthorized", "You are unauthorized to access this resource."),
	}, map[string]metav1.Condition{
		"Ready": cond("Ready", metav1.ConditionFalse, "Unauthorized", ""),
	})
}

// TestProgressingThenSuccess is the seed's second and third scenarios: the
// deployment is created and not yet available, then available. Once settled,
// a reconcile of the XR and of the claim writes nothing.
func TestProgressingThenSuccess(t *testing.T) {
	env := testenv.Get(t)
	startManager(t, env)
	ctx := t.Context()
	ns := env.Namespace(t, "progressing")
	createClaim(t, env, ns, "shop", "orders", imageGood)

	waitForClaim(t, env, ns, "shop", []metav1.Condition{
		cond("DatabaseReady", metav1.ConditionTrue, "Available", ""),
		cond("ImageReady", metav1.ConditionTrue, "Available", ""),
		cond("AppReady", metav1.ConditionFalse, "Creating", "Waiting for the deployment to be available."),
	}, map[string]metav1.Condition{
		"Synced": cond("Synced", metav1.ConditionTrue, "ReconcileSuccess", ""),
		"Ready":  cond("Ready", metav1.ConditionFalse, "Creating", "AppReady: Waiting for the deployment to be available."),
	})

	// The deployment is composed as the function wants it.
	d := &unstructured.Unstructured{}
	d.SetGroupVersionKind(core.DeploymentKind)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, d))
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	require.Len(t, containers, 1)
	if got := containers[0].(map[string]any)["image"]; got != imageGood {
		t.Errorf("deployment image: want %q, got %q", imageGood, got)
	}
	xr := getXR(t, env, ns, "shop")
	if !metav1.IsControlledBy(d, xr) {
		t.Errorf("deployment owner references %+v: want the XR %s as controller", d.GetOwnerReferences(), xr.Name)
	}

	// The deployment becomes available (the test plays kube-controller-manager).
	require.NoError(t, unstructured.SetNestedSlice(d.Object, []any{map[string]any{
		"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "ok",
		"lastUpdateTime": "2026-01-02T03:04:05Z", "lastTransitionTime": "2026-01-02T03:04:05Z",
	}}, "status", "conditions"))
	require.NoError(t, env.Client.Status().Update(ctx, d))

	waitForClaim(t, env, ns, "shop", []metav1.Condition{
		cond("DatabaseReady", metav1.ConditionTrue, "Available", ""),
		cond("ImageReady", metav1.ConditionTrue, "Available", ""),
		cond("AppReady", metav1.ConditionTrue, "Available", ""),
	}, map[string]metav1.Condition{
		"Synced": cond("Synced", metav1.ConditionTrue, "ReconcileSuccess", ""),
		"Ready":  cond("Ready", metav1.ConditionTrue, "Available", ""),
	})

	// Settled: reconciling the XR and the claim again makes no write at all
	// (no status, no composed resource, no event).
	claimKey := client.ObjectKey{Namespace: ns, Name: "shop"}
	xrKey := client.ObjectKey{Name: compositeName(t, env, ns, "shop")}
	before := resourceVersions(t, env, claimKey, xrKey, d)

	counter := &requestCounter{}
	c, err := client.New(counter.wrap(env.Config), client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	events := &eventCounter{}
	xrs := core.NewCompositeReconciler(c, events, options())
	claims := core.NewClaimReconciler(c, options())
	for i := range 3 {
		_, err := xrs.Reconcile(ctx, reconcile.Request{NamespacedName: xrKey})
		require.NoError(t, err, "XR reconcile %d", i)
		_, err = claims.Reconcile(ctx, reconcile.Request{NamespacedName: claimKey})
		require.NoError(t, err, "claim reconcile %d", i)
	}
	if n := counter.writes.Load(); n != 0 {
		t.Errorf("reconciles of a settled XR and claim made %d write(s): %v", n, counter.writeList())
	}
	if n := events.n.Load(); n != 0 {
		t.Errorf("reconciles of a settled XR and claim recorded %d event(s)", n)
	}
	if diff := cmp.Diff(before, resourceVersions(t, env, claimKey, xrKey, d)); diff != "" {
		t.Errorf("resourceVersions after settled reconciles: -want, +got:\n%s", diff)
	}
}

// TestInternalError: the platform fails. The XR carries the detailed error,
// the claim a friendly message and a Ready that is not "Waiting".
func TestInternalError(t *testing.T) {
	env := testenv.Get(t)
	startManager(t, env)
	ctx := t.Context()
	ns := env.Namespace(t, "internal-error")
	createClaim(t, env, ns, "ledger-ui", "ledger", imageGood)

	waitForClaim(t, env, ns, "ledger-ui", []metav1.Condition{
		cond("DatabaseReady", metav1.ConditionFalse, "InternalError", "Internal error, the platform team has been alerted."),
	}, map[string]metav1.Condition{
		"Synced": cond("Synced", metav1.ConditionTrue, "ReconcileSuccess", ""),
		"Ready":  cond("Ready", metav1.ConditionFalse, "InternalError", "DatabaseReady: Internal error, the platform team has been alerted."),
	})

	xr := getXR(t, env, ns, "ledger-ui")
	synced := conditions.Get(xr.Status.Conditions, "Synced")
	require.NotNil(t, synced, "XR conditions: %+v", xr.Status.Conditions)
	wantSynced := cond("Synced", metav1.ConditionFalse, "ReconcileError", fatalMessage(`cannot look up database "ledger": `+errCatalog.Error()))
	if diff := cmp.Diff(wantSynced, *synced, seed); diff != "" {
		t.Errorf("XR Synced: -want, +got:\n%s", diff)
	}

	// The event: the detail on the XR, worded as Crossplane words it. The
	// claim shows only the friendly condition.
	testenv.Eventually(t, time.Minute, "events of the XR and the claim", func() error {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion("events.k8s.io/v1")
		list.SetKind("EventList")
		if err := env.Client.List(ctx, list); err != nil {
			return err
		}
		want := map[string]string{
			"XApp/" + xr.Name: fatalMessage(`cannot look up database "ledger": ` + errCatalog.Error()),
		}
		var seen []string
		for _, e := range list.Items {
			kind, _, _ := unstructured.NestedString(e.Object, "regarding", "kind")
			name, _, _ := unstructured.NestedString(e.Object, "regarding", "name")
			note, _, _ := unstructured.NestedString(e.Object, "note")
			typ, _, _ := unstructured.NestedString(e.Object, "type")
			reason, _, _ := unstructured.NestedString(e.Object, "reason")
			key := kind + "/" + name
			seen = append(seen, fmt.Sprintf("%s %s %s %q", key, typ, reason, note))
			if want[key] == note && typ == "Warning" && reason == "ComposeResources" {
				delete(want, key)
			}
		}
		if len(want) > 0 {
			return fmt.Errorf("missing Warning ComposeResources events %v; seen:\n%s", want, strings.Join(seen, "\n"))
		}
		return nil
	})
}

// TestClaimChangesImage: fixing the image of a claim that was stuck on Image
// Not Found moves it to Progressing; breaking it again is fatal and sets the
// conditions the failed run did not set to Unknown, as Crossplane does.
func TestClaimChangesImage(t *testing.T) {
	env := testenv.Get(t)
	startManager(t, env)
	ctx := t.Context()
	ns := env.Namespace(t, "change-image")
	app := createClaim(t, env, ns, "shop", "orders", imageMissing)
	waitForClaim(t, env, ns, "shop", []metav1.Condition{
		cond("DatabaseReady", metav1.ConditionTrue, "Available", ""),
		cond("ImageReady", metav1.ConditionFalse, "NotFound", function.MessageImageNotFound),
	}, nil)

	setImage := func(image string) {
		// The controllers write the claim meanwhile: retry on a conflict.
		require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(app), app); err != nil {
				return err
			}
			app.Spec.Image = image
			return env.Client.Update(ctx, app)
		}))
	}
	setImage(imageGood)
	waitForClaim(t, env, ns, "shop", []metav1.Condition{
		cond("DatabaseReady", metav1.ConditionTrue, "Available", ""),
		cond("ImageReady", metav1.ConditionTrue, "Available", ""),
		cond("AppReady", metav1.ConditionFalse, "Creating", function.MessageCreating),
	}, map[string]metav1.Condition{"Ready": cond("Ready", metav1.ConditionFalse, "Creating", "")})

	setImage(imageMissing)
	waitForClaim(t, env, ns, "shop", []metav1.Condition{
		cond("DatabaseReady", metav1.ConditionTrue, "Available", ""),
		cond("ImageReady", metav1.ConditionFalse, "NotFound", function.MessageImageNotFound),
		cond("AppReady", metav1.ConditionUnknown, results.ReasonFatalError, results.MessageFatalError),
	}, map[string]metav1.Condition{"Ready": cond("Ready", metav1.ConditionFalse, "NotFound", "")})

	// The claim's conditions describe its current generation.
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(app), app))
	for _, c := range app.Status.Conditions {
		if c.ObservedGeneration != app.Generation {
			t.Errorf("claim condition %s: observedGeneration %d, want %d", c.Type, c.ObservedGeneration, app.Generation)
		}
	}
}

// TestDeleteClaim: deleting a claim deletes its XR, then the claim goes.
func TestDeleteClaim(t *testing.T) {
	env := testenv.Get(t)
	startManager(t, env)
	ctx := t.Context()
	ns := env.Namespace(t, "delete-claim")
	app := createClaim(t, env, ns, "shop", "orders", imageGood)
	xrName := compositeName(t, env, ns, "shop")
	testenv.Eventually(t, time.Minute, "the XR", func() error {
		if err := env.Client.Get(ctx, client.ObjectKey{Name: xrName}, &v1alpha1.XApp{}); err != nil {
			return err
		}
		return nil
	})
	require.NoError(t, env.Client.Delete(ctx, app))
	testenv.Eventually(t, time.Minute, "the claim and its XR to be gone", func() error {
		var left []string
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(app), &v1alpha1.App{}); err == nil {
			left = append(left, "claim")
		}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: xrName}, &v1alpha1.XApp{}); err == nil {
			left = append(left, "XR")
		}
		if left != nil {
			return errors.New("still there: " + strings.Join(left, ", "))
		}
		return nil
	})
}

func resourceVersions(t *testing.T, env *testenv.Env, claim, xr client.ObjectKey, d *unstructured.Unstructured) map[string]string {
	t.Helper()
	ctx := context.Background()
	app, x := &v1alpha1.App{}, &v1alpha1.XApp{}
	require.NoError(t, env.Client.Get(ctx, claim, app))
	require.NoError(t, env.Client.Get(ctx, xr, x))
	dep := &unstructured.Unstructured{}
	dep.SetGroupVersionKind(core.DeploymentKind)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(d), dep))
	return map[string]string{"claim": app.ResourceVersion, "xr": x.ResourceVersion, "deployment": dep.GetResourceVersion()}
}

// requestCounter counts the HTTP writes a rest.Config makes.
type requestCounter struct {
	writes atomic.Int64
	mu     sync.Mutex
	list   []string
}

func (c *requestCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if req.Method != http.MethodGet && req.Method != http.MethodHead {
				c.writes.Add(1)
				c.mu.Lock()
				c.list = append(c.list, req.Method+" "+req.URL.Path)
				c.mu.Unlock()
			}
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

func (c *requestCounter) writeList() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.list...)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// eventCounter is an event recorder that counts.
type eventCounter struct{ n atomic.Int64 }

func (e *eventCounter) Eventf(_, _ runtime.Object, _, _, _, _ string, _ ...any) { e.n.Add(1) }

// TestCompositeCreateFailureReachesClaim: a claim whose XApp cannot be
// created (here the API server is made to refuse the create) shows the
// failure as Synced=False on the claim, and the reconcile returns the error
// for a retry with back-off.
func TestCompositeCreateFailureReachesClaim(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "create-fails")
	createClaim(t, env, ns, "shop", "orders", "nginx")
	claims := core.NewClaimReconciler(refuseCreate{env.Client}, options())
	_, err := claims.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "shop"}})
	if err == nil {
		t.Fatal("Reconcile: want the API server's refusal, got none")
	}
	_, reserved, err := claimStatus(ctx, env, ns, "shop")
	require.NoError(t, err)
	synced, ok := reserved["Synced"]
	if !ok || synced.Status != metav1.ConditionFalse || synced.Reason != "ReconcileError" || !strings.Contains(synced.Message, "cannot create XApp") {
		t.Errorf("Synced on the claim: %+v, want False, ReconcileError, naming the XApp it could not create", synced)
	}
}

// refuseCreate is a client whose creates the API server refuses.
type refuseCreate struct{ client.Client }

func (refuseCreate) Create(_ context.Context, obj client.Object, _ ...client.CreateOption) error {
	return kerrors.NewForbidden(v1alpha1.GroupVersion.WithResource("xapps").GroupResource(), obj.GetName(), errors.New("refused by the test"))
}

// TestCompositeNamesCannotCollide: claim team-db in namespace N and claim db
// in namespace N-team, whose XApps a name of namespace and claim would both
// call N-team-db, get one XApp each; a claim name of 253 characters still
// gives a valid XApp name; and the name is the one the claim records.
func TestCompositeNamesCannotCollide(t *testing.T) {
	env := testenv.Get(t)
	startManager(t, env)
	n := env.Namespace(t, "squat")
	nTeam := n + "-team"
	require.NoError(t, env.Client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nTeam}}))
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nTeam}})
	})
	long := strings.Repeat("a", 253)
	createClaim(t, env, n, "team-db", "orders", imageGood)
	createClaim(t, env, nTeam, "db", "orders", imageGood)
	createClaim(t, env, n, long, "orders", imageGood)

	seen := map[string]string{}
	for _, c := range []client.ObjectKey{{Namespace: n, Name: "team-db"}, {Namespace: nTeam, Name: "db"}, {Namespace: n, Name: long}} {
		name := compositeName(t, env, c.Namespace, c.Name)
		if other, ok := seen[name]; ok {
			t.Errorf("claims %s and %s share the XApp %s", other, c, name)
		}
		seen[name] = c.String()
		if len(name) > 253 || !strings.HasPrefix(name, c.Name[:min(len(c.Name), 200)]) {
			t.Errorf("XApp name of claim %s: %q, want the claim's name (cut to fit) and a suffix", c, name)
		}
		xr := getXR(t, env, c.Namespace, c.Name)
		if xr.Spec.ClaimRef == nil || xr.Spec.ClaimRef.Namespace != c.Namespace || xr.Spec.ClaimRef.Name != c.Name {
			t.Errorf("XApp %s serves %+v, want claim %s", name, xr.Spec.ClaimRef, c)
		}
	}
}
