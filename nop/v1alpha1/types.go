package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of the nop types.
var GroupVersion = schema.GroupVersion{Group: "nop.ctrlkit.dev", Version: "v1alpha1"}

// Kinds of the nop API.
const (
	NopResourceKind        = "NopResource"
	ClusterNopResourceKind = "ClusterNopResource"
)

// A ConditionAfter sets a condition once the resource is Time old, measured
// from its metadata.creationTimestamp. For each condition type the entry with
// the greatest Time that is due wins; on equal times the earlier entry in the
// list wins, as in provider-nop.
type ConditionAfter struct {
	// Time after the resource's creation at which the condition is set, as a
	// Go duration: "0s", "500ms", "5s", "1m30s". It must not be negative.
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="must be a non-negative Go duration such as \"5s\", \"1m30s\" or \"500ms\""
	Time string `json:"time"`

	// ConditionType is the type of the condition to set, e.g. Ready, Synced
	// or example.org/Healthy.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])$`
	ConditionType string `json:"conditionType"`

	// ConditionStatus is the status to set: True, False or Unknown.
	// +kubebuilder:validation:Enum=True;False;Unknown
	ConditionStatus metav1.ConditionStatus `json:"conditionStatus"`

	// ConditionReason is the condition's reason, in CamelCase. Empty (or
	// absent) means Scheduled.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^([A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?)?$`
	ConditionReason string `json:"conditionReason,omitempty"`

	// ConditionMessage is the condition's message. Defaults to a message
	// naming this entry.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	ConditionMessage string `json:"conditionMessage,omitempty"`
}

// A ConnectionDetail is one key of the connection Secret.
type ConnectionDetail struct {
	// Name is the key in the Secret's data.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +kubebuilder:validation:XValidation:rule="self != '.' && !self.startsWith('..')",message="must not be '.' or '..', nor start with '..' (a Secret key cannot)"
	Name string `json:"name"`

	// Value is the value stored under Name.
	Value string `json:"value"`
}

// NopResourceParameters say what a nop resource does: nothing, on schedule.
type NopResourceParameters struct {
	// ConditionAfter is the schedule of the resource's status conditions.
	// A condition type that no due entry names is not in the status.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	ConditionAfter []ConditionAfter `json:"conditionAfter,omitempty"`

	// Fields is any object; it is mirrored to status.atProvider.fields.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Fields *runtime.RawExtension `json:"fields,omitempty"`

	// PatchReceiverField receives a patch from a composition; it is mirrored
	// to status.atProvider.patchReceiverField.
	// +optional
	PatchReceiverField string `json:"patchReceiverField,omitempty"`

	// ObservableArrays is mirrored to status.atProvider.observableArrays, to
	// test how compositions patch arrays.
	// +optional
	// +listType=atomic
	ObservableArrays []string `json:"observableArrays,omitempty"`

	// ConnectionDetails are written to the Secret named by
	// spec.writeConnectionSecretToRef.
	// +optional
	// +listType=map
	// +listMapKey=name
	ConnectionDetails []ConnectionDetail `json:"connectionDetails,omitempty"`

	// DeleteAfter holds the deletion of the resource for this long after
	// its metadata.deletionTimestamp, as a Go duration such as "10s".
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') && duration(self) >= duration('0s')",message="must be a non-negative Go duration such as \"5s\", \"1m30s\" or \"500ms\""
	DeleteAfter string `json:"deleteAfter,omitempty"`

	// DeleteError, while set, makes the deletion of the resource fail with
	// this message: the resource stays, with Synced=False.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	DeleteError string `json:"deleteError,omitempty"`
}

// A SecretReference names a Secret.
type SecretReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the Secret. Required for a ClusterNopResource; for a
	// NopResource it defaults to, and must be, the resource's own namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}

// A ProviderConfigReference names a provider configuration. A nop resource
// has none to use: the reference is accepted and ignored.
type ProviderConfigReference struct {
	// Name of the provider configuration.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Kind of the provider configuration (Crossplane v2: ProviderConfig or
	// ClusterProviderConfig).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind,omitempty"`

	// Policy of the reference's resolution.
	// +optional
	Policy *ReferencePolicy `json:"policy,omitempty"`
}

// A ReferencePolicy says when and how strictly a reference is resolved, as in
// Crossplane.
type ReferencePolicy struct {
	// Resolution: Required or Optional.
	// +optional
	// +kubebuilder:validation:Enum=Required;Optional
	Resolution string `json:"resolution,omitempty"`

	// Resolve: Always or IfNotPresent.
	// +optional
	// +kubebuilder:validation:Enum=Always;IfNotPresent
	Resolve string `json:"resolve,omitempty"`
}

// A ManagementAction is what a Crossplane managed resource's controller may
// do: Observe, Create, Update, Delete, LateInitialize, or * for all.
// +kubebuilder:validation:Enum=Observe;Create;Update;Delete;LateInitialize;*
type ManagementAction string

// Management actions a nop resource acts on.
const (
	ManagementActionAll    ManagementAction = "*"
	ManagementActionDelete ManagementAction = "Delete"
)

// A DeletionPolicy says what happens to the external resource when the
// managed resource is deleted.
// +kubebuilder:validation:Enum=Orphan;Delete
type DeletionPolicy string

