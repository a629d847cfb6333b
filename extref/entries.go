package extref

import (
	"hash/maphash"
	"math"
	"strings"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// maxCachedReferencers and maxCachedBytes bound the referencers whose
// checked external values a Resolver keeps, and the bytes those take (as
// compiledSize estimates them, with maxRendering for a template's last
// output); when either would be passed, the referencers resolved least
// recently are dropped.
const (
	maxCachedReferencers = 16384
	maxCachedBytes       = 64 << 20
)

// An entryCache keeps the checked external values (entries) of the
// referencers a Resolver resolved, so that resolving one again does not
// decode and check its external values again. An entry is used only while
// its external value equals the copy it was compiled from; a value that
// does not compile is not kept. The slices it holds are never changed,
// only replaced.
type entryCache = boundedCache[referencerKey, []compiled]

func newEntryCache() *entryCache {
	return newBoundedCache(maxCachedReferencers, maxCachedBytes, func(_ referencerKey, list []compiled) int { return compiledSize(list) })
}

// referencerKey identifies a referencer: its kind, as far as the object
// says, namespace and name.
type referencerKey struct {
	gvk schema.GroupVersionKind
	types.NamespacedName
}

// compiled is an external value's digest and its entry.
type compiled struct {
	digest uint64
	entry  *entry
}

// lookup returns entry i of list, compiled from an external value of
// digest d, if it is still there.
func lookup(list []compiled, i int, d uint64) *entry {
	if i < len(list) && list[i].entry != nil && list[i].digest == d {
		return list[i].entry
	}
	return nil
}

// digest identifies a JSON value as jsonvalue.Equal compares them, with
// maphash under seed: objects by the sum of their entries' hashes (so that
// no map is iterated in order, and none sorted), arrays item by item, and
// numbers by value (an integral float as the integer). It reports false for
// a value that is not JSON, which is then compiled on every Resolve. Equal
// digests of different values are as likely as a collision of a 64-bit
// hash whose seed no referencer knows; values equal as jsonvalue.Equal has
// them but for a large integer and a float near it have different digests,
// which costs a check.
func digest(seed maphash.Seed, v any) (uint64, bool) {
	return digestOf(seed, maphash.String(seed, "external value"), v)
}

// digestOf is digest's work; key is a hash of seed's, which keeps what is
// not a string (the shape, numbers) from being guessed too.
func digestOf(seed maphash.Seed, key uint64, v any) (uint64, bool) {
	const (
		tagNull = iota + 1
		tagTrue
		tagFalse
		tagString
		tagObject
		tagArray
		tagInt
		tagFloat
	)
	switch x := v.(type) {
	case nil:
		return mix(key, tagNull), true
	case bool:
		if x {
			return mix(key, tagTrue), true
		}
		return mix(key, tagFalse), true
	case string:
		return mix(key^tagString, maphash.String(seed, x)), true
	case map[string]any:
		var sum uint64
		for k, e := range x {
			d, ok := digestOf(seed, key, e)
			if !ok {
				return 0, false
			}
			sum += mix(maphash.String(seed, k), d)
		}
		return mix(mix(key^tagObject, uint64(len(x))), sum), true
	case []any:
		h := mix(key^tagArray, uint64(len(x)))
		for _, e := range x {
			d, ok := digestOf(seed, key, e)
			if !ok {
				return 0, false
			}
			h = mix(h, d)
		}
		return h, true
	}
	if i, ok := jsonvalue.Int64(v); ok {
		return mix(key^tagInt, uint64(i)), true
	}
	f, ok := jsonvalue.Float64(v)
	switch {
	case !ok:
		return 0, false
	case f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64:
		return mix(key^tagInt, uint64(int64(f))), true
	case math.IsNaN(f):
		f = math.NaN()
	}
	return mix(key^tagFloat, math.Float64bits(f)), true
}

// mix combines two hashes into one (a multiply-xorshift finalizer, as
// splitmix64's).
func mix(a, b uint64) uint64 {
	h := a ^ (b * 0x9e3779b97f4a7c15)
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// compiledSize is what a list of entries takes in the cache, counting once
// the source kinds and formats its entries share.
func compiledSize(list []compiled) int {
	n := len(list) * int(unsafe.Sizeof(compiled{}))
	shared := make(map[any]struct{})
	for _, c := range list {
		e := c.entry
		if e == nil {
			continue
		}
		n += e.bytes
		if e.template != "" {
			n += maxRendering
		}
		if _, ok := shared[e.format]; e.format != nil && !ok {
			shared[e.format] = struct{}{}
			n += e.format.Size()
		}
		for _, s := range e.sources {
			if _, ok := shared[s.kind]; !ok {
				shared[s.kind] = struct{}{}
				n += s.kind.size()
			}
		}
	}
	return n
}

// maxRendering bounds the text a rendering keeps, its variables' and its
// output's.
const maxRendering = 1024

// A rendering is the output of a template for the values of its variables,
// all strings that are not secret. The template functions depend on their
// arguments alone, so the same values give the same output.
type rendering struct {
	vars []string
	out  string
}

// rendered returns the output e's template last gave, if it was for the
// same values.
func (e *entry) rendered(values []render.Value) (string, bool) {
	r := e.last.Load()
	if r == nil || len(r.vars) != len(values) {
		return "", false
	}
	for j, v := range values {
		if s, ok := v.V.(string); !ok || s != r.vars[j] {
			return "", false
		}
	}
	return r.out, true
}

// remember keeps out as the output of e's template for values, when they
// are all strings and short enough.
func (e *entry) remember(values []render.Value, out string) {
	n := len(out)
	for _, v := range values {
		s, ok := v.V.(string)
		if !ok {
			return
		}
		n += len(s)
	}
	if n > maxRendering {
		return
	}
	// Copies, so as not to keep alive a larger text a value was cut from.
	vars := make([]string, len(values))
	for j, v := range values {
		vars[j] = strings.Clone(v.V.(string))
	}
	e.last.Store(&rendering{vars: vars, out: out})
}
