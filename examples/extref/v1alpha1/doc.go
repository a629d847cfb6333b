// Package v1alpha1 is the example.extref.ctrlkit.dev/v1alpha1 API of the
// extref example: VPC and Subnet, cluster-scoped managed resources shaped
// like a Crossplane provider's. A Subnet embeds spec.externalValues (package
// extref/v1alpha1) to take its CIDR block and VPC ID from a VPC, its region
// from a ConfigMap, an ARN built from a ConfigMap and a Secret, and a
// database password that its controller uses but never writes.
//
// The controllers live in examples/extref/controller; the CRDs generated
// from these types are in examples/extref/crds.
//
// +kubebuilder:object:generate=true
// +groupName=example.extref.ctrlkit.dev
package v1alpha1
