package nop

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
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

// crossplane-runtime's managed resource metrics (v1.20: the recorder of
// pkg/reconciler/managed and pkg/statemetrics), with its names, help,
// buckets and one label, gvk (e.g. "nop.ctrlkit.dev/v1alpha1,
// Kind=NopResource"), so that a Crossplane dashboard reads nop as it reads
// any provider. drift is never observed: a NopResource has no external
// resource to drift from.
var (
	mrFirstReconcile = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: "crossplane",
		Name:      "managed_resource_first_time_to_reconcile_seconds",
		Help:      "The time it took for a managed resource to be detected by the controller",
		Buckets:   prometheus.ExponentialBuckets(10e-9, 10, 10),
	}, []string{"gvk"})
	mrFirstReady = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: "crossplane",
		Name:      "managed_resource_first_time_to_readiness_seconds",
		Help:      "The time it took for a managed resource to become ready first time after creation",
		Buckets:   []float64{1, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600},
	}, []string{"gvk"})
	mrDeletion = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: "crossplane",
		Name:      "managed_resource_deletion_seconds",
		Help:      "The time it took for a managed resource to be deleted",
		Buckets:   []float64{1, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600},
	}, []string{"gvk"})
	mrDrift = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: "crossplane",
		Name:      "managed_resource_drift_seconds",
		Help:      "ALPHA: How long since the previous successful reconcile when a resource was found to be out of sync; excludes restart of the provider",
		Buckets:   prometheus.ExponentialBuckets(10e-9, 10, 10),
	}, []string{"gvk"})
	mrExists = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Subsystem: "crossplane",
		Name:      "managed_resource_exists",
		Help:      "The number of managed resources that exist",
	}, []string{"gvk"})
	mrReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Subsystem: "crossplane",
		Name:      "managed_resource_ready",
		Help:      "The number of managed resources in Ready=True state",
	}, []string{"gvk"})
	mrSynced = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Subsystem: "crossplane",
		Name:      "managed_resource_synced",
		Help:      "The number of managed resources in Synced=True state",
	}, []string{"gvk"})
)

func init() {
	metrics.Registry.MustRegister(mrFirstReconcile, mrFirstReady, mrDeletion, mrDrift, mrExists, mrReady, mrSynced)
}

// managedMetrics keeps crossplane-runtime's managed resource metrics for one
// kind from what its reconciles see: the gauges count the objects by the
// status each one's last reconcile left (crossplane-runtime lists them on a
// timer), and the first-time histograms need to know which objects this
// process saw before their first status write.
type managedMetrics struct {
	firstReconcile, firstReady, deletion prometheus.Observer
	exists, ready, synced                prometheus.Gauge

	mu      sync.Mutex
	objects map[types.NamespacedName]managedState
}

// managedState is what the gauges count of one object, and whether its
// first readiness is still to be observed.
type managedState struct {
	ready, synced, awaitingReady bool
}

func newManagedMetrics(kind string) *managedMetrics {
	gvk := v1alpha1.GroupVersion.WithKind(kind).String()
	return &managedMetrics{
		firstReconcile: mrFirstReconcile.WithLabelValues(gvk),
		firstReady:     mrFirstReady.WithLabelValues(gvk),
		deletion:       mrDeletion.WithLabelValues(gvk),
		exists:         mrExists.WithLabelValues(gvk),
		ready:          mrReady.WithLabelValues(gvk),
		synced:         mrSynced.WithLabelValues(gvk),
		objects:        map[types.NamespacedName]managedState{},
	}
}

// seen records the status a reconcile left on obj at now; unsynced says
// that obj had no Synced condition before it. An object first seen unsynced
// (its status never written: crossplane-runtime's test of a new resource)
// observes its time to first reconcile, and later, once Ready=True, its time
// to first readiness.
func (m *managedMetrics) seen(obj client.Object, unsynced bool, now time.Time) {
	_, status := parts(obj)
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	created := obj.GetCreationTimestamp().Time
	ready := conditions.IsTrue(status.Conditions, conditions.TypeReady)
	s := managedState{ready: ready, synced: conditions.IsTrue(status.Conditions, conditions.TypeSynced)}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, known := m.objects[key]
	switch {
	case !known && unsynced:
		m.firstReconcile.Observe(now.Sub(created).Seconds())
		s.awaitingReady = true
	case known:
		s.awaitingReady = old.awaitingReady
	}
	if s.awaitingReady && ready {
		m.firstReady.Observe(now.Sub(created).Seconds())
		s.awaitingReady = false
	}
	if known && old == s {
		return
	}
	if !known {
		m.exists.Inc()
	}
	m.ready.Add(boolDelta(old.ready, s.ready))
	m.synced.Add(boolDelta(old.synced, s.synced))
	m.objects[key] = s
}

// deleted observes the deletion of obj, whose finalizer is removed at now.
func (m *managedMetrics) deleted(obj client.Object, now time.Time) {
	if t := obj.GetDeletionTimestamp(); t != nil {
		m.deletion.Observe(now.Sub(t.Time).Seconds())
	}
}

// forget drops an object that is gone.
func (m *managedMetrics) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.objects[key]
	if !ok {
		return
	}
	delete(m.objects, key)
	m.exists.Dec()
	m.ready.Add(boolDelta(old.ready, false))
	m.synced.Add(boolDelta(old.synced, false))
}

// boolDelta is the change of a count when was becomes is.
func boolDelta(was, is bool) float64 {
	switch {
	case was && !is:
		return -1
	case is && !was:
		return 1
	}
	return 0
}
