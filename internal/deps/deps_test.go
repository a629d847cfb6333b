package deps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The rules below are described, and the reasons for them given, in
// docs/architecture.md. Change both together.

// Paths are written relative to the module path (fieldpath, not
// github.com/ctrlkit/ctrlkit/fieldpath). A pattern ending in "/..." matches
// the path before it and everything below it, as go list's patterns do; any
// other pattern matches one package exactly.

// modules are the external modules that any package of the module, examples
// included, may import outside the standard library. k8s.io/api and
// go-logr, and prometheus/client_golang (controller-runtime's metrics
// registry), come with client-go and controller-runtime anyway, so they add
// nothing to what `go get` fetches; so does golang.org/x/time, whose rate
// package client-go's workqueue and flowcontrol use.
var modules = []string{
	"k8s.io/apimachinery/...",
	"k8s.io/client-go/...",
	"k8s.io/utils/...",
	"sigs.k8s.io/controller-runtime/...",
	"google.golang.org/protobuf/...",
	"k8s.io/api/...",
	"github.com/go-logr/logr/...",
	"github.com/prometheus/client_golang/prometheus",
	"golang.org/x/time/rate",
}

// envtestCRDs is the one package outside modules that internal/localcluster
// imports: the CustomResourceDefinition type that controller-runtime's envtest
// installs. controller-runtime requires its module, so it adds nothing to what
// `go get` fetches.
const envtestCRDs = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// testModules may also be imported by tests.
var testModules = []string{
	"github.com/google/go-cmp/...",
	"github.com/stretchr/testify/...",
}

// testHelpers are the module's packages that any test may import.
var testHelpers = []string{
	"internal/testenv/...",
	"internal/leaktest",
}

// notForLibraries are the internal packages that no library package may
// import outside its tests: they start API servers and build binaries.
// Examples may use internal/localcluster, tests internal/testenv.
var notForLibraries = []string{
	"internal/localcluster/...",
	"internal/testenv/...",
	"internal/leaktest",
	"internal/controlplane/...",
	"internal/cmd/...",
}

// rootNotForLibraries: library packages import controller-runtime's
// sub-packages, never its root package, which imports pkg/client/config,
// whose init registers a global --kubeconfig flag in every binary
// (docs/design/nop.md). Examples may.
const rootNotForLibraries = "sigs.k8s.io/controller-runtime"

// Sets of external packages for the rules that are narrower than modules.
var (
	stdOnly      = []string{}
	apimachinery = []string{"k8s.io/apimachinery/..."}
	protobuf     = []string{"google.golang.org/protobuf/..."}
)

// rule says what one package outside examples/ may import.
type rule struct {
	pkg         string
	imports     []string // the ctrlkit packages it may import, exactly
	testImports []string // the ctrlkit packages its tests may import besides
	external    []string // the external packages it may import; nil: any of modules
	says        string   // the rule in words, for the failure message
}

