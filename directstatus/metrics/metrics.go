// Package metrics counts the status writes of a directstatus.Writer in
// controller-runtime's metrics registry, so that a manager's metrics endpoint
// serves them beside its own:
//
//	w := directstatus.NewWriter(mgr.GetClient(), metrics.CountWrites())
//
// The series is ctrlkit_directstatus_writes_total, labelled result: success,
// conflict (retried after the object is read again) or error. It lives apart
// from package directstatus, which compiles no protobuf beyond what
// controller-runtime's client does, since the Prometheus client needs more.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/ctrlkit/ctrlkit/directstatus"
)

var writesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "ctrlkit_directstatus_writes_total",
	Help: "Status writes of the Ready condition by directstatus Writers with metrics.CountWrites, by result: success, conflict (retried after a fresh read) or error.",
}, []string{"result"})

var (
	succeeded = writesTotal.WithLabelValues("success")
	conflicts = writesTotal.WithLabelValues("conflict")
	failed    = writesTotal.WithLabelValues("error")
)

func init() { crmetrics.Registry.MustRegister(writesTotal) }

// CountWrites is a WriterOption that counts the Writer's status writes in
// ctrlkit_directstatus_writes_total.
func CountWrites() directstatus.WriterOption { return directstatus.OnWrite(count) }

func count(err error) {
	switch {
	case err == nil:
		succeeded.Inc()
	case apierrors.IsConflict(err):
		conflicts.Inc()
	default:
		failed.Inc()
	}
}
