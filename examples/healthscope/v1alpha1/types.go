package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// GroupVersion is the API group and version of the example's kinds.
var GroupVersion = schema.GroupVersion{Group: "healthscope.example.ctrlkit.dev", Version: "v1alpha1"}

// Kinds, for unstructured objects and options.
var (
	ScopeDefinitionKind    = GroupVersion.WithKind("ScopeDefinition")
	WorkloadDefinitionKind = GroupVersion.WithKind("WorkloadDefinition")
	HealthScopeKind        = GroupVersion.WithKind("HealthScope")
	ApplicationKind        = GroupVersion.WithKind("Application")
)

// A DefinitionReference names the CustomResourceDefinition a definition is
// about.
type DefinitionReference struct {
	// Name of the CustomResourceDefinition, `<plural>.<group>`.
	Name string `json:"name"`
	// Version of the CRD to use, as OAM's definitionRef.version; accepted,
	// not used by the example.
	// +optional
	Version string `json:"version,omitempty"`
}

// ScopeDefinitionSpec says how a kind of scope takes workload references.
type ScopeDefinitionSpec struct {
	// DefinitionRef names the scope's CRD.
	// +optional
	DefinitionRef DefinitionReference `json:"definitionRef,omitempty"`

	// WorkloadRefPath is the field path at which the scope takes workload
	// references, e.g. spec.workloadRefs. Without it (and without
	// WorkloadRefsPath) no reference is written into the scope.
	// +optional
	WorkloadRefPath string `json:"workloadRefPath,omitempty"`

	// WorkloadRefsPath is WorkloadRefPath under the name OAM's runtime
	// shipped; WorkloadRefPath wins when both are set.
	// +optional
	WorkloadRefsPath string `json:"workloadRefsPath,omitempty"`

	// AllowComponentOverlap false forbids a workload to be in two scopes of
	// this kind (in one namespace). Unset allows it.
	// +optional
	AllowComponentOverlap *bool `json:"allowComponentOverlap,omitempty"`

	// Extension is free-form data for platform builders, as OAM's.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	Extension *runtime.RawExtension `json:"extension,omitempty"`
}

// A ScopeDefinition opts a kind of scope into the scope/workload interaction
// mechanism. Its name is `<plural>.<group>` of the scope's kind.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories=ctrlkit-example
// +kubebuilder:printcolumn:name="PATH",type=string,JSONPath=`.spec.workloadRefPath`
// +kubebuilder:printcolumn:name="OVERLAP",type=boolean,JSONPath=`.spec.allowComponentOverlap`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type ScopeDefinition struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ScopeDefinitionSpec `json:"spec"`
}

// ScopeDefinitionList is a list of ScopeDefinitions.
//
// +kubebuilder:object:root=true
type ScopeDefinitionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ScopeDefinition `json:"items"`
}

// A ChildResourceKind is a kind of resource a workload's controller creates.
type ChildResourceKind struct {
	// APIVersion of the resources, e.g. apps/v1.
	// +kubebuilder:validation:MinLength=1
	APIVersion string `json:"apiVersion"`
	// Kind of the resources, e.g. ReplicaSet.
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
	// Selector narrows the resources to those with these labels.
	// +optional
	Selector map[string]string `json:"selector,omitempty"`
}

// WorkloadDefinitionSpec describes a kind of workload.
type WorkloadDefinitionSpec struct {
	// DefinitionRef names the workload's CRD.
	// +optional
	DefinitionRef DefinitionReference `json:"definitionRef,omitempty"`

	// ChildResourceKinds are the kinds of resource the workload's controller
	// creates, owned by the workload. Scopes look at them rather than at the
	// workload.
	// +optional
	ChildResourceKinds []ChildResourceKind `json:"childResourceKinds,omitempty"`

	// RevisionLabel is the label of the workload's underlying resources
	// that tells their revisions apart, as OAM's; accepted, not used by the
	// example.
	// +optional
	RevisionLabel string `json:"revisionLabel,omitempty"`

	// PodSpecPath is where the workload holds a pod spec, as OAM's;
	// accepted, not used by the example.
	// +optional
	PodSpecPath string `json:"podSpecPath,omitempty"`

	// Extension is free-form data for platform builders, as OAM's.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	Extension *runtime.RawExtension `json:"extension,omitempty"`
}