var rules = []rule{
	// Library packages.
	{pkg: "fieldpath",
		imports:  []string{"internal/jsonvalue"},
		external: []string{"k8s.io/apimachinery/pkg/runtime", "k8s.io/apimachinery/pkg/util/json"},
		says:     "fieldpath may import only the standard library, internal/jsonvalue and apimachinery's pkg/runtime and pkg/util/json"},
	{pkg: "conditions",
		imports:  []string{"internal/jsonvalue", "internal/message"},
		external: []string{"k8s.io/apimachinery/...", "k8s.io/utils/..."},
		says:     "conditions imports no ctrlkit package but internal/jsonvalue and internal/message, only the standard library, apimachinery and k8s.io/utils (docs/design/conditions.md)"},
	{pkg: "results",
		// fieldpath: allowed, unused (docs/architecture.md).
		imports: []string{"conditions", "fieldpath", "results/proto/v1", "results/proto/crossplane/v1", "results/response", "internal/message", "internal/smallset"},
		says:    "results may import conditions, fieldpath, its proto packages, results/response (ToCrossplane adds results as response.AddResult does), internal/message and internal/smallset"},
	{pkg: "results/proto/v1", external: protobuf,
		says: "generated protobuf code imports only the standard library and google.golang.org/protobuf"},
	{pkg: "results/proto/crossplane/v1", external: protobuf,
		says: "generated protobuf code imports only the standard library and google.golang.org/protobuf"},
	{pkg: "results/response",
		imports: []string{"results/proto/v1", "results/proto/crossplane/v1", "internal/message"}, external: protobuf,
		says: "results/response, the function side, may import only the results proto packages and internal/message of ctrlkit and google.golang.org/protobuf (no client-go)"},
	{pkg: "results/rules",
		imports: []string{"results/proto/crossplane/v1", "internal/message"}, external: protobuf,
		says: "results/rules, the function side like results/response, may import only the Crossplane-layout results proto and internal/message of ctrlkit and google.golang.org/protobuf (no client-go, no apimachinery)"},
	{pkg: "scopes",
		imports: []string{"fieldpath", "internal/conflict", "internal/jsonvalue", "internal/message"},
		says:    "scopes may import only fieldpath, internal/conflict, internal/jsonvalue and internal/message of ctrlkit"},
	{pkg: "extref",
		imports: []string{"fieldpath", "conditions", "extref/v1alpha1", "extref/internal/render", "internal/informers", "internal/jsonvalue", "internal/lastwrite", "internal/message"},
		says:    "extref may import fieldpath, conditions (docs/design/extref.md), extref/v1alpha1, its printing engine extref/internal/render, internal/informers, internal/jsonvalue, internal/lastwrite and internal/message"},
	{pkg: "extref/v1alpha1", external: apimachinery,
		says: "API types import no ctrlkit package, only the standard library and apimachinery"},
	{pkg: "extref/internal/render", imports: []string{"internal/jsonvalue"}, external: stdOnly,
		says: "extref/internal/render, extref's printing engine, imports only internal/jsonvalue and the standard library (text/template, fmt)"},
	{pkg: "nop",
		imports: []string{"conditions", "nop/v1alpha1", "internal/lastwrite", "internal/message"},
		says:    "nop may import conditions, nop/v1alpha1, internal/lastwrite and internal/message"},
	{pkg: "nop/cmd/provider-nop", imports: []string{"nop", "nop/v1alpha1"},
		says: "nop/cmd/provider-nop, the runtime of nop's Crossplane package, may import nop and nop/v1alpha1 (not controller-runtime's root package)"},
	{pkg: "nop/v1alpha1", external: apimachinery,
		says: "API types import no ctrlkit package, only the standard library and apimachinery"},
	{pkg: "nop/crds", external: stdOnly,
		says: "a crds package only embeds its YAML files"},
	{pkg: "directstatus",
		imports:     []string{"conditions", "internal/conflict", "internal/jsonfields", "internal/jsonvalue", "internal/message"},
		testImports: []string{"fielddiff"},
		says:        "directstatus may import conditions, internal/conflict, internal/jsonfields, internal/jsonvalue and internal/message; not fielddiff, whose protobuf backend a Writer must not compile (its tests and examples may)"},
	{pkg: "directstatus/metrics", imports: []string{"directstatus"},
		says: "directstatus/metrics may import directstatus only; it holds the Prometheus client apart from directstatus, which must stay protobuf-light"},
	{pkg: "fielddiff",
		imports:     []string{"fieldpath", "internal/jsonfields", "internal/jsonvalue"},
		testImports: []string{"directstatus"},
		says:        "fielddiff may import fieldpath (its path syntax), internal/jsonfields and internal/jsonvalue (its examples may show directstatus)"},
	{pkg: "results/response/sdkport", external: stdOnly,
		says: "results/response/sdkport is tests only (a function body ported from function-sdk-go) and imports nothing"},

	// Test helpers private to one library package.
	{pkg: "fielddiff/internal/testpb", external: protobuf,
		says: "generated protobuf code imports only the standard library and google.golang.org/protobuf"},
	{pkg: "extref/internal/testapi/v1alpha1", imports: []string{"extref/v1alpha1"}, external: apimachinery,
		says: "test API types may import extref/v1alpha1 and apimachinery"},
	{pkg: "extref/internal/testapi/late/v1alpha1", external: apimachinery,
		says: "test API types import no ctrlkit package, only the standard library and apimachinery"},

	// The module's internal packages.
	{pkg: "internal/jsonvalue", external: stdOnly,
		says: "internal/jsonvalue imports only the standard library, so that fieldpath stays light (internal/jsonvalue/jsonvalue.go)"},
	{pkg: "internal/jsonfields", external: stdOnly,
		says: "internal/jsonfields imports only the standard library (it recognises protobuf messages by their method), so that directstatus compiles no protobuf"},
	{pkg: "internal/lastwrite",
		says: "internal/lastwrite imports no ctrlkit package"},
	{pkg: "internal/conflict", external: apimachinery,
		says: "internal/conflict, the conflict retry of scopes and directstatus, imports no ctrlkit package, only the standard library and apimachinery"},
	{pkg: "internal/informers",
		says: "internal/informers imports no ctrlkit package"},
	{pkg: "internal/leaktest", external: stdOnly,
		says: "internal/leaktest imports only the standard library: the marker check of the tests that no error quotes a value"},
	{pkg: "internal/smallset", external: stdOnly,
		says: "internal/smallset imports only the standard library: the small sets of results"},
	{pkg: "internal/message", external: stdOnly,
		says: "internal/message imports only the standard library, so that conditions stays light (internal/message/message.go)"},
	{pkg: "internal/controlplane", external: stdOnly,
		says: "internal/controlplane imports only the standard library: it builds the server binaries in the nested module tools/controlplane"},
	{pkg: "internal/cmd/controlplane", imports: []string{"internal/controlplane"}, external: stdOnly,
		says: "internal/cmd/controlplane may import only internal/controlplane and the standard library"},
	{pkg: "internal/cmd/benchcharts", external: stdOnly,
		says: "internal/cmd/benchcharts imports only the standard library: it reads the nop benchmark's CSV and writes SVG"},
	{pkg: "internal/localcluster", imports: []string{"internal/controlplane"},
		says: "internal/localcluster may import only internal/controlplane of ctrlkit"},
	{pkg: "internal/testenv", imports: []string{"internal/localcluster"},
		says: "internal/testenv may import only internal/localcluster of ctrlkit"},
	{pkg: "internal/testenv/testapi/v1alpha1", external: apimachinery,
		says: "test API types import no ctrlkit package, only the standard library and apimachinery"},
	{pkg: "internal/testenv/writeslots", external: stdOnly,
		says: "internal/testenv/writeslots imports only the standard library: the write slots of the benchmarks' floor writers"},
	{pkg: "internal/testenv/testapi/crds", external: stdOnly,
		says: "a crds package only embeds its YAML files"},
	{pkg: "internal/readme", external: stdOnly,
		says: "internal/readme holds only the test that the README's go blocks match their examples, with go/parser"},
	{pkg: "internal/deps", external: stdOnly,
		says: "internal/deps holds only this test"},
	{pkg: "config", external: stdOnly,
		says: "config holds the kustomize bases of the example controllers and only the test that the API server accepts them"},
}

