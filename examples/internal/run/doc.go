// Package run is the main function shared by the example commands, so that
// each example's main.go says only what is particular to it: its CRDs, its
// kinds, its controllers, its flags and what it does once they run.
//
// Main parses the flags, connects to the cluster named by --kubeconfig or
// KUBECONFIG or starts a local control plane (package localcluster), installs
// the example's CRDs from the binary, starts a controller-runtime manager with
// the example's controllers, calls Example.Run, and stops everything when Run
// returns or the process is interrupted:
//
//	func main() {
//		run.Main(run.Example{
//			Name:        "extref",
//			CRDs:        []fs.FS{crds.FS},
//			AddToScheme: v1alpha1.AddToScheme,
//			Setup:       func(mgr manager.Manager) error { return controller.Setup(mgr, controller.Options{}) },
//			Run: func(ctx context.Context, e run.Env) error {
//				return demo.Run(ctx, e.Client, os.Stdout)
//			},
//		})
//	}
//
// Flags every example gets:
//
//   - --kubeconfig FILE: the cluster to use (default: KUBECONFIG, else a local
//     control plane, whose kubeconfig is printed for kubectl);
//   - --crds DIR: install the CRD manifests in DIR instead of the ones
//     embedded in the binary (not for an example that sets CRDDirs).
//
// An example that sets LeaderElectionID also gets --leader-elect,
// --leader-election-namespace (default "default") and --metrics-bind-address
// (default "0", off); the others run with metrics off and no leader election.
// Examples declare their own flags with package flag before calling Main.
//
// An interrupt (SIGINT, SIGTERM) ends an example normally: Main exits 0 when
// Run returns context.Canceled. Any other error is printed as "<name>: <error>"
// and Main exits 1. Controller-runtime logs warnings and errors to stderr,
// unless Quiet discards them.
//
// Decisions: the CRDs come from the binary (go:embed), so that an example
// runs from any directory and with go run <module>/examples/<name>@<version>;
// the manager's own client is cached, so Env.Client, an uncached client, is
// what a demo script uses to read what it just wrote; a kubeconfig without a
// QPS gets -1, as from controller-runtime's config.GetConfig, so that the API
// server's priority and fairness, not client-side throttling, paces the
// examples.
package run