// A WorkloadDefinition describes a kind of workload. Its name is
// `<plural>.<group>` of the workload's kind (deployments.apps).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories=ctrlkit-example
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type WorkloadDefinition struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WorkloadDefinitionSpec `json:"spec"`
}

// WorkloadDefinitionList is a list of WorkloadDefinitions.
//
// +kubebuilder:object:root=true
type WorkloadDefinitionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WorkloadDefinition `json:"items"`
}

// A WorkloadReference refers to a workload in the scope's namespace. Its
// fields are not required to be non-empty, as in OAM's HealthScope, whose
// tests hold a placeholder {apiVersion: "", kind: "", name: ""}: such an
// entry is kept by application controllers and skipped by the HealthScope
// controller.
type WorkloadReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	// Namespace, as KubeVela's references may carry, must be empty or the
	// scope's: the HealthScope controller reads no other namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// UID of the workload the reference was written for.
	// +optional
	UID types.UID `json:"uid,omitempty"`
}

// HealthScopeSpec is what a HealthScope watches.
type HealthScopeSpec struct {
	// ProbeTimeout is OAM's probe-timeout, in seconds; accepted, not used:
	// the controller reads the API server, it does not probe.
	// +optional
	ProbeTimeout *int32 `json:"probe-timeout,omitempty"`

	// ProbeInterval is OAM's probe-interval, in seconds; accepted, not used:
	// the controller is driven by watches, not by a period.
	// +optional
	ProbeInterval *int32 `json:"probe-interval,omitempty"`

	// WorkloadRefs are the workloads in the scope, written by application
	// controllers (the ScopeDefinition of HealthScope declares this path).
	// +optional
	WorkloadRefs []WorkloadReference `json:"workloadRefs,omitempty"`
}

// HealthStatus is the health of a workload or of a scope.
// +kubebuilder:validation:Enum=Healthy;Unhealthy;Unknown
type HealthStatus string

// Health statuses.
const (
	StatusHealthy   HealthStatus = "Healthy"
	StatusUnhealthy HealthStatus = "Unhealthy"
	StatusUnknown   HealthStatus = "Unknown"
)

// ScopeHealthCondition sums up the health of the scope's workloads.
type ScopeHealthCondition struct {
	// HealthStatus is Healthy when every workload is healthy, Unhealthy when
	// one is unhealthy, and Unknown otherwise (including a scope with no
	// workloads).
	HealthStatus HealthStatus `json:"healthStatus"`
	// Total is the number of workloads.
	Total int32 `json:"total"`
	// +optional
	HealthyWorkloads int32 `json:"healthyWorkloads,omitempty"`
	// +optional
	UnhealthyWorkloads int32 `json:"unhealthyWorkloads,omitempty"`
	// +optional
	UnknownWorkloads int32 `json:"unknownWorkloads,omitempty"`
}

// ResourceHealth is what was observed of one resource with replicas.
type ResourceHealth struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	// Replicas is the resource's spec.replicas.
	Replicas int64 `json:"replicas"`
	// ReadyReplicas is the resource's status.readyReplicas.
	ReadyReplicas int64 `json:"readyReplicas"`
}

// WorkloadHealthCondition is the health of one workload of the scope.
type WorkloadHealthCondition struct {
	// TargetWorkload is the workload.
	TargetWorkload WorkloadReference `json:"targetWorkload"`
	// HealthStatus is Healthy when every resource checked has its replicas
	// ready.
	HealthStatus HealthStatus `json:"healthStatus"`
	// Diagnosis says why the workload is not healthy.
	// +optional
	Diagnosis string `json:"diagnosis,omitempty"`
	// Resources are the resources checked: the workload's child resources
	// when its WorkloadDefinition lists kinds, else the workload itself.
	// +optional
	Resources []ResourceHealth `json:"resources,omitempty"`
}

