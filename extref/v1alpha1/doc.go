// Package v1alpha1 holds the API types of generic external value references,
// for embedding in other APIs: a referencer lists them in
// spec.externalValues (or any field its controller names), and
// package extref resolves them.
//
// The types carry no group of their own and no CRD is generated for them:
// an API written with controller-gen embeds []ExternalValue and gets the
// schema from its markers; a CRD or XRD written by hand embeds the schema
// that ExternalValuesSchema returns (the same schema as YAML is in
// externalvalues.schema.yaml beside this file).
//
//	spec:
//	  externalValues:
//	  - fromObject: {group: ec2.aws.crossplane.io, version: v1alpha1, resource: vpcs, name: main-vpc, fieldPath: spec.forProvider.cidrBlock}
//	    toFieldPath: spec.cidrBlock
//
// +kubebuilder:object:generate=true
package v1alpha1
