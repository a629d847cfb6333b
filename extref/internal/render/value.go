package render

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// KindOf names a JSON value's type and size, never its content, for errors
// about values that may be secret: "a string of 9 bytes", "an integer",
// "an object of 2 fields".
func KindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) == 1 {
			return "a string of 1 byte"
		}
		return "a string of " + strconv.Itoa(len(x)) + " bytes"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case map[string]any:
		if len(x) == 1 {
			return "an object of 1 field"
		}
		return "an object of " + strconv.Itoa(len(x)) + " fields"
	case []any:
		if len(x) == 1 {
			return "an array of 1 item"
		}
		return "an array of " + strconv.Itoa(len(x)) + " items"
	}
	return fmt.Sprintf("a %T", v)
}

// A Value is a JSON value on its way through an external value, and
// whether it is secret: read from a Secret, computed from one, or bound for
// makeAvailableAs. Errors name a value only through it, and a secret value
// only by its type and size, never by its content.
type Value struct {
	V      any
	Secret bool
}

// Format prints the value's description, whatever the verb, so that no
// format can print a secret value's content.
func (v Value) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, v.String()) }

// String describes the value: "a string (\"us-east-1\")", or for a secret one
// "a string of 9 bytes".
func (v Value) String() string {
	if v.Secret {
		return KindOf(v.V)
	}
	return jsonvalue.Describe(v.V)
}

// A safeError is an error whose message was built from spec text, numbers
// and value descriptions only, never from another error's text (which may
// quote a value, as strconv's does), so that it holds no byte of a secret
// value; its cause is kept for errors.Is and errors.As alone.
type safeError struct {
	msg   string
	cause error
}

func (e *safeError) Error() string { return e.msg }
func (e *safeError) Unwrap() error { return e.cause }

// Failf returns an error whose message is format with args, and which
// wraps cause for errors.Is and errors.As only. Its arguments are spec
// text, numbers and Values (which print their descriptions), so that the
// message holds no secret. It is the error of every transform, format,
// template and function that fails on a value.
func Failf(cause error, format string, args ...any) error {
	return &safeError{msg: fmt.Sprintf(format, args...), cause: cause}
}

// ErrWithheld stands for an error of other code about a secret value, whose
// message may hold the value.
var ErrWithheld = errors.New("the reason is withheld, since it may quote a value from a Secret")

// Seal returns err for an error about a value that is secret or not: err
// itself when the value is not secret or err was made by Failf, and
// otherwise an error that keeps none of its text.
func Seal(err error, secret bool) error {
	var se *safeError
	if !secret || errors.As(err, &se) && se == err {
		return err
	}
	return &safeError{msg: ErrWithheld.Error(), cause: ErrWithheld}
}

// Base64Error is why v is not base64 text: where it is corrupt, without
// the text.
func Base64Error(err error, v Value) error {
	var at base64.CorruptInputError
	if errors.As(err, &at) {
		return Failf(err, "%v is not valid base64 (at byte %d)", v, int64(at))
	}
	return Failf(err, "%v is not valid base64", v)
}
