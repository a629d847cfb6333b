package extref

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	if os.Getenv("EXTREF_TEST_LOG") != "" {
		log.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1}))
	} else {
		log.SetLogger(logr.Discard())
	}
	testenv.Main(m, testenv.CRDDirs("internal/testapi/crds"), testenv.WithScheme(testapi.AddToScheme))
}

// testLabel marks the referencers of one test; each test's manager sees
// only its own.
const testLabel = "extref.ctrlkit.dev/test"

// requestCounter counts the write requests a rest.Config makes to
// referencers (widgets, clusterwidgets, their status), and the watches it
// holds open.
type requestCounter struct {
	writes  atomic.Int64
	mu      sync.Mutex
	log     []string
	at      []time.Time    // when each write of log was made
	watches map[string]int // open watch requests, by path
}

func (c *requestCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if req.Method != http.MethodGet && strings.Contains(req.URL.Path, "widgets") {
				c.writes.Add(1)
				c.mu.Lock()
				c.log = append(c.log, req.Method+" "+req.URL.Path)
				c.at = append(c.at, time.Now())
				c.mu.Unlock()
			}
			resp, err := rt.RoundTrip(req)
			if err == nil && req.URL.Query().Get("watch") == "true" {
				path := req.URL.Path
				c.mu.Lock()
				if c.watches == nil {
					c.watches = map[string]int{}
				}
				c.watches[path]++
				c.mu.Unlock()
				resp.Body = &watchBody{ReadCloser: resp.Body, closed: func() {
					c.mu.Lock()
					if c.watches[path]--; c.watches[path] <= 0 {
						delete(c.watches, path)
					}
					c.mu.Unlock()
				}}
			}
			return resp, err
		})
	})
	return cfg
}

// openWatches returns the paths of the watches held open, sorted.
func (c *requestCounter) openWatches() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.watches))
	for p := range c.watches {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// watchBody calls closed once when the body of a watch is closed.
type watchBody struct {
	io.ReadCloser
	once   sync.Once
	closed func()
}

func (b *watchBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.closed)
	return err
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// reconcileCounter counts finished reconciles, and those that returned an
// error (which the controller retries with backoff).
type reconcileCounter struct{ n, errors atomic.Int64 }

func (c *reconcileCounter) wrap(r reconcile.Reconciler) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		defer c.n.Add(1)
		res, err := r.Reconcile(ctx, req)
		if err != nil {
			c.errors.Add(1)
		}
		return res, err
	})
}

// harness is a manager running the reconciler of SetupReconciler, counting
// its reconciles, for one kind, seeing only the referencers labelled with
// its test's name.
type harness struct {
	gvk        schema.GroupVersionKind
	env        *testenv.Env
	label      string
	writes     *requestCounter
	reconciles *reconcileCounter
}

var harnesses atomic.Int64

func start(t *testing.T, gvk schema.GroupVersionKind, o Options, logger ...logr.Logger) *harness {
	t.Helper()
	env := testenv.Get(t)
	label := fmt.Sprintf("%s-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), harnesses.Add(1))
	h := &harness{gvk: gvk, env: env, label: label, writes: &requestCounter{}, reconciles: &reconcileCounter{}}
	selector := labels.SelectorFromSet(labels.Set{testLabel: h.label})
	referencers := &unstructured.Unstructured{}
	referencers.SetGroupVersionKind(gvk)
	mo := env.ManagerOptions()
	mo.Cache = cache.Options{SyncPeriod: ptr.To(10 * time.Hour), ByObject: map[client.Object]cache.ByObject{referencers: {Label: selector}}}
	mo.Logger = append(logger, log.Log)[0]
	mgr, err := manager.New(h.writes.wrap(env.Config), mo)
	require.NoError(t, err)
	o.Name = "extref-" + h.label
	r, err := newReconciler(mgr, gvk, o)
	require.NoError(t, err)
	require.NoError(t, r.controller(mgr).Complete(h.reconciles.wrap(r)))
	testenv.StartManager(t, mgr)
	return h
}

func (h *harness) create(t testing.TB, objs ...*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	for _, o := range objs {
		if o.GroupVersionKind() == h.gvk {
			lbls := o.GetLabels()
			if lbls == nil {
				lbls = map[string]string{}
			}
			lbls[testLabel] = h.label
			o.SetLabels(lbls)
		}
		if o.GetNamespace() != "" {
			ns := &unstructured.Unstructured{}
			ns.SetAPIVersion("v1")
			ns.SetKind("Namespace")
			ns.SetName(o.GetNamespace())
			if err := h.env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatalf("cannot create namespace %s: %v", ns.GetName(), err)
			}
		}
		require.NoError(t, h.env.Client.Create(ctx, o), "create %s %s", o.GetKind(), o.GetName())
		obj := o.DeepCopy()
		t.Cleanup(func() { _ = h.env.Client.Delete(context.Background(), obj) })
	}
}

// get reads an object from the API server.
func (h *harness) get(t *testing.T, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(o.GroupVersionKind())
	require.NoError(t, h.env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), got))
	return got
}

// resolved waits for the referencer's ReferencesResolved condition to have
// the given status and reason, for its current generation.
func (h *harness) resolved(t *testing.T, o *unstructured.Unstructured, status metav1.ConditionStatus, reason string) *unstructured.Unstructured {
	t.Helper()
	var got *unstructured.Unstructured
	testenv.Eventually(t, 30*time.Second, fmt.Sprintf("%s %s: %s=%s (%s)", o.GetKind(), o.GetName(), TypeReferencesResolved, status, reason), func() error {
		got = h.get(t, o)
		conds, err := conditions.FromUnstructured(got)
		if err != nil {
			return err
		}
		c := conditions.Get(conds, TypeReferencesResolved)
		switch {
		case c == nil:
			return errors.New("no condition yet")
		case c.Status != status || c.Reason != reason || c.ObservedGeneration != got.GetGeneration():
			return fmt.Errorf("last seen %s/%s for generation %d (object generation %d): %s", c.Status, c.Reason, c.ObservedGeneration, got.GetGeneration(), c.Message)
		}
		return nil
	})
	return got
}

func condition(t *testing.T, u *unstructured.Unstructured) metav1.Condition {
	t.Helper()
	conds, err := conditions.FromUnstructured(u)
	require.NoError(t, err)
	c := conditions.Get(conds, TypeReferencesResolved)
	require.NotNil(t, c)
	return *c
}

func str(t *testing.T, u *unstructured.Unstructured, path ...string) string {
	t.Helper()
	s, _, err := unstructured.NestedString(u.Object, path...)
	require.NoError(t, err)
	return s
}

// fromYAML decodes one object.
func fromYAML(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
	return u
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
