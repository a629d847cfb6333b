package nop

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
	testapicrds "github.com/ctrlkit/ctrlkit/internal/testenv/testapi/crds"
	testapi "github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/nop/crds"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func TestMain(m *testing.M) {
	// The managers' logs are noise here; failures are reported by the tests.
	ctrllog.SetLogger(logr.Discard())
	testenv.Main(m,
		testenv.CRDs(crds.FS, testapicrds.FS),
		testenv.WithScheme(v1alpha1.AddToScheme, testapi.AddToScheme))
}

// testLabel marks the objects of one test; each test's manager sees only
// its own, so tests do not reconcile each other's leftovers.
const testLabel = "nop.ctrlkit.dev/test"

// A requestCounter counts the HTTP requests a rest.Config makes.
type requestCounter struct {
	reads, writes atomic.Int64
	mu            sync.Mutex
	byVerb        map[string]int64 // e.g. "PUT nopresources/status"
	statusWrites  []time.Duration  // latency of each status write
}

func (c *requestCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			c.count(req)
			start := time.Now()
			resp, err := rt.RoundTrip(req)
			if req.Method == http.MethodPut && strings.HasSuffix(req.URL.Path, "/status") {
				c.mu.Lock()
				c.statusWrites = append(c.statusWrites, time.Since(start))
				c.mu.Unlock()
			}
			return resp, err
		})
	})
	return cfg
}

func (c *requestCounter) count(req *http.Request) {
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		c.reads.Add(1)
	default:
		c.writes.Add(1)
	}
	// Key by method and resource: "PUT nopresources/status", "GET secrets".
	key := "other"
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	for i, p := range parts {
		if strings.HasSuffix(p, "nopresources") || p == "secrets" || p == "events" || p == "leases" || p == "widgets" {
			key = p
			if parts[len(parts)-1] == "status" && i < len(parts)-1 {
				key += "/status"
			}
			break
		}
	}
	if req.URL.Query().Get("watch") == "true" {
		key += " (watch)"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byVerb == nil {
		c.byVerb = map[string]int64{}
	}
	c.byVerb[req.Method+" "+key]++
}

func (c *requestCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads.Store(0)
	c.writes.Store(0)
	c.byVerb = nil
	c.statusWrites = nil
}

func (c *requestCounter) get(verbKey string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byVerb[verbKey]
}

func (c *requestCounter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.byVerb)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// startManager runs the nop controllers for the objects labelled test until
// the returned stop is called (or the test ends). It returns a counter of the
// manager's API requests.
func startManager(t testing.TB, test string, o Options, extra ...func(manager.Manager) error) (stop func(), requests *requestCounter) {
	return startManagerWith(t, test, o, nil, extra...)
}

// startManagerWith is startManager with a tweak of each kind's reconciler,
// which it may also wrap.
func startManagerWith(t testing.TB, test string, o Options, tweak func(*reconciler) reconcile.Reconciler, extra ...func(manager.Manager) error) (stop func(), requests *requestCounter) {
	t.Helper()
	return startManagerOn(t, testenv.Get(t), test, o, tweak, extra...)
}

// startManagerOn is startManagerWith on the control plane of env.
func startManagerOn(t testing.TB, env *testenv.Env, test string, o Options, tweak func(*reconciler) reconcile.Reconciler, extra ...func(manager.Manager) error) (stop func(), requests *requestCounter) {
	t.Helper()
	requests = &requestCounter{}
	cfg := requests.wrap(env.Config)
	cfg.QPS = -1 // as controller-runtime's config.GetConfig: no client-side rate limit
	mo := env.ManagerOptions()
	mo.Cache = cache.Options{DefaultLabelSelector: labels.SelectorFromSet(labels.Set{testLabel: test})}
	mgr, err := ctrl.NewManager(cfg, mo)
	require.NoError(t, err)
	if tweak == nil {
		require.NoError(t, Setup(mgr, o))
	} else {
		for _, k := range kinds {
			r := newReconciler(mgr, k, o)
			require.NoError(t, setup(mgr, r, tweak(r)))
		}
	}
	for _, add := range extra {
		require.NoError(t, add(mgr))
	}
	stop = testenv.StartManager(t, mgr)
	return stop, requests
}

// cleanup deletes objs when the test ends, removing their finalizers so that
// they go whether or not a controller still runs.
func cleanup(t testing.TB, c client.Client, objs ...client.Object) {
	t.Cleanup(func() {
		ctx := context.Background()
		for _, o := range objs {
			_ = c.Delete(ctx, o)
			_ = c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
		}
	})
}
