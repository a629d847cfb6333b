package run

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestUsePriorityQueue(t *testing.T) {
	cases := map[string]bool{
		"v0.23.0":         false, // the floor: its queue can block a worker on shutdown
		"v0.24.1":         false,
		"v0.25.0":         true, // the first release that cannot
		"v0.25.2":         true,
		"v0.26.0-alpha.1": true,
		"":                false, // a replaced module: unknown is taken as affected
		"(devel)":         false,
	}
	for v, want := range cases {
		if got := usePriorityQueue(v); got != want {
			t.Errorf("usePriorityQueue(%q) = %t, want %t", v, got, want)
		}
	}
	// A test binary records no dependencies, so here the version is
	// unknown and the queue is the workqueue; an example binary knows it.
	if v := controllerRuntimeVersion(); v != "" && !strings.HasPrefix(v, "v0.") {
		t.Errorf("controllerRuntimeVersion() = %q, want a version or none", v)
	}
}

func TestStopLog(t *testing.T) {
	var logged []string
	base := funcr.New(func(prefix, args string) { logged = append(logged, prefix+" "+args) }, funcr.Options{})
	stopping := false
	l := newStopLog(base, func() bool { return stopping }).WithName("manager").WithValues("k", "v")
	lost := errors.New(errLeaderElectionLost)
	// As a reconcile cut short by the stop returns it: a client call's
	// error wrapped by the reconciler.
	cut := fmt.Errorf("cannot get the claim of XApp x: %w", &url.Error{Op: "Get", URL: "https://127.0.0.1/x", Err: context.Canceled})

	l.Error(lost, "error received after stop sequence was engaged")
	l.Error(errors.New("boom"), "a runnable failed")
	l.Error(cut, "Reconciler error")
	stopping = true
	l.Error(lost, "error received after stop sequence was engaged")
	l.Error(errors.New("boom"), "a runnable failed")
	l.Error(cut, "Reconciler error")
	l.Error(context.DeadlineExceeded, "Reconciler error")
	l.Info("stopped")

	want := []string{
		"leader election lost", // a loss while running is an error
		"boom",
		"cannot get the claim", // so is a cancellation while running
		"boom",                 // any other error while stopping too
		"deadline exceeded",    // a timeout is no stop
		"stopped",
	}
	if len(logged) != len(want) {
		t.Fatalf("logged %d entries, want %d:\n%s", len(logged), len(want), strings.Join(logged, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(logged[i], w) || !strings.Contains(logged[i], "manager") || !strings.Contains(logged[i], `"k"="v"`) {
			t.Errorf("entry %d: %s; want one with %q, the name and the values", i, logged[i], w)
		}
	}
}

// TestLeaderStopReleasesLease stops an elected replica whose controller is
// busy (four workers, a stream of events) the way SIGTERM does, several
// times: each stop returns within seconds, leaves the Lease released (no
// holder), and logs no error.
func TestLeaderStopReleasesLease(t *testing.T) {
	env := testenv.Get(t)
	kubeconfig := writeKubeconfig(t, env)
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "stop-"}}
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	const leaseID = "leader-stop-releases-lease"
	const objects = 20
	for i := range objects {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: fmt.Sprintf("cm-%d", i)}}
		if err := env.Client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}

	for round := range 3 {
		var mu sync.Mutex
		var errorsLogged []string
		logger := funcr.New(func(prefix, args string) {
			if strings.Contains(args, `"error"=`) {
				mu.Lock()
				errorsLogged = append(errorsLogged, prefix+" "+args)
				mu.Unlock()
			}
		}, funcr.Options{})
		reconciled := make(chan struct{}, 1)
		ex := Example{
			Name: "stop",
			Setup: func(mgr manager.Manager) error {
				return builder.ControllerManagedBy(mgr).Named(fmt.Sprintf("stop%d", round)).For(&corev1.ConfigMap{}).
					Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
						select {
						case reconciled <- struct{}{}:
						default:
						}
						// Requeue soon: the queue always has items coming ready
						// when the workers are told to stop.
						return reconcile.Result{RequeueAfter: time.Millisecond}, nil
					}))
			},
			Run: func(ctx context.Context, _ Env) error { <-ctx.Done(); return nil },
		}
		s, err := ex.parseFlags(flag.NewFlagSet("stop", flag.ContinueOnError),
			[]string{"--kubeconfig", kubeconfig, "--leader-elect", "--leader-election-id", leaseID, "--concurrency", "4"})
		if err != nil {
			t.Fatal(err)
		}
		s.log = logger
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { var p phase; done <- ex.run(runCtx, s, &p) }()
		select {
		case <-reconciled:
		case err := <-done:
			t.Fatalf("round %d: run ended before its controller reconciled: %v", round, err)
		case <-time.After(60 * time.Second):
			t.Fatalf("round %d: the replica was not elected and reconciling within 60 s", round)
		}
		time.Sleep(200 * time.Millisecond)

		stopped := time.Now()
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("round %d: clean stop returned %v", round, err)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("round %d: the replica did not stop within 15 s of being told to", round)
		}
		took := time.Since(stopped)
		lease := &coordinationv1.Lease{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: leaseID}, lease); err != nil {
			t.Fatal(err)
		}
		if h := lease.Spec.HolderIdentity; h != nil && *h != "" {
			t.Errorf("round %d: the Lease is still held by %q after the stop", round, *h)
		}
		if took > 2*time.Second {
			t.Errorf("round %d: stopping took %s; want the Lease released within a second or so", round, took)
		}
		mu.Lock()
		if len(errorsLogged) > 0 {
			t.Errorf("round %d: a clean stop logged errors:\n%s", round, strings.Join(errorsLogged, "\n"))
		}
		mu.Unlock()
		t.Logf("round %d: stopped and released the Lease in %s", round, took.Round(time.Millisecond))
	}
}

// TestControllerManagerRuns: the test control plane runs no
// kube-controller-manager; a freshly renewed Lease of one, or the
// ServiceAccount its service account controller creates, says that one runs;
// a Lease not renewed for a minute does not.
func TestControllerManagerRuns(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	runs := func() bool {
		t.Helper()
		got, err := ControllerManagerRuns(ctx, env.Client)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if runs() {
		t.Fatal("a control plane without kube-controller-manager is said to run one")
	}

	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-controller-manager"},
		Spec: coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: time.Now().Add(-2 * time.Minute)}}}
	if err := env.Client.Create(ctx, lease); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Client.Delete(ctx, lease) }()
	if runs() {
		t.Error("a Lease last renewed two minutes ago is taken for a running kube-controller-manager")
	}
	lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	if err := env.Client.Update(ctx, lease); err != nil {
		t.Fatal(err)
	}
	if !runs() {
		t.Error("a Lease renewed now is not taken for a running kube-controller-manager")
	}
	if err := env.Client.Delete(ctx, lease); err != nil {
		t.Fatal(err)
	}

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "default"}}
	if err := env.Client.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Client.Delete(ctx, sa) }()
	if !runs() {
		t.Error("the ServiceAccount default/default is not taken for a kube-controller-manager without leader election")
	}
}
