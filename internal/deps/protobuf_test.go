package deps

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// clientPackage is what every controller compiles anyway. Through
// apimachinery and kube-openapi it already pulls part of
// google.golang.org/protobuf (proto, protoimpl, anypb, ...).
const clientPackage = "sigs.k8s.io/controller-runtime/pkg/client"

// protobufLight are the packages whose dependencies hold no protobuf package
// beyond those clientPackage pulls, and no ctrlkit package that imports
// protobuf: a user of the Writer does not compile fielddiff's protobuf
// backend (protojson, structpb, protoreflect walks).
var protobufLight = []string{"directstatus"}

const protobufModule = "google.golang.org/protobuf"

type depPkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
	Module     *struct{ Path string }
}

// listDeps returns the packages that patterns depend on, themselves included,
// as `go list -deps` run in the module root finds them.
func listDeps(t *testing.T, patterns ...string) []depPkg {
	t.Helper()
	goBin := goCmd()
	out, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	args := append([]string{"list", "-deps", "-json=ImportPath,Imports,Standard,Module"}, patterns...)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(out)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(patterns, " "), err, stderr.Bytes())
	}
	var pkgs []depPkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p depPkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatalf("decoding go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

func TestProtobufLight(t *testing.T) {
	fromClient := map[string]bool{}
	for _, p := range listDeps(t, clientPackage) {
		fromClient[p.ImportPath] = true
	}
	if !fromClient[protobufModule+"/proto"] {
		t.Fatalf("%s no longer pulls %s/proto: protobufLight could be stricter (no protobuf at all)", clientPackage, protobufModule)
	}
	modPath, _ := list(t)
	for _, self := range protobufLight {
		for _, p := range listDeps(t, "./"+self) {
			switch {
			case match(protobufModule+"/...", p.ImportPath) && !fromClient[p.ImportPath]:
				t.Errorf("%s depends on %s, which %s does not: %s must compile no protobuf beyond what controller-runtime's client does (docs/architecture.md)", self, p.ImportPath, clientPackage, self)
			case p.Module != nil && p.Module.Path == modPath:
				for _, imp := range p.Imports {
					if match(protobufModule+"/...", imp) {
						t.Errorf("%s depends on %s, which imports %s: %s must compile no protobuf code of ctrlkit (docs/architecture.md)", self, p.ImportPath, imp, self)
						break
					}
				}
			}
		}
	}
}
