// Package results will hold composition function results with targets: the
// Result protobuf API (severity, message, event reason, target composite or
// composite-and-claim, an optional condition), the builder a function author
// calls, and the control-plane side that turns a function's results into
// events and conditions on the composite resource and its claim.
//
// Design: ../shared/seeds/fn-claim-conditions.md (issue 5). Not implemented yet.
package results
