package readme

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	link       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	hasScheme  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	skipInWalk = map[string]bool{"bin": true, "testdata": true, "node_modules": true}
)

// markdownFiles returns the module's Markdown files, from the module root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || skipInWalk[d.Name()]) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// prose returns the lines of a Markdown file outside fenced code blocks, with
// code spans removed, keyed by line number.
func prose(md []byte) map[int]string {
	lines := map[int]string{}
	fenced := false
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines[n] = codeSpan.ReplaceAllString(line, "")
		}
	}
	return lines
}

// anchors returns the anchors GitHub gives the headings of a Markdown file:
// lower case, punctuation other than '-' and '_' dropped, spaces made '-',
// and "-1", "-2"... appended to repeats.
func anchors(md []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	sc := bufio.NewScanner(bytes.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := heading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestLinksResolve checks that every relative link in the module's Markdown
// files names a file or folder that exists and, for a Markdown file, a
// heading it has.
func TestLinksResolve(t *testing.T) {
	files := markdownFiles(t)
	if len(files) == 0 {
		t.Fatal("no Markdown file found")
	}
	for _, file := range files {
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, file)
		for n, line := range prose(md) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if hasScheme.MatchString(target) {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link %s: %s does not exist", name, n, target, path)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				to, err := os.ReadFile(dest)
				if err != nil {
					t.Errorf("%s:%d: link %s: %v", name, n, target, err)
					continue
				}
				if !anchors(to)[anchor] {
					t.Errorf("%s:%d: link %s: no heading has the anchor #%s", name, n, target, anchor)
				}
			}
		}
	}
}
