package oracle

import (
	"errors"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	_ "github.com/ctrlkit/ctrlkit/nop" // registers its metrics
)

// oneDesc is a collector of one descriptor, so that each of
// crossplane-runtime's is registered, and judged, alone.
type oneDesc struct{ d *prometheus.Desc }

func (o oneDesc) Describe(ch chan<- *prometheus.Desc) { ch <- o.d }
func (o oneDesc) Collect(chan<- prometheus.Metric)    {}

// TestManagedResourceMetrics: every metric of crossplane-runtime's managed
// resource recorder and state metrics is one nop registers in
// controller-runtime's registry with the same name, help and label names.
// crossplane-runtime v1 (v1.20) does not compile against this module's
// controller-runtime; v2.4.0's two constructors define the same metrics as
// v1.20's (names, help, buckets, label gvk), so v2.4.0 is the oracle.
// Prometheus' registry is the judge: registering crossplane-runtime's
// descriptor beside nop's is refused as a duplicate when they are the same,
// as a different descriptor when its help or labels differ, and accepted
// when nop has no metric of that name.
func TestManagedResourceMetrics(t *testing.T) {
	ch := make(chan *prometheus.Desc, 16)
	managed.NewMRMetricRecorder().Describe(ch)
	statemetrics.NewMRStateMetrics().Describe(ch)
	close(ch)
	n := 0
	for d := range ch {
		n++
		c := oneDesc{d}
		err := ctrlmetrics.Registry.Register(c)
		var already prometheus.AlreadyRegisteredError
		switch {
		case err == nil:
			ctrlmetrics.Registry.Unregister(c)
			t.Errorf("nop has no metric %s", d)
		case errors.As(err, &already),
			strings.Contains(err.Error(), "already exists with the same fully-qualified name and const label values"):
			// The same: the registry checks help and label names before
			// it finds the duplicate.
		default:
			t.Errorf("nop's metric differs from crossplane-runtime's %s: %v", d, err)
		}
	}
	if n != 7 {
		t.Errorf("crossplane-runtime describes %d managed resource metrics, want 7 (4 from the recorder, 3 state gauges)", n)
	}
}
