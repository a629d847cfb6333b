// Package crossplane builds Crossplane core from the Go module proxy, caches
// the binary, and runs it out of cluster against a control plane.
//
// The version is the one tools/crossplane/go.mod requires; that module builds
// github.com/crossplane/crossplane/v2/cmd/crossplane with Crossplane's own
// dependency versions. The binary and Crossplane's core CRDs (the module's
// cluster/crds) are cached under os.UserCacheDir()/ctrlkit/crossplane/
// <version>_<goos>-<goarch>; a build writes a temporary directory beside the
// entry and renames it into place, and concurrent callers serialise on a lock
// file, so one builds and the others reuse its result.
package crossplane

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Module is Crossplane core's module path.
const Module = "github.com/crossplane/crossplane/v2"

// apisModule holds Crossplane's API types in newer releases.
const apisModule = "github.com/crossplane/crossplane/apis/v2"

const (
	binaryName   = "crossplane"
	crdsDir      = "crds"
	manifestName = "manifest.json"
)

// ErrCorruptCache is wrapped by every error about a cache entry that exists
// but cannot be used.
var ErrCorruptCache = errors.New("corrupt crossplane cache")

// BuildOptions tune Build. The zero value is ready to use.
type BuildOptions struct {
	// Progress receives build progress. Defaults to os.Stderr.
	Progress io.Writer
	// ModuleDir is the tools/crossplane module. Defaults to the one found
	// above this source file or the working directory.
	ModuleDir string
	// CacheDir is the root of the cache. Defaults to
	// os.UserCacheDir()/ctrlkit/crossplane.
	CacheDir string
	// Rebuild discards a cached entry and builds it again.
	Rebuild bool
	// Version, if set, builds this version of Crossplane core instead of
	// the one tools/crossplane pins, in a scratch module whose go.mod `go
	// get` completes from the module proxy (CROSSPLANE_VERSION in the suite
	// and make test-e2e).
	Version string
}

// An Install is a built Crossplane.
type Install struct {
	// Version of Crossplane core.
	Version string
	// Binary is the crossplane command.
	Binary string
	// CRDs is the directory of Crossplane's core CRDs, for `crossplane core
	// init --crds-path`.
	CRDs string
	// Built tells whether this call built it (false: found in the cache).
	Built bool
}

type manifest struct {
	Version string    `json:"version"`
	Go      string    `json:"go"`
	Built   time.Time `json:"built"`
	SHA256  string    `json:"sha256"`
}

// Build returns the cached Crossplane, building it first when the cache has
// none of the pinned version.
func Build(ctx context.Context, o BuildOptions) (Install, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Install{}, err
	}
	version, err := moduleVersion(filepath.Join(o.ModuleDir, "go.mod"))
	if err != nil {
		return Install{}, err
	}
	if o.Version != "" && o.Version != version {
		version = o.Version
	} else {
		o.Version = ""
	}
	entry := filepath.Join(o.CacheDir, fmt.Sprintf("%s_%s-%s", version, runtime.GOOS, runtime.GOARCH))
	if !o.Rebuild {
		if _, err := os.Stat(entry); err == nil {
			return verify(entry, version)
		}
	}
	if err := os.MkdirAll(o.CacheDir, 0o755); err != nil {
		return Install{}, fmt.Errorf("cannot create crossplane cache %s: %w", o.CacheDir, err)
	}
	unlock, err := lock(ctx, filepath.Join(o.CacheDir, ".lock"), o.Progress)
	if err != nil {
		return Install{}, err
	}
	defer unlock()
	if _, err := os.Stat(entry); err == nil {
		if !o.Rebuild {
			return verify(entry, version)
		}
		if err := os.RemoveAll(entry); err != nil {
			return Install{}, fmt.Errorf("cannot remove cached crossplane %s: %w", entry, err)
		}
	}
	if err := build(ctx, o, entry, version); err != nil {
		return Install{}, err
	}
	in, err := verify(entry, version)
	in.Built = true
	return in, err
}

func (o BuildOptions) withDefaults() (BuildOptions, error) {
	if o.Progress == nil {
		o.Progress = os.Stderr
	}
	if o.CacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return o, fmt.Errorf("cannot find a cache directory for crossplane: %w", err)
		}
		o.CacheDir = filepath.Join(base, "ctrlkit", "crossplane")
	}
	if o.ModuleDir == "" {
		dir, err := findModuleDir()
		if err != nil {
			return o, err
		}
		o.ModuleDir = dir
	}
	return o, nil
}

