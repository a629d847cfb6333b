package extref

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestBoundedCache: the cache keeps at most its number of values and, with
// a size function, its bytes, dropping the least recently used first;
// replacing a value counts it once; a value past its expiry is not
// returned, and one larger than the cache is not kept.
func TestBoundedCache(t *testing.T) {
	t.Run("Count", func(t *testing.T) {
		c := newBoundedCache[string, int](3, 0, nil)
		for i, k := range []string{"a", "b", "c"} {
			c.put(k, i)
		}
		c.get("a") // now the most recently used
		c.put("d", 3)
		for k, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
			if _, ok := c.get(k); ok != want {
				t.Errorf("get(%q) after a fourth value: kept %v, want %v", k, ok, want)
			}
		}
	})
	t.Run("Bytes", func(t *testing.T) {
		c := newBoundedCache(100, 10, func(_ string, v string) int { return len(v) })
		c.put("a", "xxxx")
		c.put("b", "xxxx")
		c.put("a", "yyyy") // replaced: counted once, and now the newest
		if c.bytes != 8 || c.len() != 2 {
			t.Fatalf("two values of 4 bytes, one replaced: want 2; got %d values, %d bytes counted, 8", c.len(), c.bytes)
		}
		c.put("c", "zzzz")
		if _, ok := c.get("b"); ok {
			t.Errorf("past the bytes: the least recently used value is kept")
		}
		if v, ok := c.get("a"); !ok || v != "yyyy" {
			t.Errorf("get(a): want the replacement; got %q, %v", v, ok)
		}
		c.put("big", "01234567890")
		if _, ok := c.get("big"); ok || c.bytes != 8 {
			t.Errorf("a value larger than the cache: kept %v with %d bytes counted; want not kept, 8", ok, c.bytes)
		}
	})
	t.Run("Expiry", func(t *testing.T) {
		c := newBoundedCache[string, int](10, 0, nil)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		c.putUntil("a", 1, now.Add(time.Minute))
		if _, ok := c.getAt("a", now.Add(time.Minute-1)); !ok {
			t.Errorf("before its expiry: want the value")
		}
		if _, ok := c.getAt("a", now.Add(time.Minute)); ok {
			t.Errorf("at its expiry: want no value")
		}
		if c.len() != 0 {
			t.Errorf("an expired value found: want it dropped, %d kept", c.len())
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		c := newBoundedCache(64, 1000, func(_ int, v string) int { return len(v) })
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 1000 {
					k := (g*1000 + i) % 200
					c.put(k, fmt.Sprint(i))
					c.get(k)
					if i%7 == 0 {
						c.remove(k)
					}
				}
			})
		}
		wg.Wait()
		sum := 0
		for k := range 200 {
			if v, ok := c.get(k); ok {
				sum += len(v)
			}
		}
		if sum != c.bytes || c.bytes > 1000 {
			t.Errorf("after concurrent puts: %d bytes counted, the values kept take %d (at most 1000)", c.bytes, sum)
		}
	})
}
