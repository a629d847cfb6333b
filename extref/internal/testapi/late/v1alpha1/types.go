package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of Gadget.
var GroupVersion = schema.GroupVersion{Group: "late.extref.test.ctrlkit.dev", Version: "v1alpha1"}

// GadgetSpec is what a Gadget holds.
type GadgetSpec struct {
	// +optional
	Region string `json:"region,omitempty"`
}

// A Gadget is a namespaced source whose CRD is installed late.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec,omitempty"`
}

// GadgetList is a list of Gadgets.
//
// +kubebuilder:object:root=true
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}
