package metrics_test

import (
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/directstatus/metrics"
)

// A direct controller's Writer whose status writes are counted on the
// manager's metrics endpoint.
func ExampleCountWrites() {
	var mgr manager.Manager // the controller's manager
	w := directstatus.NewWriter(mgr.GetClient(), metrics.CountWrites())
	_ = w
}
