// Package v1alpha1 is the late.extref.test.ctrlkit.dev API: a Gadget source
// whose CRD extref's tests install only after a referencer names it, to
// prove that the RESTMapper is refreshed.
//
// +kubebuilder:object:generate=true
// +groupName=late.extref.test.ctrlkit.dev
package v1alpha1
