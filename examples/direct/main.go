// Command direct runs the direct controller example: a controller-runtime
// manager reconciling Datasets with a fake cloud API (an HTTP server on
// loopback that it starts, with a latency on every call), and a script that
// edits a Dataset and prints the transitions of its Ready condition:
// Creating, Updating with the first changed field, UpToDate, UpdateFailure.
//
//	go run ./examples/direct [--kubeconfig FILE] [--latency 1.5s] [--keep-running] [--crds DIR]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane. It
// installs the Dataset CRD built into the binary, or those in --crds DIR.
//
// It creates the Dataset default/orders, labelled
// app.kubernetes.io/created-by=ctrlkit-direct: a run deletes the one an
// earlier run left before its script and, unless --keep-running, its own at
// the end, while its controller runs and removes its finalizer (package
// examples/internal/owned).
//
// Like every example it has the flags of a kubebuilder-scaffolded provider
// (metrics, health probes, leader election, concurrency, zap logging; see
// package examples/internal/run and --help), and prints which API server it
// uses, and why, before it changes anything.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/directstatus"
	dsmetrics "github.com/ctrlkit/ctrlkit/directstatus/metrics"
	"github.com/ctrlkit/ctrlkit/examples/direct/cloudapi"
	"github.com/ctrlkit/ctrlkit/examples/direct/controller"
	"github.com/ctrlkit/ctrlkit/examples/direct/crds"
	"github.com/ctrlkit/ctrlkit/examples/direct/demo"
	"github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
	"github.com/ctrlkit/ctrlkit/examples/internal/run"
)

func main() {
	latency := flag.Duration("latency", 1500*time.Millisecond, "how long every call to the fake cloud API takes")
	var cloud *cloudapi.Server // serves until the process exits, after the manager stopped
	run.Main(run.Example{
		Name:        "direct",
		CRDs:        []fs.FS{crds.FS},
		AddToScheme: v1alpha1.AddToScheme,
		Objects:     owned.Set{By: owned.CreatedBy("direct"), Kinds: []schema.GroupVersionKind{v1alpha1.GroupVersion.WithKind("Dataset")}},
		// The script prints what matters: the Ready condition, which
		// carries every error the controller meets.
		Quiet:       true,
		KeepRunning: "\nThe controller keeps running; edit with: kubectl edit dataset orders. Ctrl-C stops it.",
		Setup: func(mgr manager.Manager) (err error) {
			if cloud, err = cloudapi.NewServer(*latency); err != nil {
				return err
			}
			fmt.Printf("fake cloud API at %s, %s per call\n", cloud.URL(), *latency)
			r := &controller.Reconciler{
				Client: mgr.GetClient(),
				Cloud:  &cloudapi.Client{BaseURL: cloud.URL(), Project: "demo"},
				Status: directstatus.NewWriter(mgr.GetClient(), directstatus.ReadFrom(mgr.GetAPIReader()), dsmetrics.CountWrites()),
			}
			return r.SetupWithManager(mgr)
		},
		Run: func(ctx context.Context, e run.Env) error {
			if err := demo.Run(ctx, demo.Options{Client: e.Client, Cloud: cloud, Out: os.Stdout}); err != nil {
				return err
			}
			return nil
		},
	})
}
