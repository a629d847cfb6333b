// Package crossplanev1 holds the Go code generated from crossplane.proto: the
// results and conditions of Crossplane's RunFunctionResponse (v1.17 and
// later), on Crossplane's field numbers. Convert with results.ToCrossplane and
// results.FromCrossplane.
package crossplanev1
