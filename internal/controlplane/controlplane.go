// Package controlplane finds, and when needed builds, the kube-apiserver and
// etcd binaries that ctrlkit's tests and examples run against.
//
// The binaries come from one of two places, in this order:
//
//  1. KUBEBUILDER_ASSETS, when set: a directory holding kube-apiserver and etcd,
//     as setup-envtest installs them. If the variable is set but the directory
//     does not hold both as executable files, Assets fails and names the path;
//     it never falls back silently.
//  2. A per-version cache under the user cache directory
//     (os.UserCacheDir()/ctrlkit/controlplane/<versions>), filled by building
//     both binaries from source with `go build` inside the nested module
//     tools/controlplane, whose go.mod pins k8s.io/kubernetes and
//     go.etcd.io/etcd/server/v3. Only the Go module proxy is used; nothing
//     prebuilt is downloaded.
//
// A build writes into a temporary directory beside the cache entry and renames
// it into place when both binaries and their checksums are written, so a
// half-written cache entry is never used. Every cached binary is checked
// against the SHA-256 recorded at build time before it is handed out; a
// mismatch is an error that names the file and says how to rebuild. Concurrent
// callers (go test runs packages in parallel) serialise on a lock file, so one
// builds and the others wait and then reuse its result.
package controlplane

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

// EnvAssets is the environment variable that, when set, names a directory with
// prebuilt kube-apiserver and etcd binaries (the setup-envtest convention).
const EnvAssets = "KUBEBUILDER_ASSETS"

// The binaries a control plane needs.
const (
	APIServer = "kube-apiserver"
	Etcd      = "etcd"
)

// The modules whose versions name a cache entry.
const (
	kubernetesModule = "k8s.io/kubernetes"
	etcdModule       = "go.etcd.io/etcd/server/v3"
)

const manifestName = "manifest.json"

// ErrInvalidAssets is wrapped by every error about a binary directory that
// exists but cannot be used: a wrong KUBEBUILDER_ASSETS or a corrupt cache.
var ErrInvalidAssets = errors.New("invalid control plane binaries")

// Options tune Assets. The zero value is ready to use.
type Options struct {
	// Progress receives build progress. Defaults to os.Stderr.
	Progress io.Writer
	// ModuleDir is the tools/controlplane module. Defaults to the one in the
	// checkout this package was compiled from, or found above the working
	// directory.
	ModuleDir string
	// CacheDir is the root of the binary cache. Defaults to
	// os.UserCacheDir()/ctrlkit/controlplane.
	CacheDir string
	// Rebuild discards a cached entry and builds it again.
	Rebuild bool
	// ProgressInterval is how often a running build reports its elapsed time.
	// Defaults to 30s.
	ProgressInterval time.Duration
}

// Assets returns a directory holding kube-apiserver and etcd, building them
// into the cache first if they are not there yet.
func Assets(ctx context.Context, o Options) (string, error) {
	if dir, ok := os.LookupEnv(EnvAssets); ok && dir != "" {
		if err := checkDir(dir); err != nil {
			return "", fmt.Errorf("cannot use %s=%s: %w", EnvAssets, dir, err)
		}
		return dir, nil
	}
	o, err := o.withDefaults()
	if err != nil {
		return "", err
	}
	k8s, etcd, err := moduleVersions(filepath.Join(o.ModuleDir, "go.mod"))
	if err != nil {
		return "", err
	}
	entry := filepath.Join(o.CacheDir, fmt.Sprintf("kubernetes-%s_etcd-%s_%s", k8s, etcd, goosArch()))

	if !o.Rebuild {
		if _, err := os.Stat(entry); err == nil {
			return entry, verify(entry)
		}
	}

	if err := os.MkdirAll(o.CacheDir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create control plane cache %s: %w", o.CacheDir, err)
	}
	unlock, err := lock(ctx, filepath.Join(o.CacheDir, ".lock"), o.Progress)
	if err != nil {
		return "", err
	}
	defer unlock()

	// Another process may have built the entry while we waited for the lock.
	if _, err := os.Stat(entry); err == nil {
		if !o.Rebuild {
			return entry, verify(entry)
		}
		if err := os.RemoveAll(entry); err != nil {
			return "", fmt.Errorf("cannot remove cached control plane %s: %w", entry, err)
		}
	}
	if err := build(ctx, o, entry, k8s, etcd); err != nil {
		return "", err
	}
	return entry, verify(entry)
}

func (o Options) withDefaults() (Options, error) {
	if o.Progress == nil {
		o.Progress = os.Stderr
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = 30 * time.Second
	}
	if o.CacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return o, fmt.Errorf("cannot find a cache directory for control plane binaries (set %s to prebuilt ones): %w", EnvAssets, err)
		}
		o.CacheDir = filepath.Join(base, "ctrlkit", "controlplane")
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

// findModuleDir locates tools/controlplane: beside this source file when it was
// compiled from a checkout, else in the working directory or one above it.
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
			candidate := filepath.Join(dir, "tools", "controlplane")
			if _, err := os.Stat(filepath.Join(candidate, "go.mod")); err == nil {
				return candidate, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find the tools/controlplane module above %v: run from a ctrlkit checkout or set %s", starts, EnvAssets)
}

// moduleVersions reads the pinned kubernetes and etcd versions from go.mod.
func moduleVersions(gomod string) (k8s, etcd string, err error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", "", fmt.Errorf("cannot read control plane versions: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case kubernetesModule:
			k8s = f[1]
		case etcdModule:
			etcd = f[1]
		}
	}
	if k8s == "" || etcd == "" {
		return "", "", fmt.Errorf("cannot read control plane versions: %s requires no %s or no %s", gomod, kubernetesModule, etcdModule)
	}
	return k8s, etcd, nil
}

