//go:build tools

// This file pins the packages the control plane builder compiles, so that
// `go mod tidy` keeps them in go.mod and go.sum.
package main

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
