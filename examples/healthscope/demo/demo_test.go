package demo_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

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
	mgr, err := manager.New(env.Config, env.ManagerOptions())
	require.NoError(t, err)
	require.NoError(t, controllers.Setup(mgr, controllers.Options{}))
	testenv.StartManager(t, mgr)
	ns := env.Namespace(t, "demo")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	var out bytes.Buffer
	require.NoError(t, demo.Run(ctx, env.Client, &out, demo.Options{Namespace: ns, Simulate: true, PollInterval: 50 * time.Millisecond}))
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
