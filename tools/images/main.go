// Command images builds an OCI image of each example controller without
// Docker, the way ko does: a static Go binary (CGO_ENABLED=0) per platform,
// put into one layer beside CA certificates and an /etc/passwd with the
// non-root user 65532; no base image is pulled. `make images` runs it:
//
//	go run -C tools/images . -root "$PWD" -out bin/images [EXAMPLE]...
//
// For each example (default: every controller under examples/ but cluster and
// tour) it writes
//
//   - OUT/<example>/, an OCI image layout whose index holds the linux/amd64
//     and linux/arm64 images (crane push OUT/<example> REF --index);
//   - OUT/<example>-<arch>.tar per platform, for docker load, tagged
//     <repo>/<example>:<tag> (default ctrlkit/<example>:dev, the image
//     config/<example> names).
//
// The image config runs the binary as user 65532 and carries the labels
// org.opencontainers.image.revision (git HEAD, with -dirty when the work
// tree has changes) and org.opencontainers.image.source. Its creation time
// is HEAD's commit time, so a clean tree gives the same digests every time.
//
// With -xpkg it builds Crossplane packages instead (Packages, `make xpkg`):
// nop's provider package, whose image is provider-nop's (nop/cmd/provider-nop)
// built as above with one more layer, package.yaml (nop/package/crossplane.yaml
// followed by the CRDs of nop/crds), annotated io.crossplane.xpkg: base as
// Crossplane's package format asks (xpkg.go). It writes OUT/provider-nop/, an
// OCI image layout of both platforms, and OUT/provider-nop-<arch>.xpkg, the
// image tarball crossplane xpkg build would write. -platforms linux/amd64
// builds for one platform.
//
// It lives in a module of its own so that users of the library never
// download go-containerregistry.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Examples are the example controllers that get an image.
var Examples = []string{"composite", "direct", "extref", "healthscope", "nop"}

// Source is the repository the images are built from.
const Source = "https://github.com/ctrlkit/ctrlkit"

func main() {
	root := flag.String("root", "../..", "the ctrlkit checkout to build from")
	out := flag.String("out", "bin/images", "where to write the images (relative to -root)")
	ca := flag.String("ca-certs", "/etc/ssl/certs/ca-certificates.crt", "the PEM bundle of CA certificates to put into the images")
	repo := flag.String("repo", "ctrlkit", "repository prefix of the tags of the docker tarballs")
	tag := flag.String("tag", "dev", "tag of the docker tarballs")
	xpkg := flag.Bool("xpkg", false, "build the Crossplane packages (Packages: provider-nop) instead of the example images")
	platforms := flag.String("platforms", "", "comma-separated os/arch to build for (default: linux/amd64,linux/arm64)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *platforms != "" {
		ps, err := parsePlatforms(*platforms)
		if err != nil {
			fmt.Fprintln(os.Stderr, "images:", err)
			os.Exit(2)
		}
		Platforms = ps
	}
	examples := flag.Args()
	do := run
	if *xpkg {
		do = runPackages
	} else if len(examples) == 0 {
		examples = Examples
	}
	if err := do(ctx, *root, *out, *ca, *repo, *tag, examples); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, root, out, caFile, repo, tag string, examples []string) error {
	b, err := prepare(ctx, root, out, caFile, "ctrlkit-images-")
	if err != nil {
		return err
	}
	defer b.close()
	for _, ex := range examples {
		ref, err := name.NewTag(repo + "/" + ex + ":" + tag)
		if err != nil {
			return fmt.Errorf("cannot tag the image of %s: %w", ex, err)
		}
		imgs, err := b.images(ctx, "./examples/"+ex, ex, nil)
		if err != nil {
			return err
		}
		dir := filepath.Join(b.out, ex)
		if err := Write(dir, ref, Index(imgs, Platforms), imgs, Platforms); err != nil {
			return err
		}
		sizes, err := sizes(imgs)
		if err != nil {
			return err
		}
		fmt.Printf("images: %s -> %s (%s; docker load -i %s-amd64.tar gives %s)\n", ex, dir, sizes, dir, ref)
	}
	return nil
}

