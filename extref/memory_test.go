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

// limitReferencer returns a referencer at the limits a Resolver allows:
// maxExternalValues values, each combining maxSources ConfigMap fields of
// its own, as the JSON an informer decodes.
func limitReferencer(t testing.TB, ns, name string) []byte {
	pad := strings.Repeat("x", 20)
	var values []any
	for i := range maxExternalValues {
		var combine []any
		for j := range maxSources {
			cm := fmt.Sprintf("%s-%s-%03d-%02d", name, pad, i, j)
			combine = append(combine, map[string]any{"version": "v1", "resource": "configmaps", "name": cm, "fieldPath": "data.region-" + pad})
		}
		values = append(values, map[string]any{
			"combine":     combine,
			"fmt":         strings.Repeat("%s", maxSources),
			"toFieldPath": fmt.Sprintf("spec.forProvider.tags[t%03d]", i),
			"policy":      map[string]any{"resolve": "Always"},
		})
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
	const ns, n = "mem", 4
	docs := make([][]byte, n)
	for i := range docs {
		docs[i] = limitReferencer(t, ns, fmt.Sprintf("w%d", i))
	}
	// kept resolves the referencers with r and returns what it keeps of
	// each once they are gone.
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
	// The entry cache's accounting, which its cap in bytes uses, comes
	// near what the Resolver keeps.
	accounted := uint64(alone.entries.bytes / n)
	t.Logf("the entry cache accounts %d bytes per referencer; the Resolver keeps %d", accounted, resolver)
	if accounted < resolver*3/4 || accounted > 2*resolver {
		t.Errorf("the entry cache accounts %d bytes per referencer, want near the %d the Resolver keeps", accounted, resolver)
	}
	w := NewWatcher(nil)
	r := NewResolver(newReader(), testMapper(), SourcePolicy{}, WithWatcher(w))
	per := kept(r)
	if f := os.Getenv("EXTREF_HEAP_PROFILE"); f != "" {
		out, err := os.Create(f)
		require.NoError(t, err)
		require.NoError(t, pprof.WriteHeapProfile(out))
		require.NoError(t, out.Close())
	}
	runtime.KeepAlive(r)
	runtime.KeepAlive(w)
	t.Logf("the Resolver alone keeps %d bytes (%.1fx)", resolver, float64(resolver)/float64(len(docs[0])))
	t.Logf("a referencer of %d bytes (%.1f MiB) keeps %d bytes (%.1f MiB, %.1fx) in the Resolver and Watcher", len(docs[0]), float64(len(docs[0]))/(1<<20), per, float64(per)/(1<<20), float64(per)/float64(len(docs[0])))
	if resolver > uint64(len(docs[0])) {
		t.Errorf("the Resolver keeps %d bytes of a referencer of %d, want at most its size", resolver, len(docs[0]))
	}
	// The Watcher's index keeps two keys of 144 bytes per source (its
	// slot in the index by source, and the list by referencer): about 3
	// times the referencer at the limits.
	if per > 4*uint64(len(docs[0])) {
		t.Errorf("a referencer of %d bytes keeps %d bytes in the Resolver and Watcher, want at most 4 times its size", len(docs[0]), per)
	}
}

// TestEntryCacheBytes fills the entry cache with lists of a known size: it
// never holds more than maxCachedBytes, and a list larger than that is not
// kept at all.
func TestEntryCacheBytes(t *testing.T) {
	var c entryCache
	list := func(bytes int) []compiled { return []compiled{{digest: 1, entry: &entry{bytes: bytes}}} }
	size := compiledSize(list(maxCachedBytes / 10))
	for i := range 100 {
		c.put(referencerKey{NamespacedName: types.NamespacedName{Namespace: "a", Name: fmt.Sprint(i)}}, list(maxCachedBytes/10))
		if c.bytes > maxCachedBytes {
			t.Fatalf("after %d lists of %d bytes: the cache holds %d bytes, more than %d", i+1, size, c.bytes, maxCachedBytes)
		}
	}
	if got, want := len(c.m), maxCachedBytes/size; got != want {
		t.Errorf("lists kept: got %d, want %d", got, want)
	}
	sum := 0
	for _, l := range c.m {
		sum += l.bytes
	}
	if sum != c.bytes {
		t.Errorf("the cache counts %d bytes, its lists take %d", c.bytes, sum)
	}
	big := referencerKey{NamespacedName: types.NamespacedName{Namespace: "a", Name: "big"}}
	c.put(big, list(maxCachedBytes+1))
	if c.get(big) != nil {
		t.Errorf("a list larger than the cache: got it kept, want not")
	}
	for k := range c.m {
		c.forget(k)
	}
	if c.bytes != 0 {
		t.Errorf("after forgetting every referencer: got %d bytes counted, want 0", c.bytes)
	}
}
