package render

import (
	"unicode"
)

// The functions below serve the String transform: each is the template
// function of the same job, and fails with ErrTooLarge rather than return
// more than MaxOutputSize bytes.

// Text returns a string as it is, and any other JSON value as %v prints it.
func Text(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return printList([]any{v}, func(int) string { return "" }, "", MaxOutputSize)
}

// ToUpper is strings.ToUpper, bounded.
func ToUpper(s string) (string, error) { return mapRunes(s, unicode.ToUpper, MaxOutputSize) }

// ToLower is strings.ToLower, bounded.
func ToLower(s string) (string, error) { return mapRunes(s, unicode.ToLower, MaxOutputSize) }

// Base64Encode encodes s in standard base64, bounded.
func Base64Encode(s string) (string, error) { return b64enc(s, MaxOutputSize) }

// ReplaceAll is strings.ReplaceAll(s, old, repl), bounded.
func ReplaceAll(s, old, repl string) (string, error) { return replace(old, repl, s, MaxOutputSize) }

// Join prints the items of list as %v does, with sep between them, bounded.
func Join(list []any, sep string) (string, error) { return join(sep, list, MaxOutputSize) }

// ToJSON encodes a JSON value as encoding/json's Marshal does (object keys
// sorted, HTML characters escaped), bounded.
func ToJSON(v any) (string, error) { return toJSON(v, MaxOutputSize) }
