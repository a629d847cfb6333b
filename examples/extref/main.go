// Command extref runs the extref example: a provider-like controller for
// VPC and Subnet (package controller) whose Subnets take their CIDR block
// and VPC ID from a VPC, their region from a ConfigMap, an ARN from a
// template over a ConfigMap and a Secret, and a database password handed to
// the controller but never written (package extref). It applies
// demo/example.yaml, narrates what happens, and stops (--keep-running: runs
// on until interrupted).
//
//	go run ./examples/extref [--kubeconfig FILE] [--crds DIR] [--keep-running]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it (kubectl get vpcs,subnets). It installs
// the VPC and Subnet CRDs built into the binary, or those in --crds DIR.
//
// It creates the namespace crossplane-system with the ConfigMap
// common-settings and the Secrets accounts and db-credentials in it, and the
// cluster-scoped VPC main-vpc and Subnet main-subnet, the names the tour's
// extref scenario uses too. Each is labelled
// app.kubernetes.io/created-by=ctrlkit-extref: a run deletes those an earlier
// run left before its script and, unless --keep-running, its own at the end
// (the namespace stays; package examples/internal/owned).
//
// Like every example it has the flags of a kubebuilder-scaffolded provider
// (metrics, health probes, leader election, concurrency, zap logging; see
// package examples/internal/run and --help), and prints which API server it
// uses, and why, before it changes anything.
package main

import (
	"context"
	"io/fs"
	"os"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/extref/controller"
	"github.com/ctrlkit/ctrlkit/examples/extref/crds"
	"github.com/ctrlkit/ctrlkit/examples/extref/demo"
	"github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
	"github.com/ctrlkit/ctrlkit/examples/internal/run"
	"github.com/ctrlkit/ctrlkit/extref"
)

func main() {
	// The cache reports a kind of source it may not list at once.
	unreadable := &extref.UnreadableKinds{}
	run.Main(run.Example{
		Name:        "extref",
		CRDs:        []fs.FS{crds.FS},
		AddToScheme: v1alpha1.AddToScheme,
		// The namespace crossplane-system is labelled but stays.
		Objects: owned.Set{By: owned.CreatedBy("extref"), Kinds: []schema.GroupVersionKind{
			v1alpha1.GroupVersion.WithKind("Subnet"), v1alpha1.GroupVersion.WithKind("VPC"),
			{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"},
		}},
		Cache: func(o *cache.Options) { o.DefaultWatchErrorHandler = unreadable.WatchErrorHandler },
		Setup: func(mgr manager.Manager) error {
			return controller.Setup(mgr, controller.Options{Unreadable: unreadable})
		},
		Run: func(ctx context.Context, e run.Env) error {
			return demo.Run(ctx, e.Client, os.Stdout)
		},
		KeepRunning: "\nPress Ctrl-C to stop; meanwhile try kubectl get vpcs,subnets and kubectl edit configmap -n crossplane-system common-settings.",
	})
}
