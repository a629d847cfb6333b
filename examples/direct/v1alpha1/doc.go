// Package v1alpha1 is the API of the direct controller example: a Dataset, a
// Kubernetes object that stands for a dataset in a (fake) cloud API, in the
// style of Config Connector's direct resources.
//
// +kubebuilder:object:generate=true
// +groupName=examples.ctrlkit.dev
package v1alpha1
