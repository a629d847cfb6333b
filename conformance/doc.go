// Package conformance holds tests that run ctrlkit's kinds, on a real API
// server, through the code other tools use to decide whether an object is
// done: kstatus (github.com/fluxcd/cli-utils/pkg/kstatus/status, checked to
// agree with sigs.k8s.io/cli-utils' on every object), Flux's
// conditions checker (github.com/fluxcd/pkg/runtime/conditions/check), the
// Argo CD health checks in docs/health (Lua, run by gopher-lua, the
// interpreter Argo CD embeds) and the rule `kubectl wait --for=condition=Ready`
// applies. It is a module of its own so that users of ctrlkit never download
// those tools. The tables the tests measure are in docs/health/README.md; run
//
//	go test ./... -update
//
// in this directory to rewrite it from a new measurement.
package conformance
