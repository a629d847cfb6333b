package nop

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// TestManagedMetrics: a NopResource Ready 1 s after its creation and then
// deleted moves crossplane-runtime's managed resource metrics for its gvk
// as a Crossplane provider's would: one first reconcile (within a second of
// creation), one first readiness (about 1 s), the exists, ready and synced
// gauges up by one while it lives and back once it is gone, and one
// deletion.
func TestManagedMetrics(t *testing.T) {
	const test = "managed-metrics"
	env := testenv.Get(t)
	ctx := t.Context()
	const gvk = "nop.ctrlkit.dev/v1alpha1, Kind=NopResource"
	before := gatherManaged(t, gvk)
	startManager(t, test, Options{})

	n := newNop(test, "managed-metrics", ca("1s", "Ready", "True"))
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	got := &v1alpha1.NopResource{}
	testenv.Eventually(t, 30*time.Second, "Ready", func() error {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
		if !conditions.IsTrue(got.Status.Conditions, "Ready") {
			return errors.New(describe(got.Status))
		}
		return nil
	})
	var live map[string]float64
	testenv.Eventually(t, 10*time.Second, "the gauges count the Ready resource", func() error {
		live = gatherManaged(t, gvk)
		for _, g := range []string{"crossplane_managed_resource_exists", "crossplane_managed_resource_ready", "crossplane_managed_resource_synced"} {
			if d := live[g] - before[g]; d != 1 {
				return errors.New(g + " did not grow by 1")
			}
		}
		return nil
	})
	for name, want := range map[string]float64{
		"crossplane_managed_resource_first_time_to_reconcile_seconds_count": 1,
		"crossplane_managed_resource_first_time_to_readiness_seconds_count": 1,
		"crossplane_managed_resource_deletion_seconds_count":                0,
	} {
		if d := live[name] - before[name]; d != want {
			t.Errorf("%s grew by %v, want %v", name, d, want)
		}
	}
	if d := live["crossplane_managed_resource_first_time_to_reconcile_seconds_sum"] - before["crossplane_managed_resource_first_time_to_reconcile_seconds_sum"]; d < 0 || d > 1.5 {
		t.Errorf("time to first reconcile %.3fs, want within a second of creation (its precision)", d)
	}
	if d := live["crossplane_managed_resource_first_time_to_readiness_seconds_sum"] - before["crossplane_managed_resource_first_time_to_readiness_seconds_sum"]; d < 0.5 || d > 3 {
		t.Errorf("time to first readiness %.3fs, want about 1s", d)
	}

	require.NoError(t, env.Client.Delete(ctx, got))
	testenv.Eventually(t, 30*time.Second, "the resource is gone and the gauges back", func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(n), got); !apierrors.IsNotFound(err) {
			return errors.New("still there")
		}
		after := gatherManaged(t, gvk)
		for _, g := range []string{"crossplane_managed_resource_exists", "crossplane_managed_resource_ready", "crossplane_managed_resource_synced"} {
			if after[g] != before[g] {
				return errors.New(g + " is not back")
			}
		}
		if d := after["crossplane_managed_resource_deletion_seconds_count"] - before["crossplane_managed_resource_deletion_seconds_count"]; d != 1 {
			return errors.New("no deletion observed")
		}
		return nil
	})
}

// gatherManaged reads the crossplane_managed_resource_* samples labelled
// gvk from controller-runtime's registry: gauges by name, histograms as
// <name>_count and <name>_sum. It fails on a sample with another label set.
func gatherManaged(t *testing.T, gvk string) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "crossplane_managed_resource_") {
			continue
		}
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != 1 || m.GetLabel()[0].GetName() != "gvk" {
				t.Fatalf("%s has labels %v, want gvk alone", f.GetName(), m.GetLabel())
			}
			if m.GetLabel()[0].GetValue() != gvk {
				continue
			}
			if h := m.GetHistogram(); h != nil {
				got[f.GetName()+"_count"] += float64(h.GetSampleCount())
				got[f.GetName()+"_sum"] += h.GetSampleSum()
				continue
			}
			got[f.GetName()] += m.GetGauge().GetValue()
		}
	}
	return got
}
