package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	extv1alpha1 "github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// GroupVersion is the API group and version of the test types.
var GroupVersion = schema.GroupVersion{Group: "extref.test.ctrlkit.dev", Version: "v1alpha1"}

// Kinds, for unstructured objects.
var (
	WidgetKind        = GroupVersion.WithKind("Widget")
	ClusterWidgetKind = GroupVersion.WithKind("ClusterWidget")
	VPCKind           = GroupVersion.WithKind("VPC")
)

// WidgetSpec is what a Widget or a ClusterWidget asks for.
type WidgetSpec struct {
	// ExternalValues take values from fields of other objects into this
	// object's spec, or hand them to its controller; see
	// https://pkg.go.dev/github.com/ctrlkit/ctrlkit/extref.
	// +optional
	ExternalValues []extv1alpha1.ExternalValue `json:"externalValues,omitempty"`

	// CIDRBlock of the widget's network.
	// +optional
	CIDRBlock string `json:"cidrBlock,omitempty"`

	// ForProvider are the widget's parameters.
	// +optional
	ForProvider WidgetParameters `json:"forProvider,omitempty"`
}

// WidgetParameters are a widget's parameters.
type WidgetParameters struct {
	// +optional
	Region string `json:"region,omitempty"`
	// +optional
	DirectoryARN string `json:"directoryArn,omitempty"`
	// +optional
	Size *int64 `json:"size,omitempty"`
	// +optional
	Tags map[string]string `json:"tags,omitempty"`
}

// WidgetStatus is what was observed of a widget.
type WidgetStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// A Widget is a namespaced referencer.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// GetConditions returns the widget's conditions.
func (w *Widget) GetConditions() []metav1.Condition { return w.Status.Conditions }

// SetConditions sets the widget's conditions.
func (w *Widget) SetConditions(c []metav1.Condition) { w.Status.Conditions = c }

// WidgetList is a list of Widgets.
//
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// A ClusterWidget is a cluster-scoped referencer.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster
type ClusterWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// ClusterWidgetList is a list of ClusterWidgets.
//
// +kubebuilder:object:root=true
type ClusterWidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterWidget `json:"items"`
}

// VPCParameters are a VPC's parameters.
type VPCParameters struct {
	// +optional
	CIDRBlock string `json:"cidrBlock,omitempty"`
}

// VPCSpec is what a VPC asks for.
type VPCSpec struct {
	// +optional
	ForProvider VPCParameters `json:"forProvider,omitempty"`
}

// A VPC is a cluster-scoped source, shaped like a managed resource.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type VPC struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec VPCSpec `json:"spec,omitempty"`
}

// VPCList is a list of VPCs.
//
// +kubebuilder:object:root=true
type VPCList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VPC `json:"items"`
}

// AddToScheme adds the test types to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{}, &ClusterWidget{}, &ClusterWidgetList{}, &VPC{}, &VPCList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
