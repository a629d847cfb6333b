//go:build tools

// This file pins the peer that nop's BenchmarkAPIServer runs beside nop:
// provider-nop's own command, built from the Go module proxy with the
// dependency versions its go.mod chooses (the module requires nothing else).
// Its CRDs are read from the module's directory in the module cache.
package main

import (
	_ "github.com/crossplane-contrib/provider-nop/cmd/provider"
)
