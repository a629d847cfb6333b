// Package xpkg serves Crossplane packages to Crossplane's package manager
// from a registry on the loopback interface, and reads what a package holds:
// its package.yaml and its runtime binary.
package xpkg

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Facts of Crossplane's package format: the package layer is the one whose
// descriptor carries AnnotationKey: BaseLayer, and holds PackageFile.
const (
	AnnotationKey = "io.crossplane.xpkg"
	BaseLayer     = "base"
	PackageFile   = "package.yaml"
)

// A Registry is an OCI registry (go-containerregistry's in-memory one)
// served over plain HTTP on 127.0.0.1: go-containerregistry, and so
// Crossplane's package manager, talks HTTP to a loopback registry.
type Registry struct {
	// Host is the registry's host:port, the first element of a reference.
	Host string
	srv  *http.Server
}

// StartRegistry serves a registry on a free loopback port until Stop.
func StartRegistry() (*Registry, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen for the registry: %w", err)
	}
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	go func() { _ = srv.Serve(l) }()
	return &Registry{Host: l.Addr().String(), srv: srv}, nil
}

// Stop stops serving.
func (r *Registry) Stop() error { return r.srv.Close() }

// Push pushes the image index of the OCI layout dir (as make xpkg writes
// it: one index in index.json) as repo:tag and returns its reference.
func (r *Registry) Push(ctx context.Context, dir, repo, tag string) (name.Reference, error) {
	idx, err := ReadLayout(dir)
	if err != nil {
		return nil, err
	}
	ref, err := name.ParseReference(r.Host+"/"+repo+":"+tag, name.StrictValidation)
	if err != nil {
		return nil, err
	}
	if err := remote.WriteIndex(ref, idx, remote.WithContext(ctx)); err != nil {
		return nil, fmt.Errorf("cannot push %s to %s: %w", dir, ref, err)
	}
	return ref, nil
}

// ReadLayout returns the one image index of the OCI layout dir.
func ReadLayout(dir string) (v1.ImageIndex, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read the OCI layout %s: %w", dir, err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(m.Manifests) != 1 {
		return nil, fmt.Errorf("the OCI layout %s holds %d manifests, want one image index", dir, len(m.Manifests))
	}
	return top.ImageIndex(m.Manifests[0].Digest)
}

// Pull reads the image of ref for this machine's platform.
func Pull(ctx context.Context, ref name.Reference) (v1.Image, error) {
	img, err := remote.Image(ref, remote.WithContext(ctx), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: runtime.GOARCH}))
	if err != nil {
		return nil, fmt.Errorf("cannot pull %s: %w", ref, err)
	}
	return img, nil
}

// PackageYAML returns the package.yaml of img's package layer, found as
// Crossplane's package manager finds it: the one layer annotated as base.
func PackageYAML(img v1.Image) ([]byte, error) {
	m, err := img.Manifest()
	if err != nil {
		return nil, err
	}
	var layer v1.Layer
	for _, d := range m.Layers {
		if d.Annotations[AnnotationKey] != BaseLayer {
			continue
		}
		if layer != nil {
			return nil, errors.New("more than one layer is annotated as the package layer")
		}
		if layer, err = img.LayerByDigest(d.Digest); err != nil {
			return nil, err
		}
	}
	if layer == nil {
		return nil, fmt.Errorf("no layer is annotated %s: %s", AnnotationKey, BaseLayer)
	}
	return readFile(layer, PackageFile)
}

// ExtractEntrypoint writes the executable that img's entrypoint names into
// dir and returns its path: the package's runtime.
func ExtractEntrypoint(img v1.Image, dir string) (string, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return "", err
	}
	if len(cf.Config.Entrypoint) == 0 {
		return "", errors.New("the image has no entrypoint")
	}
	entry := cf.Config.Entrypoint[0]
	layers, err := img.Layers()
	if err != nil {
		return "", err
	}
	// The last layer holding the file wins, as in the image's file system.
	for i := len(layers) - 1; i >= 0; i-- {
		b, err := readFile(layers[i], strings.TrimPrefix(entry, "/"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		out := filepath.Join(dir, path.Base(entry))
		if err := os.WriteFile(out, b, 0o755); err != nil {
			return "", err
		}
		return out, nil
	}
	return "", fmt.Errorf("no layer holds the entrypoint %s", entry)
}

// readFile returns the file name of a layer, or an error wrapping
// os.ErrNotExist.
func readFile(l v1.Layer, file string) ([]byte, error) {
	rc, err := l.Uncompressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w", file, os.ErrNotExist)
		}
		if err != nil {
			return nil, err
		}
		if path.Clean(strings.TrimPrefix(h.Name, "/")) == file {
			return io.ReadAll(tr)
		}
	}
}

// Build runs make xpkg's builder (tools/images -xpkg) for this machine's
// platform only, into dir, and returns the OCI layout of provider-nop; root
// is the ctrlkit checkout.
func Build(ctx context.Context, root, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "run", "-C", filepath.Join(root, "tools/images"), ".",
		"-xpkg", "-root", root, "-out", dir, "-platforms", "linux/"+runtime.GOARCH, "provider-nop")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build nop's package: %w\n%s", err, b)
	}
	return filepath.Join(dir, "provider-nop"), nil
}
