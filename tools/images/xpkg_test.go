package main

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"sigs.k8s.io/yaml"
)

// TestPackage builds nop's Crossplane package from a stand-in binary (no Go
// build: it runs in make test), writes it as make xpkg does (an OCI layout
// and an .xpkg tarball), reads both back, and checks what Crossplane's
// package manager relies on: one layer annotated io.crossplane.xpkg: base,
// the same fact as a config label for the tarball, which keeps no layer
// annotations, and its package.yaml: nop/package/crossplane.yaml, a
// meta.pkg.crossplane.io/v1 Provider, followed by nop/crds' CRDs, byte for
// byte, and nothing else. The image is also the runtime image: its
// entrypoint is the binary.
func TestPackage(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var pk Package
	for _, p := range Packages {
		if p.Name == "provider-nop" {
			pk = p
		}
	}
	stream, err := pk.Stream(root)
	if err != nil {
		t.Fatal(err)
	}
	im := Image{Name: pk.Name, Revision: "test", Source: Source, Created: time.Unix(1700000000, 0).UTC(), CACerts: []byte("ca")}
	p := v1.Platform{OS: "linux", Architecture: "amd64"}
	binary := []byte("\x7fELF stand-in for provider-nop")
	img, err := im.Build(binary, p)
	if err != nil {
		t.Fatal(err)
	}
	if img, err = pk.Build(img, stream, im); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), pk.Name)
	ref := name.MustParseReference("ctrlkit/provider-nop:test").(name.Tag)
	if err := WriteLayout(dir, ref, Index([]v1.Image{img}, []v1.Platform{p})); err != nil {
		t.Fatal(err)
	}
	file := dir + "-amd64.xpkg"
	if err := tarball.WriteToFile(file, ref, img); err != nil {
		t.Fatal(err)
	}

	fromLayout := readLayout(t, dir)
	fromTarball, err := tarball.ImageFromPath(file, nil)
	if err != nil {
		t.Fatalf("cannot read %s: %v", file, err)
	}

	// The layout keeps the annotation on the layer's descriptor.
	desc, got, err := PackageLayer(fromLayout)
	if err != nil {
		t.Fatalf("OCI layout: %v", err)
	}
	m, err := fromLayout.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var annotated []int
	for i, l := range m.Layers {
		if _, ok := l.Annotations[AnnotationKey]; ok {
			annotated = append(annotated, i)
		}
	}
	if want := []int{len(m.Layers) - 1}; !slices.Equal(annotated, want) {
		t.Errorf("layers annotated %s: %v, want only the last, %v", AnnotationKey, annotated, want)
	}
	if !bytes.Equal(got, stream) {
		t.Errorf("the package layer's %s is not the stream the package was built with", PackageFile)
	}

	// Both carry the label io.crossplane.xpkg:<digest of the package
	// layer>: base, from which Crossplane's tools restore the annotation.
	for src, img := range map[string]v1.Image{"layout": fromLayout, "tarball": fromTarball} {
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		var labels []string
		for k, v := range cf.Config.Labels {
			if strings.HasPrefix(k, AnnotationKey) {
				labels = append(labels, k+"="+v)
			}
		}
		if want := []string{AnnotationKey + ":" + desc.Digest.String() + "=" + BaseLayer}; !slices.Equal(labels, want) {
			t.Errorf("%s: config labels %v, want %v", src, labels, want)
		}
		if want := []string{path.Join(BinDir, pk.Name)}; !slices.Equal(cf.Config.Entrypoint, want) {
			t.Errorf("%s: entrypoint %v, want %v", src, cf.Config.Entrypoint, want)
		}
		files := layerFiles(t, img)
		if f, ok := files[path.Join(strings.TrimPrefix(BinDir, "/"), pk.Name)]; !ok || !bytes.Equal(f.data, binary) || f.hdr.Mode&0o111 == 0 {
			t.Errorf("%s: the image does not hold the binary as its executable entrypoint", src)
		}
		if f, ok := files[PackageFile]; !ok || !bytes.Equal(f.data, stream) {
			t.Errorf("%s: no /%s holding the stream in the image's file system", src, PackageFile)
		}
	}

	// package.yaml: the metadata, then the CRDs, each as in the repository
	// but for its leading "---".
	docs := splitYAML(got)
	meta, err := os.ReadFile(filepath.Join(root, "nop/package/crossplane.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 || docs[0] != string(meta) {
		t.Fatalf("package.yaml does not start with nop/package/crossplane.yaml")
	}
	var head struct {
		APIVersion, Kind string
		Metadata         struct{ Name string }
	}
	if err := yaml.Unmarshal([]byte(docs[0]), &head); err != nil {
		t.Fatalf("cannot read the package's metadata: %v", err)
	}
	if head.APIVersion != "meta.pkg.crossplane.io/v1" || head.Kind != "Provider" || head.Metadata.Name == "" {
		t.Errorf("metadata is %s %s %q; want a named meta.pkg.crossplane.io/v1 Provider", head.APIVersion, head.Kind, head.Metadata.Name)
	}
	var want []string
	crdFiles, err := filepath.Glob(filepath.Join(root, "nop/crds/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range crdFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var o struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(b, &o); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if o.APIVersion == "apiextensions.k8s.io/v1" && o.Kind == "CustomResourceDefinition" {
			want = append(want, strings.TrimPrefix(string(b), "---\n"))
		}
	}
	if len(want) != 2 {
		t.Fatalf("nop/crds holds %d CRDs, want 2 (NopResource, ClusterNopResource)", len(want))
	}
	if diff := cmp.Diff(want, docs[1:]); diff != "" {
		t.Errorf("package.yaml's objects are not nop/crds' CRDs (-want +got):\n%s", diff)
	}
}

// readLayout returns the one image of the one index of the OCI layout dir.
func readLayout(t *testing.T, dir string) v1.Image {
	t.Helper()
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	tm, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := top.ImageIndex(tm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("want one image in the index, got %d", len(im.Manifests))
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// splitYAML splits a YAML stream at its "---" lines, keeping each
// document's bytes.
func splitYAML(b []byte) []string {
	var docs []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if strings.TrimRight(line, "\n") == "---" {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	if cur.Len() > 0 {
		docs = append(docs, cur.String())
	}
	return docs
}
