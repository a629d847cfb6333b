package fielddiff

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

func TestPathString(t *testing.T) {
	cases := map[string]struct {
		reason string
		segs   []pathSegment
		want   string
	}{
		"FieldsAndIndexes": {
			reason: "Fields after dots, indexes in brackets.",
			segs:   []pathSegment{fieldSegment("spec"), fieldSegment("nodePools"), indexSegment(2), fieldSegment("size")},
			want:   "spec.nodePools[2].size",
		},
		"MapKey": {
			reason: "A map key is written in brackets.",
			segs:   []pathSegment{fieldSegment("spec"), fieldSegment("labels"), keySegment("team")},
			want:   "spec.labels[team]",
		},
		"KeyWithDots": {
			reason: "Dots in brackets are literal.",
			segs:   []pathSegment{fieldSegment("metadata"), fieldSegment("labels"), keySegment("app.kubernetes.io/name")},
			want:   "metadata.labels[app.kubernetes.io/name]",
		},
		"FieldThatNeedsBrackets": {
			reason: "A field a dot cannot hold is written like a key.",
			segs:   []pathSegment{fieldSegment("a.b"), fieldSegment("0"), fieldSegment("*"), fieldSegment("")},
			want:   "[a.b]['0']['*']['']",
		},
		"Escapes": {
			reason: "Brackets and backslashes are escaped, and a leading quote.",
			segs:   []pathSegment{keySegment(`a]b[c\d`), keySegment(`'q'`), keySegment(`"q`), keySegment("-12")},
			want:   `[a\]b\[c\\d][\'q'][\"q]['-12']`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := pathString(tc.segs)
			if got != tc.want {
				t.Errorf("%s\npathString: want %q, got %q", tc.reason, tc.want, got)
			}
			checkRoundTrip(t, tc.segs)
		})
	}
}

// checkRoundTrip checks that fieldpath.Parse reads back the segments
// pathString wrote.
func checkRoundTrip(t *testing.T, segs []pathSegment) {
	t.Helper()
	s := pathString(segs)
	parsed, err := fieldpath.Parse(s)
	if err != nil {
		t.Fatalf("fieldpath.Parse(%q): %v", s, err)
	}
	want := make(fieldpath.Segments, len(segs))
	for i, seg := range segs {
		want[i] = seg.Segment
	}
	if diff := cmp.Diff(want, parsed); diff != "" {
		t.Fatalf("fieldpath.Parse(%q): -written, +read:\n%s", s, diff)
	}
}

// FuzzPathString writes paths with arbitrary field names and keys, and checks
// that fieldpath.Parse reads back the same segments.
func FuzzPathString(f *testing.F) {
	for _, s := range []string{"team", "app.kubernetes.io/name", "0", "-1", "*", "", "a]b", `\`, "'", `"x"`, "[0]", "a.b[c]", "ü"} {
		f.Add(s, uint16(3))
	}
	f.Fuzz(func(t *testing.T, name string, index uint16) {
		segs := []pathSegment{
			fieldSegment("spec"), keySegment(name), indexSegment(int(index) % (fieldpath.DefaultMaxIndex + 1)),
			fieldSegment(name), keySegment(name),
		}
		checkRoundTrip(t, segs)
		checkRoundTrip(t, segs[1:]) // a key first
		checkRoundTrip(t, segs[3:]) // a field first
	})
}
