// Command composite runs a small control plane core for App claims and
// their XApp composite resources (packages core and function): the XR
// controller runs an in-process function whose results set conditions on the
// XR and, through status.claimConditions, on the claim (package results).
// It then walks a demo claim through the fn-claim-conditions design's
// scenarios (Image Not Found, Progressing, Success), printing the claim's
// conditions as they change, and stops (--keep-running: runs on until
// interrupted). On a cluster without kube-controller-manager it marks the
// Deployment available itself (--simulate: on any cluster).
//
//	go run ./examples/composite [--kubeconfig FILE] [--crds DIR] [--keep-running] [--simulate]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it (kubectl get apps,xapps,deployments -A).
// It installs the App and XApp CRDs built into the binary, or those in
// --crds DIR.
//
// It creates the claim App default/shop; its controllers create the XApp
// (cluster-scoped, shop-xxxxx) and the Deployment default/shop. Each is
// labelled app.kubernetes.io/created-by=ctrlkit-composite: a run deletes
// those an earlier run left before its script and, unless --keep-running,
// its own at the end, while its controllers run (package
// examples/internal/owned).
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
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/examples/composite/crds"
	"github.com/ctrlkit/ctrlkit/examples/composite/demo"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	"github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
	"github.com/ctrlkit/ctrlkit/examples/internal/run"
)

func main() {
	run.Main(run.Example{
		Name:        "composite",
		CRDs:        []fs.FS{crds.FS},
		AddToScheme: v1alpha1.AddToScheme,
		// The claim first: its XApp goes with it, and the XApp's Deployment
		// with the XApp.
		Objects: owned.Set{By: owned.CreatedBy("composite"), Kinds: []schema.GroupVersionKind{
			v1alpha1.AppKind, v1alpha1.XAppKind, {Group: "apps", Version: "v1", Kind: "Deployment"},
		}},
		Setup: func(mgr manager.Manager) error {
			fn := &function.Function{Platform: demo.Platform()}
			return core.Setup(mgr, core.Options{Pipeline: core.Pipeline{{Name: "app", Function: fn}}})
		},
		Run: func(ctx context.Context, e run.Env) error {
			return demo.Run(ctx, e.Client, os.Stdout, demo.Options{SimulateRollout: e.Simulate})
		},
		PlaysControllerManager: true,
		KeepRunning:            "\nThe claim is Ready. Press Ctrl-C to stop; meanwhile try kubectl get apps,xapps -A.",
	})
}
