package render

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The functions below compute the exact size of an output before building
// it, so that an output over MaxOutputSize is refused before it is built,
// and one under it is built once, in a buffer of the right size.

// mapRunes is strings.Map(f, s) (strings.ToUpper and ToLower are
// strings.Map of unicode.ToUpper and ToLower), refusing an output over
// limit bytes before building it.
func mapRunes(s string, f func(rune) rune, limit int) (string, error) {
	n, changed := 0, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 { // written as U+FFFD
			n, changed = n+utf8.RuneLen(utf8.RuneError), true
			continue
		}
		m := f(r)
		changed = changed || m != r
		n += utf8.RuneLen(m)
	}
	if n > limit {
		return "", ErrTooLarge
	}
	if !changed {
		return s, nil
	}
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			continue
		}
		b.WriteRune(f(r))
	}
	return b.String(), nil
}

// jsonWriter writes a JSON value as encoding/json's Marshal does (HTML
// characters escaped, object keys sorted), or, with b nil, only counts its
// bytes, stopping once they exceed limit.
type jsonWriter struct {
	b     *strings.Builder // nil: count only
	n     int
	limit int
}

func (w *jsonWriter) over() bool { return w.n > w.limit }

func (w *jsonWriter) raw(s string) {
	w.n += len(s)
	if w.b != nil {
		w.b.WriteString(s)
	}
}

const hexDigits = "0123456789abcdef"

