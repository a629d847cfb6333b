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
	fmt.Printf("local control plane at %s\n\n  export KUBECONFIG=%s\n  kubectl get namespaces\n\nPress Ctrl-C to stop it.\n", c.Config.Host, c.KubeconfigPath)
	<-ctx.Done()
	fmt.Println("\nstopping the local control plane")
	return nil
}