// examplesSay is the rule for every package under examples/, which needs no
// entry in rules.
const examplesSay = "examples may import library packages, other examples, internal/localcluster and internal/informers"

// exampleMayImport reports whether a package under examples/ may import
// the ctrlkit package dep.
func exampleMayImport(dep string) bool {
	switch kindOf(dep) {
	case example:
		return true
	case library:
		return !strings.Contains(dep, "/internal/") // not another package's test helpers
	}
	// internal/informers: the informers a tenant's object chooses are kept
	// by one mechanism, extref's and the HealthScope example's alike.
	return dep == "internal/localcluster" || dep == "internal/informers"
}

type kind int

const (
	library  kind = iota // fieldpath, nop/v1alpha1, and test helpers such as extref/internal/testapi/v1alpha1
	internal             // internal/...
	example              // examples/...
)

func kindOf(rel string) kind {
	switch {
	case rel == "examples" || strings.HasPrefix(rel, "examples/"):
		return example
	case rel == "internal" || strings.HasPrefix(rel, "internal/"):
		return internal
	}
	return library
}

// tree is the package tree a package belongs to, which its tests may import
// from: results/... for results/response, internal/testenv/... for
// internal/testenv/testapi/crds.
func tree(rel string) string {
	parts := strings.Split(rel, "/")
	n := 1
	if parts[0] == "internal" && len(parts) > 1 {
		n = 2
	}
	return strings.Join(parts[:n], "/") + "/..."
}

