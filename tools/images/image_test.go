package main

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// TestImages builds nop's images as `make images` does, reads them back from
// the OCI layout and the docker tarballs, and runs the binary taken from the
// image for this machine's architecture with --help.
func TestImages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an example for two platforms")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	const ex = "nop"
	if err := run(ctx, root, out, "/etc/ssl/certs/ca-certificates.crt", "ctrlkit", "test", []string{ex}); err != nil {
		t.Fatal(err)
	}
	rev, _, err := Revision(ctx, root)
	if err != nil {
		t.Fatal(err)
	}

	p, err := layout.FromPath(filepath.Join(out, ex))
	if err != nil {
		t.Fatalf("cannot read the OCI layout: %v", err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	topm, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(topm.Manifests) != 1 || topm.Manifests[0].MediaType != types.OCIImageIndex {
		t.Fatalf("index.json: want one image index, got %+v", topm.Manifests)
	}
	if got := topm.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; got != "ctrlkit/nop:test" {
		t.Errorf("index.json: ref.name %q, want ctrlkit/nop:test", got)
	}
	idx, err := top.ImageIndex(topm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, d := range im.Manifests {
		platforms = append(platforms, d.Platform.String())
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, platforms); diff != "" {
		t.Fatalf("platforms of the index (-want, +got):\n%s", diff)
	}

	for _, d := range im.Manifests {
		t.Run(d.Platform.Architecture, func(t *testing.T) {
			img, err := idx.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if cf.OS != "linux" || cf.Architecture != d.Platform.Architecture {
				t.Errorf("config platform %s/%s, want linux/%s", cf.OS, cf.Architecture, d.Platform.Architecture)
			}
			if diff := cmp.Diff([]string{"/usr/local/bin/nop"}, cf.Config.Entrypoint); diff != "" {
				t.Errorf("entrypoint (-want, +got):\n%s", diff)
			}
			if cf.Config.User != "65532" {
				t.Errorf("user %q, want 65532", cf.Config.User)
			}
			if got := cf.Config.Labels[LabelRevision]; got != rev || got == "" {
				t.Errorf("label %s %q, want %q", LabelRevision, got, rev)
			}
			if got := cf.Config.Labels[LabelSource]; got != Source {
				t.Errorf("label %s %q, want %q", LabelSource, got, Source)
			}
			files := layerFiles(t, img)
			var names []string
			for n := range files {
				names = append(names, n)
			}
			for _, want := range []string{"etc/passwd", "etc/group", "etc/ssl/certs/ca-certificates.crt", "usr/local/bin/nop", "tmp/", "home/nonroot/"} {
				if _, ok := files[want]; !ok {
					t.Errorf("the layer has no %s; it has %v", want, names)
				}
			}
			if !strings.Contains(string(files["etc/passwd"].data), "nonroot:x:65532:65532:") {
				t.Errorf("/etc/passwd has no user 65532:\n%s", files["etc/passwd"].data)
			}
			if !bytes.Contains(files["etc/ssl/certs/ca-certificates.crt"].data, []byte("-----BEGIN CERTIFICATE-----")) {
				t.Error("the CA bundle holds no certificate")
			}
			if h := files["home/nonroot/"].hdr; h.Uid != 65532 {
				t.Errorf("/home/nonroot owned by %d, want 65532", h.Uid)
			}
			bin := files["usr/local/bin/nop"]
			if bin.hdr.Mode&0o111 == 0 {
				t.Errorf("the binary is not executable: mode %o", bin.hdr.Mode)
			}
			f, err := elf.NewFile(bytes.NewReader(bin.data))
			if err != nil {
				t.Fatalf("the binary is not an ELF file: %v", err)
			}
			want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[d.Platform.Architecture]
			if f.Machine != want {
				t.Errorf("the binary is for %v, want %v", f.Machine, want)
			}
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP {
					t.Error("the binary has a dynamic loader (PT_INTERP): not static")
				}
			}

			// The docker tarball holds the same image under its tag.
			tag, err := name.NewTag("ctrlkit/nop:test")
			if err != nil {
				t.Fatal(err)
			}
			dimg, err := tarball.ImageFromPath(filepath.Join(out, ex+"-"+d.Platform.Architecture+".tar"), &tag)
			if err != nil {
				t.Fatalf("cannot read the docker tarball: %v", err)
			}
			if got, err := dimg.ConfigName(); err != nil {
				t.Fatal(err)
			} else if wantc, _ := img.ConfigName(); got != wantc {
				t.Errorf("docker tarball config %s, want the layout's %s", got, wantc)
			}

			if d.Platform.Architecture != runtime.GOARCH {
				return
			}
			exe := filepath.Join(t.TempDir(), "nop")
			if err := os.WriteFile(exe, bin.data, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.CommandContext(ctx, exe, "--help")
			cmd.Env = []string{} // as in the image: no KUBECONFIG, no HOME
			outb, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 2) { // package flag's status for -help
				t.Fatalf("%s --help: %v\n%s", exe, err, outb)
			}
			for _, flag := range []string{"-metrics-bind-address", "-health-probe-bind-address", "-leader-elect"} {
				if !strings.Contains(string(outb), flag) {
					t.Errorf("%s --help does not list %s:\n%s", exe, flag, outb)
				}
			}
		})
	}
}

type layerFile struct {
	hdr  *tar.Header
	data []byte
}

// layerFiles returns the entries of img's layers by name.
func layerFiles(t *testing.T, img v1.Image) map[string]layerFile {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]layerFile{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[path.Clean(h.Name)+map[bool]string{true: "/"}[h.Typeflag == tar.TypeDir]] = layerFile{hdr: h, data: b}
		}
		rc.Close()
	}
	return files
}
