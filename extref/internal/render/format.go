package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// maxWidth is the largest width or precision a format may give, so that a
// format of a few bytes cannot produce megabytes.
const maxWidth = 1024

// verbKind says what values a fmt verb takes.
type verbKind int

const (
	verbAny    verbKind = iota // v, T
	verbString                 // s, q
	verbInt                    // d, o, O, b, c, U
	verbFloat                  // e, E, f, F, g, G
	verbBool                   // t
	verbHex                    // x, X: strings, integers and floats
)

func kindOfVerb(v rune) (verbKind, bool) {
	switch v {
	case 'v', 'T':
		return verbAny, true
	case 's', 'q':
		return verbString, true
	case 'd', 'o', 'O', 'b', 'c', 'U':
		return verbInt, true
	case 'e', 'E', 'f', 'F', 'g', 'G':
		return verbFloat, true
	case 't':
		return verbBool, true
	case 'x', 'X':
		return verbHex, true
	}
	return 0, false
}

// A Format is a checked fmt format, split into literal text and one verb
// per piece: every verb is known and prints a value that exists, no width
// or precision exceeds maxWidth and none comes from a value ('*'), and every
// value is printed unless the format picks values explicitly ([n]), so the
// output never holds fmt's %!s(MISSING) or %!(EXTRA ...). Formatting piece
// by piece stops as soon as the output would exceed MaxOutputSize.
type Format struct {
	text   string
	pieces []piece
	kinds  [][]verbKind // per value, the kinds of the verbs that print it
}

// Size estimates the bytes f keeps; 0 for none.
func (f *Format) Size() int {
	if f == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*f)) + len(f.text) + len(f.pieces)*int(unsafe.Sizeof(piece{}))
	for _, p := range f.pieces {
		n += len(p.text)
	}
	for _, k := range f.kinds {
		n += 24 + len(k)*int(unsafe.Sizeof(verbKind(0)))
	}
	return n
}

// A piece is literal text (arg < 0) or one verb, without argument index,
// that prints value arg.
type piece struct {
	text  string
	arg   int
	sized bool // the verb has a width or a precision
	verb  rune
	flags verbFlags
	width int // -1 when none
	prec  int // -1 when none
}

// verbFlags are the flags of a verb that change the size of what it prints.
type verbFlags struct{ sharp, plus, space bool }

func flagsOf(s string) verbFlags {
	return verbFlags{sharp: strings.IndexByte(s, '#') >= 0, plus: strings.IndexByte(s, '+') >= 0, space: strings.IndexByte(s, ' ') >= 0}
}

// atoi reads the digits of a width or precision, already checked.
func atoi(digits string) int {
	n, _ := strconv.Atoi(digits)
	return n
}