// HealthScopeStatus is the observed health of a HealthScope's workloads.
type HealthScopeStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	// +kubebuilder:default=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready is True when every workload is healthy.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ScopeHealthCondition sums up the workloads' health.
	// +optional
	ScopeHealthCondition ScopeHealthCondition `json:"scopeHealthCondition,omitempty"`

	// HealthConditions are the workloads' health, in the order of
	// spec.workloadRefs.
	// +optional
	HealthConditions []WorkloadHealthCondition `json:"healthConditions,omitempty"`
}

// A HealthScope reports the health of the workloads in it, judged from
// spec.replicas and status.readyReplicas of the resources they create,
// whatever their kind.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=ctrlkit-example
// +kubebuilder:printcolumn:name="HEALTH",type=string,JSONPath=`.status.scopeHealthCondition.healthStatus`
// +kubebuilder:printcolumn:name="HEALTHY",type=integer,JSONPath=`.status.scopeHealthCondition.healthyWorkloads`
// +kubebuilder:printcolumn:name="TOTAL",type=integer,JSONPath=`.status.scopeHealthCondition.total`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type HealthScope struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec HealthScopeSpec `json:"spec,omitempty"`
	// +kubebuilder:default={}
	Status HealthScopeStatus `json:"status,omitempty"`
}

// HealthScopeList is a list of HealthScopes.
//
// +kubebuilder:object:root=true
type HealthScopeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HealthScope `json:"items"`
}

// A ScopeReference names a scope in the application's namespace.
type ScopeReference struct {
	// +kubebuilder:validation:MinLength=1
	APIVersion string `json:"apiVersion"`
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// A ComponentScope places a component's workload into a scope.
type ComponentScope struct {
	ScopeRef ScopeReference `json:"scopeRef"`
}

// A Component is one workload of an application.
type Component struct {
	// Name of the component, unique in the application.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// Workload is the object to create in the application's namespace, as
	// OAM's Component.spec.workload: any kind, with apiVersion, kind and
	// metadata.name (the component's name when empty).
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:EmbeddedResource
	Workload runtime.RawExtension `json:"workload"`

	// Scopes to place the workload in.
	// +optional
	Scopes []ComponentScope `json:"scopes,omitempty"`
}

// ApplicationSpec lists an application's components.
type ApplicationSpec struct {
	// +listType=map
	// +listMapKey=name
	Components []Component `json:"components"`
}

// A ScopeStatus records a scope the application wrote a workload reference
// into, and where, so that the reference can be removed even after the
// scope's ScopeDefinition is gone.
type ScopeStatus struct {
	ScopeRef ScopeReference `json:"scopeRef"`
	// Path is where the reference was written.
	Path string `json:"path"`
}

// A WorkloadStatus is a workload of the application and the scopes it is in.
type WorkloadStatus struct {
	ComponentName string            `json:"componentName"`
	Reference     WorkloadReference `json:"workloadRef"`
	// +optional
	Scopes []ScopeStatus `json:"scopes,omitempty"`
}

// ApplicationStatus is what was observed of an Application.
type ApplicationStatus struct {
	// ObservedGeneration is the generation the status describes.
	// +optional
	// +kubebuilder:default=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready is True when every workload exists and is in every
	// scope its component names.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Workloads are the application's workloads and the scopes they were
	// placed in.
	// +optional
	Workloads []WorkloadStatus `json:"workloads,omitempty"`
}

// An Application creates its components' workloads and places them into the
// scopes they name, without knowing the scopes' schemas.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=ctrlkit-example
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=='Ready')].status`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type Application struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ApplicationSpec `json:"spec"`
	// +kubebuilder:default={}
	Status ApplicationStatus `json:"status,omitempty"`
}

// ApplicationList is a list of Applications.
//
// +kubebuilder:object:root=true
type ApplicationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Application `json:"items"`
}

// AddToScheme adds the example's kinds to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&ScopeDefinition{}, &ScopeDefinitionList{},
		&WorkloadDefinition{}, &WorkloadDefinitionList{},
		&HealthScope{}, &HealthScopeList{},
		&Application{}, &ApplicationList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
