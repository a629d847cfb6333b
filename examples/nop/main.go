// Command nop is a provider for NopResources and ClusterNopResources
// (package nop): it applies the provider-nop design's sample and prints each
// condition transition as it lands, with its lateness against the schedule.
//
//	go run ./examples/nop [--kubeconfig FILE] [--keep-running] [--leader-elect]
//	    [--metrics-bind-address :8080] [--concurrency 10] [--poll-interval 0]
//	    [--crds DIR]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it; it installs the CRDs built into the
// binary, or those in --crds DIR. It exits after the sample's last transition
// unless --keep-running keeps it running for other objects.
//
// It creates the NopResource default/ctrlkit-nop-sample, labelled
// app.kubernetes.io/created-by=ctrlkit-nop: a run deletes the one an earlier
// run left before its script and, unless --keep-running, its own at the end
// (package examples/internal/owned).
//
// Like every example it has the flags of a kubebuilder-scaffolded provider
// (metrics, health probes, leader election, concurrency, zap logging; see
// package examples/internal/run and --help), and prints which API server it
// uses, and why, before it changes anything.
package main

import (
	"context"
	"flag"
	"io/fs"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
	"github.com/ctrlkit/ctrlkit/examples/internal/run"
	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/crds"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func main() {
	concurrency := flag.Int("concurrency", nop.DefaultWorkers, "objects of each kind reconciled at once")
	poll := flag.Duration("poll-interval", 0, "reconcile every object at least this often, as a safety net (0: off; the reconciler requeues at each deadline)")
	var s *sample
	run.Main(run.Example{
		Name:        "nop",
		CRDs:        []fs.FS{crds.FS},
		AddToScheme: v1alpha1.AddToScheme,
		Objects: owned.Set{By: owned.CreatedBy("nop"), Kinds: []schema.GroupVersionKind{
			v1alpha1.GroupVersion.WithKind(v1alpha1.NopResourceKind), v1alpha1.GroupVersion.WithKind(v1alpha1.ClusterNopResourceKind),
		}},
		LeaderElectionID: "nop.ctrlkit.dev",
		Setup: func(mgr manager.Manager) (err error) {
			if s, err = readSample(); err != nil {
				return err
			}
			return nop.Setup(mgr, nop.Options{MaxConcurrentReconciles: *concurrency, PollInterval: *poll, OnTransition: s.print})
		},
		Run: func(ctx context.Context, e run.Env) error {
			if err := s.recreate(ctx, e.Client); err != nil {
				return err
			}
			if e.KeepRunning {
				return nil // Main keeps the controllers running
			}
			return s.wait(ctx)
		},
	})
}
