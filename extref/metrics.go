package extref

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The package's metrics, registered with controller-runtime's registry, so
// that a manager's metrics endpoint serves them beside its own. No label
// value comes from a referencer or a source.
var (
	resolutionsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ctrlkit_extref_resolutions_total",
		Help: "Resolve calls on referencers with external values, by result: resolved (every required value) or failed.",
	}, []string{"result"})
	valuesResolvedTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "ctrlkit_extref_values_resolved_total",
		Help: "External values resolved: written, found already equal, or handed over to the controller.",
	})
	valueFailuresTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ctrlkit_extref_value_failures_total",
		Help: "External values that could not be resolved, by policy: required (the referencer is not written) or optional (skipped).",
	}, []string{"policy"})
	valuesPresentTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "ctrlkit_extref_values_present_total",
		Help: "IfNotPresent external values not resolved because their target already had a value.",
	})
	holdsTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "ctrlkit_extref_holds_total",
		Help: "Referencers held by SetupReconciler's write budget (WriteBudget, the Oscillating condition), once per hold.",
	})
	informersRunning = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "ctrlkit_extref_informers",
		Help: "Informers of source kinds that Watchers have their handler on.",
	})
)

var (
	resolutionsResolved = resolutionsTotal.WithLabelValues("resolved")
	resolutionsFailed   = resolutionsTotal.WithLabelValues("failed")
	requiredFailures    = valueFailuresTotal.WithLabelValues("required")
	optionalFailures    = valueFailuresTotal.WithLabelValues("optional")
)

func init() {
	metrics.Registry.MustRegister(resolutionsTotal, valuesResolvedTotal, valueFailuresTotal, valuesPresentTotal, holdsTotal, informersRunning)
}

// countInformers follows the informers a Watcher has its handler on.
func countInformers(delta int) { informersRunning.Add(float64(delta)) }

// countResolution counts what one Resolve did; a referencer without external
// values counts nothing.
func countResolution(out *Outcome, err error) {
	if out.Resolved == 0 && out.Present == 0 && len(out.Skipped) == 0 && len(out.Failed) == 0 && err == nil {
		return
	}
	if err != nil {
		resolutionsFailed.Inc()
	} else {
		resolutionsResolved.Inc()
	}
	valuesResolvedTotal.Add(float64(out.Resolved))
	valuesPresentTotal.Add(float64(out.Present))
	requiredFailures.Add(float64(len(out.Failed)))
	optionalFailures.Add(float64(len(out.Skipped)))
}
