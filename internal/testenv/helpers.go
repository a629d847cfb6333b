package testenv

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
	"github.com/go-logr/logr/funcr"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// ManagerOptions are options for a test's manager on e: e.Scheme, no
// metrics server, no probes, and controller names that may repeat within a
// test binary (several tests, or go test -count=2, register the same
// controller). A test sets more fields on the result.
func (e *Env) ManagerOptions() manager.Options {
	return manager.Options{
		Scheme:                 e.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	}
}

// StartManager starts mgr, waits until its caches have synced, and stops it
// when t ends, waiting for it to return. The returned stop does the same
// earlier; later calls do nothing. A manager that cannot start, or stops
// with an error, fails t.
func StartManager(t testing.TB, mgr manager.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var startErr error
	go func() { startErr = mgr.Start(ctx); close(done) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
			if startErr != nil {
				t.Errorf("testenv: manager: %v", startErr)
			}
		})
	}
	t.Cleanup(stop)

	syncCtx, cancelSync := context.WithTimeout(ctx, time.Minute)
	defer cancelSync()
	synced := make(chan bool, 1)
	go func() { synced <- mgr.GetCache().WaitForCacheSync(syncCtx) }()
	select {
	case ok := <-synced:
		if !ok {
			stop()
			t.Fatalf("testenv: the manager's caches did not sync within a minute")
		}
	case <-done:
		stop() // reports the manager's error
		t.Fatalf("testenv: the manager stopped before its caches synced")
	}
	return stop
}

// Namespace creates a namespace named prefix, a dash and a random suffix,
// so that a test can run twice against one API server (go test -count=2),
// and returns its name. envtest runs no namespace controller, so the
// namespace is left in place.
func (e *Env) Namespace(t testing.TB, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Client.Create(ctx, ns); err != nil {
		t.Fatalf("testenv: cannot create a namespace: %v", err)
	}
	return ns.Name
}

// ApplyStrict creates, or replaces, each object of a YAML stream (documents
// separated by "\n---\n") with strict field validation, kubectl's default,
// so that a field the CRD does not know fails the test instead of being
// pruned. Namespaced objects go to ns. The objects are deleted when the
// test ends. It returns them as the API server stored them.
func (e *Env) ApplyStrict(t testing.TB, ns, manifests string) []*unstructured.Unstructured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(manifests, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("testenv: cannot decode a manifest: %v", err)
		}
		namespaced, err := e.Client.IsObjectNamespaced(u)
		if err != nil {
			t.Fatalf("testenv: %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		if namespaced {
			u.SetNamespace(ns)
		}
		old := &unstructured.Unstructured{}
		old.SetGroupVersionKind(u.GroupVersionKind())
		switch err := e.Client.Get(ctx, client.ObjectKeyFromObject(u), old); {
		case apierrors.IsNotFound(err):
			err = e.Client.Create(ctx, u, client.FieldValidation("Strict"))
			if err != nil {
				t.Fatalf("testenv: create %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		case err == nil:
			u.SetResourceVersion(old.GetResourceVersion())
			if err := e.Client.Update(ctx, u, client.FieldValidation("Strict")); err != nil {
				t.Fatalf("testenv: update %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		default:
			t.Fatalf("testenv: get %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		t.Cleanup(func() { _ = e.Client.Delete(context.Background(), u) })
		out = append(out, u)
	}
	return out
}

// Eventually calls check until it returns nil, and fails t when within
// passes first, naming what it waited for and quoting check's last error, so
// that a failure says what was last seen. It waits 10 ms between the first
// calls and up to 100 ms later, and calls check once more at the deadline.
// check runs on the calling goroutine, so it may fail t itself.
func Eventually(t testing.TB, within time.Duration, what string, check func() error) {
	t.Helper()
	if err := poll(within, check); err != nil {
		t.Fatalf("%s: not within %s: %v", what, within, err)
	}
}

// poll calls check until it returns nil or within passes, and returns
// check's last error.
func poll(within time.Duration, check func() error) error {
	deadline := time.Now().Add(within)
	wait := 10 * time.Millisecond
	for {
		err := check()
		if err == nil {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return err
		}
		time.Sleep(min(wait, left))
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// Logs is a logger for a test that keeps what it logs, up to verbosity, so
// that the test can check what a controller logged (that no secret value
// reached the log, say).
type Logs struct {
	logr.Logger
	mu  sync.Mutex
	buf strings.Builder
}

// NewLogs returns a Logs that keeps the lines logged at verbosity or below.
func NewLogs(verbosity int) *Logs {
	l := &Logs{}
	l.Logger = funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		fmt.Fprintln(&l.buf, prefix, args)
	}, funcr.Options{Verbosity: verbosity})
	return l
}

// String returns what was logged so far, a line per entry.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// CountRequests returns a copy of cfg whose clients count, in the returned
// counter, the requests that match reports true for, so that a test can
// check what a controller asked the API server.
func CountRequests(cfg *rest.Config, match func(*http.Request) bool) (*rest.Config, *atomic.Int64) {
	var n atomic.Int64
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if match(r) {
				n.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	return cfg, &n
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