// ParseFormat checks f, a format of n values.
func ParseFormat(f string, n int) (*Format, error) {
	out := &Format{text: f, kinds: make([][]verbKind, n)}
	var lit strings.Builder
	arg, reordered := 0, false
	for i := 0; i < len(f); {
		if f[i] != '%' {
			j := strings.IndexByte(f[i:], '%')
			if j < 0 {
				j = len(f) - i
			}
			lit.WriteString(f[i : i+j])
			i += j
			continue
		}
		start := i
		i++
		flags := i
		for i < len(f) && strings.IndexByte("#0+- ", f[i]) >= 0 {
			i++
		}
		spec := "%" + f[flags:i]
		vf := flagsOf(f[flags:i])
		width, prec := -1, -1
		sized := false
		idx, next, err := argIndex(f, i, start, n)
		if err != nil {
			return nil, err
		}
		i = next
		w, next, err := number(f, i, start, "width")
		if err != nil {
			return nil, err
		}
		if idx >= 0 && (w != "" || (next < len(f) && f[next] == '.')) {
			// fmt prints %!v(BADINDEX) for "%[1]5d" and "%[1].2f": an
			// index goes after the width and precision ("%5.2[1]f").
			return nil, formatErr(f, start, "an argument index before a width or precision at position %d (write them first: %%5.2[1]f)", start)
		}
		spec += w
		sized = w != ""
		if sized {
			width = atoi(w)
		}
		i = next
		if i < len(f) && f[i] == '.' {
			sized = true
			p, next, err := number(f, i+1, start, "precision")
			if err != nil {
				return nil, err
			}
			spec += "." + p
			prec = atoi(p)
			i = next
		}
		if idx < 0 {
			if idx, next, err = argIndex(f, i, start, n); err != nil {
				return nil, err
			}
			i = next
		}
		if i >= len(f) {
			return nil, formatErr(f, start, "verb missing at position %d", start)
		}
		verb, size := utf8.DecodeRuneInString(f[i:])
		i += size
		if verb == '%' {
			lit.WriteByte('%')
			continue
		}
		kind, ok := kindOfVerb(verb)
		if !ok {
			return nil, formatErr(f, start, "unsupported verb %q at position %d", verb, start)
		}
		if idx >= 0 {
			arg, reordered = idx, true
		}
		if arg >= n {
			return nil, formatErr(f, start, "the verb at position %d has no value (%d given)", start, n)
		}
		if lit.Len() > 0 {
			out.pieces = append(out.pieces, piece{text: lit.String(), arg: -1})
			lit.Reset()
		}
		out.pieces = append(out.pieces, piece{text: spec + string(verb), arg: arg, sized: sized && verb != 'T', verb: verb, flags: vf, width: width, prec: prec})
		out.kinds[arg] = append(out.kinds[arg], kind)
		arg++
	}
	if lit.Len() > 0 {
		out.pieces = append(out.pieces, piece{text: lit.String(), arg: -1})
	}
	if !reordered && arg < n {
		return nil, formatErr(f, len(f), "prints %d of %d values", arg, n)
	}
	return out, nil
}

// A formatError is why a format is invalid, and where.
type formatError struct {
	text string // the format
	pos  int    // of the verb at fault
	msg  string
}

func (e *formatError) Error() string { return fmt.Sprintf("format %q: %s", e.text, e.msg) }

func formatErr(f string, pos int, msg string, args ...any) error {
	return &formatError{text: f, pos: pos, msg: fmt.Sprintf(msg, args...)}
}

// argIndex reads an explicit argument index [n] at f[i:], if there is one,
// and returns it zero-based, or -1.
func argIndex(f string, i, start, n int) (idx, next int, err error) {
	if i >= len(f) || f[i] != '[' {
		return -1, i, nil
	}
	end := strings.IndexByte(f[i:], ']')
	if end < 0 {
		return 0, 0, formatErr(f, start, "unclosed argument index at position %d", start)
	}
	digits := f[i+1 : i+end]
	if digits == "" || len(digits) > 3 || strings.Trim(digits, "0123456789") != "" {
		return 0, 0, formatErr(f, start, "bad argument index at position %d", start)
	}
	idx, _ = strconv.Atoi(digits) // at most 3 digits, checked
	if idx < 1 || idx > n {
		return 0, 0, formatErr(f, start, "argument index %d at position %d is out of range (%d values)", idx, start, n)
	}
	return idx - 1, i + end + 1, nil
}

// number reads the digits of a width or precision at f[i:].
func number(f string, i, start int, what string) (digits string, next int, err error) {
	if i < len(f) && f[i] == '*' {
		return "", 0, formatErr(f, start, "a %s from a value ('*') at position %d is not supported", what, start)
	}
	j, v := i, 0
	for j < len(f) && f[j] >= '0' && f[j] <= '9' {
		v = v*10 + int(f[j]-'0')
		if v > maxWidth {
			return "", 0, formatErr(f, start, "the %s at position %d exceeds %d", what, start, maxWidth)
		}
		j++
	}
	return f[i:j], j, nil
}

