// Package v1alpha1 is a small API, group test.ctrlkit.dev, that the test
// harness installs to prove it runs against a real API server: a Widget with a
// spec, a status subresource and a structural schema the server prunes by.
// It also exercises the generation pipeline (CRD and deepcopy from
// controller-gen).
//
// +kubebuilder:object:generate=true
// +groupName=test.ctrlkit.dev
package v1alpha1
