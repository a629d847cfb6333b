// Command direct runs the direct controller example: a controller-runtime
// manager reconciling Datasets with a fake cloud API (an HTTP server on
// loopback that it starts, with a latency on every call), and a script that
// edits a Dataset and prints the transitions of its Ready condition:
// Creating, Updating with the first changed field, UpToDate, UpdateFailure.
//
//	go run ./examples/direct [--kubeconfig FILE] [--latency 1.5s] [--keep-running]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/examples/direct/cloudapi"
	"github.com/ctrlkit/ctrlkit/examples/direct/controller"
	"github.com/ctrlkit/ctrlkit/examples/direct/demo"
	"github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/localcluster"
)

//go:embed crds/*.yaml
var crds embed.FS

func main() {
	if flag.Lookup("kubeconfig") == nil { // controller-runtime may have registered it
		flag.String("kubeconfig", "", "a kubeconfig file (default: KUBECONFIG, else a local control plane)")
	}
	latency := flag.Duration("latency", 1500*time.Millisecond, "how long every call to the fake cloud API takes")
	keep := flag.Bool("keep-running", false, "keep the controller running after the script, for edits with kubectl")
	flag.Parse()
	// The script prints what matters: the Ready condition, which carries
	// every error the controller meets.
	log.SetLogger(logr.Discard())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, flag.Lookup("kubeconfig").Value.String(), *latency, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "direct:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig string, latency time.Duration, keep bool) error {
	crdDir, err := writeCRDs()
	if err != nil {
		return err
	}
	defer os.RemoveAll(crdDir)
	cluster, err := localcluster.Connect(ctx, localcluster.Options{Kubeconfig: kubeconfig, CRDDirs: []string{crdDir}})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	cloud, err := cloudapi.NewServer(latency)
	if err != nil {
		return err
	}
	defer cloud.Close()
	fmt.Printf("fake cloud API at %s, %s per call\n", cloud.URL(), latency)

	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cluster.Config, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return err
	}
	r := &controller.Reconciler{
		Client: mgr.GetClient(),
		Cloud:  &cloudapi.Client{BaseURL: cloud.URL(), Project: "demo"},
		Status: directstatus.NewWriter(mgr.GetClient(), directstatus.WithAPIReader(mgr.GetAPIReader())),
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 1)
	go func() { errs <- mgr.Start(ctx) }()

	c, err := client.NewWithWatch(cluster.Config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if err := demo.Run(ctx, demo.Options{Client: c, Cloud: cloud, Out: os.Stdout}); err != nil {
		return err
	}
	if keep {
		fmt.Println("\nThe controller keeps running; edit with: kubectl edit dataset orders. Ctrl-C stops it.")
		<-ctx.Done()
	}
	cancel()
	return <-errs
}

// writeCRDs writes the embedded CRDs to a new temporary directory.
func writeCRDs() (string, error) {
	dir, err := os.MkdirTemp("", "ctrlkit-direct-crds-")
	if err != nil {
		return "", err
	}
	files, _ := fs.Glob(crds, "crds/*.yaml")
	for _, f := range files {
		b, _ := crds.ReadFile(f)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o600); err != nil {
			return "", err
		}
	}
	return dir, nil
}
