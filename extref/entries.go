package extref

import (
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
	item  any // a deep copy of the external value
	entry *entry
}

// lookup returns entry i of list, compiled from item, if it is still item's.
func lookup(list []compiled, i int, item any) *entry {
	if i < len(list) && list[i].entry != nil && jsonvalue.Equal(list[i].item, item) {
		return list[i].entry
	}
	return nil
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