// Sprint formats args, converting each to what its verbs print: int64 for
// integer verbs when it is a whole float64, float64 for float verbs when it
// is an int64. A value its verbs cannot print is an error, rather than
// fmt's %!d(string=...) in the output. Errors are made by Failf, and name
// the value by its place and description only.
func (f *Format) Sprint(args []Value) (string, error) { return f.sprintLimit(args, MaxOutputSize) }

// sprintLimit is Sprint refusing an output over limit bytes, at most
// MaxOutputSize.
func (f *Format) sprintLimit(args []Value, limit int) (string, error) {
	conv := make([]any, len(args))
	for i, a := range args {
		v, err := fitVerbs(a, f.kinds[i])
		if err != nil {
			return "", Failf(err, "value %d: %s", i+1, err)
		}
		conv[i] = v
	}
	// fmt applies a width or precision to every element of an array or
	// object, so that %1024v of 100,000 numbers would build 100 MB before
	// the size check: such verbs take scalars only.
	for _, p := range f.pieces {
		if p.arg >= 0 && p.sized {
			switch conv[p.arg].(type) {
			case []any, map[string]any:
				return "", Failf(nil, "value %d: %s has a width or precision, which fmt would apply to every element of %v; use it on scalars only", p.arg+1, p.text, args[p.arg])
			}
		}
	}
	// The output's size is known before anything is printed, so that an
	// output over the limit costs nothing and one under it is printed
	// once, into a buffer of its size.
	total := 0
	for _, p := range f.pieces {
		if p.arg < 0 {
			total += len(p.text)
		} else {
			total += p.size(conv[p.arg])
		}
		if total > limit {
			return "", Failf(ErrTooLarge, "the format gives more than %d bytes", limit)
		}
	}
	var b strings.Builder
	b.Grow(total)
	for _, p := range f.pieces {
		if p.arg < 0 {
			b.WriteString(p.text)
			continue
		}
		p.write(&b, conv[p.arg])
	}
	if b.Len() > limit {
		return "", Failf(ErrTooLarge, "the format gives more than %d bytes", limit)
	}
	return b.String(), nil
}

// fitVerbs returns a's content as its verbs print it; its errors are
// made by Failf.
func fitVerbs(a Value, kinds []verbKind) (any, error) {
	out, converted := a.V, false
	for _, k := range kinds {
		v, conv, err := fitVerb(a, k)
		if err != nil {
			return nil, err
		}
		if conv {
			if converted && v != out { // both are numbers, so comparable
				return nil, Failf(nil, "%v is printed by verbs that need different types", a)
			}
			out, converted = v, true
		}
	}
	return out, nil
}

// fitVerb checks that a verb of kind k prints a, and returns the number a
// must be converted to, if any.
func fitVerb(a Value, k verbKind) (v any, converted bool, err error) {
	switch k {
	case verbAny:
		return a.V, false, nil
	case verbString:
		if _, ok := a.V.(string); ok {
			return a.V, false, nil
		}
		return nil, false, Failf(nil, "%%s and %%q print strings, not %v; use %%v", a)
	case verbBool:
		if _, ok := a.V.(bool); ok {
			return a.V, false, nil
		}
		return nil, false, Failf(nil, "%%t prints booleans, not %v", a)
	case verbInt:
		if i, ok := jsonvalue.WholeInt64(a.V); ok {
			return i, true, nil
		}
		return nil, false, Failf(nil, "integer verbs print whole numbers, not %v", a)
	case verbFloat:
		switch n := a.V.(type) {
		case float64:
			return n, true, nil
		case int64:
			return float64(n), true, nil
		}
		return nil, false, Failf(nil, "float verbs print numbers, not %v", a)
	case verbHex:
		switch a.V.(type) {
		case string, int64, float64:
			return a.V, false, nil
		}
		return nil, false, Failf(nil, "%%x prints strings and numbers, not %v", a)
	}
	return a.V, false, nil
}
