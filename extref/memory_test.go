package extref

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// A referencerShape is a way to fill a referencer up to the limits.
type referencerShape struct {
	name  string
	value func(name string, i int) map[string]any // external value i of referencer name
	// most is what the Resolver may keep, and the Resolver and Watcher
	// together, in times the referencer's size.
	resolver, total float64
}

var referencerShapes = []referencerShape{
	{
		// maxSources ConfigMap fields of its own in each value.
		name: "combine", resolver: 1, total: 2,
		value: func(name string, i int) map[string]any {
			pad := strings.Repeat("x", 20)
			var combine []any
			for j := range maxSources {
				cm := fmt.Sprintf("%s-%s-%03d-%02d", name, pad, i, j)
				combine = append(combine, map[string]any{"version": "v1", "resource": "configmaps", "name": cm, "fieldPath": "data.region-" + pad})
			}
			return map[string]any{"combine": combine, "fmt": strings.Repeat("%s", maxSources), "policy": map[string]any{"resolve": "Always"}}
		},
	},
	{
		// A Map transform of maxMapEntries short entries in each value.
		name: "maps", resolver: 1.5, total: 2,
		value: func(name string, i int) map[string]any {
			m := map[string]any{}
			for j := range maxMapEntries {
				m[fmt.Sprintf("k%d-%d", i, j)] = fmt.Sprintf("v%d", j)
			}
			return map[string]any{
				"fromObject": map[string]any{"version": "v1", "resource": "configmaps", "name": fmt.Sprintf("%s-%d", name, i), "fieldPath": "data.x"},
				"transforms": []any{map[string]any{"type": "Map", "map": m}},
			}
		},
	},
}

// limitReferencer returns a referencer of maxExternalValues values of the
// given shape, as the JSON an informer decodes.
func limitReferencer(t testing.TB, shape referencerShape, ns, name string) []byte {
	var values []any
	for i := range maxExternalValues {
		v := shape.value(name, i)
		v["toFieldPath"] = fmt.Sprintf("spec.forProvider.tags[t%03d]", i)
		values = append(values, v)
	}
	w := widget(t, ns, name, "")
	w.Object["spec"] = map[string]any{"externalValues": values}
	b, err := json.Marshal(w.Object)
	require.NoError(t, err)
	return b
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMemoryPerReferencer resolves referencers at the limits and measures
// what the Resolver and its Watcher keep of each once the referencers are
// gone, against the referencer's own size (as JSON).
func TestMemoryPerReferencer(t *testing.T) {
	if testing.Short() {
		t.Skip("resolves referencers of a megabyte")
	}
	for _, shape := range referencerShapes {
		t.Run(shape.name, func(t *testing.T) {
			const ns, n = "mem", 4
			docs := make([][]byte, n)
			for i := range docs {
				docs[i] = limitReferencer(t, shape, ns, fmt.Sprintf("w%d", i))
			}
			size := float64(len(docs[0]))
			// kept resolves the referencers with r and returns what it
			// keeps of each once they are gone.
			kept := func(r *Resolver) uint64 {
				ctx := context.Background()
				before := heapInUse()
				for _, doc := range docs {
					u := &unstructured.Unstructured{}
					require.NoError(t, json.Unmarshal(doc, &u.Object))
					_, err := r.Resolve(ctx, u)
					require.ErrorIs(t, err, ErrSourceNotFound) // every source is watched all the same
				}
				per := (heapInUse() - before) / n
				runtime.KeepAlive(r)
				return per
			}
			alone := NewResolver(newReader(), testMapper(), SourcePolicy{})
			resolver := kept(alone)
			// The entry cache's accounting, which its cap in bytes uses,
			// comes near what the Resolver keeps.
			accounted := uint64(alone.entries.bytes / n)
			if accounted < resolver*3/4 || accounted > 2*resolver {
				t.Errorf("the entry cache accounts %d bytes per referencer, want near the %d the Resolver keeps", accounted, resolver)
			}
			w := NewWatcher(nil)
			r := NewResolver(newReader(), testMapper(), SourcePolicy{}, WithWatcher(w))
			total := kept(r)
			if f := os.Getenv("EXTREF_HEAP_PROFILE"); f != "" {
				out, err := os.Create(f)
				require.NoError(t, err)
				require.NoError(t, pprof.WriteHeapProfile(out))
				require.NoError(t, out.Close())
			}
			runtime.KeepAlive(w)
			t.Logf("a referencer of %d bytes keeps %d in the Resolver (%.1fx; %d accounted) and %d with the Watcher (%.1fx)",
				len(docs[0]), resolver, float64(resolver)/size, accounted, total, float64(total)/size)
			if float64(resolver) > shape.resolver*size {
				t.Errorf("the Resolver keeps %d bytes of a referencer of %d, want at most %.1f times its size", resolver, len(docs[0]), shape.resolver)
			}
			// The Watcher's index keeps about 170 bytes per source (its
			// entry, 112 bytes, its hash in the index, and the
			// referencer's slot of 24 bytes): about 1.3 times a
			// referencer of 8,192 sources.
			if float64(total) > shape.total*size {
				t.Errorf("the Resolver and Watcher keep %d bytes of a referencer of %d, want at most %.1f times its size", total, len(docs[0]), shape.total)
			}
		})
	}
}

// TestEntryCacheBytes fills the entry cache with lists of a known size: it
// never holds more than maxCachedBytes, keeps the lists put last, and a
// list larger than that is not kept at all.
func TestEntryCacheBytes(t *testing.T) {
	c := newEntryCache()
	list := func(bytes int) []compiled { return []compiled{{digest: 1, entry: &entry{bytes: bytes}}} }
	size := compiledSize(list(maxCachedBytes / 10))
	key := func(i int) referencerKey {
		return referencerKey{NamespacedName: types.NamespacedName{Namespace: "a", Name: fmt.Sprint(i)}}
	}
	for i := range 100 {
		c.put(key(i), list(maxCachedBytes/10))
		if c.bytes > maxCachedBytes {
			t.Fatalf("after %d lists of %d bytes: the cache holds %d bytes, more than %d", i+1, size, c.bytes, maxCachedBytes)
		}
	}
	kept := maxCachedBytes / size
	if got := c.len(); got != kept {
		t.Errorf("lists kept: want %d, got %d", kept, got)
	}
	for i := range 100 {
		if _, ok := c.get(key(i)); ok != (i >= 100-kept) {
			t.Errorf("list %d of 100: kept %v, want %v (the last %d put)", i, ok, !ok, kept)
		}
	}
	if c.bytes != kept*size {
		t.Errorf("the cache counts %d bytes, its lists take %d", c.bytes, kept*size)
	}
	big := referencerKey{NamespacedName: types.NamespacedName{Namespace: "a", Name: "big"}}
	c.put(big, list(maxCachedBytes+1))
	if _, ok := c.get(big); ok {
		t.Errorf("a list larger than the cache: want not, got it kept")
	}
	for i := range 100 {
		c.remove(key(i))
	}
	if c.bytes != 0 || c.len() != 0 {
		t.Errorf("after forgetting every referencer: want none, got %d lists and %d bytes counted", c.len(), c.bytes)
	}
}
