package nop

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The reconciler's metrics, registered with controller-runtime's registry, so
// that a manager's metrics endpoint serves them beside its own. Their only
// label is the kind (NopResource or ClusterNopResource): nothing a tenant
// writes in a spec becomes a label value.
var (
	transitionLateness = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "ctrlkit_nop_transition_lateness_seconds",
		Help:    "How long after its deadline (creationTimestamp plus the conditionAfter entry's time) each scheduled condition change was written; 0 when on time.",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"kind"})
	transitionsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ctrlkit_nop_transitions_total",
		Help: "Scheduled condition changes written.",
	}, []string{"kind"})
	statusWritesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ctrlkit_nop_status_writes_total",
		Help: "Status writes, by result: success, conflict (retried with a fresh read) or error.",
	}, []string{"kind", "result"})
)

func init() {
	metrics.Registry.MustRegister(transitionLateness, transitionsTotal, statusWritesTotal)
}

// kindMetrics are the metrics of one kind, looked up once.
type kindMetrics struct {
	lateness                   prometheus.Observer
	transitions                prometheus.Counter
	written, conflicts, failed prometheus.Counter
}

func metricsOf(kind string) kindMetrics {
	return kindMetrics{
		lateness:    transitionLateness.WithLabelValues(kind),
		transitions: transitionsTotal.WithLabelValues(kind),
		written:     statusWritesTotal.WithLabelValues(kind, "success"),
		conflicts:   statusWritesTotal.WithLabelValues(kind, "conflict"),
		failed:      statusWritesTotal.WithLabelValues(kind, "error"),
	}
}

// landed counts a transition that was written.
func (m kindMetrics) landed(t Transition) {
	m.transitions.Inc()
	m.lateness.Observe(max(t.Lateness(), 0).Seconds())
}

// wrote counts a status write that returned err.
func (m kindMetrics) wrote(err error, conflict bool) {
	switch {
	case err == nil:
		m.written.Inc()
	case conflict:
		m.conflicts.Inc()
	default:
		m.failed.Inc()
	}
}
