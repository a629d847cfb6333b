package extref

import (
	"strings"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// volatileFields are the fields a source may not read, because they change
// whenever their object is written: a referencer that reads one of its own
// would be written again by every write of the value. resourceVersion and
// managedFields change on every write, generation on every write of the
// spec, and an observedGeneration copies generation by convention. The
// wildcard stands for any index.
var volatileFields = []fieldpath.Segments{
	mustParse("metadata.resourceVersion"),
	mustParse("metadata.generation"),
	mustParse("metadata.managedFields"),
	mustParse("status.observedGeneration"),
	mustParse("status.conditions[*].observedGeneration"),
}

func mustParse(path string) fieldpath.Segments {
	segs, err := fieldpath.Parse(path)
	if err != nil {
		panic(err)
	}
	return segs
}

// checkVolatile refuses a source field path that is, lies under or holds a
// volatile field (so metadata and status as a whole are refused too). The
// error's path is relative to the reference.
func checkVolatile(path string) *compileError {
	// Field names are written literally (escapes produce only brackets,
	// quotes and backslashes), so a path without these words cannot reach a
	// volatile field.
	if !strings.Contains(path, "metadata") && !strings.Contains(path, "status") {
		return nil
	}
	segs, err := fieldpath.Parse(path)
	if err != nil {
		return nil // reported by the caller
	}
	for _, v := range volatileFields {
		if !prefixMatch(segs, v) {
			continue
		}
		if len(segs) < len(v) {
			return invalid(".fieldPath", "%q holds %s, which changes whenever its object is written, so it cannot be a source (a referencer that read its own would be written for ever)", path, v.String())
		}
		return invalid(".fieldPath", "%q: %s changes whenever its object is written, so it cannot be a source (a referencer that read its own would be written for ever)", path, v.String())
	}
	return nil
}

// prefixMatch reports whether one of path and volatile is a prefix of the
// other, a wildcard in volatile matching any segment.
func prefixMatch(path, volatile fieldpath.Segments) bool {
	for i := range min(len(path), len(volatile)) {
		if volatile[i].Type == fieldpath.SegmentWildcard {
			continue
		}
		if path[i] != volatile[i] {
			return false
		}
	}
	return true
}
