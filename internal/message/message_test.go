package message

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	cases := map[string]struct {
		s    string
		n    int
		want string
	}{
		"Short":     {s: "all good", n: 10, want: "all good"},
		"Exact":     {s: "all good", n: 8, want: "all good"},
		"Cut":       {s: "all good", n: 7, want: "all ..."},
		"RuneStart": {s: "aééé", n: 5, want: "a..."}, // cutting at byte 2 would split the first é
		"TooSmall":  {s: "all good", n: 2, want: "..."},
		"Negative":  {s: "all good", n: -1, want: "..."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Truncate(tc.s, tc.n)
			if got != tc.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Truncate(%q, %d) = %q is not valid UTF-8", tc.s, tc.n, got)
			}
		})
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("all good", 7)
	f.Add("aééé", 5)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Truncate(s, n)
		switch {
		case len(s) <= n:
			if got != s {
				t.Fatalf("Truncate(%q, %d) = %q: a short message must not change", s, n, got)
			}
		case len(got) > max(n, len(Mark)):
			t.Fatalf("Truncate(%q, %d) = %q: %d bytes", s, n, got, len(got))
		case !strings.HasPrefix(s, strings.TrimSuffix(got, Mark)) || !strings.HasSuffix(got, Mark):
			t.Fatalf("Truncate(%q, %d) = %q: not a prefix of s and the mark", s, n, got)
		case utf8.ValidString(s) && !utf8.ValidString(got):
			t.Fatalf("Truncate(%q, %d) = %q: cut inside a rune", s, n, got)
		}
	})
}

func BenchmarkTruncate(b *testing.B) {
	s := strings.Repeat("é", 40000)
	b.ReportAllocs()
	for b.Loop() {
		_ = Truncate(s, 32768)
	}
}
