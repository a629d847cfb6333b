// Command composite runs a small control plane core for App claims and
// their XApp composite resources (packages core and function): the XR
// controller runs an in-process function whose results set conditions on the
// XR and, through status.claimConditions, on the claim (package results).
// It then walks a demo claim through the seed's scenarios (Image Not Found,
// Progressing, Success), printing the claim's conditions as they change, and
// keeps running until interrupted.
//
//	go run ./examples/composite [--kubeconfig FILE] [--crds DIR]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it (kubectl get apps,xapps,deployments -A).
// Run it from the repository root, or pass --crds.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/examples/composite/demo"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	"github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/localcluster"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to use (default: KUBECONFIG, else a local control plane)")
	crds := flag.String("crds", "examples/composite/crds", "directory of the App and XApp CRDs to install")
	flag.Parse()
	log.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *crds); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "composite:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, crds string) error {
	c, err := localcluster.Connect(ctx, localcluster.Options{Kubeconfig: kubeconfig, CRDDirs: []string{crds}})
	if err != nil {
		return err
	}
	defer c.Stop()

	scheme := runtime.NewScheme()
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), v1alpha1.AddToScheme(scheme)); err != nil {
		return err
	}
	mgr, err := manager.New(c.Config, manager.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return err
	}
	fn := &function.Function{Platform: demo.Platform()}
	if err := core.Setup(mgr, core.Options{Pipeline: core.Pipeline{{Name: "app", Function: fn}}}); err != nil {
		return err
	}
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()

	cl, err := client.New(c.Config, client.Options{Scheme: scheme}) // uncached: the demo does not wait for the manager's caches
	if err != nil {
		return err
	}
	if err := demo.Run(ctx, cl, os.Stdout, demo.Options{SimulateRollout: c.Local}); err != nil {
		return err
	}
	fmt.Println("\nThe claim is Ready. Press Ctrl-C to stop; meanwhile try kubectl get apps,xapps -A.")
	return <-stopped
}
