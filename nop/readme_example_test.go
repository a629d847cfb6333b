package nop_test

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// run is the README's nop example: a manager running the nop controllers
// until ctx ends.
func run(ctx context.Context, cfg *rest.Config) error {
	scheme := runtime.NewScheme()
	_ = v1alpha1.AddToScheme(scheme) // github.com/ctrlkit/ctrlkit/nop/v1alpha1
	mgr, err := manager.New(cfg, manager.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if err := nop.Setup(mgr, nop.Options{MaxConcurrentReconciles: 10}); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// Example_run runs the README's nop example. It needs an API server serving
// the CRDs in nop/crds, so it is compiled, not run; nop's apiserver tests run
// the same Setup against a real one.
func Example_run() {
	var cfg *rest.Config // e.g. from controller-runtime's config.GetConfig
	_ = run(context.Background(), cfg)
}
