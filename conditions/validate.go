package conditions

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// Sentinel errors, for errors.Is.
var (
	// ErrInvalid is wrapped by every error about a condition that breaks the
	// metav1.Condition rules (see Validate).
	ErrInvalid = errors.New("invalid condition")
	// ErrMalformed is wrapped by every error about unstructured content that
	// cannot be read as conditions: a status that is not an object, an entry
	// of status.conditions that is not a condition, a list of condition types
	// that is not a list of strings.
	ErrMalformed = errors.New("malformed conditions")
	// ErrNilObject is returned when a nil object is passed.
	ErrNilObject = errors.New("nil object")
)

// Limits of metav1.Condition, as the API server enforces them.
const (
	MaxTypeLength    = 316
	MaxReasonLength  = 1024
	MaxMessageLength = 32768

	maxPrefixLength = 253 // a DNS subdomain
	maxNameLength   = 63  // the name part of a qualified name
)

// wrapped is an error with its own message that errors.Is matches against a
// sentinel.
type wrapped struct {
	sentinel error
	msg      string
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.sentinel }

func malformed(format string, args ...any) error {
	return &wrapped{sentinel: ErrMalformed, msg: fmt.Sprintf(format, args...)}
}

// Validate reports whether c follows the rules the API server applies to a
// metav1.Condition, with every broken rule named in one error that wraps
// ErrInvalid:
//
//   - type is a qualified name ("Ready", "example.com/DatabaseReady": an
//     optional lower-case DNS subdomain and '/', then 1-63 letters, digits,
//     '-', '_' or '.' that start and end with a letter or digit), at most 316
//     characters;
//   - status is True, False or Unknown;
//   - reason matches ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$ and has 1-1024
//     characters;
//   - message has at most 32768 bytes (bytes, as apimachinery counts them,
//     which is never looser than a CRD schema's maxLength in characters);
//   - observedGeneration is not negative.
//
// lastTransitionTime is not checked: Set fills it in. Validate does not
// allocate when c is valid.
func Validate(c metav1.Condition) error {
	var problems []string // allocated only when c is invalid
	if msg := checkType(c.Type); msg != "" {
		problems = append(problems, msg)
	}
	switch c.Status {
	case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
	case "":
		problems = append(problems, "status: must be True, False or Unknown, not empty")
	default:
		problems = append(problems, "status ("+size(string(c.Status))+"): must be True, False or Unknown")
	}
	if msg := checkReason(c.Reason); msg != "" {
		problems = append(problems, msg)
	}
	if n := len(c.Message); n > MaxMessageLength {
		problems = append(problems, fmt.Sprintf("message: must be at most %d bytes, not %d", MaxMessageLength, n))
	}
	if c.ObservedGeneration < 0 {
		problems = append(problems, "observedGeneration: must not be negative")
	}
	if problems == nil {
		return nil
	}
	return &wrapped{sentinel: ErrInvalid, msg: "invalid condition: " + strings.Join(problems, "; ")}
}

// size describes a string read from a condition for an error message by its
// length alone. No error of this package quotes a condition's fields: they
// are read from objects and written into other objects' conditions and
// events, and a message or reason may carry a value that must not travel
// (a Secret's, say); the type and the reason are named by their rules.
func size(s string) string {
	return jsonvalue.Shape(s)
}

func checkType(t string) string {
	if t == "" {
		return "type: must not be empty"
	}
	if len(t) > MaxTypeLength {
		return fmt.Sprintf("type: must be at most %d characters, not %d", MaxTypeLength, len(t))
	}
	name := t
	if i := strings.IndexByte(t, '/'); i >= 0 {
		prefix := t[:i]
		name = t[i+1:]
		if msg := checkDNSSubdomain(prefix); msg != "" {
			return "type: prefix (" + size(prefix) + "): " + msg
		}
	}
	if msg := checkName(name); msg != "" {
		return "type: " + msg
	}
	return ""
}

// checkName checks the name part of a qualified name.
func checkName(n string) string {
	const rule = "must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. \"Ready\", \"example.com/DatabaseReady\")"
	if n == "" || len(n) > maxNameLength || !isAlnum(n[0]) || !isAlnum(n[len(n)-1]) {
		return "name part (" + size(n) + ") " + rule
	}
	for i := 0; i < len(n); i++ {
		if b := n[i]; !isAlnum(b) && b != '-' && b != '_' && b != '.' {
			return "name part (" + size(n) + ") " + rule
		}
	}
	return ""
}

// checkDNSSubdomain checks an RFC 1123 subdomain: dot-separated labels of
// lower-case letters, digits and '-', each starting and ending with a letter
// or digit, at most 253 characters in all.
func checkDNSSubdomain(s string) string {
	const rule = "must be a lower-case DNS subdomain (e.g. \"example.com\")"
	if s == "" || len(s) > maxPrefixLength {
		return rule + " of 1-253 characters"
	}
	for start := 0; start <= len(s); {
		end := strings.IndexByte(s[start:], '.')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		label := s[start:end]
		if label == "" || !isLowerAlnum(label[0]) || !isLowerAlnum(label[len(label)-1]) {
			return rule
		}
		for i := 0; i < len(label); i++ {
			if b := label[i]; !isLowerAlnum(b) && b != '-' {
				return rule
			}
		}
		start = end + 1
	}
	return ""
}

func checkReason(r string) string {
	const rule = "must start with a letter, contain only letters, digits, '_', ',' and ':', and end with a letter, digit or '_' (e.g. \"NotFound\")"
	if r == "" {
		return "reason: must not be empty"
	}
	if len(r) > MaxReasonLength {
		return fmt.Sprintf("reason: must be at most %d characters, not %d", MaxReasonLength, len(r))
	}
	if !isLetter(r[0]) {
		return "reason (" + size(r) + "): " + rule
	}
	for i := 1; i < len(r); i++ {
		b := r[i]
		if isAlnum(b) || b == '_' {
			continue
		}
		if (b == ',' || b == ':') && i < len(r)-1 {
			continue
		}
		return "reason (" + size(r) + "): " + rule
	}
	return ""
}

func isLetter(b byte) bool     { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }
func isDigit(b byte) bool      { return '0' <= b && b <= '9' }
func isAlnum(b byte) bool      { return isLetter(b) || isDigit(b) }
func isLowerAlnum(b byte) bool { return 'a' <= b && b <= 'z' || isDigit(b) }
