package demo_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/demo"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	log.SetLogger(logr.Discard())
	testenv.Main(m, testenv.CRDDirs("../crds"), testenv.WithScheme(v1alpha1.AddToScheme))
}

// TestRun runs the demo as `go run ./examples/healthscope` does on a local
// control plane, and checks what it prints.
func TestRun(t *testing.T) {
	env := testenv.Get(t)
	mgr, err := manager.New(env.Config, manager.Options{
		Scheme:     env.Scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	require.NoError(t, controllers.Setup(mgr, controllers.Options{}))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()

	// A namespace of its own, so that the test can run twice (-count=2).
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetGenerateName("demo-")
	require.NoError(t, env.Client.Create(ctx, ns))

	var out bytes.Buffer
	require.NoError(t, demo.Run(ctx, env.Client, &out, demo.Options{Namespace: ns.GetName(), Simulate: true, PollInterval: 50 * time.Millisecond}))
	got := out.String()
	for _, want := range []string{
		"Unknown     Deployment web: no child resources of kind ReplicaSet yet",
		"Unhealthy   Deployment web: ReplicaSet web-1 has 1/2 replicas ready",
		"HealthScope example-health-scope: Healthy, 2 of 2 workloads healthy",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the demo's output does not say %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "    Healthy     Deployment web\n    Healthy     StatefulSet db\n") {
		t.Errorf("the demo should end with both workloads healthy:\n%s", got)
	}
}
