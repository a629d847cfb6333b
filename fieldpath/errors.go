package fieldpath

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// Sentinel errors. Every error this package returns wraps one of them, so
// callers branch with errors.Is (or IsNotFound) and never on message text.
var (
	// ErrInvalidPath is wrapped by every error about a path's syntax or its
	// index limit, and by Get, Set and Delete on a path that holds a wildcard.
	ErrInvalidPath = errors.New("invalid field path")

	// ErrNotFound is wrapped when a path leads to a missing field, to an
	// index past the end of an array, or through a null value. It has an
	// IsNotFound method that returns true, so that crossplane-runtime's
	// IsNotFound, which looks for that method on the innermost error,
	// recognises this package's not-found errors too.
	ErrNotFound error = notFoundError{errFieldNotFound}

	// ErrWrongType is wrapped when a value on the path, or the value at its
	// end, has a type other than the one the path or the method needs: a
	// field of a string, an index into an object, GetBool on a number.
	ErrWrongType = errors.New("wrong type")

	// ErrInvalidValue is wrapped when a value cannot be stored because JSON
	// cannot represent it (a channel, a function, NaN, an infinity), and when
	// a compiled Path is asked to write into a nil map.
	ErrInvalidValue = errors.New("invalid value")
)

// IsNotFound reports whether err says that a field path was not found: a
// missing field, an index past the end of an array, or a null on the way.
// A type mismatch is not a not-found error. Besides errors that wrap
// ErrNotFound, it recognises those that are or wrap an error with an
// IsNotFound() bool method that returns true, as crossplane-runtime's
// not-found errors are, so that code using both packages works.
func IsNotFound(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrNotFound) {
		return true
	}
	var nf interface{ IsNotFound() bool }
	return errors.As(err, &nf) && nf.IsNotFound()
}

var errFieldNotFound = errors.New("field not found")

// A notFoundError is crossplane-runtime's not-found error, with the same
// name and shape (an embedded error), so that tests written for
// crossplane-runtime's package compile and classify errors here as there.
type notFoundError struct{ error }

func (notFoundError) IsNotFound() bool { return true }

// A parseError is a syntax error in a path, at a byte position.
type parseError struct {
	path string
	pos  int // 0-based byte offset into path; negative when it has none
	msg  string
}

func (e *parseError) Error() string {
	if e.pos < 0 {
		return fmt.Sprintf("cannot parse field path %q: %s", e.path, e.msg)
	}
	return fmt.Sprintf("cannot parse field path %q: %s at position %d", e.path, e.msg, e.pos)
}

func (e *parseError) Unwrap() error { return ErrInvalidPath }

// walkError says why a path could not be followed through an object. It is
// built on the hot path of Get, so it holds only what it already has and
// formats its message when asked.
type walkError struct {
	op     string   // "get", "set", "delete", "expand"
	segs   Segments // the whole path, never modified after the error is built
	at     int      // the segment that could not be followed
	kind   walkErrorKind
	got    any // the value found instead of a container, for errWrongParent
	length int // the array's length, for errMissingIndex
}

type walkErrorKind uint8

const (
	errMissingField walkErrorKind = iota
	errMissingIndex
	errNullParent
	errWrongParent
	errWildcard
	errNilObject
)

func (e *walkError) Error() string {
	var b strings.Builder
	b.WriteString("cannot ")
	b.WriteString(e.op)
	b.WriteByte(' ')
	b.WriteString(e.segs.String())
	b.WriteString(": ")
	parent := "the object"
	if e.at > 0 {
		parent = e.segs[:e.at].String()
	}
	s := e.segs[e.at]
	switch e.kind {
	case errMissingField:
		fmt.Fprintf(&b, "%s has no field %q", parent, s.Field)
	case errMissingIndex:
		fmt.Fprintf(&b, "%s has no element %d (its length is %d)", parent, s.Index, e.length)
	case errNullParent:
		fmt.Fprintf(&b, "%s is null", parent)
	case errWrongParent:
		want := "an object"
		if s.Type == SegmentIndex {
			want = "an array"
		}
		fmt.Fprintf(&b, "%s is %s, not %s", parent, jsonvalue.Shape(e.got), want)
	case errWildcard:
		fmt.Fprintf(&b, "segment %d is a wildcard, which matches many values; expand it with ExpandWildcards first", e.at+1)
	case errNilObject:
		b.WriteString("the object is a nil map")
	}
	return b.String()
}

func (e *walkError) Unwrap() error {
	switch e.kind {
	case errMissingField, errMissingIndex, errNullParent:
		return ErrNotFound
	case errWrongParent:
		return ErrWrongType
	case errWildcard:
		return ErrInvalidPath
	default:
		return ErrInvalidValue
	}
}

// wrongTypeError is returned by the typed getters (GetString and friends).
func wrongTypeError(path, want string, got any) error {
	return fmt.Errorf("cannot get %s as %s: it is %s: %w", path, want, jsonvalue.Shape(got), ErrWrongType)
}

// An opaqueError says what failed without quoting its cause, whose message
// may hold bytes of a value (encoding/json's do: "invalid character 's'",
// "cannot unmarshal number 31337"). The cause is kept for errors.Is and
// errors.As only.
type opaqueError struct {
	msg  string
	errs []error // the sentinel first, then the cause
}

func (e *opaqueError) Error() string   { return e.msg }
func (e *opaqueError) Unwrap() []error { return e.errs }

// opaque returns an error with message msg that wraps sentinel and cause,
// and describes cause only by what encoding/json says of types and
// positions, never by its text.
func opaque(msg string, sentinel, cause error) error {
	if d := describeCause(cause); d != "" {
		msg += ": " + d
	}
	return &opaqueError{msg: msg, errs: []error{sentinel, cause}}
}

// describeCause describes a JSON encoding or decoding error by the types and
// positions it names, or returns "" when it names none that are safe to
// repeat.
func describeCause(err error) string {
	var (
		syntax  *json.SyntaxError
		typ     *json.UnmarshalTypeError
		unsupT  *json.UnsupportedTypeError
		unsupV  *json.UnsupportedValueError
		marshal *json.MarshalerError
	)
	switch {
	case errors.As(err, &marshal):
		return "the MarshalJSON method of " + marshal.Type.String() + " failed"
	case errors.As(err, &unsupT):
		return "type " + unsupT.Type.String() + " has no JSON form"
	case errors.As(err, &unsupV):
		return "it holds a value that has no JSON form (a cycle, NaN or an infinity)"
	case errors.As(err, &typ):
		if typ.Type == nil {
			return ""
		}
		return "a JSON value does not decode into " + typ.Type.String()
	case errors.As(err, &syntax):
		return "invalid JSON at byte " + strconv.FormatInt(syntax.Offset, 10)
	}
	return ""
}
