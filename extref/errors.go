package extref

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// Sentinel errors. Every *ReferenceError wraps one of them, except when a
// read failed for a reason of its own (the API server was unavailable, a
// read timed out), which it wraps instead.
var (
	// ErrInvalid is wrapped when an external value is malformed: a missing
	// or conflicting field, a bad field path, format or template, a target
	// outside the allowed fields. It fails the resolution whatever the
	// reference's resolution policy, since no source can fix it.
	ErrInvalid = errors.New("invalid external value")

	// ErrUnknownResource is wrapped when the RESTMapper knows no such
	// resource (even after a refresh) or finds it ambiguous.
	ErrUnknownResource = errors.New("unknown resource")

	// ErrSourceNotFound is wrapped when the source object does not exist.
	ErrSourceNotFound = errors.New("source not found")

	// ErrFieldNotFound is wrapped when the source object has no value (or
	// null) at the field path, or a value of the wrong type on the way.
	ErrFieldNotFound = errors.New("field not found")

	// ErrDenied is wrapped when the source policy, or a SubjectAccessReview,
	// does not allow the referencer to read the source.
	ErrDenied = errors.New("denied")

	// ErrTransform is wrapped when a transform, a format or a template
	// fails on the value it was given, or would produce more than
	// MaxOutputSize bytes.
	ErrTransform = errors.New("cannot transform value")

	// ErrTarget is wrapped when the value cannot be written to toFieldPath,
	// e.g. because a field on the way holds a value of another type.
	ErrTarget = errors.New("cannot write value")
)

// A Source identifies one field of one object that a reference reads.
type Source struct {
	Group     string
	Version   string
	Resource  string
	Namespace string // after defaulting to the referencer's namespace
	Name      string
	FieldPath string
}

// String formats a source as resource.group namespace/name, fieldPath:
// "configmaps crossplane-system/common-settings, data.region".
func (s Source) String() string {
	var b strings.Builder
	b.WriteString(s.Resource)
	if s.Group != "" {
		b.WriteByte('.')
		b.WriteString(s.Group)
	}
	b.WriteByte(' ')
	if s.Namespace != "" {
		b.WriteString(s.Namespace)
		b.WriteByte('/')
	}
	b.WriteString(s.Name)
	b.WriteString(", ")
	b.WriteString(s.FieldPath)
	return b.String()
}

// A ReferenceError says which external value could not be resolved, from
// which source, and why.
type ReferenceError struct {
	// Path is the external value's place in the referencer, e.g.
	// spec.externalValues[2], with the part that failed when there is one:
	// spec.externalValues[2].combine[1].
	Path string
	// Index is the external value's index in the list.
	Index int
	// Source is the source that failed, if a source failed. When several
	// sources of a combine or template failed, Path and Source name the
	// first, and Err joins why with the others' *ReferenceErrors, so that
	// the message names every failing source and errors.Is finds every
	// sentinel.
	Source *Source
	// Optional is true when the external value's resolution policy is
	// Optional, so the failure was skipped: never for a malformed value
	// (ErrInvalid), which fails whatever its policy.
	Optional bool
	// Err is why; it wraps one of the package's sentinel errors (unless a
	// read failed for a reason of its own).
	Err error
}

func (e *ReferenceError) Error() string {
	var b strings.Builder
	b.WriteString("cannot resolve ")
	b.WriteString(e.Path)
	if e.Source != nil {
		fmt.Fprintf(&b, " (%s)", e.Source)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ReferenceError) Unwrap() error { return e.Err }

// kindOf names a JSON value's type and size, never its content, for errors
// about values that may be secret: "a string of 9 bytes", "an integer",
// "an object of 2 fields".
func kindOf(v any) string {
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

// A value is a JSON value on its way through an external value, and whether
// it is secret: read from a Secret, computed from one, or bound for
// makeAvailableAs. Errors name a value only through it, and a secret value
// only by its type and size, never by its content.
type value struct {
	v      any
	secret bool
}

// Format prints the value's description, whatever the verb, so that no
// format can print a secret value's content.
func (v value) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, v.String()) }

// String describes the value: "a string (\"us-east-1\")", or for a secret one
// "a string of 9 bytes".
func (v value) String() string {
	if v.secret {
		return kindOf(v.v)
	}
	return jsonvalue.Describe(v.v)
}

// A valueError is why a transform, a format or a template failed on a
// value. Its message is built from the external value's spec and value
// descriptions only, never from another error's text (which may quote the
// value, as strconv's does), so that it holds no byte of a secret value; its
// cause is kept for errors.Is alone.
type valueError struct {
	msg   string
	cause error
}

func (e *valueError) Error() string { return e.msg }
func (e *valueError) Unwrap() error { return e.cause }

// failf returns a *valueError. Its arguments are spec text, numbers and
// values (which print their descriptions); cause only wraps.
func failf(cause error, format string, args ...any) error {
	return &valueError{msg: fmt.Sprintf(format, args...), cause: cause}
}

// errWithheld stands for an error of other code about a secret value, whose
// message may hold the value.
var errWithheld = errors.New("the reason is withheld, since it may quote a value from a Secret")

// seal returns err for an error about a secret value: itself when it is a
// *valueError, and otherwise an error that keeps none of its text.
func seal(err error, secret bool) error {
	var ve *valueError
	if !secret || errors.As(err, &ve) && ve == err {
		return err
	}
	return &valueError{msg: errWithheld.Error(), cause: errWithheld}
}
