package jsonvalue

import (
	"encoding/json"
	"fmt"
	"reflect"
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
// Describe quotes its input: a caller that may hold a secret value, or any
// value read from an object whose errors may reach conditions and events,
// uses Shape.
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

// Shape names a value's type and size for an error message, and nothing of
// its content, so that the message holds no byte of the value: null, a
// boolean, a number, a string of 12 bytes, an object of 3 fields, an array of
// 4 elements. Any other Go value is "a T", with its length when it has one
// ("a []string of 2 elements", "a map[string]string of 1 entry").
func Shape(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string of " + count(len(x), "byte", "bytes")
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object of " + count(len(x), "field", "fields")
	case []any:
		return "an array of " + count(len(x), "element", "elements")
	case json.Number, int64, float64, int, int8, int16, int32, uint, uint8, uint16, uint32, uint64, uintptr, float32:
		return "a number"
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		return fmt.Sprintf("a %T of %s", v, count(rv.Len(), "element", "elements"))
	case reflect.Map:
		return fmt.Sprintf("a %T of %s", v, count(rv.Len(), "entry", "entries"))
	case reflect.String:
		return fmt.Sprintf("a %T of %s", v, count(rv.Len(), "byte", "bytes"))
	}
	return fmt.Sprintf("a value of type %T", v)
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
