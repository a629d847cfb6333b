// Package nop will hold the NopResource API (group nop.ctrlkit.dev) and its
// reconciler: a resource that does nothing but move its status conditions
// through the schedule in spec.forProvider.conditionAfter, requeueing exactly
// at the next deadline, for testing control planes without a cloud.
//
// Design: ../shared/seeds/provider-nop.md (issue 8). Not implemented yet.
package nop
