package tour_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/examples/tour/tour"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDDirs(tour.CRDDirsUnder("../../..")...), testenv.WithScheme(tour.AddToScheme))
}

// TestTour plays the whole tour against a real API server, playing
// kube-controller-manager as `make demo` does on a local control plane, and
// expects every scenario to pass.
func TestTour(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var out bytes.Buffer
	results, err := tour.Run(ctx, tour.Options{Config: env.Config, Simulate: true, Out: &out, CloudLatency: 50 * time.Millisecond})
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatalf("tour.Run: %v", err)
	}
	if len(results) != 5 {
		t.Errorf("len(results) = %d, want 5", len(results))
	}
	for _, r := range results {
		if !r.Passed {
			t.Errorf("scenario %s failed: %s", r.Scenario, r.Observed)
		}
	}
	if !tour.Passed(results) {
		t.Error("tour.Passed = false")
	}
	for _, want := range []string{"NopResource default/tour-nops-0", "App default/shop", "Dataset default/orders", "== summary"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output does not mention %q", want)
		}
	}
}
