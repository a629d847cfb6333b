package jsonvalue

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDescribe(t *testing.T) {
	cases := map[string]struct {
		v    any
		want string
	}{
		"Null":       {v: nil, want: "null"},
		"String":     {v: "eu", want: `a string ("eu")`},
		"LongString": {v: strings.Repeat("a", 50), want: `a string ("` + strings.Repeat("a", 40) + `"...)`},
		"RuneCut":    {v: "a" + strings.Repeat("é", 30), want: `a string ("a` + strings.Repeat("é", 19) + `"...)`},
		"Bool":       {v: true, want: "a boolean (true)"},
		"Object":     {v: map[string]any{"a": 1}, want: "an object"},
		"Array":      {v: []any{1, 2}, want: "an array (length 2)"},
		"Int64":      {v: int64(3), want: "a number (3)"},
		"Float64":    {v: 1.5, want: "a number (1.5)"},
		"Uint8":      {v: uint8(7), want: "a number (7)"},
		"JSONNumber": {v: json.Number("1e3"), want: "a number (1e3)"},
		"Other":      {v: struct{}{}, want: "a value of type struct {}"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Describe(tc.v); got != tc.want {
				t.Errorf("Describe(%#v): want %s, got %s", tc.v, tc.want, got)
			}
		})
	}
}

func FuzzDescribe(f *testing.F) {
	f.Add("eu-west-1")
	f.Add(strings.Repeat("é", 30))
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		got := Describe(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Describe(%q) = %q: not valid UTF-8", s, got)
		}
		if len(got) > len(`a string ("...)`)+4*maxQuoted+2 {
			t.Fatalf("Describe(%q) = %q: %d bytes", s, got, len(got))
		}
	})
}
