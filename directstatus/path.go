package directstatus

import (
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// A pathSegment is a fieldpath.Segment that remembers whether it is the key
// of a Go or protobuf map, which is written in brackets (spec.labels[team])
// rather than after a dot like a field (spec.description).
type pathSegment struct {
	fieldpath.Segment
	key bool
}

func fieldSegment(name string) pathSegment {
	return pathSegment{Segment: fieldpath.Segment{Type: fieldpath.SegmentField, Field: name}}
}

func keySegment(key string) pathSegment {
	return pathSegment{Segment: fieldpath.Segment{Type: fieldpath.SegmentField, Field: key}, key: true}
}

func indexSegment(i int) pathSegment {
	return pathSegment{Segment: fieldpath.Segment{Type: fieldpath.SegmentIndex, Index: uint(i)}}
}

// pathString writes segs in field path syntax: fields after dots, indexes and
// map keys in brackets, and a field in brackets too when a dot could not
// hold it (it is empty, "*", all digits, or holds '.', '[' or ']'). Inside
// brackets '\', '[' and ']' (and a leading quote) are escaped, and keys that
// would read as an index, a negative index, a wildcard or nothing are quoted,
// so fieldpath.Parse reads back the same segments.
func pathString(segs []pathSegment) string {
	size := 0
	for i := range segs {
		size += len(segs[i].Field) + 4
	}
	var b strings.Builder
	b.Grow(size)
	for i := range segs {
		s := &segs[i]
		switch {
		case s.Type == fieldpath.SegmentIndex:
			b.WriteByte('[')
			var buf [20]byte
			b.Write(strconv.AppendUint(buf[:0], uint64(s.Index), 10))
			b.WriteByte(']')
		case !s.key && plainField(s.Field):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Field)
		default:
			writeBracketed(&b, s.Field)
		}
	}
	return b.String()
}

// plainField reports whether f can follow a dot.
func plainField(f string) bool {
	return f != "" && f != "*" && !allDigits(f) && !strings.ContainsAny(f, ".[]")
}

func writeBracketed(b *strings.Builder, f string) {
	if f == "" || f == "*" || allDigits(f) || f[0] == '-' && allDigits(f[1:]) {
		// Quoted, so that it reads as a name, not as nothing, a wildcard or
		// an index. These names hold no character that needs escaping.
		b.WriteString("['")
		b.WriteString(f)
		b.WriteString("']")
		return
	}
	b.WriteByte('[')
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == '\\' || c == '[' || c == ']' || i == 0 && (c == '\'' || c == '"') {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte(']')
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
