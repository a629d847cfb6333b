package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Facts of Crossplane's package format (xpkg): an OCI image one of whose
// layers, the package layer, holds the file package.yaml, a YAML stream of
// the package's metadata (crossplane.yaml) followed by its objects. The
// manifest annotates that layer's descriptor with AnnotationKey: BaseLayer,
// and, because an image tarball keeps no layer annotations, the image config
// carries the same fact as the label "io.crossplane.xpkg:<layer digest>":
// base. Crossplane's package manager reads the annotated layer (at most one
// may be annotated); without one, it looks for package.yaml in the image's
// flattened file system.
const (
	AnnotationKey = "io.crossplane.xpkg"
	BaseLayer     = "base"
	PackageFile   = "package.yaml"
)

// Packages are the Crossplane packages make xpkg builds.
var Packages = []Package{{
	Name:   "provider-nop",
	Binary: "./nop/cmd/provider-nop",
	Meta:   "nop/package/crossplane.yaml",
	CRDs:   "nop/crds",
}}

// A Package is a Crossplane provider package whose image is also its
// runtime: the binary's image (Image.Build) with the package layer on top.
type Package struct {
	// Name names the package, its binary and its outputs.
	Name string
	// Binary is the Go package of the provider's binary, relative to the
	// module root (./nop/cmd/provider-nop).
	Binary string
	// Meta is the package's crossplane.yaml; CRDs the directory whose
	// CustomResourceDefinition manifests the package installs (other
	// manifests there, such as a kustomization, are left out), both relative
	// to the module root.
	Meta, CRDs string
}

// crdKind matches the top-level kind of a CRD manifest.
var crdKind = regexp.MustCompile(`(?m)^kind:[ \t]*CustomResourceDefinition[ \t]*$`)

// docSep matches a YAML document separator line.
var docSep = regexp.MustCompile(`(?m)^---[ \t]*$`)

// Stream returns the package's package.yaml: crossplane.yaml, then each CRD
// manifest of the CRDs directory in file name order, separated by "---"
// lines. A file's bytes are kept as they are but for a leading "---" line; a
// file must hold one document.
func (pk Package) Stream(root string) ([]byte, error) {
	meta, err := os.ReadFile(filepath.Join(root, pk.Meta))
	if err != nil {
		return nil, fmt.Errorf("cannot read the metadata of package %s: %w", pk.Name, err)
	}
	if docSep.Match(meta) {
		return nil, fmt.Errorf("cannot build package %s: %s holds more than one document", pk.Name, pk.Meta)
	}
	docs := [][]byte{meta}
	files, err := filepath.Glob(filepath.Join(root, pk.CRDs, "*.yaml"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("cannot read the CRDs of package %s: %w", pk.Name, err)
		}
		b = bytes.TrimPrefix(b, []byte("---\n"))
		if !crdKind.Match(b) {
			continue
		}
		if docSep.Match(b) {
			return nil, fmt.Errorf("cannot build package %s: %s holds more than one document", pk.Name, f)
		}
		docs = append(docs, b)
	}
	if len(docs) == 1 {
		return nil, fmt.Errorf("cannot build package %s: no CustomResourceDefinition in %s", pk.Name, pk.CRDs)
	}
	var out bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(d)
		if !bytes.HasSuffix(d, []byte("\n")) {
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), nil
}

// Build returns the package image for one platform: img (the runtime image
// of the provider's binary) with a last layer holding stream as
// /package.yaml, annotated and labelled as the package layer.
func (pk Package) Build(img v1.Image, stream []byte, im Image) (v1.Image, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: PackageFile, Mode: 0o644, Size: int64(len(stream)), ModTime: im.Created, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(stream); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(buf.Bytes())), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("cannot make the package layer of %s: %w", pk.Name, err)
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:       layer,
		History:     v1.History{Created: v1.Time{Time: im.Created}, CreatedBy: "tools/images: " + pk.Name + " " + PackageFile},
		MediaType:   types.OCILayer,
		Annotations: map[string]string{AnnotationKey: BaseLayer},
	})
	if err != nil {
		return nil, err
	}
	d, err := layer.Digest()
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	if cf.Config.Labels == nil {
		cf.Config.Labels = map[string]string{}
	}
	cf.Config.Labels[AnnotationKey+":"+d.String()] = BaseLayer
	cf.Config.Labels[LabelTitle] = "ctrlkit " + pk.Name + " (Crossplane provider package)"
	return mutate.ConfigFile(img, cf)
}

// PackageLayer returns the one layer of img whose descriptor is annotated
// as the package layer, as Crossplane's package manager finds it, and the
// package.yaml it holds.
func PackageLayer(img v1.Image) (v1.Descriptor, []byte, error) {
	m, err := img.Manifest()
	if err != nil {
		return v1.Descriptor{}, nil, err
	}
	var found []v1.Descriptor
	for _, l := range m.Layers {
		if l.Annotations[AnnotationKey] == BaseLayer {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		return v1.Descriptor{}, nil, fmt.Errorf("want one layer annotated %s: %s, found %d", AnnotationKey, BaseLayer, len(found))
	}
	l, err := img.LayerByDigest(found[0].Digest)
	if err != nil {
		return v1.Descriptor{}, nil, err
	}
	rc, err := l.Uncompressed()
	if err != nil {
		return v1.Descriptor{}, nil, err
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err != nil {
			return v1.Descriptor{}, nil, fmt.Errorf("no %s in the package layer: %w", PackageFile, err)
		}
		if strings.TrimPrefix(h.Name, "/") == PackageFile {
			b, err := io.ReadAll(tr)
			return found[0], b, err
		}
	}
}
