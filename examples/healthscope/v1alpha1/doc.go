// Package v1alpha1 is the healthscope.example.ctrlkit.dev/v1alpha1 API of the
// healthscope example: compatible subsets of OAM's ScopeDefinition and
// WorkloadDefinition (cluster-scoped, named `<plural>.<group>` of the kind
// they define), a HealthScope that takes workload references at
// spec.workloadRefs and reports their health, and an Application whose
// components are workloads placed into scopes.
//
// The kinds live in this example's own group rather than OAM's core.oam.dev,
// so that running the example against a cluster with OAM or KubeVela
// installed never replaces their CRDs. The controllers live in
// examples/healthscope/controllers; the CRDs generated from these types are
// in examples/healthscope/crds.
//
// +kubebuilder:object:generate=true
// +groupName=healthscope.example.ctrlkit.dev
package v1alpha1
