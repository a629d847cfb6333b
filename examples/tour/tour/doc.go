// Package tour is the guided tour behind `make demo` (go run ./examples/tour):
// it runs the reference controllers of every example in ONE controller-runtime
// manager and plays five scenarios, one after the other, while a Timeline
// prints each change of a status condition (time, object, condition, status,
// reason, message) as a watch delivers it:
//
//  1. provider-nop (package nop): an XApp composed of three NopResources that
//     each become Ready after 3 s; the XApp is Ready once all three are. The
//     composition is a small function in this package (dispatch, composeNops)
//     run by the composite example's core, which composes NopResources next to
//     Deployments (core.Options.ComposedKinds).
//  2. claim results (packages results, conditions): the composite example's
//     demo (Image Not Found, then Progressing, then Success on the claim), then
//     a claim whose database lookup fails inside the platform: the XR carries
//     the detailed error, the claim the friendly message.
//  3. a health scope (package scopes): the healthscope example's demo; two
//     workloads are patched into the HealthScope at spec.workloadRefs and the
//     scope turns Healthy when their children are ready.
//  4. generic references (package extref): the extref example's demo; the
//     Subnet takes its CIDR from a VPC and its region from a ConfigMap, and
//     follows the ConfigMap when it changes (policy Always).
//  5. a direct resource (package directstatus): the direct example's demo; a
//     spec edit shows Updating with the first field path, then UpToDate; an
//     injected cloud failure shows UpdateFailure.
//
// Each scenario reuses the example's demo package and then checks what the
// timeline saw, or what the objects say, against what the design expects; Run
// returns one Result per scenario and PrintSummary prints them as a table.
//
// Decisions: the scenarios run one after the other, not at once, so that the
// timeline reads as a story; the examples' own narration goes to
// Options.Transcript (--verbose), the timeline to Options.Out. The namespaced
// objects are in the namespace Namespace (ctrlkit-tour), which the tour
// creates, and the examples' in default, so that the tour and the examples
// share a cluster; an XApp is named after its claim with a random suffix. The
// extref scenario's cluster-scoped VPC and Subnet, and its ConfigMap and
// Secrets in crossplane-system, have the extref example's names: the tour and
// that example take turns, each deleting them at its end.
//
// The tour runs again and again in one cluster. Every object it creates, by
// itself or through its controllers, is labelled LabelCreatedBy=CreatedBy
// (app.kubernetes.io/created-by=ctrlkit-tour; package examples/internal/owned,
// which every example uses with its own name), and Run deletes the labelled
// objects that an earlier run left (after --keep-running, or when interrupted) before
// the scenarios, which expect to create their objects, and its own after the
// summary unless Options.Watch keeps them for kubectl. Deleting only the
// scenarios' roots is not enough: a cluster without kube-controller-manager
// has no garbage collector, so the objects owned by a deleted one (a
// composite's Deployment and NopResources, a Deployment's ReplicaSet) would
// stay and confuse the next run; the label finds them too. The deletion runs
// while the controllers run, so that the finalizers of claims, Applications
// and Datasets do their work, and waits until every labelled object is gone.
// Namespaces are labelled but kept: without kube-controller-manager a deleted
// namespace never goes away.
//
// A cluster without kube-controller-manager (a local control plane, make
// cluster's) leaves Deployments unrolled, so there the composite and
// healthscope demos play its part (Options.Simulate), as they do when run
// alone; the tour finds out by itself (run.ControllerManagerRuns), and
// --simulate asks for it on any cluster.
package tour
