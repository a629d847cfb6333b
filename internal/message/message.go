// Package message makes messages for conditions, events and function
// results: an error's text, and messages built from input of any length (an
// error, a user's spec) shortened to what a Kubernetes field or event
// accepts. It imports the standard library only, so that conditions, on
// which every other package builds, and the function-side results/response
// stay light.
package message

import (
	"strings"
	"unicode/utf8"
)

// Mark ends a message that Truncate shortened.
const Mark = "..."

// Truncate shortens s to at most n bytes, cutting on a rune boundary and
// ending it with Mark. An s of at most n bytes is returned as it is; an n
// smaller than Mark gives Mark alone.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-len(Mark), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Mark
}

// ValidUTF8 returns s with each byte that is not part of a valid UTF-8
// sequence replaced by U+FFFD, one replacement per byte, as encoding/json
// writes a string (and so as the API server stores one): a string made valid
// here reads back from the API server as it is. A valid s is returned as it
// is, without allocating.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*len(s)/3) // most invalid input has a few bad bytes
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// OfError is err's message, or "" for a nil err.
func OfError(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Object names an object in a message: "Kind namespace/name", "Kind name"
// for a cluster-scoped one, and the kind alone when the name is empty. An
// empty kind reads "object".
func Object(kind, namespace, name string) string {
	if kind == "" {
		kind = "object"
	}
	switch {
	case name == "":
		return kind
	case namespace == "":
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}
