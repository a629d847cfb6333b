// Package nop is a managed resource that orchestrates nothing: the
// NopResource API (group nop.ctrlkit.dev, package v1alpha1, CRDs in nop/crds)
// and its reconciler, whose status conditions follow the schedule in
// spec.forProvider.conditionAfter, exact to the deadline. It lets you test a
// control plane (Crossplane compositions, OAM/KubeVela, anything that waits
// on conditions) without a cloud. It implements the provider-nop design and
// its Future Plans.
//
// A provider embeds the controllers in its manager (see examples/nop for a
// runnable one):
//
//	scheme := runtime.NewScheme()
//	_ = v1alpha1.AddToScheme(scheme)
//	mgr, _ := manager.New(cfg, manager.Options{Scheme: scheme})
//	err := nop.Setup(mgr, nop.Options{MaxConcurrentReconciles: 10})
//
// and a test asks for a resource that becomes Ready after three seconds:
//
//	apiVersion: nop.ctrlkit.dev/v1alpha1
//	kind: NopResource                  # or ClusterNopResource
//	metadata:
//	  name: example
//	spec:
//	  forProvider:
//	    conditionAfter:
//	      - {time: 0s, conditionType: Ready, conditionStatus: "False"}
//	      - {time: 3s, conditionType: Ready, conditionStatus: "True"}
//	    fields: {anything: [1, 2]}     # mirrored to status.atProvider.fields
//	    patchReceiverField: value      # mirrored to status.atProvider
//	    observableArrays: [a, b]       # mirrored to status.atProvider
//	    connectionDetails: [{name: password, value: s3cr3t}]
//	    deleteAfter: 10s               # hold deletion this long
//	    deleteError: "the cloud says no"  # fail deletion while set
//	  writeConnectionSecretToRef: {name: example-conn}
//	  deletionPolicy: Delete           # Orphan: release at once when deleted
//	  managementPolicies: ["*"]        # without * or Delete: the same
//	  providerConfigRef: {name: default}   # accepted, ignored
//
// Every field of a Crossplane managed resource's spec is accepted, so that
// provider-nop's manifests run with apiVersion (and, for provider-nop's
// cluster-scoped NopResource, kind: ClusterNopResource) changed; see
// docs/design/nop.md for the porting table.
//
// `kubectl wait --for=condition=Ready nopresource/example` works: every
// condition, and the status, carry the observedGeneration, and both move
// together in one status write.
//
// # The schedule
//
// The age of a resource is measured from its metadata.creationTimestamp
// (which the API server keeps to the second) by the reconciler's clock
// (Options.Clock). An entry is due once the age reaches its time. For each
// condition type the due entry with the greatest time is applied; on equal
// times the later entry in the list wins. The list need not be sorted.
// Ready and Synced are there from the first status write: until an entry
// sets it, Ready is Unknown with reason AwaitingSchedule (its message names
// the entry that will set it) and Synced is True with reason
// ReconcileSuccess, as on a Crossplane managed resource. Any other type that
// no due entry names is not in the status: before its first deadline, and
// after its entries are removed from the spec (provider-nop leaves such
// conditions forever). A condition keeps its place in status.conditions once
// it is there, and a new one is appended. The spec is never written.
//
// The reconciler requeues each resource at the moment its next entry falls
// due (RequeueAfter), so a transition lands when it is due plus the time of one
// status write, not up to a poll interval later; nothing polls unless
// Options.PollInterval asks for a safety net. The status is written only when
// it changed: reconciling a settled resource writes nothing.
//
// A scheduled condition's lastTransitionTime, when its status changes, is its
// deadline (creation + time, to the second), even when it is applied late,
// e.g. by a controller that was down: the status says when the schedule
// changed, and a restarted controller computes the same status. When the
// condition it replaces began after that deadline (an override such as
// InvalidSpec that has ended), the time of the change is used instead.
//
// # Valid and invalid input
//
// The CRD refuses, at admission, and the reconciler refuses again (for objects
// that bypassed the CRD's validation):
//
//   - time and deleteAfter: a Go duration of numbers with units ns, us (µs),
//     ms, s, m, h, or "0": "5s", "1m30s", "1.5h", "500ms". Refused: a sign
//     ("-5s", "+5s"), a missing unit ("5"), an empty string, a duration beyond
//     Go's range (about 290 years);
//   - conditionStatus: True, False or Unknown (case-sensitive);
//   - conditionType: a condition type the API server accepts ("Ready",
//     "example.org/Healthy"; the name part at most 63 characters);
//   - conditionReason (default Scheduled) and conditionMessage (default: a
//     message naming the entry): what metav1.Condition accepts;
//   - deletionPolicy: Delete or Orphan; managementPolicies: Observe, Create,
//     Update, Delete, LateInitialize or *;
//   - writeConnectionSecretToRef.namespace: required for a
//     ClusterNopResource; for a NopResource it defaults to, and must be, the
//     resource's own namespace (checked by the ValidatingAdmissionPolicy in
//     nop/crds, Kubernetes 1.30 and later).
//
// On a bad value the reconciler sets Stalled=True, Synced=False and
// Ready=False, all with reason InvalidSpec and a message naming the field
// and the entry's index, e.g. `spec.forProvider.conditionAfter[2].time:
// cannot parse "5x" as a Go duration such as "5s" or "1m30s": unknown unit
// "x"`, records a Warning event, and leaves the schedule's other conditions
// as they were until the spec is fixed. The error wraps ErrInvalidSpec.
//
// Conditions the reconciler sets itself take precedence over the schedule's
// for their type: Stalled, Synced=False and Ready=False for InvalidSpec,
// StatusTooLarge and DeleteFailed; Synced=False for ConnectionSecretFailed;
// Ready=False (reason Deleting) while deleting. When they end, Stalled is
// removed and the schedule's conditions return. While Ready is Unknown
// (awaiting the schedule), Reconciling=True says so with the same reason, as
// Flux's checker and kstatus expect; it goes when Ready is True or False.
//
// Limit: a status may take at most MaxStatusBytes (512 KiB) as JSON at any
// time of its schedule; a spec that needs more, or whose object the API
// server refuses as too large, makes the resource Stalled with reason
// StatusTooLarge and a status of a few hundred bytes, and the reconciler
// leaves it alone until its spec changes.
//
// # Deletion
//
// Every resource carries the finalizer nop.ctrlkit.dev/finalizer from its
// first reconcile, as a managed resource does. Once deleted, it shows
// Ready=False with reason Deleting (the schedule goes on for other types):
// until deleteAfter has passed since its metadata.deletionTimestamp; then,
// while deleteError is set, deletion fails: Stalled=True and Synced=False
// with reason DeleteFailed and the message, and a Warning event. When
// neither holds it, or spec.deletionPolicy is Orphan, or
// spec.managementPolicies allow neither * nor Delete, the reconciler writes
// Ready=False (Deleting) and removes the finalizer in the same reconcile, so
// a watcher sees Deleting before the resource goes.
//
// # Connection details
//
// spec.forProvider.connectionDetails are written to the Secret named by
// spec.writeConnectionSecretToRef (type connection.crossplane.io/v1alpha1),
// controlled by the resource so that the garbage collector deletes it with
// the resource. Its data is exactly the connection details; it is read from
// the API server (no Secret informer, so the provider needs no cluster-wide
// watch on Secrets) and written only when it differs. A Secret that exists and
// is not controlled by the resource is left alone: Synced=False with reason
// ConnectionSecretFailed, a Warning event, and a retry every ten seconds that
// keeps the schedule's deadlines. spec.publishConnectionDetailsTo is accepted
// and not acted on; the default Synced=True says so in its message.
//
// # Observability
//
// The controllers are named nop-NopResource and nop-ClusterNopResource, so
// controller-runtime's metrics (reconcile counts, errors and durations, work
// queue depth and latency) are served per kind on the manager's metrics
// endpoint. The reconciler logs with the logr logger of its context
// (status writes at V(1)). Options.OnTransition is called for each
// scheduled transition that lands, with its deadline and its lateness.
//
// # Permissions
//
// The provider's service account needs get, list, watch, update and patch on
// nopresources and clusternopresources (nop.ctrlkit.dev), update on their
// status, get, create and update on secrets where connection Secrets are
// written, and create and patch on events (events.k8s.io).
//
// # Decisions
//
// Where the design left room, and where nop differs from provider-nop, the
// package decided as docs/design/nop.md records. In short: requeue at each
// deadline instead of polling; lastTransitionTime is the deadline; the first
// status write waits up to a second for an entry due by then (one write per
// transition); status writes send the status alone; a cache entry older than
// the reconciler's own last write is skipped; durations are strings, so a
// bad value cannot make an object undecodable; the package imports
// controller-runtime's sub-packages, not its root package, whose init
// registers a global --kubeconfig flag in every binary.
//
// # Performance
//
// One status write per transition and no request once the schedule is over;
// BenchmarkAPIServer measures the lateness against a real API server, next to
// provider-nop's polling (figures in docs/benchmarks.md).
package nop
