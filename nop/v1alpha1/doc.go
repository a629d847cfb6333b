// Package v1alpha1 is the nop.ctrlkit.dev/v1alpha1 API: NopResource
// (namespaced) and ClusterNopResource (cluster-scoped), managed resources that
// orchestrate nothing. Their status conditions follow the schedule in
// spec.forProvider.conditionAfter, their spec.forProvider fields are mirrored
// to status.atProvider, and their deletion can be held or made to fail, so
// that control planes (Crossplane compositions, OAM/KubeVela, anything that
// waits on conditions) can be tested without a cloud.
//
// The reconciler lives in the parent package, nop; the CRDs generated from
// these types are in nop/crds.
//
// +kubebuilder:object:generate=true
// +groupName=nop.ctrlkit.dev
package v1alpha1
