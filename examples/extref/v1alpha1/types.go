package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	extv1alpha1 "github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// GroupVersion is the API group and version of VPC and Subnet.
var GroupVersion = schema.GroupVersion{Group: "example.extref.ctrlkit.dev", Version: "v1alpha1"}

// Status is what was observed of a managed resource.
type Status struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	// +kubebuilder:default=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready, and for a Subnet ReferencesResolved.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// VPCParameters configure a VPC.
type VPCParameters struct {
	// CIDRBlock of the VPC, e.g. 10.0.0.0/16.
	// +kubebuilder:validation:MinLength=1
	CIDRBlock string `json:"cidrBlock"`
}

// VPCSpec is what a VPC asks for.
type VPCSpec struct {
	ForProvider VPCParameters `json:"forProvider"`
}

// VPCObservation is what the provider observed of a VPC.
type VPCObservation struct {
	// VPCID is the ID the cloud gave the VPC; it exists only once the VPC
	// was created, which is why a Subnet refers to it instead of naming it.
	// +optional
	VPCID string `json:"vpcId,omitempty"`
}

// VPCStatus is what was observed of a VPC.
type VPCStatus struct {
	Status `json:",inline"`
	// +optional
	AtProvider VPCObservation `json:"atProvider,omitempty"`
}

// A VPC is a virtual network.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories=extref-example
// +kubebuilder:printcolumn:name="CIDR",type=string,JSONPath=`.spec.forProvider.cidrBlock`
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.atProvider.vpcId`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
type VPC struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec VPCSpec `json:"spec"`
	// +kubebuilder:default={}
	Status VPCStatus `json:"status,omitempty"`
}

// GetConditions returns the VPC's conditions.
func (v *VPC) GetConditions() []metav1.Condition { return v.Status.Conditions }

// SetConditions sets the VPC's conditions.
func (v *VPC) SetConditions(c []metav1.Condition) { v.Status.Conditions = c }

// VPCList is a list of VPCs.
//
// +kubebuilder:object:root=true
type VPCList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VPC `json:"items"`
}

// SubnetParameters configure a Subnet. External values usually fill them.
type SubnetParameters struct {
	// Region of the subnet, e.g. us-east-1.
	// +optional
	Region string `json:"region,omitempty"`

	// AvailabilityZone of the subnet, e.g. us-east-1a.
	// +optional
	AvailabilityZone string `json:"availabilityZone,omitempty"`

	// VPCID is the ID of the VPC the subnet belongs to.
	// +optional
	VPCID string `json:"vpcId,omitempty"`

	// DirectoryARN is the ARN of a directory schema the subnet is
	// registered with.
	// +optional
	DirectoryARN string `json:"directoryArn,omitempty"`
}

// SubnetSpec is what a Subnet asks for.
type SubnetSpec struct {
	// ExternalValues take values from other objects into this spec, or
	// hand them to the controller (makeAvailableAs: dbPassword).
	// +optional
	// +kubebuilder:validation:MaxItems=32
	ExternalValues []extv1alpha1.ExternalValue `json:"externalValues,omitempty"`

	// CIDRBlock of the subnet.
	// +optional
	CIDRBlock string `json:"cidrBlock,omitempty"`

	// +optional
	ForProvider SubnetParameters `json:"forProvider,omitempty"`
}

// SubnetObservation is what the provider observed of a Subnet.
type SubnetObservation struct {
	// SubnetID is the ID the cloud gave the subnet.
	// +optional
	SubnetID string `json:"subnetId,omitempty"`

	// CredentialsReceived is true when the controller was handed a
	// database password (an obscure reference). The password, and nothing
	// derived from it (not even a hash, which would let anyone who reads
	// the object test guesses), is never written to the object.
	// +optional
	CredentialsReceived bool `json:"credentialsReceived,omitempty"`
}

// SubnetStatus is what was observed of a Subnet.
type SubnetStatus struct {
	Status `json:",inline"`
	// +optional
	AtProvider SubnetObservation `json:"atProvider,omitempty"`
}

// A Subnet is a range of a VPC's addresses.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories=extref-example
// +kubebuilder:printcolumn:name="CIDR",type=string,JSONPath=`.spec.cidrBlock`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.forProvider.region`
// +kubebuilder:printcolumn:name="Resolved",type=string,JSONPath=`.status.conditions[?(@.type=="ReferencesResolved")].status`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
type Subnet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SubnetSpec `json:"spec,omitempty"`
	// +kubebuilder:default={}
	Status SubnetStatus `json:"status,omitempty"`
}

// GetConditions returns the Subnet's conditions.
func (s *Subnet) GetConditions() []metav1.Condition { return s.Status.Conditions }

// SetConditions sets the Subnet's conditions.
func (s *Subnet) SetConditions(c []metav1.Condition) { s.Status.Conditions = c }

// SubnetList is a list of Subnets.
//
// +kubebuilder:object:root=true
type SubnetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Subnet `json:"items"`
}

// AddToScheme adds VPC and Subnet to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &VPC{}, &VPCList{}, &Subnet{}, &SubnetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
