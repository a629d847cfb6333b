package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of App and XApp.
var GroupVersion = schema.GroupVersion{Group: "example.ctrlkit.dev", Version: "v1alpha1"}

// Kinds, for unstructured objects.
var (
	AppKind  = GroupVersion.WithKind("App")
	XAppKind = GroupVersion.WithKind("XApp")
)

// AppParameters are what a user asks for, on the claim and on its XR.
type AppParameters struct {
	// Database identifies an existing database the application uses.
	// +kubebuilder:validation:MinLength=1
	Database string `json:"database"`

	// Image is the container image to deploy.
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`
}

// AppSpec is what an App claim asks for.
type AppSpec struct {
	AppParameters `json:",inline"`
}

// AppStatus is what was observed of an App claim.
type AppStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	// +kubebuilder:default=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions of the claim: Ready and Synced, set by the claim
	// controller, and those its composite resource lists in
	// status.claimConditions.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ClaimConditions are the condition types propagated from the composite
	// resource, so that they can be removed when it stops listing them.
	// +optional
	ClaimConditions []string `json:"claimConditions,omitempty"`

	// CompositeName is the name of the XApp that serves this claim.
	// +optional
	CompositeName string `json:"compositeName,omitempty"`
}

// An App is a claim for an application: a deployment of an image,
// authenticated to an existing database.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=ctrlkit-example
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="SYNCED",type=string,JSONPath=`.status.conditions[?(@.type=='Synced')].status`
// +kubebuilder:printcolumn:name="COMPOSITE",type=string,JSONPath=`.status.compositeName`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type App struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AppSpec `json:"spec"`
	// +kubebuilder:default={}
	Status AppStatus `json:"status,omitempty"`
}

// AppList is a list of Apps.
//
// +kubebuilder:object:root=true
type AppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []App `json:"items"`
}

// ClaimReference names the claim an XApp serves.
type ClaimReference struct {
	// Namespace of the claim.
	Namespace string `json:"namespace"`
	// Name of the claim.
	Name string `json:"name"`
}

// XAppSpec is what an XApp composes.
type XAppSpec struct {
	AppParameters `json:",inline"`

	// ClaimRef names the claim this XApp serves, if any.
	// +optional
	ClaimRef *ClaimReference `json:"claimRef,omitempty"`
}

// XAppStatus is what was observed of an XApp.
type XAppStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	// +kubebuilder:default=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions of the XApp: Ready and Synced, set by the XR controller,
	// and those the function pipeline's results set.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ClaimConditions are the condition types to show on the claim too.
	// +optional
	ClaimConditions []string `json:"claimConditions,omitempty"`

	// ResultConditions are the condition types the function pipeline's
	// results set on the last run, so that the next run can remove those it
	// no longer sets.
	// +optional
	ResultConditions []string `json:"resultConditions,omitempty"`
}

// An XApp is the composite resource (XR) behind an App claim.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories=ctrlkit-example
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="SYNCED",type=string,JSONPath=`.status.conditions[?(@.type=='Synced')].status`
// +kubebuilder:printcolumn:name="CLAIM",type=string,JSONPath=`.spec.claimRef.name`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type XApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec XAppSpec `json:"spec"`
	// +kubebuilder:default={}
	Status XAppStatus `json:"status,omitempty"`
}

// XAppList is a list of XApps.
//
// +kubebuilder:object:root=true
type XAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []XApp `json:"items"`
}

// AddToScheme adds App and XApp to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &App{}, &AppList{}, &XApp{}, &XAppList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
