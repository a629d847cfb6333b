// Package run is the main function shared by the example commands, so that
// each example's main.go says only what is particular to it: its CRDs, its
// kinds, its controllers, its flags and what it does once they run.
//
// Main parses the flags, connects to the cluster named by --kubeconfig or
// KUBECONFIG or starts a local control plane (package localcluster), installs
// the example's CRDs from the binary, starts a controller-runtime manager with
// the example's controllers, calls Example.Run, and stops everything when Run
// returns (with KeepRunning, when the process is interrupted after that) or
// the process is interrupted:
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
//			KeepRunning: "\nPress Ctrl-C to stop; meanwhile try kubectl get vpcs,subnets.",
//		})
//	}
//
// Flags every example gets, those of a kubebuilder-scaffolded provider:
//
//   - --kubeconfig FILE: the cluster to use (default: KUBECONFIG, else, in a
//     pod, its own cluster through its ServiceAccount, with the CRDs left to
//     the manifests, else a local control plane, whose kubeconfig is printed
//     for kubectl);
//   - --crds DIR: install the CRD manifests in DIR instead of the ones
//     embedded in the binary (not for an example that sets CRDDirs);
//   - --metrics-bind-address, --health-probe-bind-address (/healthz, and
//     /readyz, which fails until the manager's caches have synced; both "0",
//     off, by default);
//   - --leader-elect, --leader-election-namespace (default "default"),
//     --leader-election-id (default LeaderElectionID); with --leader-elect,
//     Run (the example's set-up and demo) starts only once the replica is
//     elected, so a standby never changes what the leader's demo created;
//     a stopped leader releases its Lease once its controllers have stopped
//     (tens of milliseconds), and the release is not logged as an error;
//   - --concurrency (default 1; an example may declare its own);
//   - controller-runtime's --zap-* flags; without any, warnings and errors go
//     to stderr (nothing when Quiet).
//
// Examples declare their own flags with package flag before calling Main.
// Main prints which API server it uses and why (--kubeconfig, KUBECONFIG or
// a local control plane) before it installs anything; each API call while
// connecting and installing CRDs is bounded (localcluster.DefaultTimeout), so
// a server that never answers is an error naming it.
//
// An example's objects (Example.Objects, package examples/internal/owned) are
// labelled app.kubernetes.io/created-by=ctrlkit-<name> as its script and its
// controllers create them. Before Run, Main deletes those an earlier run
// left; after Run, unless --keep-running, it deletes the run's own, kind after
// kind, while the controllers run and remove their finalizers, and waits until
// they are gone (at most a minute). With --keep-running the objects stay for
// kubectl, and once the controllers have stopped Main removes their
// finalizers (not with --leader-elect: another replica may lead), so that no
// deletion waits for a controller that no longer runs. A reconcile cut short
// by a clean stop (its error wraps context.Canceled) is not logged as an
// error.
//
// An interrupt (SIGINT, SIGTERM) after start-up ends an example normally:
// Main says what it stopped and exits 0. An interrupt during start-up
// (connecting, installing CRDs) exits 1. Any other error is printed as
// "<name>: <error>" and Main exits 1.
//
// Decisions: the manager's cache drops managedFields
// (cache.TransformStripManagedFields), which no example reads, and keeps the
// last-applied-configuration annotation, which an update sent from a cached
// object would otherwise delete; the CRDs come from the binary (go:embed), so that an example
// runs from any directory and with go run <module>/examples/<name>@<version>;
// the manager's own client is cached, so Env.Client, an uncached client, is
// what a demo script uses to read what it just wrote; a kubeconfig without a
// QPS gets -1, as from controller-runtime's config.GetConfig, so that the API
// server's priority and fairness, not client-side throttling, paces the
// examples; the controllers use controller-runtime's priority queue only from
// v0.25.0, the first release whose queue cannot keep a worker blocked on
// shutdown (before it a stop could wait out the 30 s grace period while the
// leader kept renewing its Lease).
package run
