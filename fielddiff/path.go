package fielddiff

import (
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

// pathString writes segs in field path syntax, so that fieldpath.Parse reads
// back the same segments: fields and indexes as fieldpath writes them, map
// keys in brackets.
func pathString(segs []pathSegment) string {
	size := 0
	for i := range segs {
		size += len(segs[i].Field) + 4
	}
	var b strings.Builder
	b.Grow(size)
	for i := range segs {
		var buf [64]byte // on the stack: the appended bytes are only copied
		if segs[i].key {
			b.Write(fieldpath.AppendKey(buf[:0], segs[i].Field))
		} else {
			b.Write(fieldpath.AppendSegment(buf[:0], segs[i].Segment, i == 0))
		}
	}
	return b.String()
}
