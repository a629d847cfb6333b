// Package nop is a managed resource that orchestrates nothing: the
// NopResource API (group nop.ctrlkit.dev, package v1alpha1, CRDs in nop/crds)
// and its reconciler, whose status conditions follow the schedule in
// spec.forProvider.conditionAfter, on time. It tests a control plane
// (Crossplane compositions, OAM/KubeVela, anything that waits on conditions)
// without a cloud; provider-nop's manifests run with apiVersion changed.
//
//	scheme := runtime.NewScheme()
//	_ = v1alpha1.AddToScheme(scheme) // github.com/ctrlkit/ctrlkit/nop/v1alpha1
//	mgr, err := manager.New(cfg, manager.Options{Scheme: scheme})
//	if err != nil {
//		return err
//	}
//	if err := nop.Setup(mgr, nop.Options{MaxConcurrentReconciles: 10}); err != nil {
//		return err
//	}
//	return mgr.Start(ctx)
//
// A resource that becomes Ready after three seconds:
//
//	apiVersion: nop.ctrlkit.dev/v1alpha1
//	kind: NopResource                  # or ClusterNopResource
//	metadata: {name: example}
//	spec:
//	  forProvider:
//	    conditionAfter:
//	      - {time: 3s, conditionType: Ready, conditionStatus: "True"}
//
// # The schedule
//
// An entry is due once the age since metadata.creationTimestamp reaches its
// time; per condition type the due entry with the greatest time wins (the
// earlier one in the list on ties, as in provider-nop). Ready (Unknown, AwaitingSchedule) and Synced (True)
// are there from the first status write. The reconciler requeues at each
// deadline, writes the status only when it changed (a settled resource takes
// no write), and never writes the spec. A scheduled condition's
// lastTransitionTime is its deadline. Every condition carries the
// observedGeneration, so `kubectl wait --for=condition=Ready` works.
//
// # Invalid input
//
// The CRD refuses, and the reconciler refuses again, more than 100
// conditionAfter entries, a time or deleteAfter that is not an unsigned Go
// duration with units ("5s", "1m30s") or "0", a conditionStatus other than
// True, False or Unknown, and a conditionType, reason or message
// metav1.Condition would not take. A bad value makes the
// resource Stalled=True, Synced=False, Ready=False with reason InvalidSpec
// and a message naming the field, a Warning event, and an error wrapping
// ErrInvalidSpec; the other scheduled conditions stay until the spec is fixed.
//
// # Deletion and connection details
//
// Every resource carries the finalizer nop.ctrlkit.dev/finalizer. Deletion
// shows Ready=False (Deleting), is held for deleteAfter and fails while
// deleteError is set (Stalled, DeleteFailed). connectionDetails are written
// to the Secret in writeConnectionSecretToRef, controlled by the resource,
// only when they differ; a Secret the resource does not control is left
// alone (Synced=False, ConnectionSecretFailed).
//
// A Secret failure that only a change can fix waits for a change of the spec
// or the Secret; other failures are retried with back-off.
//
// # Clock skew
//
// Deadlines are on the API server's clock (creationTimestamp). With the real
// clock (Options.Clock nil) the reconciler learns the offset between its own
// clock and the server's from its status writes, whose responses carry the
// second at which the server applied them: once the writes prove the local
// clock wrong, transitions land by the server's time, never before their
// deadline and at most the measurement's width after it (under a second after
// the first write, tens of milliseconds after a few dozen). Until the first
// write of a kind after start, the local clock is trusted. An injected
// Options.Clock is used as it is.
//
// Limits:
//
//   - a status over MaxStatusBytes (512 KiB) as JSON is Stalled (StatusTooLarge).
//   - connection details over MaxSecretBytes (1 MiB) of values are InvalidSpec.
//   - a transient Secret failure is retried after 10 s, doubling, at most every 5 minutes.
//   - a cache behind the reconciler's last write is waited for at most 1 s; then the object is read from the API server until the cache catches up.
//
// Metrics (controller-runtime's registry, label kind): the lateness of each
// transition (ctrlkit_nop_transition_lateness_seconds), the transitions
// (ctrlkit_nop_transitions_total) and the status writes by result
// (ctrlkit_nop_status_writes_total); docs/guide.md lists them.
//
// docs/design/nop.md has the full spec, permissions and the porting table.
package nop
