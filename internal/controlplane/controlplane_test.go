package controlplane

import (
	"bytes"
	"context"
	"errors"
	"github.com/google/go-cmp/cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeEntry writes a cache entry with executable stand-ins and a manifest.
func fakeEntry(t *testing.T, cacheDir, gomodDir string) string {
	t.Helper()
	k8s, etcd, err := moduleVersions(filepath.Join(gomodDir, "go.mod"))
	require.NoError(t, err)
	entry := filepath.Join(cacheDir, "kubernetes-"+k8s+"_etcd-"+etcd+"_"+goosArch())
	require.NoError(t, os.MkdirAll(entry, 0o755))
	m := manifest{Kubernetes: k8s, Etcd: etcd, SHA256: map[string]string{}}
	for _, name := range []string{APIServer, Etcd} {
		p := filepath.Join(entry, name)
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\necho "+name+"\n"), 0o755))
		sum, err := fileSHA256(p)
		require.NoError(t, err)
		m.SHA256[name] = sum
	}
	writeManifest(t, entry, m)
	return entry
}

func writeManifest(t *testing.T, entry string, m manifest) {
	t.Helper()
	data, err := jsonMarshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(entry, manifestName), data, 0o644))
}

// fakeModule writes a tools/controlplane-like go.mod pinning the versions.
func fakeModule(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	gomod := "module example.com/cp\n\ngo 1.26.0\n\nrequire (\n\tgo.etcd.io/etcd/server/v3 v3.6.8\n\tk8s.io/kubernetes v1.36.3\n)\n" + extra
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	return dir
}

func TestAssetsEnvironment(t *testing.T) {
	good := t.TempDir()
	for _, name := range []string{APIServer, Etcd} {
		require.NoError(t, os.WriteFile(filepath.Join(good, name), []byte("#!/bin/sh\n"), 0o755))
	}
	notExec := t.TempDir()
	for _, name := range []string{APIServer, Etcd} {
		require.NoError(t, os.WriteFile(filepath.Join(notExec, name), []byte("x"), 0o644))
	}
	missing := filepath.Join(t.TempDir(), "nope")

	cases := map[string]struct {
		reason  string
		dir     string
		wantErr string // substring; "" means success
	}{
		"Valid": {
			reason: "a directory with both executables wins over the cache",
			dir:    good,
		},
		"Missing": {
			reason:  "a directory that does not exist is an error naming the path",
			dir:     missing,
			wantErr: filepath.Join(missing, APIServer),
		},
		"NotExecutable": {
			reason:  "files that cannot be executed are an error naming the file",
			dir:     notExec,
			wantErr: filepath.Join(notExec, APIServer) + " is not executable",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv(EnvAssets, tc.dir)
			got, err := Assets(t.Context(), Options{CacheDir: t.TempDir(), ModuleDir: t.TempDir()})
			if tc.wantErr == "" {
				require.NoError(t, err, tc.reason)
				if diff := cmp.Diff(tc.dir, got); diff != "" {
					t.Errorf("%s: -want, +got:\n%s", tc.reason, diff)
				}
				return
			}
			require.Error(t, err, tc.reason)
			if !errors.Is(err, ErrInvalidAssets) {
				t.Errorf("%s: err = %v, want %v", tc.reason, err, ErrInvalidAssets)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want it to contain %q", tc.reason, err, tc.wantErr)
			}
			if err == nil || !strings.Contains(err.Error(), EnvAssets+"="+tc.dir) {
				t.Errorf("%s: err = %v, want it to contain %q", tc.reason, err, EnvAssets+"="+tc.dir)
			}
		})
	}
}

func TestAssetsCache(t *testing.T) {
	t.Setenv(EnvAssets, "")
	mod := fakeModule(t, "")

	t.Run("Hit", func(t *testing.T) {
		cache := t.TempDir()
		entry := fakeEntry(t, cache, mod)
		var progress bytes.Buffer
		got, err := Assets(t.Context(), Options{CacheDir: cache, ModuleDir: mod, Progress: &progress})
		require.NoError(t, err)
		if diff := cmp.Diff(entry, got); diff != "" {
			t.Errorf("got: -want, +got:\n%s", diff)
		}
		if len(progress.String()) != 0 {
			t.Errorf("a cache hit builds nothing: progress.String() = %v, want empty", progress.String())
		}
	})

	t.Run("CorruptBinary", func(t *testing.T) {
		cache := t.TempDir()
		entry := fakeEntry(t, cache, mod)
		p := filepath.Join(entry, APIServer)
		require.NoError(t, os.WriteFile(p, []byte("truncated"), 0o755))
		_, err := Assets(t.Context(), Options{CacheDir: cache, ModuleDir: mod})
		if !errors.Is(err, ErrInvalidAssets) {
			t.Errorf("err = %v, want %v", err, ErrInvalidAssets)
		}
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("the error names the corrupt file: err = %v, want it to contain %q", err, p)
		}
		if err == nil || !strings.Contains(err.Error(), "rebuild") {
			t.Errorf("the error says how to recover: err = %v, want it to contain %q", err, "rebuild")
		}
	})

	t.Run("MissingBinary", func(t *testing.T) {
		cache := t.TempDir()
		entry := fakeEntry(t, cache, mod)
		require.NoError(t, os.Remove(filepath.Join(entry, Etcd)))
		_, err := Assets(t.Context(), Options{CacheDir: cache, ModuleDir: mod})
		if !errors.Is(err, ErrInvalidAssets) {
			t.Errorf("err = %v, want %v", err, ErrInvalidAssets)
		}
		if err == nil || !strings.Contains(err.Error(), filepath.Join(entry, Etcd)) {
			t.Errorf("err = %v, want it to contain %q", err, filepath.Join(entry, Etcd))
		}
	})

	t.Run("CorruptManifest", func(t *testing.T) {
		cache := t.TempDir()
		entry := fakeEntry(t, cache, mod)
		require.NoError(t, os.WriteFile(filepath.Join(entry, manifestName), []byte("{"), 0o644))
		_, err := Assets(t.Context(), Options{CacheDir: cache, ModuleDir: mod})
		if !errors.Is(err, ErrInvalidAssets) {
			t.Errorf("err = %v, want %v", err, ErrInvalidAssets)
		}
		if err == nil || !strings.Contains(err.Error(), filepath.Join(entry, manifestName)) {
			t.Errorf("err = %v, want it to contain %q", err, filepath.Join(entry, manifestName))
		}
	})
}