// runPackages builds each of Packages (all when names is empty) for every
// platform and writes OUT/<name>/, an OCI image layout whose index holds
// them (crane push OUT/<name> REF --index), and OUT/<name>-<arch>.xpkg per
// platform, an image tarball as crossplane xpkg build writes, tagged
// <repo>/<name>:<tag>.
func runPackages(ctx context.Context, root, out, caFile, repo, tag string, names []string) error {
	var pkgs []Package
	for _, pk := range Packages {
		if len(names) == 0 || slices.Contains(names, pk.Name) {
			pkgs = append(pkgs, pk)
		}
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("no package named %s (packages: %s)", strings.Join(names, ", "), Packages[0].Name)
	}
	b, err := prepare(ctx, root, out, caFile, "ctrlkit-xpkg-")
	if err != nil {
		return err
	}
	defer b.close()
	for _, pk := range pkgs {
		ref, err := name.NewTag(repo + "/" + pk.Name + ":" + tag)
		if err != nil {
			return fmt.Errorf("cannot tag package %s: %w", pk.Name, err)
		}
		stream, err := pk.Stream(b.root)
		if err != nil {
			return err
		}
		imgs, err := b.images(ctx, pk.Binary, pk.Name, func(img v1.Image, im Image) (v1.Image, error) {
			return pk.Build(img, stream, im)
		})
		if err != nil {
			return err
		}
		dir := filepath.Join(b.out, pk.Name)
		if err := WriteLayout(dir, ref, Index(imgs, Platforms)); err != nil {
			return err
		}
		for i, img := range imgs {
			file := dir + "-" + Platforms[i].Architecture + ".xpkg"
			if err := tarball.WriteToFile(file, ref, img); err != nil {
				return fmt.Errorf("cannot write %s: %w", file, err)
			}
		}
		sizes, err := sizes(imgs)
		if err != nil {
			return err
		}
		fmt.Printf("xpkg: %s -> %s (%s; package.yaml %d bytes; %s-<arch>.xpkg per platform)\n", pk.Name, dir, sizes, len(stream), dir)
	}
	return nil
}

// builds holds what every image of one run shares: the repository root, the
// output directory, the CA bundle, the revision and a directory for the
// binaries, removed by close.
type builds struct {
	root, out, tmp string
	ca             []byte
	rev            string
	created        time.Time
}

func prepare(ctx context.Context, root, out, caFile, tmpPrefix string) (*builds, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("cannot read CA certificates (-ca-certs; Debian: apt-get install ca-certificates): %w", err)
	}
	rev, created, err := Revision(ctx, root)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", tmpPrefix)
	if err != nil {
		return nil, err
	}
	return &builds{root: root, out: out, tmp: tmp, ca: ca, rev: rev, created: created}, nil
}

func (b *builds) close() { os.RemoveAll(b.tmp) }

// images builds the Go package pkg for every platform and puts each binary
// into an image named name; finish, when set, adds to each image.
func (b *builds) images(ctx context.Context, pkg, name string, finish func(v1.Image, Image) (v1.Image, error)) ([]v1.Image, error) {
	im := Image{Name: name, Revision: b.rev, Source: Source, Created: b.created, CACerts: b.ca}
	var imgs []v1.Image
	for _, p := range Platforms {
		bin, err := BuildBinary(ctx, b.root, pkg, name, p, b.tmp)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		img, err := im.Build(data, p)
		if err != nil {
			return nil, err
		}
		if finish != nil {
			if img, err = finish(img, im); err != nil {
				return nil, err
			}
		}
		imgs = append(imgs, img)
	}
	return imgs, nil
}

// sizes lists the compressed size of each platform's image.
func sizes(imgs []v1.Image) (string, error) {
	var out []string
	for i, img := range imgs {
		s, err := compressedSize(img)
		if err != nil {
			return "", err
		}
		out = append(out, fmt.Sprintf("%s %.1f MiB", Platforms[i].Architecture, float64(s)/(1<<20)))
	}
	return strings.Join(out, ", "), nil
}

// parsePlatforms parses a comma-separated list of os/arch.
func parsePlatforms(s string) ([]v1.Platform, error) {
	var ps []v1.Platform
	for _, f := range strings.Split(s, ",") {
		os, arch, ok := strings.Cut(strings.TrimSpace(f), "/")
		if !ok || os == "" || arch == "" {
			return nil, fmt.Errorf("bad platform %q in -platforms: want os/arch", f)
		}
		ps = append(ps, v1.Platform{OS: os, Architecture: arch})
	}
	return ps, nil
}

// compressedSize is what pulling img transfers: its manifest's config and
// layers.
func compressedSize(img v1.Image) (int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return 0, err
	}
	n := m.Config.Size
	for _, l := range m.Layers {
		n += l.Size
	}
	return n, nil
}

// Revision returns the commit of root's HEAD, with "-dirty" when tracked
// files differ from it, and the commit's time.
func Revision(ctx context.Context, root string) (string, time.Time, error) {
	git := func(args ...string) (string, error) {
		b, err := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...).Output()
		if err != nil {
			return "", fmt.Errorf("cannot read the source revision (git %s in %s): %w", strings.Join(args, " "), root, err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	rev, err := git("rev-parse", "HEAD")
	if err != nil {
		return "", time.Time{}, err
	}
	ct, err := git("log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return "", time.Time{}, err
	}
	secs, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("cannot read the commit time of %s: %w", rev, err)
	}
	if status, err := git("status", "--porcelain", "--untracked-files=no"); err != nil {
		return "", time.Time{}, err
	} else if status != "" {
		rev += "-dirty"
	}
	return rev, time.Unix(secs, 0).UTC(), nil
}
