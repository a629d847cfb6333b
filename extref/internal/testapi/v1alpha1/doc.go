// Package v1alpha1 is the extref.test.ctrlkit.dev API that extref's tests
// install into a real API server: Widget (namespaced) and ClusterWidget
// (cluster-scoped) referencers that embed spec.externalValues, and VPC, a
// cluster-scoped source shaped like a Crossplane managed resource.
//
// +kubebuilder:object:generate=true
// +groupName=extref.test.ctrlkit.dev
package v1alpha1
