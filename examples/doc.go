// Package examples is the home of ctrlkit's reference controllers: small main
// packages, one folder each, that wire the library packages into
// controller-runtime managers the way a provider or a control plane core would.
// They run against --kubeconfig / KUBECONFIG when given, and otherwise start a
// local control plane (internal/localcluster).
//
//   - examples/cluster: a local control plane and nothing else, for kubectl
//     (make cluster).
package examples
