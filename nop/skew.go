package nop

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
)

// serverClock tells the API server's time from the local clock and the
// offset between the two, learned from the reconciler's own writes: a
// successful write's response records, in its managedFields, the second at
// which the server applied it, and the write happened between sending the
// request and receiving the response. Each write thus bounds the offset
// (server minus local) to an interval about a second wide; the intersection
// of those intervals narrows as writes land at different fractions of a
// second.
//
// Deadlines come from creationTimestamp, the server's clock; comparing them
// with a local clock that runs ahead would land every transition early by the
// skew. serverClock trusts the local clock while the interval holds zero;
// otherwise it moves the local time by the interval's lower end, the earliest
// the server's time can be, so that a transition never lands before its
// deadline by the server's clock and lands at most the interval's width after
// it.
type serverClock struct {
	local clock.PassiveClock

	mu     sync.Mutex
	known  bool
	lo, hi time.Duration // the offset lies in [lo, hi]
}

// Now returns the local time moved by the offset.
func (c *serverClock) Now() time.Time { return c.local.Now().Add(c.Offset()) }

// Since returns the time elapsed since t, by the server's clock.
func (c *serverClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Offset returns the offset added to the local time: none unless the writes
// prove the local clock wrong, then the lower end of what they allow.
func (c *serverClock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.known || (c.lo <= 0 && c.hi >= 0) {
		return 0
	}
	return c.lo
}

// observe learns from a write sent and answered at the given local times
// that the server applied it during the second that starts at server. An
// interval that contradicts the ones before (the local clock was stepped)
// replaces them.
func (c *serverClock) observe(sent, received, server time.Time) {
	if server.IsZero() || received.Before(sent) {
		return
	}
	lo, hi := server.Sub(received), server.Add(time.Second).Sub(sent)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known && lo <= c.hi && hi >= c.lo {
		lo, hi = max(lo, c.lo), min(hi, c.hi)
	}
	c.known, c.lo, c.hi = true, lo, hi
}

// lastManaged returns the latest time in obj's managedFields: after a write,
// the second at which the server applied it.
func lastManaged(fields []metav1.ManagedFieldsEntry) time.Time {
	var last time.Time
	for _, f := range fields {
		if f.Time != nil && f.Time.After(last) {
			last = f.Time.Time
		}
	}
	return last
}
