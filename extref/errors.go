package extref

import (
	"errors"
	"fmt"
	"strings"
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
	// null) at the field path, or a value of the wrong type on the way; or
	// when the referencer has no usable string at a field a source's name,
	// namespace or label value is taken from.
	ErrFieldNotFound = errors.New("field not found")

	// ErrDenied is wrapped when the source policy, or a SubjectAccessReview,
	// does not allow the referencer to read the source.
	ErrDenied = errors.New("denied")

	// ErrAmbiguous is wrapped when a selector matches more objects than it
	// may take: more than one in mode Single, or more than 256.
	ErrAmbiguous = errors.New("ambiguous selection")

	// ErrTransform is wrapped when a transform, a format or a template
	// fails on the value it was given, or would produce more than
	// MaxOutputSize bytes.
	ErrTransform = errors.New("cannot transform value")

	// ErrTarget is wrapped when the value cannot be written to toFieldPath,
	// e.g. because a field on the way holds a value of another type.
	ErrTarget = errors.New("cannot write value")

	// ErrDependency: an object that a dependsOn value waits for does not
	// exist, is being deleted, or is not Ready (ErrNotReady).
	ErrDependency = errors.New("waiting for dependency")

	// ErrNotReady: a dependsOn value with ready waits for its object's
	// Ready condition to be True.
	ErrNotReady = errors.New("not ready")
)

// A Source identifies one field of one object that a reference reads.
type Source struct {
	Group     string
	Version   string
	Resource  string
	Namespace string // after defaulting to the referencer's namespace
	Name      string
	FieldPath string
	// Selector is the label selector of a source chosen by labels, as the
	// spec gives it (a value taken from the referencer shows as its field:
	// team=(spec.team)), with Name empty unless one object is at fault.
	Selector string
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
	if s.Selector != "" {
		if s.Name != "" {
			b.WriteByte(' ')
		}
		b.WriteString("selected by ")
		b.WriteString(s.Selector)
	}
	if s.FieldPath != "" { // empty for a dependsOn, which reads no field
		b.WriteString(", ")
		b.WriteString(s.FieldPath)
	}
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

// An errorList is several errors reported as one: the required external
// values that failed in one Resolve, or the failing sources of one external
// value (why the first failed, then the others' *ReferenceErrors).
// errors.Is and errors.As look at each. Its message names them in turn
// until it passes maxListMessage, then counts the rest: a condition holds
// 32 KiB, and every external value of a referencer may fail.
type errorList []error

func (l errorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if b.Len() > maxListMessage {
			fmt.Fprintf(&b, "; and %d more", len(l)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func (l errorList) Unwrap() []error { return l }

// maxListMessage is the length past which an errorList's message counts
// the errors left rather than naming them: short enough for the count to
// fit in a condition's message.
const maxListMessage = 16 << 10
