package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is two runs in the benchmark's format, modes out of order, one
// header repeated as appending runs leaves it.
func sample() string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, m := range []string{"provider-nop-v0.5.0", "deadline", "floor", "provider-nop", "poll-1s"} {
		for i := range 300 {
			fmt.Fprintf(&b, "%s,100,50,10,%d\n", m, 1000*(i%97)+len(m)*1000)
		}
	}
	b.WriteString(header + "\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "floor,10,5,2,%d\n", 2_000_000-i*1000)
	}
	b.WriteString("floor,10,5,2,-5000\n")
	return b.String()
}

func TestParse(t *testing.T) {
	runs, err := parse(strings.NewReader(sample()))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("want 2, got %d runs", len(runs))
	}
	if r := runs[0]; r.objects != 10 || r.rate != 5 || r.workers != 2 || len(r.modes) != 1 || len(r.modes[0].late) != 31 {
		t.Errorf("first run: %+v", r)
	}
	if l := runs[0].modes[0].late; l[0] != -5000 || l[len(l)-1] != 2_000_000 {
		t.Errorf("latenesses not sorted: first %d, last %d", l[0], l[len(l)-1])
	}
	var names []string
	for _, m := range runs[1].modes {
		names = append(names, m.name)
		if len(m.late) != 300 {
			t.Errorf("%s: %d latenesses, want 300", m.name, len(m.late))
		}
	}
	if got, want := strings.Join(names, " "), "floor deadline poll-1s provider-nop provider-nop-v0.5.0"; got != want {
		t.Errorf("modes %q, want %q", got, want)
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":           "",
		"header only":     header + "\n",
		"no header":       "floor,10,5,2,1000\n",
		"four fields":     header + "\nfloor,10,5,1000\n",
		"bad mode":        header + "\n<svg>,10,5,2,1000\n",
		"long mode":       header + "\n" + strings.Repeat("a", 33) + ",10,5,2,1000\n",
		"zero objects":    header + "\nfloor,0,5,2,1000\n",
		"negative rate":   header + "\nfloor,10,-5,2,1000\n",
		"huge workers":    header + "\nfloor,10,5,1000000000,1000\n",
		"bad lateness":    header + "\nfloor,10,5,2,1.5\n",
		"rate changes":    header + "\nfloor,10,5,2,1000\nfloor,10,6,2,1000\n",
		"long line":       header + "\nfloor,10,5,2," + strings.Repeat("1", 300) + "\n",
		"too many modes":  header + "\n" + modes(9),
		"too many counts": header + "\n" + counts(17),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parse(strings.NewReader(in))
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("want an error wrapping ErrBadInput, got %v", err)
			}
		})
	}
}

func modes(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "m%d,10,5,2,1000\n", i)
	}
	return b.String()
}

func counts(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "floor,%d,5,2,1000\n", i+1)
	}
	return b.String()
}

func TestRender(t *testing.T) {
	runs, err := parse(strings.NewReader(sample()))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		svg := render(r, "2 cores <loaded> & busy", "make bench-charts NOP_BENCH_OBJECTS=100")
		wellFormed(t, svg)
		for _, m := range r.modes {
			if !bytes.Contains(svg, []byte("("+m.name+"): p50 ")) {
				t.Errorf("%d objects: no legend for %s", r.objects, m.name)
			}
		}
		if r.objects == 100 && !bytes.Contains(svg, []byte("provider-nop itself (unmade: least lateness) (provider-nop-v0.5.0)")) {
			t.Errorf("%d objects: provider-nop itself is not named in the legend", r.objects)
		}
		if got := bytes.Count(svg, []byte("<polyline")); got != len(r.modes) {
			t.Errorf("%d objects: %d curves, want %d", r.objects, got, len(r.modes))
		}
		for _, want := range []string{"2 cores &lt;loaded&gt; &amp; busy", "make bench-charts NOP_BENCH_OBJECTS=100", fmt.Sprintf("%d objects created at %d/s, %d workers", r.objects, r.rate, r.workers)} {
			if !bytes.Contains(svg, []byte(want)) {
				t.Errorf("%d objects: %q missing", r.objects, want)
			}
		}
		if again := render(r, "2 cores <loaded> & busy", "make bench-charts NOP_BENCH_OBJECTS=100"); !bytes.Equal(svg, again) {
			t.Errorf("%d objects: two renderings differ", r.objects)
		}
	}
}

// wellFormed fails unless svg is one well-formed XML element named svg.
func wellFormed(t *testing.T, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if e.Name.Local != "svg" {
					t.Errorf("root element %q, want svg", e.Name.Local)
				}
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 {
		t.Errorf("%d root elements, want 1", roots)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte(sample()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(in, dir, "m", "c"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"nop-lateness-10.svg", "nop-lateness-100.svg"} {
		svg, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		wellFormed(t, svg)
	}
}

func TestDuration(t *testing.T) {
	for us, want := range map[int64]string{0: "0 ms", 1499: "1 ms", 120_400: "120 ms", 999_999: "1000 ms", 1_000_000: "1.00 s", 1_905_000: "1.91 s"} {
		if got := duration(us); got != want {
			t.Errorf("duration(%d) = %q, want %q", us, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample())
	f.Add(header + "\nfloor,1,0,0,-9223372036854775808\n")
	f.Add(header + "\nfloor,1,0,0,9223372036854775807\nx,1,0,0,0\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		runs, err := parse(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error %v does not wrap ErrBadInput", err)
			}
			return
		}
		for _, r := range runs {
			svg := render(r, "", "")
			d := xml.NewDecoder(bytes.NewReader(svg))
			for {
				if _, err := d.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("not well-formed XML: %v", err)
				}
			}
		}
	})
}
