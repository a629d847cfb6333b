//go:build tools

// This file pins the package the e2e suite builds, Crossplane core's
// command, so that `go mod tidy` keeps it in go.mod and go.sum. The module
// requires nothing else: Crossplane is built with the dependency versions
// its own go.mod chooses.
package main

import (
	_ "github.com/crossplane/crossplane/v2/cmd/crossplane"
)
