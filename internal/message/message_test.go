package message

import (
	"encoding/json"
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

func TestValidUTF8(t *testing.T) {
	cases := map[string]struct {
		s, want string
	}{
		"Valid":           {s: "all good é", want: "all good é"},
		"OneByte":         {s: "a\xffb", want: "a\uFFFDb"},
		"EachByte":        {s: "\xff\xfe", want: "\uFFFD\uFFFD"},
		"TruncatedRune":   {s: "\xe2\x82", want: "\uFFFD\uFFFD"},
		"Surrogate":       {s: "\xed\xa0\x80", want: "\uFFFD\uFFFD\uFFFD"},
		"ReplacementKept": {s: "\uFFFD", want: "\uFFFD"},
		"Empty":           {s: "", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ValidUTF8(tc.s); got != tc.want {
				t.Errorf("ValidUTF8(%q) = %q, want %q", tc.s, got, tc.want)
			}
		})
	}
}

// FuzzValidUTF8 checks ValidUTF8 against what encoding/json makes of a
// string, which is what the API server stores, and that it is idempotent.
func FuzzValidUTF8(f *testing.F) {
	f.Add("all good")
	f.Add("a\xffb\xe2\x82\xed\xa0\x80")
	f.Fuzz(func(t *testing.T, s string) {
		got := ValidUTF8(s)
		if !utf8.ValidString(got) {
			t.Fatalf("ValidUTF8(%q) = %q is not valid UTF-8", s, got)
		}
		if again := ValidUTF8(got); again != got {
			t.Fatalf("ValidUTF8 is not idempotent: %q, then %q", got, again)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back != got {
			t.Fatalf("ValidUTF8(%q) = %q, but encoding/json stores %q", s, got, back)
		}
	})
}

func TestObject(t *testing.T) {
	for _, c := range []struct{ kind, ns, name, want string }{
		{"Deployment", "team-a", "web", "Deployment team-a/web"},
		{"ClusterRole", "", "admin", "ClusterRole admin"},
		{"", "team-a", "web", "object team-a/web"},
		{"HealthScope", "team-a", "", "HealthScope"},
	} {
		if got := Object(c.kind, c.ns, c.name); got != c.want {
			t.Errorf("Object(%q, %q, %q) = %q, want %q", c.kind, c.ns, c.name, got, c.want)
		}
	}
}
