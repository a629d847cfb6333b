package writeslots

import (
	"testing"
	"time"
)

// TestOrder: with every slot taken, a released slot goes to the waiter of
// the first class before any of the second, and within a class in the order
// they asked.
func TestOrder(t *testing.T) {
	s := New(1, 2)
	ctx := t.Context()
	if !s.Acquire(ctx, 1) {
		t.Fatal("want the free slot at once")
	}
	got := make(chan string, 3)
	queued := 0
	wait := func(name string, class int) {
		go func() {
			if s.Acquire(ctx, class) {
				got <- name
			}
		}()
		// Let it queue before the next one asks.
		queued++
		for {
			s.mu.Lock()
			n := len(s.waiting[0]) + len(s.waiting[1])
			s.mu.Unlock()
			if n == queued {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	wait("second class", 1)
	wait("first class, first", 0)
	wait("first class, second", 0)
	var order []string
	for range 3 {
		s.Release()
		order = append(order, <-got)
	}
	want := []string{"first class, first", "first class, second", "second class"}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("want %v, got %v", want, order)
		}
	}
}
