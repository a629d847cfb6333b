// Package writeslots bounds the writes that a benchmark's floor writer (a
// writer that knows every answer and stands in for a controller) has in
// flight, as a controller's workers bound its reconciles, and serves the
// writes waiting for a slot by class, as a controller's priority queue
// serves its requests.
package writeslots

import (
	"context"
	"sync"
)

// Slots lets a fixed number of writes run at once. A write waiting in a
// lower class goes ahead of every write waiting in a higher one, and writes
// of a class go in the order they asked.
type Slots struct {
	mu      sync.Mutex
	free    int
	waiting [][]chan struct{} // by class
}

// New returns n slots, for writes of the given number of classes, 0 first.
func New(n, classes int) *Slots {
	return &Slots{free: n, waiting: make([][]chan struct{}, classes)}
}

// Acquire waits for a slot for a write of the given class; false means ctx
// ended first.
func (s *Slots) Acquire(ctx context.Context, class int) bool {
	s.mu.Lock()
	if s.free > 0 {
		s.free--
		s.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	s.waiting[class] = append(s.waiting[class], ch)
	s.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false // the slot it may still be given is lost with the run
	}
}

// Release hands the slot to the first waiter of the first class that has
// one, or frees it.
func (s *Slots) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for class, q := range s.waiting {
		if len(q) > 0 {
			close(q[0])
			s.waiting[class] = q[1:]
			return
		}
	}
	s.free++
}
