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
//
// Eviction gives a second chance, as the CLOCK algorithm does: a hit marks
// its slot, and a store into a full set evicts a way that has not been hit
// since the last store swept past it. Paths a program uses over and over
// thus survive a stream of paths used once, such as those ExpandWildcards
// returns.
const (
	cacheSets       = 256
	cacheWays       = 4
	cacheMaxPathLen = 256
)

type pathCache struct {
	seed  maphash.Seed
	hand  atomic.Uint32 // where a store starts looking for a way to evict
	slots [cacheSets * cacheWays]atomic.Pointer[Path]
	used  [cacheSets * cacheWays]atomic.Bool // hit since the last sweep
}

// paths is the cache the string-path methods of Paved share.
var paths = newPathCache()

func newPathCache() *pathCache {
	return &pathCache{seed: maphash.MakeSeed()}
}

// set returns the index of the first way of path's set.
func (c *pathCache) set(path string) int {
	return int(maphash.String(c.seed, path)%cacheSets) * cacheWays
}

func (c *pathCache) load(path string) *Path {
	base := c.set(path)
	for i := base; i < base+cacheWays; i++ {
		if p := c.slots[i].Load(); p != nil && p.text == path {
			if !c.used[i].Load() {
				// Only the first hit after a sweep writes, so that hot
				// entries are not written to on every read.
				c.used[i].Store(true)
			}
			return p
		}
	}
	return nil
}

func (c *pathCache) store(p *Path) {
	base := c.set(p.text)
	for i := base; i < base+cacheWays; i++ {
		if c.slots[i].Load() == nil && c.slots[i].CompareAndSwap(nil, p) {
			c.used[i].Store(false)
			return
		}
	}
	// Two sweeps at most: the first clears every mark it passes.
	start := int(c.hand.Add(1))
	for k := range 2 * cacheWays {
		i := base + (start+k)%cacheWays
		if !c.used[i].Load() {
			c.slots[i].Store(p)
			return
		}
		c.used[i].Store(false)
	}
	c.slots[base+start%cacheWays].Store(p)
}

// lookup returns the compiled form of path, from the shared cache when it
// can, checked against maxIndex.
func lookup(path string, maxIndex uint) (*Path, error) {
	return paths.lookup(path, maxIndex)
}

func (c *pathCache) lookup(path string, maxIndex uint) (*Path, error) {
	if p := c.load(path); p != nil {
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
	c.store(p)
	return p, nil
}