// str writes s as a JSON string, with encoding/json's escapes.
func (w *jsonWriter) str(s string) {
	w.raw(`"`)
	start := 0
	for i := 0; i < len(s) && !w.over(); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			w.raw(s[start:i])
			switch c {
			case '"', '\\':
				w.raw(`\` + string(c))
			case '\b':
				w.raw(`\b`)
			case '\f':
				w.raw(`\f`)
			case '\n':
				w.raw(`\n`)
			case '\r':
				w.raw(`\r`)
			case '\t':
				w.raw(`\t`)
			default:
				w.raw(`\u00` + string(hexDigits[c>>4]) + string(hexDigits[c&0xF]))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			w.raw(s[start:i])
			w.raw(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			w.raw(s[start:i])
			w.raw(`\u202` + string(hexDigits[r&0xF]))
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	if !w.over() {
		w.raw(s[start:])
	}
	w.raw(`"`)
}

// value writes v, a JSON value; anything else is an error.
func (w *jsonWriter) encode(v any) error {
	if w.over() {
		return nil
	}
	var tmp [32]byte
	switch x := v.(type) {
	case nil:
		w.raw("null")
	case bool:
		w.raw(strconv.FormatBool(x))
	case string:
		w.str(x)
	case int64:
		w.raw(string(strconv.AppendInt(tmp[:0], x, 10)))
	case int:
		w.raw(string(strconv.AppendInt(tmp[:0], int64(x), 10)))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("JSON has no %v", x)
		}
		w.raw(string(appendJSONFloat(tmp[:0], x)))
	case []any:
		w.raw("[")
		for i, e := range x {
			if i > 0 {
				w.raw(",")
			}
			if err := w.encode(e); err != nil || w.over() {
				return err
			}
		}
		w.raw("]")
	case map[string]any:
		if w.b == nil { // counting: the order of the keys does not matter
			w.raw("{")
			i := 0
			for k, e := range x {
				if i > 0 {
					w.raw(",")
				}
				i++
				w.str(k)
				w.raw(":")
				if err := w.encode(e); err != nil || w.over() {
					return err
				}
			}
			w.raw("}")
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w.raw("{")
		for i, k := range keys {
			if i > 0 {
				w.raw(",")
			}
			w.str(k)
			w.raw(":")
			if err := w.encode(x[k]); err != nil || w.over() {
				return err
			}
		}
		w.raw("}")
	default:
		return fmt.Errorf("a %T is not a JSON value", v)
	}
	return nil
}

// appendJSONFloat formats f as encoding/json does: shortest decimal, with
// an exponent below 1e-6 and from 1e21 on, written e-7 rather than e-07.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// JSONSize returns the size of v as JSON, as encoding/json's Marshal
// writes it, and whether v is a JSON value of at most limit bytes; it
// stops counting at the limit.
func JSONSize(v any, limit int) (int, bool) {
	w := jsonWriter{limit: limit}
	if limit < 0 || w.encode(v) != nil || w.over() {
		return 0, false
	}
	return w.n, true
}

// toJSON encodes v, refusing an output over limit bytes before building
// it.
func toJSON(v any, limit int) (string, error) {
	count := jsonWriter{limit: limit}
	if err := count.encode(v); err != nil {
		return "", err
	}
	if count.over() {
		return "", ErrTooLarge
	}
	var b strings.Builder
	b.Grow(count.n)
	if err := (&jsonWriter{b: &b, limit: limit}).encode(v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// size returns the exact number of bytes fmt prints for verb p and value
// v, without printing large values: strings are measured, arrays and
// objects walked; only scalars (at most a few KB with a width or precision
// up to maxWidth) are printed, into a small buffer.
func (p piece) size(v any) int {
	if p.verb != 'T' {
		switch x := v.(type) {
		case string:
			return p.stringSize(x)
		case []any, map[string]any:
			return compositeSize(x, p.flags.sharp, 0)
		}
	}
	var tmp [64]byte
	return len(fmt.Appendf(tmp[:0], p.text, v))
}

func (p piece) stringSize(s string) int {
	f := p.flags
	if p.prec >= 0 && (p.verb == 's' || p.verb == 'v' || p.verb == 'q') {
		s = truncateRunes(s, p.prec)
	}
	var n, runes int
	switch {
	case p.verb == 'x' || p.verb == 'X':
		length := len(s)
		if p.prec >= 0 && p.prec < length {
			length = p.prec
		}
		if length == 0 {
			return max(p.width, 0)
		}
		n = 2 * length
		if f.space {
			if f.sharp {
				n *= 2
			}
			n += length - 1
		} else if f.sharp {
			n += 2
		}
		return max(p.width, n)
	case p.verb == 'q' || p.verb == 'v' && f.sharp:
		if p.verb == 'q' && f.sharp && strconv.CanBackquote(s) {
			n, runes = len(s)+2, utf8.RuneCountInString(s)+2
		} else {
			n, runes = quotedSize(s, p.verb == 'q' && f.plus)
		}
	default: // s, v
		n = len(s)
		if p.width > 0 {
			runes = utf8.RuneCountInString(s)
		}
	}
	if p.width > runes {
		n += p.width - runes
	}
	return n
}

// truncateRunes returns the first n runes of s.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// quotedSize returns the bytes and runes of strconv.Quote(s) (or
// QuoteToASCII), quoting s piece by piece into a small buffer.
func quotedSize(s string, ascii bool) (n, runes int) {
	quotePieces(s, ascii, func(inner []byte) {
		n += len(inner)
		runes += utf8.RuneCount(inner)
	})
	return n + 2, runes + 2
}

// quotePieces quotes s (strconv.Quote, or QuoteToASCII) 1 KiB at a time, on
// rune boundaries, into one small buffer, and passes each piece's quoted
// text without its quotes to f: together they are strconv.Quote(s) without
// its quotes, and nothing grows with s.
func quotePieces(s string, ascii bool, f func(inner []byte)) {
	const piece = 1024
	buf := make([]byte, 0, 4*piece+64)
	for len(s) > 0 {
		end := 0
		for end < len(s) && end < piece {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		if ascii {
			buf = strconv.AppendQuoteToASCII(buf[:0], s[:end])
		} else {
			buf = strconv.AppendQuote(buf[:0], s[:end])
		}
		f(buf[1 : len(buf)-1])
		s = s[end:]
	}
}

// compositeSize returns the bytes fmt prints for an array or object (and,
// inside one, for any JSON value) with %v, or %#v when sharp.
func compositeSize(v any, sharp bool, depth int) int {
	var tmp [64]byte
	switch x := v.(type) {
	case string:
		if depth == 0 || !sharp {
			return len(x)
		}
		n, _ := quotedSize(x, false)
		return n
	case nil:
		if sharp {
			return len("interface {}(nil)")
		}
		return len("<nil>")
	case []any:
		n := len("[]")
		if sharp {
			n = len("[]interface {}{}")
		}
		for i, e := range x {
			if i > 0 {
				n++ // " ", or ", " with sharp
				if sharp {
					n++
				}
			}
			n += compositeSize(e, sharp, depth+1)
		}
		return n
	case map[string]any:
		n := len("map[]")
		if sharp {
			n = len("map[string]interface {}{}")
		}
		i := 0
		for k, e := range x {
			if i > 0 {
				n++
				if sharp {
					n++
				}
			}
			i++
			n += compositeSize(k, sharp, depth+1) + 1 + compositeSize(e, sharp, depth+1)
		}
		return n
	}
	if sharp {
		return len(fmt.Appendf(tmp[:0], "%#v", v))
	}
	return len(fmt.Appendf(tmp[:0], "%v", v))
}

// write prints v with verb p into b as fmt does. Large values are printed
// here, piece by piece into b, whose size the caller has grown to fit:
// fmt would build them in a buffer of its own, grown a quarter at a time.
func (p piece) write(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		if p.verb == 's' || p.verb == 'v' && !p.flags.sharp {
			if p.width <= 0 && p.prec < 0 {
				b.WriteString(x)
				return
			}
			break
		}
		if p.prec >= 0 {
			if p.verb == 'x' || p.verb == 'X' {
				x = x[:min(len(x), p.prec)]
			} else {
				x = truncateRunes(x, p.prec)
			}
		}
		if p.width > 0 && len(x) <= 4*maxWidth {
			break // perhaps padded: the output is a few KB at most
		}
		switch {
		case p.verb == 'x' || p.verb == 'X':
			writeHex(b, x, p.verb == 'X', p.flags.sharp, p.flags.space)
			return
		case p.verb == 'q' && p.flags.sharp && strconv.CanBackquote(x):
			b.WriteByte('`')
			b.WriteString(x)
			b.WriteByte('`')
			return
		case p.verb == 'q' || p.verb == 'v':
			writeQuoted(b, x, p.verb == 'q' && p.flags.plus)
			return
		}
	case []any, map[string]any:
		if p.verb == 'v' {
			writeComposite(b, x, p.flags.sharp, 0)
			return
		}
	}
	fmt.Fprintf(b, p.text, v)
}

func writeHex(b *strings.Builder, s string, upper, sharp, space bool) {
	digits, prefix := "0123456789abcdef", "0x"
	if upper {
		digits, prefix = "0123456789ABCDEF", "0X"
	}
	if sharp && len(s) > 0 {
		b.WriteString(prefix)
	}
	for i := 0; i < len(s); i++ {
		if space && i > 0 {
			b.WriteByte(' ')
			if sharp {
				b.WriteString(prefix)
			}
		}
		b.WriteByte(digits[s[i]>>4])
		b.WriteByte(digits[s[i]&0xF])
	}
}

// writeQuoted writes strconv.Quote(s) (or QuoteToASCII), quoting s piece by
// piece into a small buffer.
func writeQuoted(b *strings.Builder, s string, ascii bool) {
	b.WriteByte('"')
	quotePieces(s, ascii, func(inner []byte) { b.Write(inner) })
	b.WriteByte('"')
}

// writeComposite writes what compositeSize measures.
func writeComposite(b *strings.Builder, v any, sharp bool, depth int) {
	switch x := v.(type) {
	case string:
		if depth == 0 || !sharp {
			b.WriteString(x)
			return
		}
		writeQuoted(b, x, false)
		return
	case nil:
		if sharp {
			b.WriteString("interface {}(nil)")
		} else {
			b.WriteString("<nil>")
		}
		return
	case []any:
		open, sep, end := "[", " ", "]"
		if sharp {
			open, sep, end = "[]interface {}{", ", ", "}"
		}
		b.WriteString(open)
		for i, e := range x {
			if i > 0 {
				b.WriteString(sep)
			}
			writeComposite(b, e, sharp, depth+1)
		}
		b.WriteString(end)
		return
	case map[string]any:
		open, sep, end := "map[", " ", "]"
		if sharp {
			open, sep, end = "map[string]interface {}{", ", ", "}"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteString(open)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(sep)
			}
			writeComposite(b, k, sharp, depth+1)
			b.WriteByte(':')
			writeComposite(b, x[k], sharp, depth+1)
		}
		b.WriteString(end)
		return
	}
	if sharp {
		fmt.Fprintf(b, "%#v", v)
	} else {
		fmt.Fprintf(b, "%v", v)
	}
}
