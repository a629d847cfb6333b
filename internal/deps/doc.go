// Package deps holds no code, only a test that enforces ctrlkit's dependency
// rules, which docs/architecture.md describes and explains.
//
// The test runs `go list -json ./...` from the module root and checks the
// direct imports of every package of the module:
//
//   - each package outside examples/ has an entry in the test's table, which
//     lists the ctrlkit packages it may import (exactly: nothing else) and the
//     external packages or modules it may import (fieldpath, for example, may
//     import only the standard library, internal/jsonvalue and two packages of
//     apimachinery); a new package fails the test until it is given an entry;
//   - no library package imports internal/localcluster, internal/testenv or
//     internal/controlplane, and no library or internal package imports
//     examples/;
//   - no library package imports sigs.k8s.io/controller-runtime itself (its
//     sub-packages only: the root package imports pkg/client/config, which
//     registers a global --kubeconfig flag, see docs/design/nop.md);
//   - examples import library packages, other examples and
//     internal/localcluster;
//   - every package imports, outside the standard library, only the modules
//     the library may depend on: k8s.io/apimachinery, k8s.io/client-go,
//     k8s.io/api, k8s.io/utils, sigs.k8s.io/controller-runtime,
//     google.golang.org/protobuf and github.com/go-logr/logr;
//   - tests (TestImports and XTestImports) may import what their package may,
//     the packages its entry lists for tests only, anything in their own
//     package tree, internal/testenv, and also github.com/google/go-cmp and
//     github.com/stretchr/testify;
//   - directstatus depends on no protobuf package that controller-runtime's
//     client does not already pull, and on no ctrlkit package that imports
//     protobuf (`go list -deps` of both, TestProtobufLight).
//
// TestTestStyle checks the part of docs/contributing.md's test style a
// program can: cmp.Diff takes the wanted value first, and diffs are reported
// as "-want, +got".
//
// A failure names the importing package, the imported package and the rule,
// as in
//
//	fieldpath imports k8s.io/client-go/rest: fieldpath may import only the standard library, internal/jsonvalue and apimachinery's pkg/runtime and pkg/util/json (docs/architecture.md)
//
// To add an edge on purpose, change the table in deps_test.go and the graph
// in docs/architecture.md in the same commit, saying why.
//
// Only the default build context (this GOOS and GOARCH, no build tags) is
// checked, which is what `go list` reports; files for other systems (such as
// internal/controlplane's lock_other.go) import only the standard library.
package deps
