// Package examples is the home of ctrlkit's reference controllers: small main
// packages, one folder each, that wire the library packages into
// controller-runtime managers the way a provider or a control plane core would.
// Each runs against --kubeconfig / KUBECONFIG when given, and otherwise starts a
// local control plane (internal/localcluster) and prints how to point kubectl
// at it. Each installs the CRDs built into its binary (the crds packages beside
// the API packages embed them), so it runs from any directory; --crds DIR
// installs others. What the commands share (flags, signals, the cluster, the
// manager) is in examples/internal/run; each main.go says what is its own.
//
//   - examples/tour: every controller below in one manager, playing each
//     package's scenario with a live condition timeline (make demo).
//   - examples/cluster: a local control plane and nothing else (make cluster).
//   - examples/nop: a provider serving NopResource and ClusterNopResource
//     (package nop); applies the provider-nop design's sample and prints each
//     transition with its lateness against the schedule.
//   - examples/composite: a control plane core with a claim and a composite
//     resource, running an in-process function whose results (package results)
//     set conditions that propagate to the claim (package conditions).
//   - examples/direct: a direct controller for a Dataset backed by a fake
//     cloud API on loopback, showing Updating / UpToDate / UpdateFailure
//     (package directstatus).
//   - examples/healthscope: OAM scopes: an application whose workloads are
//     patched into a HealthScope at its declared path (package scopes).
//   - examples/extref: a Subnet that takes values from a VPC object and a
//     ConfigMap through generic references (package extref).
package examples
