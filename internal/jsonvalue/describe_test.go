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

func TestShape(t *testing.T) {
	type name string
	cases := map[string]struct {
		v    any
		want string
	}{
		"Null":        {v: nil, want: "null"},
		"String":      {v: "eu-west-1", want: "a string of 9 bytes"},
		"OneByte":     {v: "e", want: "a string of 1 byte"},
		"Bool":        {v: true, want: "a boolean"},
		"Object":      {v: map[string]any{"a": 1, "b": 2}, want: "an object of 2 fields"},
		"OneField":    {v: map[string]any{"a": 1}, want: "an object of 1 field"},
		"Array":       {v: []any{1, 2}, want: "an array of 2 elements"},
		"Int64":       {v: int64(3), want: "a number"},
		"Float64":     {v: 1.5, want: "a number"},
		"JSONNumber":  {v: json.Number("1e3"), want: "a number"},
		"StringSlice": {v: []string{"a"}, want: "a []string of 1 element"},
		"StringMap":   {v: map[string]string{"a": "b", "c": "d"}, want: "a map[string]string of 2 entries"},
		"NamedString": {v: name("abc"), want: "a jsonvalue.name of 3 bytes"},
		"Other":       {v: struct{ S string }{"x"}, want: "a value of type struct { S string }"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Shape(tc.v); got != tc.want {
				t.Errorf("Shape(%#v): want %s, got %s", tc.v, tc.want, got)
			}
		})
	}
}

func FuzzShape(f *testing.F) {
	f.Add("s3cr3t-MARKER", int64(31337), true)
	f.Fuzz(func(t *testing.T, s string, i int64, b bool) {
		for _, v := range []any{s, []any{s}, map[string]any{"k": s}, json.Number(s), []string{s}, map[string]string{"k": s}, i, b} {
			got := Shape(v)
			if len(s) >= 4 && strings.Contains(got, s) && !strings.Contains("a string of bytes an object fields array elements number boolean null []string map[string]string of entries element entry byte field json.Number", s) {
				t.Fatalf("Shape(%#v) = %q holds the value", v, got)
			}
		}
	})
}