// Deletion policies.
const (
	DeletionDelete DeletionPolicy = "Delete"
	DeletionOrphan DeletionPolicy = "Orphan"
)

// PublishConnectionDetailsTo names an external secret store for the
// connection details, as in Crossplane. A nop resource accepts it and
// publishes nowhere but to writeConnectionSecretToRef; its Synced condition
// says so.
type PublishConnectionDetailsTo struct {
	// Name of the connection secret in the store.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Metadata of the connection secret.
	// +optional
	Metadata *ConnectionSecretMetadata `json:"metadata,omitempty"`

	// ConfigRef names the StoreConfig of the store.
	// +optional
	ConfigRef *ProviderConfigReference `json:"configRef,omitempty"`
}

// ConnectionSecretMetadata is the metadata of a published connection secret.
type ConnectionSecretMetadata struct {
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// +optional
	Type *string `json:"type,omitempty"`
}

// NopResourceSpec is the desired state of a NopResource or ClusterNopResource.
// Beside forProvider it holds every field of a Crossplane managed resource's
// spec, so that manifests written for provider-nop are admitted as they are.
type NopResourceSpec struct {
	// ForProvider says what the resource does.
	// +optional
	ForProvider NopResourceParameters `json:"forProvider,omitempty"`

	// WriteConnectionSecretToRef names the Secret that receives
	// spec.forProvider.connectionDetails. The Secret is owned by the
	// resource; an existing Secret it does not own is left alone.
	// +optional
	WriteConnectionSecretToRef *SecretReference `json:"writeConnectionSecretToRef,omitempty"`

	// PublishConnectionDetailsTo is accepted and not acted on: connection
	// details are written only to writeConnectionSecretToRef, and the Synced
	// condition's message says so.
	// +optional
	PublishConnectionDetailsTo *PublishConnectionDetailsTo `json:"publishConnectionDetailsTo,omitempty"`

	// ProviderConfigRef is accepted and ignored: a nop resource has no
	// provider configuration.
	// +optional
	ProviderConfigRef *ProviderConfigReference `json:"providerConfigRef,omitempty"`

	// ManagementPolicies say what the controller may do; "*" (the default,
	// also when empty) allows everything. Without "*" or "Delete" the
	// deletion behaviour (deleteAfter, deleteError) is skipped: the resource
	// is released at once when deleted. Other actions change nothing: a nop
	// resource has no external resource to observe, create or update.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=6
	// +kubebuilder:default={"*"}
	ManagementPolicies []ManagementAction `json:"managementPolicies,omitempty"`

	// DeletionPolicy: Delete (the default, also when empty) honours
	// deleteAfter and deleteError; Orphan skips them and releases the
	// resource at once when it is deleted.
	// +optional
	// +kubebuilder:default=Delete
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// NopResourceObservation mirrors spec.forProvider's observable fields.
type NopResourceObservation struct {
	// Fields mirrors spec.forProvider.fields.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Fields *runtime.RawExtension `json:"fields,omitempty"`

	// PatchReceiverField mirrors spec.forProvider.patchReceiverField.
	// +optional
	PatchReceiverField string `json:"patchReceiverField,omitempty"`

	// ObservableArrays mirrors spec.forProvider.observableArrays.
	// +optional
	// +listType=atomic
	ObservableArrays []string `json:"observableArrays,omitempty"`
}

// NopResourceStatus is the observed state of a NopResource or
// ClusterNopResource.
type NopResourceStatus struct {
	// ObservedGeneration is the metadata.generation the status describes.
	// +optional
	// +kubebuilder:default=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are the conditions the schedule says are due, and Synced=False
	// when the spec is invalid or deletion fails.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// AtProvider mirrors spec.forProvider's observable fields.
	// +optional
	AtProvider NopResourceObservation `json:"atProvider,omitempty"`
}

// A NopResource is a namespaced managed resource that orchestrates nothing:
// its conditions follow spec.forProvider.conditionAfter.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,nop}
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
type NopResource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec NopResourceSpec `json:"spec,omitempty"`
	// +optional
	// +kubebuilder:default={}
	Status NopResourceStatus `json:"status,omitempty"`
}

// NopResourceList is a list of NopResources.
//
// +kubebuilder:object:root=true
type NopResourceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NopResource `json:"items"`
}

// A ClusterNopResource is the cluster-scoped NopResource.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories={crossplane,managed,nop}
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.writeConnectionSecretToRef) || (has(self.spec.writeConnectionSecretToRef.__namespace__) && size(self.spec.writeConnectionSecretToRef.__namespace__) > 0)",message="namespace is required for a cluster-scoped resource",fieldPath=".spec.writeConnectionSecretToRef",reason="FieldValueRequired"
type ClusterNopResource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec NopResourceSpec `json:"spec,omitempty"`
	// +optional
	// +kubebuilder:default={}
	Status NopResourceStatus `json:"status,omitempty"`
}

// ClusterNopResourceList is a list of ClusterNopResources.
//
// +kubebuilder:object:root=true
type ClusterNopResourceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterNopResource `json:"items"`
}

// AddToScheme adds the nop types to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&NopResource{}, &NopResourceList{},
		&ClusterNopResource{}, &ClusterNopResourceList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
