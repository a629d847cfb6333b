package fieldpath

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultMaxIndex is the largest array index a path may hold unless a
// MaxIndex option says otherwise. A limit stops a path such as
// "spec.items[999999999]" from making Set allocate gigabytes (crossplane-runtime
// added the same limit, with the same default, for CVE-2023-27483).
const DefaultMaxIndex = 1024

// DefaultMaxFieldPathIndex is crossplane-runtime's name for DefaultMaxIndex.
const DefaultMaxFieldPathIndex = DefaultMaxIndex

// maxIndexCap bounds every limit, so that an index always fits an int and the
// parser's arithmetic cannot overflow.
const maxIndexCap = math.MaxInt32

// A SegmentType says what a Segment selects. The zero value is not a valid
// type.
type SegmentType int

// Segment types.
const (
	_ SegmentType = iota

	// SegmentField selects the field named Segment.Field of an object.
	SegmentField

	// SegmentIndex selects element Segment.Index of an array.
	SegmentIndex

	// SegmentWildcard selects every field of an object or every element of
	// an array. Only ExpandWildcards accepts it; Get, Set and Delete reject
	// a path that holds one.
	SegmentWildcard
)

// String returns the constant's name, such as "SegmentField".
func (t SegmentType) String() string {
	switch t {
	case SegmentField:
		return "SegmentField"
	case SegmentIndex:
		return "SegmentIndex"
	case SegmentWildcard:
		return "SegmentWildcard"
	default:
		return "SegmentType(" + strconv.Itoa(int(t)) + ")"
	}
}

// A Segment is one step of a field path.
type Segment struct {
	Type  SegmentType
	Field string // the field name, when Type is SegmentField
	Index uint   // the array index, when Type is SegmentIndex
}

// Segments is a parsed field path.
type Segments []Segment

// Field returns the segment that selects the field named name, whatever
// the name holds: unlike crossplane-runtime's Field, it trims no quotes, so
// that every key can be addressed.
func Field(name string) Segment {
	return Segment{Type: SegmentField, Field: name}
}

// FieldOrIndex returns the segment that the text s selects, as
// crossplane-runtime's FieldOrIndex does: an index when s is an unsigned
// 32-bit decimal integer, a wildcard when it is "*", and otherwise the field
// named s without the quotes around it ('name' or "name").
func FieldOrIndex(s string) Segment {
	if i, err := strconv.ParseUint(s, 10, 32); err == nil {
		return Segment{Type: SegmentIndex, Index: uint(i)}
	}
	if s == "*" {
		return Segment{Type: SegmentWildcard}
	}
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return Field(s)
}

// Parse parses a field path into its segments. See the package documentation
// for the syntax. Indexes above DefaultMaxIndex are rejected; use Compile
// with a MaxIndex option, or Pave with one, for a different limit.
//
// Every error wraps ErrInvalidPath and names the byte position at fault.
func Parse(path string) (Segments, error) {
	return parse(path, DefaultMaxIndex)
}

func parse(path string, maxIndex uint) (Segments, error) {
	n := len(path)
	if n == 0 {
		return nil, &parseError{path: path, pos: -1, msg: "empty path"}
	}
	maxIndex = min(maxIndex, maxIndexCap)

	// Every segment but the first starts with '.' or '['. Counting them sizes
	// the result exactly in the common case; the cap keeps a hostile input
	// from allocating much before it is rejected.
	segs := make(Segments, 0, min(1+strings.Count(path, ".")+strings.Count(path, "["), 64))

	i := 0
	for {
		if path[i] == '[' {
			seg, next, err := parseBracket(path, i, maxIndex)
			if err != nil {
				return nil, err
			}
			segs = append(segs, seg)
			i = next
		} else {
			start := i
			for i < n && !delimiter[path[i]] {
				i++
			}
			if i < n && path[i] == ']' {
				return nil, errAt(path, i, `unexpected "]"`)
			}
			if i == start {
				return nil, errAt(path, i, "empty field name")
			}
			if f := path[start:i]; f == "*" {
				segs = append(segs, Segment{Type: SegmentWildcard})
			} else {
				segs = append(segs, Segment{Type: SegmentField, Field: f})
			}
		}

		if i == n {
			return segs, nil
		}
		if path[i] == '.' {
			i++
			if i == n {
				return nil, errAt(path, i-1, `trailing "."`)
			}
			if path[i] == '[' {
				return nil, errAt(path, i, `unexpected "[" after "."`)
			}
		}
		// Otherwise path[i] is '[', or a field name follows a closing bracket
		// directly, as in "a[0]b", which crossplane-runtime accepts too.
	}
}

// delimiter marks the bytes that end a field name outside brackets.
var delimiter = [256]bool{'.': true, '[': true, ']': true}

