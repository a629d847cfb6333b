// Command cluster runs a local Kubernetes control plane (kube-apiserver and
// etcd, built from the Go module proxy the first time) until interrupted, and
// prints how to point kubectl at it.
//
//	go run ./examples/cluster [--crds DIR]... [--kubeconfig-out FILE]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/internal/localcluster"
)

type dirs []string

func (d *dirs) String() string     { return strings.Join(*d, ",") }
func (d *dirs) Set(v string) error { *d = append(*d, v); return nil }

func main() {
	var crds dirs
	flag.Var(&crds, "crds", "a directory of CRD manifests to install (repeatable)")
	out := flag.String("kubeconfig-out", "", "where to write the kubeconfig (default: a new temporary file)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, crds, *out); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "cluster: interrupted while starting the local control plane; stopped it")
		} else {
			fmt.Fprintln(os.Stderr, "cluster:", err)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, crds []string, out string) error {
	// Always start a local control plane: this command exists to provide one.
	c, err := localcluster.Start(ctx, localcluster.Options{CRDDirs: crds})
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WriteKubeconfig(out); err != nil {
		return err
	}
	fmt.Printf("local control plane at %s\n\n  export KUBECONFIG=%s\n  kubectl get namespaces\n\n", c.Config.Host, c.KubeconfigPath)
	if v, err := serverVersion(c.Config); err == nil {
		fmt.Printf("The server is Kubernetes %s; kubectl %s matches it (kubectl supports one minor version either side).\n\n", v, v)
	}
	fmt.Println("Press Ctrl-C to stop it.")
	<-ctx.Done()
	fmt.Println("\nstopping the local control plane")
	return nil
}

// serverVersion returns the API server's version, such as v1.35.0.
func serverVersion(cfg *rest.Config) (string, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return "", err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return "", err
	}
	return v.GitVersion, nil
}
