package extref

import (
	"sync"
	"time"

	"k8s.io/utils/lru"
)

// A boundedCache is the one cache of extref: the checked external values of
// referencers (entries.go), parsed templates, the RESTMapper's answers and
// the target checks (mapping.go, compile.go), and an AccessReview's
// decisions. It keeps at most maxItems values and, when it has a size
// function, values of at most maxBytes as that counts them, dropping the
// least recently used first; a value larger than maxBytes is not kept. A
// value may carry an expiry (putUntil), past which get does not return it.
// It is safe for concurrent use, and its zero value is not: use
// newBoundedCache.
type boundedCache[K comparable, V any] struct {
	items    *lru.Cache
	size     func(K, V) int // nil: values are counted, not measured
	maxBytes int

	// mu serializes the changes of items, and with them its evictions,
	// so that bytes counts each value kept once.
	mu    sync.Mutex
	bytes int // of the values kept, under mu
}

// A sized is a value in a boundedCache: the value, its size, and when it
// expires (zero: never).
type sized[V any] struct {
	v       V
	n       int
	expires time.Time
}

func newBoundedCache[K comparable, V any](maxItems, maxBytes int, size func(K, V) int) *boundedCache[K, V] {
	c := &boundedCache[K, V]{size: size, maxBytes: maxBytes}
	// Only put and remove change items, holding mu: the eviction function
	// runs within them.
	c.items = lru.NewWithEvictionFunc(maxItems, func(_ lru.Key, v any) { c.bytes -= v.(sized[V]).n })
	return c
}

// get returns the value kept for k.
func (c *boundedCache[K, V]) get(k K) (V, bool) { return c.getAt(k, time.Time{}) }

// getAt returns the value kept for k, unless it expired by now.
func (c *boundedCache[K, V]) getAt(k K, now time.Time) (V, bool) {
	e, ok := c.items.Get(k)
	if !ok {
		var zero V
		return zero, false
	}
	s := e.(sized[V])
	if !s.expires.IsZero() && !now.Before(s.expires) {
		c.removeExpired(k, now)
		var zero V
		return zero, false
	}
	return s.v, true
}

// put keeps v for k, in place of any value kept for it.
func (c *boundedCache[K, V]) put(k K, v V) { c.putUntil(k, v, time.Time{}) }

// putUntil keeps v for k until expires.
func (c *boundedCache[K, V]) putUntil(k K, v V, expires time.Time) {
	n := 0
	if c.size != nil {
		n = c.size(k, v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items.Remove(k) // so that the value replaced is no longer counted
	if c.size != nil && n > c.maxBytes {
		return
	}
	c.items.Add(k, sized[V]{v: v, n: n, expires: expires})
	c.bytes += n
	for c.bytes > c.maxBytes {
		c.items.RemoveOldest()
	}
}

// remove drops the value kept for k.
func (c *boundedCache[K, V]) remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items.Remove(k)
}

// removeExpired drops the value kept for k if it expired before now: a put
// may have replaced the one get found expired.
func (c *boundedCache[K, V]) removeExpired(k K, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items.Get(k); ok {
		if s := e.(sized[V]); !s.expires.IsZero() && !now.Before(s.expires) {
			c.items.Remove(k)
		}
	}
}

// len is the number of values kept, expired ones included.
func (c *boundedCache[K, V]) len() int { return c.items.Len() }
