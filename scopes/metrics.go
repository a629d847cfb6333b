package scopes

import (
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// patchesTotal counts the patches of scopes' workload references by
// result, in controller-runtime's registry, so that a manager's metrics
// endpoint serves it beside its own.
var patchesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "ctrlkit_scopes_patches_total",
	Help: "Patches of a scope's workload references, by result: success, conflict (retried after a fresh read) or error.",
}, []string{"result"})

var (
	patchesSucceeded = patchesTotal.WithLabelValues("success")
	patchesConflicts = patchesTotal.WithLabelValues("conflict")
	patchesFailed    = patchesTotal.WithLabelValues("error")
)

func init() { metrics.Registry.MustRegister(patchesTotal) }

// countPatch counts a patch that returned err.
func countPatch(err error) {
	switch {
	case err == nil:
		patchesSucceeded.Inc()
	case apierrors.IsConflict(err):
		patchesConflicts.Inc()
	default:
		patchesFailed.Inc()
	}
}
