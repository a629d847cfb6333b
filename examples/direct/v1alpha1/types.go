package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of the example's types.
var GroupVersion = schema.GroupVersion{Group: "examples.ctrlkit.dev", Version: "v1alpha1"}

// DatasetSpec is the dataset the cloud should have. Its fields carry the
// cloud API's JSON names, so a difference found between the desired and the
// actual cloud resource is named by its path in this spec.
type DatasetSpec struct {
	// Description is a free-form description.
	// +optional
	Description string `json:"description,omitempty"`

	// Labels of the dataset.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Location where the dataset lives. The cloud cannot change it after
	// creation: an edit is reported as an update failure.
	// +optional
	Location string `json:"location,omitempty"`

	// DefaultTableExpirationMs is the default lifetime of the dataset's
	// tables, in milliseconds.
	// +optional
	// +kubebuilder:validation:Minimum=0
	DefaultTableExpirationMs *int64 `json:"defaultTableExpirationMs,omitempty"`

	// Access grants roles on the dataset.
	// +optional
	Access []Access `json:"access,omitempty"`
}

// Access grants a role to a user.
type Access struct {
	// Role, e.g. READER or WRITER.
	Role string `json:"role"`
	// UserByEmail is the user's e-mail address.
	UserByEmail string `json:"userByEmail"`
}

// DatasetStatus is what the controller last observed.
type DatasetStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	// +kubebuilder:default=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions of the Dataset. Ready says whether the cloud dataset matches
	// the spec, and while an update runs, which field triggered it.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// A Dataset is a dataset in the example's fake cloud, managed directly
// through its API.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=ctrlkit-examples
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Dataset struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DatasetSpec `json:"spec,omitempty"`
	// +kubebuilder:default={}
	Status DatasetStatus `json:"status,omitempty"`
}

// DatasetList is a list of Datasets.
//
// +kubebuilder:object:root=true
type DatasetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Dataset `json:"items"`
}

// AddToScheme adds the Dataset types to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Dataset{}, &DatasetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
