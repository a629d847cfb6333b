// Package core is a small control plane core, the reference for package
// results: the controllers of the composite example's App claims and their
// XApp composite resources (XRs), shaped like Crossplane's.
//
//   - The claim controller (ClaimReconciler) creates the XApp of each App
//     (named namespace-name; cluster-scoped, so the claim holds a finalizer
//     that deletes it), keeps its spec in step with the claim's, and shows the
//     XApp's conditions on the claim with conditions.Propagate: the types the
//     XApp lists in status.claimConditions, plus Ready (mirrored from the
//     XApp's, or False/Waiting before it has one) and Synced (its own). An
//     XApp whose Synced is False shows on the claim as CompositeSynced
//     (conditions.PropagateSynced), with Ready False and Stalled True, in
//     words written for the claim, never the XApp's message; Healthy sums up
//     the claim's Synced, CompositeSynced and the XApp's Healthy.
//   - The XR controller (CompositeReconciler) runs a Pipeline of in-process
//     Functions for each XApp, applies their results with results.Applier
//     (events, conditions, claimConditions, ownership, fatal semantics; the
//     claim's status too, when the results change it), sets Synced, Ready
//     as the summary of the conditions the results set (False whenever
//     Synced is, with Stalled), and Healthy (conditions.Health, from Synced,
//     those conditions and the composed resources the functions mark ready).
//     When the run was not fatal it creates, updates and deletes the
//     composed resources the pipeline wants (Deployments by default), owned
//     by the XApp. It shows Synced on the claim in the same reconcile.
//
// Both write an object only when it changed: a settled XApp and claim take no
// write at all (the tests count the HTTP requests). A write that meets a
// conflict is dropped without an error: the object changed since it was read,
// the watch event of that change queues the reconcile again, and it runs on
// the new version, so nothing is lost. The XR controller reconciles every XApp
// again after Options.PollInterval, because its function consults systems
// outside the cluster that cannot be watched.
//
// Package function holds the fn-claim-conditions design's example function;
// package demo drives a claim through that design's scenarios for
// `go run ./examples/composite`.
package core