func TestAssetsBuildFailure(t *testing.T) {
	t.Setenv(EnvAssets, "")
	// A module without the etcd main package: the first build step fails at
	// once, without touching the network.
	mod := fakeModule(t, "")
	cache := t.TempDir()
	var progress bytes.Buffer
	_, err := Assets(t.Context(), Options{CacheDir: cache, ModuleDir: mod, Progress: &progress})
	require.Error(t, err)
	if err == nil || !strings.Contains(err.Error(), "cannot build etcd v3.6.8") {
		t.Errorf("the error names the failed step: err = %v, want it to contain %q", err, "cannot build etcd v3.6.8")
	}
	if err == nil || !strings.Contains(err.Error(), "run again") {
		t.Errorf("the error says how to retry: err = %v, want it to contain %q", err, "run again")
	}
	if !strings.Contains(progress.String(), "building etcd v3.6.8") {
		t.Errorf("progress names what is being built: progress.String() = %q, want it to contain %q", progress.String(), "building etcd v3.6.8")
	}

	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("a failed build left %s in the cache", e.Name())
		}
	}
}

func TestModuleVersions(t *testing.T) {
	cases := map[string]struct {
		gomod     string
		wantK8s   string
		wantEtcd  string
		wantError bool
	}{
		"Block": {
			gomod:   "module x\nrequire (\n\tgo.etcd.io/etcd/server/v3 v3.6.8\n\tk8s.io/kubernetes v1.36.3 // indirect\n)\n",
			wantK8s: "v1.36.3", wantEtcd: "v3.6.8",
		},
		"SingleLines": {
			gomod:   "module x\nrequire k8s.io/kubernetes v1.37.0\nrequire go.etcd.io/etcd/server/v3 v3.6.9\n",
			wantK8s: "v1.37.0", wantEtcd: "v3.6.9",
		},
		"ReplaceIgnored": {
			gomod:     "module x\nreplace k8s.io/api => k8s.io/api v0.36.3\n",
			wantError: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "go.mod")
			require.NoError(t, os.WriteFile(p, []byte(tc.gomod), 0o644))
			k8s, etcd, err := moduleVersions(p)
			if tc.wantError {
				require.Error(t, err)
				if err == nil || !strings.Contains(err.Error(), p) {
					t.Errorf("err = %v, want it to contain %q", err, p)
				}
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tc.wantK8s, k8s); diff != "" {
				t.Errorf("k8s: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEtcd, etcd); diff != "" {
				t.Errorf("etcd: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestFindModuleDir(t *testing.T) {
	dir, err := findModuleDir()
	require.NoError(t, err)
	if !strings.HasSuffix(dir, filepath.Join("tools", "controlplane")) {
		t.Errorf("findModuleDir() = %s, want a path ending in tools/controlplane", dir)
	}
	_, _, err = moduleVersions(filepath.Join(dir, "go.mod"))
	require.NoError(t, err, "the real tools/controlplane/go.mod pins both versions")
}

func TestLockWaitsForHolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".lock")
	unlock, err := lock(t.Context(), p, &bytes.Buffer{})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 600*time.Millisecond)
	defer cancel()
	var progress bytes.Buffer
	_, err = lock(ctx, p, &progress)
	if lockIsReal {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a second locker waits while the first holds the lock: %v", err)
		}
		if !strings.Contains(progress.String(), "waiting") {
			t.Errorf("progress.String() = %q, want it to contain %q", progress.String(), "waiting")
		}
	}
	unlock()
	unlock2, err := lock(t.Context(), p, &bytes.Buffer{})
	require.NoError(t, err, "the lock is free once released")
	unlock2()
}
