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
// earlier one in the list on ties, as in provider-nop). Ready (Unknown,
// AwaitingSchedule) and Synced (True) are there from the first status write.
// The reconciler requeues at each deadline, writes the status only when it
// changed (a settled resource takes no write), and never writes the spec. A
// scheduled condition's lastTransitionTime is its deadline. Every condition
// carries the observedGeneration, so `kubectl wait --for=condition=Ready`
// works.
//
// # Invalid input, deletion, pausing, connection details, clock skew
//
// A spec the CRD would refuse (more than 100 entries, a bad time, status,
// type, reason or message) makes the resource Stalled=True, Synced=False,
// Ready=False with reason InvalidSpec, a message naming the field, a Warning
// event and an error wrapping ErrInvalidSpec. Every resource carries the
// finalizer nop.ctrlkit.dev/finalizer; deletion is held for deleteAfter and
// fails while deleteError is set. crossplane.io/paused: "true" pauses a
// resource (Synced=False, ReconcilePaused; nothing else is written).
// connectionDetails go to the Secret in writeConnectionSecretToRef, which the
// resource must control. With the real clock, transitions land by the API
// server's clock, learned from the reconciler's own status writes (never
// before the deadline). The details are in docs/design/nop.md.
//
// Limits:
//
//   - a status over MaxStatusBytes (512 KiB) as JSON is Stalled (StatusTooLarge).
//   - connection details over MaxSecretBytes (1 MiB) of values are InvalidSpec.
//   - a transient Secret failure is retried after 10 s, doubling, at most every 5 minutes.
//   - a cache behind the reconciler's last write is waited for at most 1 s; then the object is read from the API server until the cache catches up.
//
// Metrics, in controller-runtime's registry: ctrlkit_nop_* by kind (each
// transition's lateness, the transitions, the status writes by result) and
// crossplane-runtime's crossplane_managed_resource_* by gvk; docs/guide.md.
//
// docs/design/nop.md has the full spec, permissions and the porting table.
package nop
