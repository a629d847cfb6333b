package extref

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// A writtenValue is an external value that a Resolve wrote to the
// referencer.
type writtenValue struct {
	list     string // the external values' path, e.g. spec.externalValues
	index    int
	target   *fieldpath.Path
	metadata bool   // the target is a label or an annotation
	text     string // the value written to a label or an annotation
}

func (w writtenValue) name() string { return w.list + "[" + strconv.Itoa(w.index) + "]" }

// label returns the key of the label w wrote, and whether it wrote one.
func (w writtenValue) label() (string, bool) {
	segs := w.target.Segments()
	if !w.metadata || len(segs) != 3 || segs[1].Field != "labels" {
		return "", false
	}
	return segs[2].Field, true
}

// rejectedMessage describes a write the API server rejected with err by the
// external values whose targets it refused and the kinds of their problems,
// never with the API server's own words, which quote the rejected values.
// A refused field that no external value wrote is named by its path.
func rejectedMessage(o Outcome, err error) string {
	msg := "the API server rejected the resolved values"
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return msg
	}
	st := status.Status()
	msg += fmt.Sprintf(" (%d %s)", st.Code, st.Reason)
	var causes []metav1.StatusCause
	if st.Details != nil {
		causes = st.Details.Causes
	}
	// What each external value, or each field no value wrote, was refused
	// for, in the order first met, each problem once.
	type refusal struct {
		index    int // of the external value; -1 for a field
		what     string
		problems []string
	}
	var refusals []*refusal
	refuse := func(index int, what, problem string) {
		i := slices.IndexFunc(refusals, func(r *refusal) bool { return r.index == index && r.what == what })
		if i < 0 {
			refusals = append(refusals, &refusal{index: index, what: what})
			i = len(refusals) - 1
		}
		if !slices.Contains(refusals[i].problems, problem) {
			refusals[i].problems = append(refusals[i].problems, problem)
		}
	}
	// A cause of the object as a whole comes with others when the API
	// server did not check its rules for the whole object (CEL's) because
	// fields were invalid; it names a problem only when alone.
	whole := 0
	for _, c := range causes {
		if apiField(c.Field) == "" {
			whole++
		}
	}
	for _, c := range causes {
		field := apiField(c.Field)
		if field == "" && whole < len(causes) {
			continue
		}
		var hit []writtenValue
		for _, w := range o.written {
			if related(field, apiPath(w.target.Segments())) {
				hit = append(hit, w)
			}
		}
		// The API server names the labels, not the label, it refuses: the
		// labels written that break its rules are the ones.
		if field == "metadata.labels" {
			var bad []writtenValue
			for _, w := range hit {
				if key, ok := w.label(); ok && len(labelProblems(key, w.text)) > 0 {
					bad = append(bad, w)
				}
			}
			if len(bad) > 0 {
				for _, w := range bad {
					key, _ := w.label()
					for _, p := range labelProblems(key, w.text) {
						refuse(w.index, w.name()+" (to "+w.target.String()+")", p)
					}
				}
				continue
			}
		}
		problem := causeProblem(c)
		if len(hit) == 0 {
			if field == "" {
				field = "the referencer"
			}
			refuse(-1, field, problem)
			continue
		}
		for _, w := range hit {
			refuse(w.index, w.name()+" (to "+w.target.String()+")", problem)
		}
	}
	if len(refusals) > 0 {
		parts := make([]string, len(refusals))
		for i, r := range refusals {
			parts[i] = r.what + ": " + strings.Join(r.problems, ", ")
		}
		msg += ": " + strings.Join(parts, "; ")
	}
	return msg + "; the API server's own message is not repeated, since it may quote a value read from a Secret"
}

// labelProblems says what makes a label's key or value invalid, quoting
// neither: the key in apimachinery's words, the value in fewer.
func labelProblems(key, value string) []string {
	var out []string
	for _, p := range validation.IsQualifiedName(key) {
		out = append(out, "its key: "+p)
	}
	// IsValidLabelValue gives one error for the length, one for the
	// characters.
	problems := len(validation.IsValidLabelValue(value))
	if len(value) > validation.LabelValueMaxLength {
		out = append(out, fmt.Sprintf("its value is longer than %d bytes", validation.LabelValueMaxLength))
		problems--
	}
	if problems > 0 {
		out = append(out, "its value is not a label value (letters, digits, '-', '_' and '.', beginning and ending with a letter or digit)")
	}
	return out
}

// tooLong and tooMany find the limit in the API server's message for a
// value too long or a list too long, which holds no value.
var (
	tooLong = regexp.MustCompile(`^Too long: may not be more than (\d+) bytes?$`)
	tooMany = regexp.MustCompile(`must have at most (\d+) items?$`)
)

// causeProblem describes the problem of a cause by its type, and by the
// limit the API server names for a value or list too long.
func causeProblem(c metav1.StatusCause) string {
	switch c.Type {
	case metav1.CauseTypeFieldValueNotFound:
		return "not found"
	case metav1.CauseTypeFieldValueRequired:
		return "required"
	case metav1.CauseTypeFieldValueDuplicate:
		return "a duplicate"
	case metav1.CauseTypeFieldValueInvalid:
		return "an invalid value"
	case metav1.CauseTypeFieldValueNotSupported:
		return "not one of the supported values"
	case metav1.CauseTypeForbidden:
		return "forbidden"
	case metav1.CauseTypeTooLong:
		if m := tooLong.FindStringSubmatch(c.Message); m != nil {
			return "longer than " + m[1] + " bytes"
		}
		return "too long"
	case metav1.CauseTypeTooMany:
		if m := tooMany.FindStringSubmatch(c.Message); m != nil {
			return "more than " + m[1] + " items"
		}
		return "too many items"
	case metav1.CauseTypeTypeInvalid:
		return "a value of the wrong type"
	case "":
		return "refused"
	}
	return "refused (" + string(c.Type) + ")"
}

// apiField is a cause's field path with map keys in the dotted form
// apiPath gives, "" for the object as a whole.
func apiField(field string) string {
	if field == "<nil>" {
		return ""
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(field, '[')
		if i < 0 {
			b.WriteString(field)
			return b.String()
		}
		j := strings.IndexByte(field[i:], ']')
		if j < 0 {
			b.WriteString(field)
			return b.String()
		}
		b.WriteString(field[:i])
		key := field[i+1 : i+j]
		if _, err := strconv.ParseUint(key, 10, 64); err == nil {
			b.WriteString("[" + key + "]")
		} else {
			b.WriteString("." + key)
		}
		field = field[i+j+1:]
	}
}

// apiPath is a target's path as the API server writes a field of a
// custom resource: fields joined by dots, indexes in brackets.
func apiPath(segs fieldpath.Segments) string {
	var b strings.Builder
	for i, s := range segs {
		switch s.Type {
		case fieldpath.SegmentIndex:
			b.WriteString("[" + strconv.FormatUint(uint64(s.Index), 10) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Field)
		}
	}
	return b.String()
}

// related reports whether one of two field paths is, lies under or holds
// the other; the object as a whole ("") holds every field.
func related(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == "" || strings.HasPrefix(b, a) && (len(b) == len(a) || b[len(a)] == '.' || b[len(a)] == '[')
}
