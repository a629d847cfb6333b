// Package e2e runs Crossplane core, built from the Go module proxy, out of
// cluster against ctrlkit's local control plane (internal/testenv), with
// ctrlkit's nop controller and composition functions written with
// function-sdk-go and ctrlkit's results, served over gRPC with mTLS.
//
// It is a module of its own so that users of ctrlkit never download
// Crossplane. `make test-e2e` runs it; the first run builds Crossplane
// (tools/crossplane pins the version) into the user cache directory.
// docs/design/e2e.md lists the scenarios and what differs between Crossplane
// and ctrlkit's own composite core.
package e2e
