package fieldpath

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unsafe"
)

// The string-path methods of Paved look paths up in a small, fixed-size,
// 4-way set-associative cache of compiled Paths. It is lock-free: slots hold
// atomic pointers to immutable Paths, and a store may simply overwrite a
// concurrent one. The cache never holds more than cacheSets*cacheWays paths
// of at most cacheMaxPathLen bytes each, so its memory stays bounded whatever
// paths a program sees.
//
// Eviction gives a second chance, as the CLOCK algorithm does: a hit marks
// its slot, and a store into a full set evicts a way that has not been hit
// since the last store swept past it. Paths a program uses over and over
// thus survive a stream of paths used once, such as those ExpandWildcards
// returns.
//
// In front of the sets sits a direct-mapped table indexed by the address and
// length of the caller's string, which finds a path without hashing its text
// when the caller passes the same string again, as code that names its paths
// in constants does. The address is only a hint: a hit is confirmed by
// comparing the text, so a string freed and reused, or moved with its stack,
// can only miss. It holds at most cacheRecent more paths.
const (
	cacheSets       = 256
	cacheWays       = 4
	cacheMaxPathLen = 256
	cacheRecentBits = 9
	cacheRecent     = 1 << cacheRecentBits
)

type pathCache struct {
	seed   maphash.Seed
	hand   atomic.Uint32 // where a store starts looking for a way to evict
	recent [cacheRecent]atomic.Pointer[Path]
	slots  [cacheSets * cacheWays]atomic.Pointer[Path]
	used   [cacheSets * cacheWays]atomic.Bool // hit since the last sweep
}

// paths is the cache the string-path methods of Paved share.
var paths = newPathCache()

func newPathCache() *pathCache {
	return &pathCache{seed: maphash.MakeSeed()}
}

// lookup returns the compiled form of path, from the cache when it can,
// checked against the index limit maxIndex (zero: DefaultMaxIndex).
func (c *pathCache) lookup(path string, maxIndex uint) (*Path, error) {
	maxIndex = limit(maxIndex)
	r := &c.recent[recentIndex(path)]
	if p := r.Load(); p != nil && p.text == path && p.maxIndex <= maxIndex {
		if u := &c.used[p.slot%uint32(len(c.used))]; !u.Load() {
			u.Store(true)
		}
		return p, nil
	}
	return c.lookupSet(path, maxIndex, r)
}

// recentIndex is where path's address and length lead in the recent table.
func recentIndex(path string) uint {
	h := uint64(uintptr(unsafe.Pointer(unsafe.StringData(path)))) + uint64(len(path))
	return uint((h * 0x9e3779b97f4a7c15) >> (64 - cacheRecentBits))
}

// lookupSet looks path up in the sets, or compiles it and stores it there,
// and remembers it in r.
func (c *pathCache) lookupSet(path string, maxIndex uint, r *atomic.Pointer[Path]) (*Path, error) {
	if p := c.load(path); p != nil {
		if p.maxIndex <= maxIndex {
			if r.Load() != p {
				// Callers that build the same path afresh each time miss
				// here on every call; writing only a change keeps them from
				// bouncing the cache line between cores.
				r.Store(p)
			}
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
	r.Store(p)
	return p, nil
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

// store puts p, not yet seen by any other goroutine, into its set, and
// records in it the slot it went to.
func (c *pathCache) store(p *Path) {
	base := c.set(p.text)
	for i := base; i < base+cacheWays; i++ {
		p.slot = uint32(i)
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
			p.slot = uint32(i)
			c.slots[i].Store(p)
			return
		}
		c.used[i].Store(false)
	}
	i := base + start%cacheWays
	p.slot = uint32(i)
	c.slots[i].Store(p)
}