// findModuleDir locates tools/crossplane above this source file or the
// working directory.
func findModuleDir() (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, start := range starts {
		for dir := start; ; dir = filepath.Dir(dir) {
			candidate := filepath.Join(dir, "tools", "crossplane")
			if _, err := os.Stat(filepath.Join(candidate, "go.mod")); err == nil {
				return candidate, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find the tools/crossplane module above %v: run from a ctrlkit checkout", starts)
}

// moduleVersion reads the required version of Module from go.mod.
func moduleVersion(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("cannot read the crossplane version: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(f) >= 2 && f[0] == Module {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("cannot read the crossplane version: %s requires no %s", gomod, Module)
}

func verify(entry, version string) (Install, error) {
	rebuild := fmt.Sprintf("delete %s to rebuild it", entry)
	in := Install{Version: version, Binary: filepath.Join(entry, binaryName), CRDs: filepath.Join(entry, crdsDir)}
	data, err := os.ReadFile(filepath.Join(entry, manifestName))
	if err != nil {
		return in, fmt.Errorf("%w: %v; %s", ErrCorruptCache, err, rebuild)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return in, fmt.Errorf("%w: %s: %v; %s", ErrCorruptCache, filepath.Join(entry, manifestName), err, rebuild)
	}
	sum, err := fileSHA256(in.Binary)
	if err != nil {
		return in, fmt.Errorf("%w: %v; %s", ErrCorruptCache, err, rebuild)
	}
	if sum != m.SHA256 {
		return in, fmt.Errorf("%w: %s has sha256 %s, built as %s; %s", ErrCorruptCache, in.Binary, sum, m.SHA256, rebuild)
	}
	if fi, err := os.Stat(in.CRDs); err != nil || !fi.IsDir() {
		return in, fmt.Errorf("%w: no CRD directory %s; %s", ErrCorruptCache, in.CRDs, rebuild)
	}
	return in, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// build compiles the command and copies the module's CRDs into a temporary
// directory, renamed to entry once complete.
func build(ctx context.Context, o BuildOptions, entry, version string) error {
	tmp, err := os.MkdirTemp(o.CacheDir, ".build-")
	if err != nil {
		return fmt.Errorf("cannot create a build directory in %s: %w", o.CacheDir, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed

	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("cannot build crossplane: no go command on PATH: %w", err)
	}
	start := time.Now()
	fmt.Fprintf(o.Progress, "crossplane: building %s %s from the Go module proxy (many minutes on 2 cores; cached afterwards)\n", Module, version)
	bin := filepath.Join(tmp, binaryName)
	var log bytes.Buffer
	if o.Version != "" {
		if o.ModuleDir, err = scratchModule(ctx, gobin, filepath.Join(tmp, "module"), version); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, gobin, "build", "-ldflags", "-s -w", "-o", bin, Module+"/cmd/crossplane")
	cmd.Dir, cmd.Stdout, cmd.Stderr = o.ModuleDir, &log, &log
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(o.Progress, "crossplane: still building, %s elapsed\n", time.Since(start).Round(time.Second))
			}
		}
	}()
	err = cmd.Run()
	close(done)
	if err != nil {
		return fmt.Errorf("cannot build crossplane %s (go build in %s): %w\n%s", version, o.ModuleDir, err, tail(log.String(), 40))
	}

	// The CRDs come from the module cache, where the build put the module.
	log.Reset()
	cmd = exec.CommandContext(ctx, gobin, "list", "-m", "-f", "{{.Dir}}", Module)
	cmd.Dir, cmd.Stdout, cmd.Stderr = o.ModuleDir, &log, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cannot find crossplane %s in the module cache: %w", version, err)
	}
	if err := copyYAML(filepath.Join(strings.TrimSpace(log.String()), "cluster", "crds"), filepath.Join(tmp, crdsDir)); err != nil {
		return err
	}

	sum, err := fileSHA256(bin)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(manifest{Version: version, Go: runtime.Version(), Built: time.Now().UTC(), SHA256: sum}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestName), data, 0o644); err != nil {
		return fmt.Errorf("cannot write crossplane manifest: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, entry); err != nil {
		return fmt.Errorf("cannot move built crossplane into %s: %w", entry, err)
	}
	fmt.Fprintf(o.Progress, "crossplane: built %s in %s, cached in %s\n", version, time.Since(start).Round(time.Second), entry)
	return nil
}

// scratchModule writes, in dir, a module like tools/crossplane that requires
// version of Module, completes its go.mod and go.sum for building the command
// with go get (not go mod tidy, which also wants the modules of Crossplane's
// tests), and returns dir.
func scratchModule(ctx context.Context, gobin, dir, version string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	gomod := "module github.com/ctrlkit/ctrlkit/tools/crossplane\n\ngo 1.26.0\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	get := func(pkg string) error {
		cmd := exec.CommandContext(ctx, gobin, "get", pkg)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("cannot resolve crossplane %s's dependencies (go get %s): %w\n%s", version, pkg, err, tail(string(out), 20))
		}
		return nil
	}
	if err := get(Module + "/cmd/crossplane@" + version); err != nil {
		return "", err
	}
	// Since v2.3 Crossplane's API types are a module of their own, which
	// its go.mod replaces with its own directory: a replace that a module
	// required by another does not get. The same version stands in for it.
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	if strings.Contains(string(b), apisModule+" ") {
		if err := get(apisModule + "@" + version); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// copyYAML copies the YAML files of src (not its subdirectories) to dst.
func copyYAML(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("cannot read crossplane's CRDs: %w", err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return fmt.Errorf("cannot read crossplane's CRDs: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			return fmt.Errorf("cannot cache crossplane's CRDs: %w", err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("cannot read crossplane's CRDs: no YAML file in %s", src)
	}
	return nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