// checkDir reports whether dir holds executable kube-apiserver and etcd files.
func checkDir(dir string) error {
	for _, name := range []string{APIServer, Etcd} {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return fmt.Errorf("%w: %s: %v", ErrInvalidAssets, p, err)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("%w: %s is not a regular file", ErrInvalidAssets, p)
		case fi.Mode().Perm()&0o111 == 0:
			return fmt.Errorf("%w: %s is not executable", ErrInvalidAssets, p)
		}
	}
	return nil
}

// manifest records what was built and the checksums of the results.
type manifest struct {
	Kubernetes string            `json:"kubernetes"`
	Etcd       string            `json:"etcd"`
	Go         string            `json:"go"`
	Built      time.Time         `json:"built"`
	SHA256     map[string]string `json:"sha256"`
}

// verify checks a cache entry against its manifest.
func verify(entry string) error {
	rebuild := fmt.Sprintf("delete %s, or run `make controlplane REBUILD=1`, to rebuild it", entry)
	if err := checkDir(entry); err != nil {
		return fmt.Errorf("corrupt control plane cache: %w; %s", err, rebuild)
	}
	data, err := os.ReadFile(filepath.Join(entry, manifestName))
	if err != nil {
		return fmt.Errorf("%w: corrupt control plane cache: %v; %s", ErrInvalidAssets, err, rebuild)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%w: corrupt control plane cache: %s: %v; %s", ErrInvalidAssets, filepath.Join(entry, manifestName), err, rebuild)
	}
	for _, name := range []string{APIServer, Etcd} {
		p := filepath.Join(entry, name)
		sum, err := fileSHA256(p)
		if err != nil {
			return fmt.Errorf("%w: corrupt control plane cache: %v; %s", ErrInvalidAssets, err, rebuild)
		}
		if want := m.SHA256[name]; sum != want {
			return fmt.Errorf("%w: corrupt control plane cache: %s has sha256 %s, built as %s; %s", ErrInvalidAssets, p, sum, want, rebuild)
		}
	}
	return nil
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

// build compiles both binaries into a temporary directory and renames it to
// entry once everything is in place.
func build(ctx context.Context, o Options, entry, k8s, etcd string) error {
	tmp, err := os.MkdirTemp(o.CacheDir, ".build-")
	if err != nil {
		return fmt.Errorf("cannot create a build directory in %s: %w", o.CacheDir, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed

	gitVersion := strings.TrimPrefix(k8s, "v")
	major, minor, _ := strings.Cut(gitVersion, ".")
	minor, _, _ = strings.Cut(minor, ".")
	ldflags := strings.Join([]string{
		"-s", "-w",
		"-X k8s.io/component-base/version.gitVersion=" + k8s,
		"-X k8s.io/component-base/version.gitMajor=" + major,
		"-X k8s.io/component-base/version.gitMinor=" + minor,
		"-X k8s.io/component-base/version.gitTreeState=clean",
	}, " ")
	steps := []struct {
		name, version, pkg, ldflags, hint string
	}{
		{Etcd, etcd, "./etcd", "-s -w", "about 1 minute cold on 2 cores"},
		{APIServer, k8s, "k8s.io/kubernetes/cmd/kube-apiserver", ldflags, "about 7 minutes cold on 2 cores"},
	}
	m := manifest{Kubernetes: k8s, Etcd: etcd, Go: runtime.Version(), SHA256: map[string]string{}}
	for _, s := range steps {
		out := filepath.Join(tmp, s.name)
		if err := goBuild(ctx, o, s.name, s.version, s.hint, out, s.pkg, s.ldflags); err != nil {
			return err
		}
		sum, err := fileSHA256(out)
		if err != nil {
			return err
		}
		m.SHA256[s.name] = sum
	}
	m.Built = time.Now().UTC()
	data, err := jsonMarshal(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestName), data, 0o644); err != nil {
		return fmt.Errorf("cannot write control plane manifest: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, entry); err != nil {
		return fmt.Errorf("cannot move built control plane into %s: %w", entry, err)
	}
	fmt.Fprintf(o.Progress, "controlplane: cached in %s\n", entry)
	return nil
}

func goBuild(ctx context.Context, o Options, name, version, hint, out, pkg, ldflags string) error {
	// go run and go test put the toolchain that runs them first on PATH.
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("cannot build %s: no go command on PATH: %w", name, err)
	}
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, gobin, "build", "-ldflags", ldflags, "-o", out, pkg)
	cmd.Dir = o.ModuleDir
	cmd.Stdout = &log
	cmd.Stderr = &log

	start := time.Now()
	fmt.Fprintf(o.Progress, "controlplane: building %s %s from the Go module proxy (%s; cached afterwards)\n", name, version, hint)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(o.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(o.Progress, "controlplane: still building %s, %s elapsed\n", name, time.Since(start).Round(time.Second))
			}
		}
	}()
	err = cmd.Run()
	close(done)
	if err != nil {
		return fmt.Errorf("cannot build %s %s (go build %s in %s): %w\n%s\nthe cache was not changed; fix the cause above and run again (make controlplane) to retry", name, version, pkg, o.ModuleDir, err, tail(log.String(), 40))
	}
	fmt.Fprintf(o.Progress, "controlplane: built %s %s in %s\n", name, version, time.Since(start).Round(time.Second))
	return nil
}

func goosArch() string { return runtime.GOOS + "-" + runtime.GOARCH }

func jsonMarshal(m manifest) ([]byte, error) { return json.MarshalIndent(m, "", "  ") }

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
