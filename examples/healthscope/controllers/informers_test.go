package controllers_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/demo"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// watchCounter holds the paths of the watches a rest.Config holds open.
type watchCounter struct {
	mu      sync.Mutex
	watches map[string]int
}

func (c *watchCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err != nil || req.URL.Query().Get("watch") != "true" {
				return resp, err
			}
			path := req.URL.Path
			c.mu.Lock()
			if c.watches == nil {
				c.watches = map[string]int{}
			}
			c.watches[path]++
			c.mu.Unlock()
			resp.Body = &closeNotifier{ReadCloser: resp.Body, closed: func() {
				c.mu.Lock()
				if c.watches[path]--; c.watches[path] <= 0 {
					delete(c.watches, path)
				}
				c.mu.Unlock()
			}}
			return resp, nil
		})
	})
	return cfg
}

// open returns the paths of the open watches, but those of the example's
// own kinds, sorted.
func (c *watchCounter) open() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for p := range c.watches {
		if !strings.Contains(p, v1alpha1.GroupVersion.Group) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type closeNotifier struct {
	io.ReadCloser
	once   sync.Once
	closed func()
}

func (b *closeNotifier) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.closed)
	return err
}

// TestTenantChosenInformers: a HealthScope names workloads of 16 kinds,
// namespaced and cluster-scoped, Secrets and CRDs among them. The
// controller watches only the kinds the operator allows (the default
// WatchKinds), and once the scope is deleted those watches stop within
// InformerIdle and a few seconds.
func TestTenantChosenInformers(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "informers")
	require.NoError(t, demo.ApplyDefinitions(ctx, env.Client))

	watches := &watchCounter{}
	// Scopes of other tests, in namespaces the API server never finishes
	// deleting, hold these kinds too: this manager sees only its own.
	mo := env.ManagerOptions()
	mo.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}}
	mgr, err := manager.New(watches.wrap(env.Config), mo)
	require.NoError(t, err)
	const idle = 2 * time.Second
	require.NoError(t, controllers.Setup(mgr, controllers.Options{InformerIdle: idle}))
	testenv.StartManager(t, mgr)

	kinds := []struct{ apiVersion, kind string }{
		{"v1", "Pod"}, {"v1", "Event"}, {"v1", "Node"}, {"v1", "ConfigMap"}, {"v1", "Secret"},
		{"v1", "Service"}, {"v1", "ServiceAccount"}, {"v1", "Namespace"},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition"}, {"rbac.authorization.k8s.io/v1", "ClusterRole"},
		{"batch/v1", "Job"}, {"coordination.k8s.io/v1", "Lease"},
		{"apps/v1", "Deployment"}, {"apps/v1", "StatefulSet"}, {"apps/v1", "DaemonSet"}, {"apps/v1", "ReplicaSet"},
	}
	var refs []v1alpha1.WorkloadReference
	for _, k := range kinds {
		refs = append(refs, v1alpha1.WorkloadReference{APIVersion: k.apiVersion, Kind: k.kind, Name: "w"})
	}
	hs := &v1alpha1.HealthScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hs"}, Spec: v1alpha1.HealthScopeSpec{WorkloadRefs: refs}}
	require.NoError(t, env.Client.Create(ctx, hs))

	allowed := []string{"/apis/apps/v1/daemonsets", "/apis/apps/v1/deployments", "/apis/apps/v1/replicasets", "/apis/apps/v1/statefulsets"}
	testenv.Eventually(t, time.Minute, "watches of the allowed kinds", func() error {
		if got := healthScope(t, env, ns, "hs"); len(got.Status.HealthConditions) != len(refs) {
			return fmt.Errorf("%d health conditions", len(got.Status.HealthConditions))
		}
		if got := watches.open(); !slices.Equal(got, allowed) {
			return fmt.Errorf("watches %q", got)
		}
		return nil
	})
	// Any other watch would have started before the status was written;
	// let a few more reconciles pass.
	time.Sleep(time.Second)
	if got := watches.open(); !slices.Equal(got, allowed) {
		t.Errorf("watches of a scope naming %d kinds: want only the allowed %q, got %q", len(kinds), allowed, got)
	}

	require.NoError(t, env.Client.Delete(ctx, hs))
	deleted := time.Now()
	// The deletion reaches the controller in a moment; each informer
	// stops InformerIdle after that, give or take a second.
	const bound = idle + 10*time.Second
	testenv.Eventually(t, bound, "no watch of the scope's kinds", func() error {
		if got := watches.open(); len(got) != 0 {
			return fmt.Errorf("watches %q", got)
		}
		return nil
	})
	t.Logf("the scope's watches stopped %s after its deletion (InformerIdle %s)", time.Since(deleted).Round(time.Millisecond), idle)
}
