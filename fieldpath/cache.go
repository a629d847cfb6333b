package fieldpath

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// The string-path methods of Paved look paths up in a small, fixed-size,
// 4-way set-associative cache of compiled Paths. A hit costs one hash, at
// most four pointer loads and a string comparison, and allocates nothing. It
// is lock-free: slots hold atomic pointers to immutable Paths, and a store
// may simply overwrite a concurrent one. The cache never holds more than
// cacheSets*cacheWays paths of at most cacheMaxPathLen bytes each, so its
// memory stays bounded whatever paths a program sees.
const (
	cacheSets       = 256
	cacheWays       = 4
	cacheMaxPathLen = 256
)

type pathCache struct {
	seed  maphash.Seed
	next  atomic.Uint32 // picks the way to evict, round robin
	slots [cacheSets * cacheWays]atomic.Pointer[Path]
}

var paths = &pathCache{seed: maphash.MakeSeed()}

func (c *pathCache) set(h uint64) []atomic.Pointer[Path] {
	i := (h % cacheSets) * cacheWays
	return c.slots[i : i+cacheWays]
}

func (c *pathCache) load(path string) *Path {
	set := c.set(maphash.String(c.seed, path))
	for i := range set {
		if p := set[i].Load(); p != nil && p.text == path {
			return p
		}
	}
	return nil
}

func (c *pathCache) store(p *Path) {
	set := c.set(maphash.String(c.seed, p.text))
	for i := range set {
		if set[i].Load() == nil && set[i].CompareAndSwap(nil, p) {
			return
		}
	}
	set[c.next.Add(1)%cacheWays].Store(p)
}

// lookup returns the compiled form of path, from the cache when it can,
// checked against maxIndex.
func lookup(path string, maxIndex uint) (*Path, error) {
	if p := paths.load(path); p != nil {
		if p.maxIndex <= maxIndex {
			return p, nil
		}
		// Parsing again under this limit gives the error with its position.
		return compile(path, maxIndex)
	}
	if len(path) > cacheMaxPathLen {
		return compile(path, maxIndex)
	}
	// The cached Path keeps its own copy of the text, so that it never pins
	// a larger string the caller sliced the path from.
	p, err := compile(strings.Clone(path), maxIndex)
	if err != nil {
		return nil, err
	}
	paths.store(p)
	return p, nil
}