// parseBracket parses the bracketed segment that starts at path[i] == '['
// and returns it with the position just after its closing bracket.
func parseBracket(path string, i int, maxIndex uint) (Segment, int, error) {
	n := len(path)
	j := i + 1

	// A quoted field name: ['text'] or ["text"].
	if j < n && (path[j] == '\'' || path[j] == '"') {
		quote := path[j]
		start := j + 1
		k, escaped := start, false
		for k < n && path[k] != quote {
			if path[k] == '\\' && k+1 < n && escapable(path[k+1]) {
				escaped = true
				k += 2
				continue
			}
			k++
		}
		if k >= n {
			return Segment{}, 0, errAt(path, j, "unterminated quote")
		}
		field := path[start:k]
		k++
		if k == n || path[k] != ']' {
			return Segment{}, 0, errAt(path, k, `missing "]" after closing quote`)
		}
		if escaped {
			field = unescape(field)
		}
		return Segment{Type: SegmentField, Field: field}, k + 1, nil
	}

	// An index, a wildcard, or an unquoted field name in which dots are
	// literal.
	start := j
	k, escaped, digits := start, false, true
	for k < n {
		c := path[k]
		if c == ']' {
			break
		}
		if c == '[' {
			return Segment{}, 0, errAt(path, k, `unexpected "[" inside brackets`)
		}
		if c == '\\' && k+1 < n && escapable(path[k+1]) {
			escaped, digits = true, false
			k += 2
			continue
		}
		if c < '0' || c > '9' {
			digits = false
		}
		k++
	}
	if k >= n {
		return Segment{}, 0, errAt(path, i, `unterminated "["`)
	}
	text := path[start:k]
	switch {
	case text == "":
		return Segment{}, 0, errAt(path, k, "empty brackets")
	case digits:
		idx, ok := parseIndex(text, maxIndex)
		if !ok {
			return Segment{}, 0, errAt(path, start, fmt.Sprintf("index %s is above the limit of %d", text, maxIndex))
		}
		return Segment{Type: SegmentIndex, Index: idx}, k + 1, nil
	case text == "*":
		return Segment{Type: SegmentWildcard}, k + 1, nil
	case text[0] == '-' && allDigits(text[1:]):
		return Segment{}, 0, errAt(path, start, "negative index "+text)
	}
	if escaped {
		text = unescape(text)
	}
	return Segment{Type: SegmentField, Field: text}, k + 1, nil
}

// parseIndex parses a non-empty string of ASCII digits, refusing values above
// max (which is at most maxIndexCap, so v*10+9 cannot overflow).
func parseIndex(s string, max uint) (uint, bool) {
	var v uint
	for i := 0; i < len(s); i++ {
		v = v*10 + uint(s[i]-'0')
		if v > max {
			return 0, false
		}
	}
	return v, true
}

// escapable reports whether a backslash before c escapes it inside brackets.
// A backslash before any other byte stands for itself, so Windows-like keys
// such as [C:\temp] read as they do in crossplane-runtime.
func escapable(c byte) bool {
	return c == '\\' || c == ']' || c == '[' || c == '\'' || c == '"'
}

func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && escapable(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func errAt(path string, pos int, msg string) error {
	return &parseError{path: path, pos: pos, msg: msg}
}

// String returns the canonical form of the path: fields joined by dots, and
// bracket notation only for indexes, wildcards, and field names that need
// it (those holding '.', '[' or ']', the empty name, names made only of
// digits, and the literal name "*"). Parse(s.String()) returns s again,
// provided its indexes are within the limit.
func (s Segments) String() string {
	size := 0
	for i := range s {
		size += len(s[i].Field) + 4
	}
	// The Builder stays on the stack only if it is not passed to a function
	// that is not inlined, so segments are appended to a stack buffer and
	// copied into it.
	var b strings.Builder
	b.Grow(size)
	for i := range s {
		var buf [64]byte // on the stack: AppendSegment's result is only copied
		b.Write(AppendSegment(buf[:0], s[i], i == 0))
	}
	return b.String()
}

// AppendSegment appends seg to dst as Segments.String writes it: an index or
// wildcard in brackets, a field as AppendField writes it.
func AppendSegment(dst []byte, seg Segment, first bool) []byte {
	switch seg.Type {
	case SegmentIndex:
		return append(strconv.AppendUint(append(dst, '['), uint64(seg.Index), 10), ']')
	case SegmentWildcard:
		return append(dst, "[*]"...)
	case SegmentField:
		return AppendField(dst, seg.Field, first)
	}
	return append(strconv.AppendInt(append(dst, "[<invalid segment type "...), int64(seg.Type), 10), ">]"...)
}

// AppendField appends the field name f to dst as Segments.String writes it:
// after a dot (none when first) if a dot can hold it, else in bracket
// notation as AppendKey writes it.
func AppendField(dst []byte, f string, first bool) []byte {
	if !plainField(f) {
		return AppendKey(dst, f)
	}
	if !first {
		dst = append(dst, '.')
	}
	return append(dst, f...)
}

// AppendKey appends the field name f to dst in bracket notation, as a map
// key is written (spec.labels[team]): '\\', '[', ']' and a leading quote are
// escaped, and a name that would read as nothing, a wildcard or an index
// (negative ones included) is quoted (['0']). Parse reads it back as the
// field f.
func AppendKey(dst []byte, f string) []byte {
	if f == "" || f == "*" || allDigits(f) || f[0] == '-' && allDigits(f[1:]) {
		// These names hold no character that needs escaping.
		dst = append(dst, '[', '\'')
		dst = append(dst, f...)
		return append(dst, '\'', ']')
	}
	dst = append(dst, '[')
	for j := 0; j < len(f); j++ {
		c := f[j]
		if c == '\\' || c == '[' || c == ']' || (j == 0 && (c == '\'' || c == '"')) {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return append(dst, ']')
}

// plainField reports whether a field name can be written after a dot.
func plainField(f string) bool {
	if f == "" || f == "*" || allDigits(f) {
		return false
	}
	for i := 0; i < len(f); i++ {
		if delimiter[f[i]] {
			return false
		}
	}
	return true
}
