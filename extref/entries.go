package extref

import (
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// maxCachedReferencers bounds the referencers whose checked external values
// a Resolver keeps; when it is full, one is dropped at random for each one
// added.
const maxCachedReferencers = 16384

// entryCache keeps the checked external values (entries) of the referencers
// a Resolver resolved, so that resolving one again does not decode and
// check its external values again. An entry is used only while its external
// value equals the copy it was compiled from; a value that does not compile
// is not kept. The slices it holds are never changed, only replaced.
type entryCache struct {
	mu sync.RWMutex
	m  map[referencerKey][]compiled
}

// referencerKey identifies a referencer: its kind, as far as the object
// says, namespace and name.
type referencerKey struct {
	gvk schema.GroupVersionKind
	types.NamespacedName
}

// compiled is an external value and its entry.
type compiled struct {
	item  frozen
	entry *entry
}

// lookup returns entry i of list, compiled from item, if it is still item's.
func lookup(list []compiled, i int, item any) *entry {
	if i < len(list) && list[i].entry != nil && list[i].item.equal(item) {
		return list[i].entry
	}
	return nil
}

// A frozen is a copy of a JSON value kept to compare others with. An object
// keeps its keys and values in slices, so that a comparison looks each key
// up in the other object instead of iterating over either.
type frozen struct {
	kind  frozenKind
	keys  []string // an object's
	items []frozen // an object's values, in the order of keys, or an array's
	value any      // a scalar
}

type frozenKind uint8

const (
	frozenScalar frozenKind = iota
	frozenObject
	frozenArray
)

func freeze(v any) frozen {
	switch x := v.(type) {
	case map[string]any:
		f := frozen{kind: frozenObject, keys: make([]string, 0, len(x)), items: make([]frozen, 0, len(x))}
		for k, e := range x {
			f.keys = append(f.keys, k)
			f.items = append(f.items, freeze(e))
		}
		return f
	case []any:
		f := frozen{kind: frozenArray, items: make([]frozen, len(x))}
		for i, e := range x {
			f.items[i] = freeze(e)
		}
		return f
	}
	return frozen{value: v}
}

// equal reports whether v is equal to f, as jsonvalue.Equal has it.
func (f *frozen) equal(v any) bool {
	switch f.kind {
	case frozenObject:
		m, ok := v.(map[string]any)
		if !ok || len(m) != len(f.keys) {
			return false
		}
		for i, k := range f.keys {
			e, found := m[k]
			if !found || !f.items[i].equal(e) {
				return false
			}
		}
		return true
	case frozenArray:
		a, ok := v.([]any)
		if !ok || len(a) != len(f.items) {
			return false
		}
		for i := range a {
			if !f.items[i].equal(a[i]) {
				return false
			}
		}
		return true
	}
	if s, ok := f.value.(string); ok {
		t, ok := v.(string)
		return ok && s == t
	}
	return jsonvalue.Equal(f.value, v)
}

func (c *entryCache) get(k referencerKey) []compiled {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[k]
}

func (c *entryCache) put(k referencerKey, list []compiled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[referencerKey][]compiled)
	}
	if _, ok := c.m[k]; !ok && len(c.m) >= maxCachedReferencers {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = list
}

func (c *entryCache) forget(k referencerKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
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
func (e *entry) rendered(values []value) (string, bool) {
	r := e.last.Load()
	if r == nil || len(r.vars) != len(values) {
		return "", false
	}
	for j, v := range values {
		if s, ok := v.v.(string); !ok || s != r.vars[j] {
			return "", false
		}
	}
	return r.out, true
}

// remember keeps out as the output of e's template for values, when they
// are all strings and short enough.
func (e *entry) remember(values []value, out string) {
	n := len(out)
	for _, v := range values {
		s, ok := v.v.(string)
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
		vars[j] = strings.Clone(v.v.(string))
	}
	e.last.Store(&rendering{vars: vars, out: out})
}
