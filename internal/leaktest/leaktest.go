// Package leaktest finds planted values in errors, for the tests that check
// that no error quotes a value it was given: errors describe a value by its
// type and size only, since controllers put them into conditions, events and
// logs, and the value may be a Secret's.
//
// A test plants the markers (String, Digits, Name, or numbers built from
// Digits) in its input and calls Check on every error; Check fails the test
// when an error holds 4 bytes in a row of any marker, in any of the forms a
// formatter might print it.
package leaktest

import (
	"strings"
	"testing"
)

// The markers.
const (
	// String is a marker string value.
	String = "s3cr3t-MARKER-Zq7x9Wv"
	// Digits is a marker number, as JSON writes it.
	Digits = "31337424242"
	// Name is a marker that is also a valid condition type and reason, to
	// stand next to a field that is broken.
	Name = "S3cr3tMARKERZq7x9Wv"
)

// forms are the markers and the ways a formatter may print the number
// markers (31337424242.5, and %g of it).
var forms = []string{String, Digits, Name, Digits + ".5", "3.13374242425e+10"}

// minRun is the shortest run of a marker that counts as a quote.
const minRun = 4

// Find returns the longest run of minRun or more bytes of a marker that msg
// holds, or "" when it holds none.
func Find(msg string) string {
	longest := ""
	for _, m := range forms {
		for n := len(m); n >= minRun && n > len(longest); n-- {
			for i := 0; i+n <= len(m); i++ {
				if strings.Contains(msg, m[i:i+n]) {
					longest = m[i : i+n]
					break
				}
			}
		}
	}
	return longest
}

// Check fails t when err quotes a marker; what names the call that returned
// err.
func Check(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if l := Find(err.Error()); l != "" {
		t.Errorf("%s: the error quotes %q of a planted value: %s", what, l, err)
	}
}
