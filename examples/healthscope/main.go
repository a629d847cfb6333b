// Command healthscope runs the scope/workload interaction of the OAM design
// (package scopes): an Application controller that places its workloads into
// the scopes it names without knowing their schemas, and a HealthScope
// controller that judges those workloads, of any kind, by the resources they
// create (package controllers). It then walks the design's example through
// (package demo), printing the scope's health as it changes, and stops
// (--keep-running: runs on until interrupted). On a cluster without
// kube-controller-manager it plays its part (--simulate: on any cluster).
//
//	go run ./examples/healthscope [--kubeconfig FILE] [--crds DIR] [--keep-running] [--simulate] [--namespace NS]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it (kubectl get healthscopes,applications -o
// yaml). It installs the example's CRDs built into the binary, or those in
// --crds DIR.
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
	"os"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/crds"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/demo"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/run"
)

func main() {
	namespace := flag.String("namespace", "default", "namespace of the demo's HealthScope and Application")
	run.Main(run.Example{
		Name:        "healthscope",
		CRDs:        []fs.FS{crds.FS},
		AddToScheme: v1alpha1.AddToScheme,
		Setup:       func(mgr manager.Manager) error { return controllers.Setup(mgr, controllers.Options{}) },
		Run: func(ctx context.Context, e run.Env) error {
			return demo.Run(ctx, e.Client, os.Stdout, demo.Options{Namespace: *namespace, Simulate: e.Simulate})
		},
		PlaysControllerManager: true,
		KeepRunning:            "\nThe scope is Healthy. Press Ctrl-C to stop; meanwhile try kubectl get healthscopes,applications -o yaml.",
	})
}
