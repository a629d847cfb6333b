// Command tour is `make demo`: a guided tour of every ctrlkit package. It
// runs the reference controllers of all the examples in one
// controller-runtime manager and plays five scenarios (package tour),
// printing each condition transition as it lands, then a summary table. It
// exits 0 only when every scenario passed.
//
//	go run ./examples/tour [--kubeconfig FILE [--simulate]] [--watch] [--verbose]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane (the
// first run builds it, several minutes, then it is cached). Run it from the
// repository root, or pass --root.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ctrlkit/ctrlkit/examples/tour/tour"
	"github.com/ctrlkit/ctrlkit/internal/localcluster"
)

func main() {
	if flag.Lookup("kubeconfig") == nil { // controller-runtime's root package, imported by the direct example, registers it
		flag.String("kubeconfig", "", "kubeconfig of the cluster to use (default: KUBECONFIG, else a local control plane)")
	}
	root := flag.String("root", ".", "the repository root, where the examples' CRDs are")
	watch := flag.Bool("watch", false, "keep the controllers running after the tour, for kubectl")
	verbose := flag.Bool("verbose", false, "also print each example's own narration")
	simulate := flag.Bool("simulate", false, "play kube-controller-manager (Deployments available, ReplicaSets), for a cluster that runs none such as make cluster; always on for a control plane the tour starts")
	flag.Parse()
	// The timeline shows what matters: the conditions carry every error the
	// controllers meet (several scenarios provoke errors on purpose).
	log.SetLogger(logr.Discard())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, flag.Lookup("kubeconfig").Value.String(), *root, *watch, *verbose, *simulate); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, root string, watch, verbose, simulate bool) error {
	fmt.Fprintln(os.Stderr, "connecting to the cluster (a first run builds kube-apiserver and etcd: several minutes, progress below)")
	c, err := localcluster.Connect(ctx, localcluster.Options{Kubeconfig: kubeconfig, CRDDirs: tour.CRDDirsUnder(root)})
	if err != nil {
		return err
	}
	defer c.Stop()
	var transcript io.Writer
	if verbose {
		transcript = os.Stdout
	}
	results, err := tour.Run(ctx, tour.Options{Config: c.Config, Simulate: c.Local || simulate, Out: os.Stdout, Transcript: transcript, Watch: watch,
		OnSummary: func() {
			if watch {
				fmt.Printf("\nkubectl along: export KUBECONFIG=%s\n", c.KubeconfigPath)
			}
		}})
	if err != nil {
		return err
	}
	if !tour.Passed(results) {
		return fmt.Errorf("not every scenario passed")
	}
	return nil
}
