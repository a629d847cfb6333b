// Package resultsv1 holds the Go code generated from results.proto: the
// Result, Condition, ResponseCondition and Response messages a composition
// function returns, and the Severity, Target and Status enums. Build results
// with package github.com/ctrlkit/ctrlkit/results rather than by hand, and
// apply them with its Applier.
package resultsv1
