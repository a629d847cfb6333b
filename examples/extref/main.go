// Command extref runs the extref example: a provider-like controller for
// VPC and Subnet (package controller) whose Subnets take their CIDR block
// and VPC ID from a VPC, their region from a ConfigMap, an ARN from a
// template over a ConfigMap and a Secret, and a database password handed to
// the controller but never written (package extref). It applies
// demo/example.yaml, narrates what happens, and keeps running until
// interrupted.
//
//	go run ./examples/extref [--kubeconfig FILE] [--crds DIR]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it (kubectl get vpcs,subnets). Run it from
// the repository root, or pass --crds.
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

	"github.com/ctrlkit/ctrlkit/examples/extref/controller"
	"github.com/ctrlkit/ctrlkit/examples/extref/demo"
	"github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/localcluster"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to use (default: KUBECONFIG, else a local control plane)")
	crds := flag.String("crds", "examples/extref/crds", "directory of the VPC and Subnet CRDs to install")
	flag.Parse()
	log.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *crds); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "extref:", err)
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
	if err := controller.Setup(mgr, controller.Options{}); err != nil {
		return err
	}
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()

	cl, err := client.New(c.Config, client.Options{Scheme: scheme}) // uncached: the demo does not wait for the manager's caches
	if err != nil {
		return err
	}
	if err := demo.Run(ctx, cl, os.Stdout); err != nil {
		return err
	}
	fmt.Println("\nPress Ctrl-C to stop; meanwhile try kubectl get vpcs,subnets and kubectl edit configmap -n crossplane-system common-settings.")
	return <-stopped
}
