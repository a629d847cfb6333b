// Command crossplane prints the directory holding the cached Crossplane core
// binary and CRDs of the version tools/crossplane pins, building them from
// the Go module proxy the first time (many minutes on two cores):
//
//	cd e2e && go run ./internal/cmd/crossplane
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/ctrlkit/ctrlkit/e2e/internal/crossplane"
)

func main() {
	rebuild := flag.Bool("rebuild", false, "discard the cached build and build it again")
	version := flag.String("version", os.Getenv("CROSSPLANE_VERSION"), "the Crossplane core version to build (default: CROSSPLANE_VERSION, else the one tools/crossplane pins)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	in, err := crossplane.Build(ctx, crossplane.BuildOptions{Rebuild: *rebuild, Version: *version})
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossplane:", err)
		os.Exit(1)
	}
	fmt.Println(filepath.Dir(in.Binary))
}