func match(pattern, path string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == prefix || strings.HasPrefix(path, prefix+"/")
	}
	return path == pattern
}

func matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, path) })
}

// isStd reports whether path is in the standard library: no dot in its first
// element.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Module       *struct{ Path string }
	Error        *struct{ Err string }
}

func goCmd() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	//lint:ignore SA1019 only a fallback when go is not on PATH; go test puts GOROOT/bin there
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// list returns the packages of the module that holds the working directory,
// and its path.
func list(t *testing.T) (modPath string, pkgs []pkg) {
	t.Helper()
	goBin := goCmd()
	out, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == "/dev/null" || gomod == "NUL" {
		t.Fatalf("go env GOMOD = %q: not in a module", gomod)
	}
	cmd := exec.Command(goBin, "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Module,Error", "./...")
	cmd.Dir = filepath.Dir(gomod)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v\n%s", cmd.Dir, err, stderr.Bytes())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list's output: %v", err)
		}
		if p.Module == nil && p.Error == nil {
			t.Fatalf("go list: %s is not in a module", p.ImportPath)
		}
		if modPath == "" && p.Module != nil {
			modPath = p.Module.Path
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return modPath, pkgs
}

func TestDependencies(t *testing.T) {
	modPath, pkgs := list(t)
	const doc = " (docs/architecture.md)"

	byPkg := map[string]rule{}
	for _, r := range rules {
		if _, dup := byPkg[r.pkg]; dup {
			t.Errorf("rules lists %s twice", r.pkg)
		}
		byPkg[r.pkg] = r
	}

	// rel returns path relative to the module, and whether it is in it.
	rel := func(path string) (string, bool) {
		if path == modPath {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, modPath+"/")
		return r, ok
	}

	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...)+doc)
	}
	problems = append(problems, listErrors(pkgs)...)

	seen := map[string]bool{}
	for _, p := range pkgs {
		self, ok := rel(p.ImportPath)
		if !ok {
			bad("%s is not in module %s", p.ImportPath, modPath)
			continue
		}
		seen[self] = true
		k := kindOf(self)
		r, listed := byPkg[self]
		if k != example && !listed {
			bad("%s is not in the table of internal/deps: decide what it may import and add it to rules in internal/deps/deps_test.go", self)
			continue
		}

		// The package's own imports.
		for _, imp := range p.Imports {
			if isStd(imp) {
				continue
			}
			if dep, ok := rel(imp); ok {
				switch {
				case k != example && kindOf(dep) == example:
					bad("%s imports %s: no library or internal package imports examples/", self, dep)
				case k == library && matchAny(notForLibraries, dep):
					bad("%s imports %s: library packages must not import internal/localcluster, internal/testenv or internal/controlplane", self, dep)
				case k == example:
					if !exampleMayImport(dep) {
						bad("%s imports %s: %s", self, dep, examplesSay)
					}
				case !slices.Contains(r.imports, dep):
					bad("%s imports %s: %s", self, dep, r.says)
				}
				continue
			}
			switch {
			case self == "internal/localcluster" && imp == envtestCRDs:
			case !matchAny(modules, imp):
				bad("%s imports %s: outside the standard library, packages of ctrlkit import only %s", self, imp, moduleList(modules))
			case k == library && imp == rootNotForLibraries:
				bad("%s imports %s: library packages import controller-runtime's sub-packages, not its root package, which imports pkg/client/config, whose init registers a global --kubeconfig flag (docs/design/nop.md)", self, imp)
			case k != example && r.external != nil && !matchAny(r.external, imp):
				bad("%s imports %s: %s", self, imp, r.says)
			}
		}

		// Its tests' imports.
		for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
			if isStd(imp) || slices.Contains(p.Imports, imp) {
				continue
			}
			if dep, ok := rel(imp); ok {
				allowed := dep == self || match(tree(self), dep) || matchAny(testHelpers, dep) || slices.Contains(r.testImports, dep)
				switch {
				case allowed:
				case k == example:
					if !exampleMayImport(dep) {
						bad("%s (tests) imports %s: tests of examples may import what examples may, and internal/testenv", self, dep)
					}
				case kindOf(dep) == example:
					bad("%s (tests) imports %s: no library or internal package imports examples/, in tests either", self, dep)
				case !slices.Contains(r.imports, dep):
					bad("%s (tests) imports %s: tests of %s may import what %s may (%s), packages under %s and internal/testenv", self, dep, self, self, r.says, tree(self))
				}
				continue
			}
			if !matchAny(modules, imp) && !matchAny(testModules, imp) {
				bad("%s (tests) imports %s: outside the standard library, tests import only %s", self, imp, moduleList(slices.Concat(modules, testModules)))
			}
		}
	}

	for _, r := range rules {
		if !seen[r.pkg] {
			bad("rules in internal/deps lists %s, which go list does not find: remove it", r.pkg)
		}
	}

	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// listErrors returns what go list could not load (a syntax error, an import
