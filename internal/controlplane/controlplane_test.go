package controlplane

import (
	"bytes"
	"context"
	"errors"
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
			got, err := Assets(context.Background(), Options{CacheDir: t.TempDir(), ModuleDir: t.TempDir()})
			if tc.wantErr == "" {
				require.NoError(t, err, tc.reason)
				require.Equal(t, tc.dir, got, tc.reason)
				return
			}
			require.Error(t, err, tc.reason)
			require.ErrorIs(t, err, ErrInvalidAssets, tc.reason)
			require.Contains(t, err.Error(), tc.wantErr, tc.reason)
			require.Contains(t, err.Error(), EnvAssets+"="+tc.dir, tc.reason)
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
		got, err := Assets(context.Background(), Options{CacheDir: cache, ModuleDir: mod, Progress: &progress})
		require.NoError(t, err)
		require.Equal(t, entry, got)
		require.Empty(t, progress.String(), "a cache hit builds nothing")
	})

	t.Run("CorruptBinary", func(t *testing.T) {
		cache := t.TempDir()
		entry := fakeEntry(t, cache, mod)
		p := filepath.Join(entry, APIServer)
		require.NoError(t, os.WriteFile(p, []byte("truncated"), 0o755))
		_, err := Assets(context.Background(), Options{CacheDir: cache, ModuleDir: mod})
		require.ErrorIs(t, err, ErrInvalidAssets)
		require.Contains(t, err.Error(), p, "the error names the corrupt file")
		require.Contains(t, err.Error(), "rebuild", "the error says how to recover")
	})

	t.Run("MissingBinary", func(t *testing.T) {
		cache := t.TempDir()
		entry := fakeEntry(t, cache, mod)
		require.NoError(t, os.Remove(filepath.Join(entry, Etcd)))
		_, err := Assets(context.Background(), Options{CacheDir: cache, ModuleDir: mod})
		require.ErrorIs(t, err, ErrInvalidAssets)
		require.Contains(t, err.Error(), filepath.Join(entry, Etcd))
	})

	t.Run("CorruptManifest", func(t *testing.T) {
		cache := t.TempDir()
		entry := fakeEntry(t, cache, mod)
		require.NoError(t, os.WriteFile(filepath.Join(entry, manifestName), []byte("{"), 0o644))
		_, err := Assets(context.Background(), Options{CacheDir: cache, ModuleDir: mod})
		require.ErrorIs(t, err, ErrInvalidAssets)
		require.Contains(t, err.Error(), filepath.Join(entry, manifestName))
	})
}

func TestAssetsBuildFailure(t *testing.T) {
	t.Setenv(EnvAssets, "")
	// A module without the etcd main package: the first build step fails at
	// once, without touching the network.
	mod := fakeModule(t, "")
	cache := t.TempDir()
	var progress bytes.Buffer
	_, err := Assets(context.Background(), Options{CacheDir: cache, ModuleDir: mod, Progress: &progress})
	require.Error(t, err)
	require.Contains(t, err.Error(), "cannot build etcd v3.6.8", "the error names the failed step")
	require.Contains(t, err.Error(), "run again", "the error says how to retry")
	require.Contains(t, progress.String(), "building etcd v3.6.8", "progress names what is being built")

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
				require.Contains(t, err.Error(), p)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantK8s, k8s)
			require.Equal(t, tc.wantEtcd, etcd)
		})
	}
}

func TestFindModuleDir(t *testing.T) {
	dir, err := findModuleDir()
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(dir, filepath.Join("tools", "controlplane")), dir)
	_, _, err = moduleVersions(filepath.Join(dir, "go.mod"))
	require.NoError(t, err, "the real tools/controlplane/go.mod pins both versions")
}

func TestLockWaitsForHolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".lock")
	unlock, err := lock(context.Background(), p, &bytes.Buffer{})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	var progress bytes.Buffer
	_, err = lock(ctx, p, &progress)
	if lockIsReal {
		require.True(t, errors.Is(err, context.DeadlineExceeded), "a second locker waits while the first holds the lock: %v", err)
		require.Contains(t, progress.String(), "waiting")
	}
	unlock()
	unlock2, err := lock(context.Background(), p, &bytes.Buffer{})
	require.NoError(t, err, "the lock is free once released")
	unlock2()
}
