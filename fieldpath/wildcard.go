package fieldpath

import (
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// ExpandWildcards returns the concrete paths, in canonical form, of every
// value that path matches: each wildcard is replaced by every index of the
// array or every key of the object found there. Arrays come in index order
// and keys in sorted order, so the result is deterministic. Only paths to
// values that exist are returned; a path without wildcards comes back alone
// if it exists. A missing or null value on the way matches nothing, so a
// missing prefix gives an empty list (empty, not nil, as crossplane-runtime
// returns it). A wildcard over a scalar, or a value of the wrong type on the
// way, is an error wrapping ErrWrongType; an array element beyond the Paved's
// index limit is an error wrapping ErrInvalidPath, since the path could not
// be used.
//
// An object key "*" comes back quoted, as ['*'], which is a field and not a
// wildcard, so expanding a result again returns it unchanged.
func (p *Paved) ExpandWildcards(path string) ([]string, error) {
	fp, err := p.path(path)
	if err != nil {
		return nil, err
	}
	if fp.wildcard < 0 {
		if _, err := fp.get(p.object, "expand"); err != nil {
			if IsNotFound(err) {
				return []string{}, nil
			}
			return nil, err
		}
		return []string{fp.segs.String()}, nil
	}
	e := expansion{pattern: fp.segs, concrete: make(Segments, len(fp.segs)), limit: limit(p.maxIndex), out: []string{}}
	if err := e.expand(p.object, 0); err != nil {
		return nil, err
	}
	return e.out, nil
}

type expansion struct {
	pattern  Segments
	concrete Segments // the pattern with the wildcards before the current one filled in
	limit    uint
	out      []string
}

func (e *expansion) expand(cur any, i int) error {
	for ; i < len(e.pattern); i++ {
		s := e.pattern[i]
		if cur == nil {
			return nil
		}
		if s.Type != SegmentWildcard {
			v, found, ok := child(cur, &s)
			if !ok {
				return e.wrongType(i, cur)
			}
			if !found {
				return nil
			}
			e.concrete[i] = s
			cur = v
			continue
		}
		switch c := cur.(type) {
		case []any:
			if len(c) > 0 && uint(len(c)-1) > e.limit {
				return fmt.Errorf("cannot expand %s: %s has %d elements, more than the index limit of %d allows: %w",
					e.pattern, e.concrete[:i], len(c), e.limit, ErrInvalidPath)
			}
			for ix, v := range c {
				e.concrete[i] = Segment{Type: SegmentIndex, Index: uint(ix)}
				if err := e.expand(v, i+1); err != nil {
					return err
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(c))
			for k := range c {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				e.concrete[i] = Segment{Type: SegmentField, Field: k}
				if err := e.expand(c[k], i+1); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("cannot expand %s: %s is %s, which a wildcard cannot expand: %w",
				e.pattern, e.concrete[:i], jsonvalue.Shape(cur), ErrWrongType)
		}
		return nil
	}
	e.out = append(e.out, e.concrete.String())
	return nil
}

func (e *expansion) wrongType(i int, got any) error {
	segs := append(append(Segments(nil), e.concrete[:i]...), e.pattern[i:]...)
	return &walkError{op: "expand", segs: segs, at: i, kind: errWrongParent, got: got}
}
