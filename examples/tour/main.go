// Command tour is `make demo`: a guided tour of every ctrlkit package. It
// runs the reference controllers of all the examples in one
// controller-runtime manager and plays five scenarios (package tour),
// printing each condition transition as it lands, then a summary table. It
// exits 0 only when every scenario passed.
//
//	go run ./examples/tour [--kubeconfig FILE] [--simulate] [--keep-running] [--verbose] [--root DIR]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane (the
// first run builds it, several minutes, then it is cached). It installs the
// examples' CRDs built into the binary, so it runs from any directory; --root
// installs those of a repository checkout instead. It deletes what an earlier
// run left in the cluster before it starts, and its own objects at the end
// unless --keep-running keeps them for kubectl.
//
// Like every example it has the flags of a kubebuilder-scaffolded provider
// (metrics, health probes, leader election, concurrency, zap logging; see
// package examples/internal/run and --help), and prints which API server it
// uses, and why, before it changes anything.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ctrlkit/ctrlkit/examples/internal/run"
	"github.com/ctrlkit/ctrlkit/examples/tour/tour"
)

func main() {
	root := flag.String("root", "", "a repository checkout whose examples' CRDs to install instead of the ones built into the binary")
	verbose := flag.Bool("verbose", false, "also print each example's own narration")
	run.Main(run.Example{
		Name: "tour",
		CRDs: tour.CRDs,
		CRDDirs: func() []string {
			if *root == "" {
				return nil
			}
			return tour.CRDDirsUnder(*root)
		},
		// The timeline shows what matters: the conditions carry every
		// error the controllers meet (several scenarios provoke errors on
		// purpose).
		Quiet:                  true,
		PlaysControllerManager: true,
		// No Setup: tour.Run builds its own manager.
		Run: func(ctx context.Context, e run.Env) error {
			var transcript io.Writer
			if *verbose {
				transcript = os.Stdout
			}
			results, err := tour.Run(ctx, tour.Options{Config: e.Cluster.Config, Simulate: e.Simulate,
				Out: os.Stdout, Transcript: transcript, Watch: e.KeepRunning, Manager: e.ManagerOptions,
				OnSummary: func() {
					if e.KeepRunning {
						fmt.Printf("\nkubectl along: export KUBECONFIG=%s\n", e.Cluster.KubeconfigPath)
					}
				}})
			switch {
			case errors.Is(err, context.Canceled):
				return errors.New("interrupted before the end of the tour")
			case err != nil:
				return err
			case !tour.Passed(results):
				return errors.New("not every scenario passed")
			}
			return nil
		},
	})
}
