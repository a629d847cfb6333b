package run

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestCacheSynced: /readyz's check fails while the caches have not synced
// (not started here), and passes once they have.
func TestCacheSynced(t *testing.T) {
	env := testenv.Get(t)
	c, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	defer cancel()
	if _, err := c.GetInformer(ctx, &corev1.ConfigMap{}, cache.BlockUntilSynced(false)); err != nil {
		t.Fatal(err)
	}
	check := CacheSynced(c)
	req := httptest.NewRequest("GET", "/readyz", nil)
	if err := check(req); err == nil {
		t.Error("ready before the caches started")
	}
	go func() { _ = c.Start(ctx) }()
	testenv.Eventually(t, 30*time.Second, "the check to pass once the caches synced", func() error { return check(req) })
}

// blockedSource is a watch whose sync waits for release.
type blockedSource struct{ release chan struct{} }

func (s blockedSource) Start(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	return nil
}

func (s blockedSource) WaitForSync(ctx context.Context) error {
	select {
	case <-s.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestReadyzWaitsForControllers: a standby replica (another holds the
// Lease) is not Ready while a controller's watch has not synced, though its
// caches have (they hold no informer yet), and is Ready once the watch has,
// still not leading: the controllers warm up before they are elected.
func TestReadyzWaitsForControllers(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	defer cancel()
	const leaseName = "readyz-waits-for-controllers"
	now := metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: leaseName},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To("another-replica"), LeaseDurationSeconds: ptr.To(int32(3600)), AcquireTime: &now, RenewTime: &now},
	}
	if err := env.Client.Create(ctx, lease); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.WithoutCancel(ctx), lease) })

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	probes := l.Addr().String()
	_ = l.Close()
	mo := manager.Options{
		Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: probes,
		LeaderElection: true, LeaderElectionID: leaseName, LeaderElectionNamespace: "default",
	}
	mo.Controller.EnableWarmup = ptr.To(true)
	mo.Controller.SkipNameValidation = ptr.To(true)
	mgr, err := manager.New(env.Config, mo)
	if err != nil {
		t.Fatal(err)
	}
	probed, err := AddProbes(mgr)
	if err != nil {
		t.Fatal(err)
	}
	src := blockedSource{release: make(chan struct{})}
	err = builder.ControllerManagedBy(probed).Named("blocked").WatchesRawSource(src).
		Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	defer func() { cancel(); <-stopped }()

	readyz := func() error {
		resp, err := http.Get("http://" + probes + "/readyz")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %s", resp.Status)
		}
		return nil
	}
	testenv.Eventually(t, 30*time.Second, "the probes to answer", func() error {
		if err := readyz(); err != nil && err.Error() != "/readyz: 500 Internal Server Error" {
			return err
		}
		return nil
	})
	// The caches have synced (they hold nothing); the watch has not.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if err := readyz(); err == nil {
			t.Fatal("Ready before the controller's watch synced")
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(src.release)
	testenv.Eventually(t, 30*time.Second, "Ready once the watch synced", readyz)
	select {
	case <-mgr.Elected():
		t.Fatal("elected, though another replica holds the Lease")
	default:
	}
}
