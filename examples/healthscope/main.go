// Command healthscope runs the scope/workload interaction of the OAM design
// (package scopes): an Application controller that places its workloads into
// the scopes it names without knowing their schemas, and a HealthScope
// controller that judges those workloads, of any kind, by the resources they
// create (package controllers). It then walks the design's example through
// (package demo), printing the scope's health as it changes, and keeps
// running until interrupted.
//
//	go run ./examples/healthscope [--kubeconfig FILE] [--crds DIR]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it (kubectl get healthscopes,applications -o
// yaml). Run it from the repository root, or pass --crds.
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

	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/demo"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/localcluster"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to use (default: KUBECONFIG, else a local control plane)")
	crds := flag.String("crds", "examples/healthscope/crds", "directory of the example's CRDs to install")
	namespace := flag.String("namespace", "default", "namespace of the demo's HealthScope and Application")
	flag.Parse()
	log.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *crds, *namespace); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "healthscope:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, crds, namespace string) error {
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
	if err := controllers.Setup(mgr, controllers.Options{}); err != nil {
		return err
	}
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()

	cl, err := client.New(c.Config, client.Options{Scheme: scheme}) // uncached: the demo does not wait for the manager's caches
	if err != nil {
		return err
	}
	if err := demo.Run(ctx, cl, os.Stdout, demo.Options{Namespace: namespace, Simulate: c.Local}); err != nil {
		return err
	}
	fmt.Println("\nThe scope is Healthy. Press Ctrl-C to stop; meanwhile try kubectl get healthscopes,applications -o yaml.")
	return <-stopped
}
