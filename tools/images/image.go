package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed layout.
const (
	// BinDir holds the example's binary; the entrypoint is BinDir/<name>.
	BinDir = "/usr/local/bin"
	// CACertsFile is where Go's crypto/x509 looks first on Linux.
	CACertsFile = "/etc/ssl/certs/ca-certificates.crt"
	// UID is the non-root user (and group) the image runs as, distroless's
	// "nonroot".
	UID = 65532
	// HomeDir is the user's home directory.
	HomeDir = "/home/nonroot"
)

// Label keys of the image config (OCI image spec annotations).
const (
	LabelRevision = "org.opencontainers.image.revision"
	LabelSource   = "org.opencontainers.image.source"
	LabelTitle    = "org.opencontainers.image.title"
	LabelLicenses = "org.opencontainers.image.licenses"
)

// An Image says what goes into one example's image.
type Image struct {
	// Name is the example's name: its directory under examples/ and the
	// binary's name.
	Name string
	// Revision is the source revision (a git commit) the binary is built
	// from; Source is the repository's URL.
	Revision, Source string
	// Created is the image's creation time: the revision's commit time, so
	// that the same revision gives the same image.
	Created time.Time
	// CACerts is a PEM bundle of CA certificates.
	CACerts []byte
}

// Platforms are those `make images` builds for.
var Platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

// BuildBinary builds the static binary (CGO_ENABLED=0) of the package pkg
// (e.g. ./examples/nop) of the module at root for p into dir and returns its
// path; name names the file.
func BuildBinary(ctx context.Context, root, pkg, name string, p v1.Platform, dir string) (string, error) {
	out := filepath.Join(dir, name+"-"+p.OS+"-"+p.Architecture)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build %s for %s/%s: %w\n%s", pkg, p.OS, p.Architecture, err, b)
	}
	return out, nil
}

// Build returns the image of im for platform p, with binary (the bytes of
// the executable built for p) as BinDir/<name>.
func (im Image) Build(binary []byte, p v1.Platform) (v1.Image, error) {
	layerTar, err := im.layerTar(binary)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("cannot make the layer of %s: %w", im.Name, err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		History:   v1.History{Created: v1.Time{Time: im.Created}, CreatedBy: "tools/images: " + im.Name + " binary, CA certificates, user nonroot"},
		MediaType: types.OCILayer,
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: im.Created}
	cf.Author = "ctrlkit"
	cf.Config.Entrypoint = []string{path.Join(BinDir, im.Name)}
	cf.Config.User = fmt.Sprint(UID)
	cf.Config.WorkingDir = HomeDir
	cf.Config.Env = []string{
		"PATH=" + BinDir + ":/usr/bin:/bin",
		"HOME=" + HomeDir,
		"SSL_CERT_FILE=" + CACertsFile,
	}
	cf.Config.Labels = im.labels()
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.CreatedAt(img, v1.Time{Time: im.Created})
}

func (im Image) labels() map[string]string {
	return map[string]string{
		LabelRevision: im.Revision,
		LabelSource:   im.Source,
		LabelTitle:    "ctrlkit example " + im.Name,
		LabelLicenses: "Apache-2.0",
	}
}

// layerTar is the image's only layer: the binary, the CA certificates,
// /etc/passwd and /etc/group with root and nonroot, the user's home and a
// world-writable /tmp. Every entry carries the creation time, so the same
// inputs give the same bytes.
func (im Image) layerTar(binary []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: im.Created, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, b []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(b)), ModTime: im.Created, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, UID, HomeDir)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", UID)
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return dir("etc/ssl", 0o755, 0) },
		func() error { return dir("etc/ssl/certs", 0o755, 0) },
		func() error { return file(strings.TrimPrefix(CACertsFile, "/"), 0o644, im.CACerts) },
		func() error { return dir("home", 0o755, 0) },
		func() error { return dir(strings.TrimPrefix(HomeDir, "/"), 0o700, UID) },
		func() error { return dir("tmp", 0o1777, 0) },
		func() error { return dir("usr", 0o755, 0) },
		func() error { return dir("usr/local", 0o755, 0) },
		func() error { return dir("usr/local/bin", 0o755, 0) },
		func() error { return file(path.Join(strings.TrimPrefix(BinDir, "/"), im.Name), 0o755, binary) },
		tw.Close,
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, fmt.Errorf("cannot write the layer of %s: %w", im.Name, err)
		}
	}
	return buf.Bytes(), nil
}

// Index returns the image index of imgs, one per platform of ps.
func Index(imgs []v1.Image, ps []v1.Platform) v1.ImageIndex {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for i, img := range imgs {
		p := ps[i]
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	return idx
}

// WriteLayout writes idx as an OCI image layout into dir (emptied first), its
// index annotated with ref.
func WriteLayout(dir string, ref name.Tag, idx v1.ImageIndex) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("cannot write the OCI layout %s: %w", dir, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref.String(),
	})); err != nil {
		return fmt.Errorf("cannot write the OCI layout %s: %w", dir, err)
	}
	return nil
}

// Write writes idx as an OCI image layout into dir (emptied first), its
// index annotated with ref, and each of imgs as a tarball for docker load,
// dir + "-<arch>.tar", tagged ref.
func Write(dir string, ref name.Tag, idx v1.ImageIndex, imgs []v1.Image, ps []v1.Platform) error {
	if err := WriteLayout(dir, ref, idx); err != nil {
		return err
	}
	for i, img := range imgs {
		file := dir + "-" + ps[i].Architecture + ".tar"
		if err := tarball.WriteToFile(file, ref, img); err != nil {
			return fmt.Errorf("cannot write %s: %w", file, err)
		}
	}
	return nil
}
