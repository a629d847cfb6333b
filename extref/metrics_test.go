package extref

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// gatherMetrics reads the package's metrics from controller-runtime's
// registry, which a manager's metrics endpoint serves: each series by its
// name and labels, as name{label="value"}.
func gatherMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "ctrlkit_extref_") {
			continue
		}
		for _, m := range f.GetMetric() {
			name := f.GetName()
			for _, l := range m.GetLabel() {
				name += fmt.Sprintf("{%s=%q}", l.GetName(), l.GetValue())
			}
			got[name] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return got
}

// grew returns how much each series of after grew from before.
func grew(before, after map[string]float64) map[string]float64 {
	d := map[string]float64{}
	for k, v := range after {
		if v != before[k] {
			d[k] = v - before[k]
		}
	}
	return d
}
