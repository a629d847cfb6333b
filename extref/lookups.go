package extref

import (
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A referencer names any resource it likes, and asking the RESTMapper about
// a resource it has not mapped may cost discovery requests: for a group it
// does not know, controller-runtime's mapper reads the whole of discovery,
// under a lock every client of the manager shares. So the lookups that miss
// the mapping cache are limited, for all referencers of a Resolver together,
// and an answer that a resource is unknown is kept and reused.
const (
	// lookupRate and lookupBurst bound the mapper lookups per second.
	lookupRate  = 2
	lookupBurst = 20

	// missFresh is how long an unknown resource's answer is reused without
	// asking the mapper again. Past it, the mapper is asked again only
	// while more than half of the lookup budget is left, so that
	// re-asking about resources that stay unknown cannot take the whole
	// budget from resources never looked up.
	missFresh = time.Second
)

// errLookupsLimited is why a resource was not mapped: too many lookups came
// at once. It is transient: the reconciler retries with backoff.
var errLookupsLimited = errors.New("too many lookups of resources not yet mapped at once; retrying")

// A miss is the mapper's answer that a resource is unknown, and when it was
// given.
type miss struct {
	mapping mapping
	at      time.Time
}

// tokenBucket is a token bucket: of mapper lookups (lookupRate and
// lookupBurst), or of access reviews (reviewRate and reviewBurst).
type tokenBucket struct {
	rate, burst float64 // tokens a second, and the most it holds

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// take takes a token at now if more than reserve tokens are left.
func (b *tokenBucket) take(now time.Time, reserve float64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last.IsZero() {
		b.tokens = b.burst
	} else if d := now.Sub(b.last); d > 0 {
		b.tokens = min(b.burst, b.tokens+d.Seconds()*b.rate)
	}
	if now.After(b.last) {
		b.last = now
	}
	if b.tokens < reserve+1 {
		return false
	}
	b.tokens--
	return true
}

// mapResource maps gvr from the cache, or asks the mapper within the lookup
// budget.
func (r *Resolver) mapResource(gvr schema.GroupVersionResource) mapping {
	if m, ok := cacheGet(&r.mu, &r.mappings, gvr); ok {
		return m
	}
	now := r.now()
	last, missed := cacheGet(&r.mu, &r.misses, gvr)
	switch {
	case missed && now.Sub(last.at) < missFresh:
		return last.mapping
	case missed && !r.budget.take(now, lookupBurst/2):
		return last.mapping
	case !missed && !r.budget.take(now, 0):
		return mapping{err: mappingError(gvr, errLookupsLimited)}
	}
	m := r.lookup(gvr)
	switch {
	case m.err == nil:
		cachePut(&r.mu, &r.mappings, gvr, m)
		if missed {
			r.mu.Lock()
			delete(r.misses, gvr)
			r.mu.Unlock()
		}
	case errors.Is(m.err, ErrUnknownResource):
		cachePut(&r.mu, &r.misses, gvr, miss{mapping: m, at: now})
	}
	return m
}
