package jsonvalue

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxQuoted is how many bytes of a string Describe quotes.
const maxQuoted = 40

// Describe names a JSON value's type for an error message, with a short
// rendering of a scalar so that the message names the offending value:
// null, a string ("eu-west-1"), a boolean (true), a number (3), an object,
// an array (length 2). A string longer than 40 bytes is cut on a rune
// boundary and followed by "...". Any other Go value is "a value of type T".
// Describe quotes its input: a caller that may hold a secret value describes
// it otherwise.
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) <= maxQuoted {
			return "a string (" + strconv.Quote(x) + ")"
		}
		cut := maxQuoted
		for cut > 0 && !utf8.RuneStart(x[cut]) {
			cut--
		}
		return "a string (" + strconv.Quote(x[:cut]) + "...)"
	case bool:
		return "a boolean (" + strconv.FormatBool(x) + ")"
	case map[string]any:
		return "an object"
	case []any:
		return "an array (length " + strconv.Itoa(len(x)) + ")"
	case json.Number:
		return "a number (" + x.String() + ")"
	case int64, float64, int, int8, int16, int32, uint, uint8, uint16, uint32, uint64, float32:
		return fmt.Sprintf("a number (%v)", x)
	default:
		return fmt.Sprintf("a value of type %T", v)
	}
}
