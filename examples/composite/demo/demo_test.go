package demo_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/examples/composite/demo"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	"github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDDirs("../crds"), testenv.WithScheme(v1alpha1.AddToScheme))
}

// TestRun runs what `go run ./examples/composite` runs, on the test API
// server, and checks that the claim went through the three scenarios.
func TestRun(t *testing.T) {
	env := testenv.Get(t)
	mgr, err := manager.New(env.Config, env.ManagerOptions())
	require.NoError(t, err)
	fn := &function.Function{Platform: demo.Platform()}
	require.NoError(t, core.Setup(mgr, core.Options{Pipeline: core.Pipeline{{Name: "app", Function: fn}}}))
	stop := testenv.StartManager(t, mgr)
	ns := env.Namespace(t, "demo")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	var out bytes.Buffer
	o := demo.Options{Namespace: ns, Name: "shop", SimulateRollout: true, Poll: 50 * time.Millisecond}
	require.NoError(t, demo.Run(ctx, env.Client, &out, o))
	stop()

	// Each scenario's header is followed, before the next one, by the
	// conditions that end it.
	got := out.String()
	sections := strings.Split(got, "\n# ")
	require.Len(t, sections, 3, "output:\n%s", got)
	wants := [][]string{
		{"Image Not Found", "ImageReady     False  NotFound", "The image provided does not exist or you are not authorized to use it."},
		{"Progressing", "ImageReady     True   Available", "AppReady       False  Creating          Waiting for the deployment to be available."},
		{"Success", "Ready          True  Available", "AppReady       True  Available"},
	}
	// Columns are as wide as their widest cell (Unknown, Reconciling), so
	// runs of spaces compare as one.
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for i, want := range wants {
		for _, w := range want {
			if !strings.Contains(squeeze(sections[i]), squeeze(w)) {
				t.Errorf("section %d does not contain %q; output:\n%s", i, w, got)
			}
		}
	}
}

// TestRunGivesUp: with no controller running, the claim never reaches the
// first scenario's state, and Run returns an error that names the claim
// once Options.Timeout has passed, though its ctx has no deadline.
func TestRunGivesUp(t *testing.T) {
	env := testenv.Get(t)
	ns := env.Namespace(t, "nocontroller")
	began := time.Now()
	err := demo.Run(t.Context(), env.Client, &bytes.Buffer{}, demo.Options{Namespace: ns, Poll: 50 * time.Millisecond, Timeout: time.Second})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "App "+ns+"/shop") {
		t.Errorf("err = %v, want it to name the claim and wrap %v", err, context.DeadlineExceeded)
	}
	if took := time.Since(began); took > 30*time.Second {
		t.Errorf("Run returned after %v, want about Options.Timeout (1s)", took)
	}
}
