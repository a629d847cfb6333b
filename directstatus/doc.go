// Package directstatus will hold the Ready condition lifecycle of a "direct"
// controller (Updating / UpToDate / UpdateFailure, and Creating /
// CreateFailure), with the first changed field path of desired versus actual
// in the message, and a status writer that changes nothing when nothing
// changed.
//
// Design: ../shared/seeds/direct-status-updating.md (issue 9). Not implemented
// yet.
package directstatus
