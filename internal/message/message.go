// Package message makes messages for conditions, events and function
// results: an error's text, and messages built from input of any length (an
// error, a user's spec) shortened to what a Kubernetes field or event
// accepts. It imports the standard library only, so that conditions, on
// which every other package builds, and the function-side results/response
// stay light.
package message

import "unicode/utf8"

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

// OfError is err's message, or "" for a nil err.
func OfError(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
