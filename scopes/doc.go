// Package scopes will hold schema-agnostic OAM scope support: patching workload
// references into any scope object at the path its ScopeDefinition declares
// (spec.workloadRefPath), applying them on the API server without lost
// updates, and locating a workload's child resources from its
// WorkloadDefinition's childResourceKinds.
//
// Design: ../shared/seeds/oam-scope-workload-interaction.md (issue 6). Not
// implemented yet.
package scopes
