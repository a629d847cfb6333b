package leaktest

import "testing"

func TestFind(t *testing.T) {
	cases := map[string]string{
		"cannot set spec.x: a string of 21 bytes":    "",
		`cannot set spec.x: "s3cr3t-MARKER-Zq7x9Wv"`: String,
		"strconv.ParseInt: parsing \"31337424242\"":  Digits,
		"value 3.13374242425e+10 out of range":       "3.13374242425e+10",
		"a reason S3cr3tMARKERZq7x9Wv":               Name,
		"part of it: -MARK":                          "-MARK",
		"three bytes are no quote: s3c":              "",
		"31337424242.5 as printed by %v":             Digits + ".5",
	}
	for msg, want := range cases {
		if got := Find(msg); got != want {
			t.Errorf("Find(%q) = %q, want %q", msg, got, want)
		}
	}
}
