// Command controlplane prints the directory holding kube-apiserver and etcd for
// the local control plane, building them from the Go module proxy into the user
// cache directory the first time. Its output is usable as KUBEBUILDER_ASSETS:
//
//	export KUBEBUILDER_ASSETS=$(go run ./internal/cmd/controlplane)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/ctrlkit/ctrlkit/internal/controlplane"
)

func main() {
	rebuild := flag.Bool("rebuild", false, "discard the cached binaries and build them again")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir, err := controlplane.Assets(ctx, controlplane.Options{Rebuild: *rebuild})
	if err != nil {
		fmt.Fprintln(os.Stderr, "controlplane:", err)
		os.Exit(1)
	}
	fmt.Println(dir)
}