// cycle), so that the test reports it rather than checking half a package.
func listErrors(pkgs []pkg) []string {
	var errs []string
	for _, p := range pkgs {
		if p.Error != nil {
			errs = append(errs, fmt.Sprintf("go list: %s: %s", p.ImportPath, p.Error.Err))
		}
	}
	return errs
}

func moduleList(patterns []string) string {
	names := make([]string, len(patterns))
	for i, p := range patterns {
		names[i] = strings.TrimSuffix(p, "/...")
	}
	return strings.Join(names, ", ")
}

// TestRules checks the table itself against the fixed rules, so that an entry
// cannot quietly allow what no library package may import.
func TestRules(t *testing.T) {
	for _, r := range rules {
		if kindOf(r.pkg) == example {
			t.Errorf("rules lists %s: examples need no entry", r.pkg)
		}
		for _, dep := range r.imports {
			if kindOf(dep) == example {
				t.Errorf("rules let %s import %s: no library or internal package imports examples/", r.pkg, dep)
			}
			if kindOf(r.pkg) == library && matchAny(notForLibraries, dep) {
				t.Errorf("rules let %s import %s: library packages must not import internal/localcluster, internal/testenv or internal/controlplane", r.pkg, dep)
			}
		}
		for _, dep := range r.testImports {
			if kindOf(dep) != library || slices.Contains(r.imports, dep) {
				t.Errorf("rules let the tests of %s import %s: testImports holds library packages the package itself may not import", r.pkg, dep)
			}
		}
		for _, ext := range r.external {
			if !matchAny(modules, strings.TrimSuffix(ext, "/...")) {
				t.Errorf("rules let %s import %s, which is outside modules", r.pkg, ext)
			}
		}
	}
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"k8s.io/api/...", "k8s.io/api/core/v1", true},
		{"k8s.io/api/...", "k8s.io/api", true},
		{"k8s.io/api/...", "k8s.io/apimachinery/pkg/runtime", false},
		{"k8s.io/api/...", "k8s.io/apiextensions-apiserver/pkg/apis", false},
		{"k8s.io/apimachinery/pkg/runtime", "k8s.io/apimachinery/pkg/runtime/schema", false},
	} {
		if got := match(c.pattern, c.path); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
	for path, want := range map[string]bool{"strings": true, "encoding/json": true, "C": true, "k8s.io/utils/clock": false, "github.com/go-logr/logr": false} {
		if got := isStd(path); got != want {
			t.Errorf("isStd(%q) = %v, want %v", path, got, want)
		}
	}
}
