package fielddiff

import (
	"fmt"
	"strings"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// An Option changes how FirstChangedField, ChangedFields and Compare
// compare: Prefix, IgnorePaths, SensitivePaths, NilEqualsEmpty and
// ProtoJSONNames.
type Option interface {
	applyToDiff(c *diffConfig)
}

// Prefix is an option that is prepended to every path reported, e.g.
// Prefix("spec") when diffing the struct that is an object's spec, so that a
// change of its description is reported as spec.description. It is a field
// path; a trailing "." is allowed ("spec." reads as "spec"). The default is
// no prefix.
type Prefix string

func (p Prefix) applyToDiff(c *diffConfig) { c.prefixRaw = string(p) }

type ignorePaths []string

func (p ignorePaths) applyToDiff(c *diffConfig) {
	for _, path := range p {
		c.pathsRaw = append(c.pathsRaw, rawPath{path: path})
	}
}

// IgnorePaths leaves the values at these field paths, and everything under
// them, out of the comparison: status, metadata, output-only fields such as
// an etag or a creation time. Paths are written as they are reported, that is
// with the Prefix if there is one, and a wildcard ([*] or *) matches any
// field, key or index: IgnorePaths("spec.nodePools[*].status"). A path that
// is not a valid field path makes the diff return an error wrapping
// fieldpath.ErrInvalidPath. IgnorePaths may be given more than once.
func IgnorePaths(paths ...string) Option { return ignorePaths(paths) }

type nilEqualsEmpty struct{}

func (nilEqualsEmpty) applyToDiff(c *diffConfig) { c.nilEqualsEmpty = true }

// NilEqualsEmpty makes a missing or nil value equal to an empty one: a nil
// pointer, slice, map or interface, JSON null, a key missing from a map, or a
// protobuf field that is not set, equals "", 0, false, an empty list or map,
// a struct or message whose fields are all empty, or a pointer to such a
// value. Without it a nil value differs from every non-nil one, except for
// struct fields tagged omitempty, whose nil and empty lists and maps encode
// alike and so compare equal.
func NilEqualsEmpty() Option { return nilEqualsEmpty{} }

type protoJSONNames struct{}

func (protoJSONNames) applyToDiff(c *diffConfig) { c.protoJSONNames = true }

// ProtoJSONNames names protobuf fields by their JSON names (nodePools) rather
// than their proto names (node_pools), which is what a Kubernetes spec mapped
// from a cloud API's messages uses.
func ProtoJSONNames() Option { return protoJSONNames{} }

type diffConfig struct {
	prefixRaw      string
	pathsRaw       []rawPath // of IgnorePaths and SensitivePaths
	nilEqualsEmpty bool
	protoJSONNames bool

	prefix fieldpath.Segments
	// ignore is the trie of the ignored paths. Its root also holds the
	// trie of the sensitive paths; the walk follows only the ignored ones.
	ignore *ignoreNode
}

// A rawPath is a path given to IgnorePaths or, with sensitive,
// SensitivePaths.
type rawPath struct {
	path      string
	sensitive bool
}

// sensitivePaths returns the trie of SensitivePaths, or nil.
func (c *diffConfig) sensitivePaths() *ignoreNode {
	if c.ignore == nil {
		return nil
	}
	return c.ignore.sensitive
}

func newDiffConfig(opts []Option) (*diffConfig, error) {
	c := &diffConfig{}
	for _, o := range opts {
		if o != nil {
			o.applyToDiff(c)
		}
	}
	if p := strings.TrimSuffix(c.prefixRaw, "."); p != "" {
		segs, err := fieldpath.Parse(p)
		if err != nil {
			return nil, fmt.Errorf("cannot use prefix %q: %w", c.prefixRaw, err)
		}
		for _, s := range segs {
			if s.Type == fieldpath.SegmentWildcard {
				return nil, fmt.Errorf("cannot use prefix %q: a prefix cannot hold a wildcard: %w", c.prefixRaw, fieldpath.ErrInvalidPath)
			}
		}
		c.prefix = segs
	}
	for _, raw := range c.pathsRaw {
		segs, err := fieldpath.Parse(raw.path)
		if err != nil {
			if raw.sensitive {
				return nil, fmt.Errorf("cannot mark path %q sensitive: %w", raw.path, err)
			}
			return nil, fmt.Errorf("cannot ignore path %q: %w", raw.path, err)
		}
		rel, ok := stripPrefix(segs, c.prefix)
		if !ok {
			continue // the path is outside the prefix: it can never match
		}
		if c.ignore == nil {
			c.ignore = &ignoreNode{}
		}
		if raw.sensitive {
			if c.ignore.sensitive == nil {
				c.ignore.sensitive = &ignoreNode{}
			}
			c.ignore.sensitive.add(rel)
		} else {
			c.ignore.add(rel)
		}
	}
	return c, nil
}

// stripPrefix removes prefix from the front of segs. When segs is shorter than
// prefix and matches its start, everything is ignored: the result is empty.
func stripPrefix(segs, prefix fieldpath.Segments) (fieldpath.Segments, bool) {
	for i, p := range prefix {
		if i == len(segs) {
			return nil, true
		}
		s := segs[i]
		if s.Type == fieldpath.SegmentWildcard {
			continue
		}
		if s.Type != p.Type || s.Field != p.Field || s.Index != p.Index {
			return nil, false
		}
	}
	return segs[len(prefix):], true
}

// An ignoreNode is a trie of ignored paths.
type ignoreNode struct {
	leaf     bool // the path ending here is ignored with all below it
	fields   map[string]*ignoreNode
	indexes  map[uint]*ignoreNode
	wildcard *ignoreNode
	// sensitive, at the root only, is the trie of SensitivePaths.
	sensitive *ignoreNode
}

func (n *ignoreNode) add(segs fieldpath.Segments) {
	for _, s := range segs {
		if n.leaf {
			return
		}
		switch s.Type {
		case fieldpath.SegmentWildcard:
			if n.wildcard == nil {
				n.wildcard = &ignoreNode{}
			}
			n = n.wildcard
		case fieldpath.SegmentIndex:
			n = child(&n.indexes, s.Index)
		default:
			n = child(&n.fields, s.Field)
		}
	}
	n.leaf = true
}

// child returns the node under key k in *m, adding it (and the map) if
// missing.
func child[K comparable](m *map[K]*ignoreNode, k K) *ignoreNode {
	if *m == nil {
		*m = map[K]*ignoreNode{}
	}
	c := (*m)[k]
	if c == nil {
		c = &ignoreNode{}
		(*m)[k] = c
	}
	return c
}

// step appends to dst the nodes that seg leads to from n.
func (n *ignoreNode) step(dst []*ignoreNode, seg fieldpath.Segment) []*ignoreNode {
	switch seg.Type {
	case fieldpath.SegmentIndex:
		if c := n.indexes[seg.Index]; c != nil {
			dst = append(dst, c)
		}
	default:
		if c := n.fields[seg.Field]; c != nil {
			dst = append(dst, c)
		}
	}
	if n.wildcard != nil {
		dst = append(dst, n.wildcard)
	}
	return dst
}
