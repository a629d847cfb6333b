// Package v1alpha1 is the example.ctrlkit.dev/v1alpha1 API of the composite
// example: App, a namespaced claim that asks for an application (an image
// to deploy, an existing database to use), and XApp, the cluster-scoped
// composite resource (XR) that the claim controller creates for it and the
// XR controller composes with an in-process function pipeline.
//
// The controllers live in examples/composite/core; the CRDs generated from
// these types are in examples/composite/crds.
//
// +kubebuilder:object:generate=true
// +groupName=example.ctrlkit.dev
package v1alpha1
