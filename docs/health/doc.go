// Package health holds health checks for ctrlkit's kinds in other tools'
// formats, with tests: nopresource.lua is an Argo CD health check for
// NopResource and ClusterNopResource. The test runs it with a Lua
// interpreter (lua, lua5.4, lua5.3, lua5.1 or luajit on PATH) and is
// skipped, saying so, when none is installed: the Go module takes no Lua
// dependency.
package health
