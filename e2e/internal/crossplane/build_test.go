package crossplane

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// cacheEntry writes a module dir pinning version and a complete cache
// entry for it, and returns BuildOptions using them.
func cacheEntry(t *testing.T, version string) (BuildOptions, string) {
	t.Helper()
	mod, cache := t.TempDir(), t.TempDir()
	gomod := "module example.com/x\n\ngo 1.26.0\n\nrequire " + Module + " " + version + "\n"
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(cache, version+"_"+runtime.GOOS+"-"+runtime.GOARCH)
	if err := os.MkdirAll(filepath.Join(entry, crdsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(entry, binaryName)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := fileSHA256(bin)
	if err != nil {
		t.Fatal(err)
	}
	m := `{"version":"` + version + `","sha256":"` + sum + `"}`
	if err := os.WriteFile(filepath.Join(entry, manifestName), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return BuildOptions{Progress: io.Discard, ModuleDir: mod, CacheDir: cache}, entry
}

func TestBuildFindsTheCachedVersion(t *testing.T) {
	o, entry := cacheEntry(t, "v2.1.0")
	in, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if in.Built || in.Version != "v2.1.0" || in.Binary != filepath.Join(entry, binaryName) || in.CRDs != filepath.Join(entry, crdsDir) {
		t.Errorf("Build: want the cached v2.1.0 in %s, not built; got %+v", entry, in)
	}
}

func TestBuildRefusesACorruptCache(t *testing.T) {
	o, entry := cacheEntry(t, "v2.1.0")
	if err := os.WriteFile(filepath.Join(entry, binaryName), []byte("changed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), o); !errors.Is(err, ErrCorruptCache) {
		t.Errorf("Build with a changed binary: want an error wrapping ErrCorruptCache, got %v", err)
	}
}

func TestModuleVersionNeedsTheRequirement(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(p, []byte("module example.com/x\n\nrequire (\n\t"+Module+" v2.4.2\n)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := moduleVersion(p); err != nil || v != "v2.4.2" {
		t.Errorf("moduleVersion of a require block: want v2.4.2, got %q, %v", v, err)
	}
	if err := os.WriteFile(p, []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := moduleVersion(p); err == nil {
		t.Error("moduleVersion without the requirement: want an error")
	}
}
