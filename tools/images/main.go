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
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
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
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	examples := flag.Args()
	if len(examples) == 0 {
		examples = Examples
	}
	if err := run(ctx, *root, *out, *ca, *repo, *tag, examples); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, root, out, caFile, repo, tag string, examples []string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("cannot read CA certificates (-ca-certs; Debian: apt-get install ca-certificates): %w", err)
	}
	rev, created, err := Revision(ctx, root)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "ctrlkit-images-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, ex := range examples {
		ref, err := name.NewTag(repo + "/" + ex + ":" + tag)
		if err != nil {
			return fmt.Errorf("cannot tag the image of %s: %w", ex, err)
		}
		im := Image{Name: ex, Revision: rev, Source: Source, Created: created, CACerts: ca}
		var imgs []v1.Image
		for _, p := range Platforms {
			bin, err := BuildBinary(ctx, root, ex, p, tmp)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(bin)
			if err != nil {
				return err
			}
			img, err := im.Build(b, p)
			if err != nil {
				return err
			}
			imgs = append(imgs, img)
		}
		dir := filepath.Join(out, ex)
		if err := Write(dir, ref, Index(imgs, Platforms), imgs, Platforms); err != nil {
			return err
		}
		var sizes []string
		for i, img := range imgs {
			s, err := compressedSize(img)
			if err != nil {
				return err
			}
			sizes = append(sizes, fmt.Sprintf("%s %.1f MiB", Platforms[i].Architecture, float64(s)/(1<<20)))
		}
		fmt.Printf("images: %s -> %s (%s; docker load -i %s-amd64.tar gives %s)\n", ex, dir, strings.Join(sizes, ", "), dir, ref)
	}
	return nil
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
