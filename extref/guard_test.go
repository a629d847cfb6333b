package extref

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestWriteGuard(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	g := newWriteGuard(WriteBudget{}, clk)
	key := types.NamespacedName{Namespace: "a", Name: "w"}
	// reconcile asks to write need writes and makes them when admitted,
	// or writes the Oscillating condition when the guard says so.
	reconcile := func(gen int64, need int) verdict {
		v := g.admit(key, gen, need)
		switch {
		case !v.held:
			for range need {
				g.wrote(key)
			}
		case v.report:
			g.wrote(key)
			g.reported(key)
		}
		return v
	}
	// within is the number of reconciles of two writes that fit in the
	// budget, with room for the Oscillating condition.
	const within = (DefaultBudgetWrites - 1) / 2

	for i := range within {
		if reconcile(1, 2).held {
			t.Errorf("reconcile %d within the budget: want admitted, got held", i)
		}
		clk.Step(time.Second)
	}
	v := reconcile(1, 2)
	if want := (verdict{held: true, report: true, wait: DefaultBudgetWindow, hold: DefaultBudgetWindow, writes: DefaultBudgetWrites}); v != want {
		t.Errorf("the reconcile past the budget: want %+v, got %+v (it trips)", want, v)
	}

	// Held for the window, whatever changes but the spec.
	clk.Step(10 * time.Second)
	v = reconcile(1, 1)
	if !v.held || v.report || v.wait != 20*time.Second {
		t.Errorf("within the hold: want held, got %+v, not to report again, wait 20s", v)
	}

	// After the hold, one reconcile is let through on probation, even
	// when it writes what the trip held back (a burst's last value), and
	// the next write within a window trips it again, for twice as long.
	clk.Step(20 * time.Second)
	if reconcile(1, 2).held {
		t.Errorf("the probe: want admitted, got held")
	}
	clk.Step(5 * time.Second)
	v = reconcile(1, 1)
	if !v.held || v.hold != 2*DefaultBudgetWindow {
		t.Errorf("a write within a window after the probe: want held for %v, got %+v", 2*DefaultBudgetWindow, v)
	}

	// A spec change ends the hold at once, with a fresh budget.
	clk.Step(time.Second)
	for i := range within {
		if reconcile(2, 2).held {
			t.Errorf("after the spec change, reconcile %d: want admitted, got held", i)
		}
	}
	v = reconcile(2, 2)
	if !v.held || v.hold != 4*DefaultBudgetWindow {
		t.Errorf("a trip after the spec change: want held for %v, got %+v (the back-off stays)", 4*DefaultBudgetWindow, v)
	}

	// The hold doubles up to MaxHold.
	for range 10 {
		clk.Step(v.hold)
		if reconcile(2, 2).held {
			t.Errorf("the probe after a hold: want admitted, got held")
		}
		v = reconcile(2, 2)
		if !v.held {
			t.Errorf("a write after the probe: want held, got %+v", v)
		}
	}
	if v.hold != DefaultBudgetMaxHold {
		t.Errorf("hold after 10 trips: want %v, got %v (MaxHold)", DefaultBudgetMaxHold, v.hold)
	}

	// Quiet for long: the back-off starts again.
	clk.Step(v.hold + 2*DefaultBudgetMaxHold)
	if reconcile(2, 2).held {
		t.Errorf("the probe after a long quiet: want admitted, got held")
	}
	clk.Step(DefaultBudgetWindow)
	for i := range within {
		if reconcile(2, 2).held {
			t.Errorf("reconcile %d after a long quiet: want admitted, got held", i)
		}
	}
	v = reconcile(2, 2)
	if !v.held || v.hold != DefaultBudgetWindow {
		t.Errorf("a trip after a long quiet: want held for %v, got %+v (the back-off starts again)", DefaultBudgetWindow, v)
	}

	g.forget(key)
	if len(g.refs) != 0 {
		t.Errorf("forget: want none, got %d referencers remembered", len(g.refs))
	}
}

// budgetSim is a referencer under a writeGuard, reconciled as
// SetupReconciler's controller reconciles it: on a change of its source and
// when a hold it is under passes. It writes its spec and condition as
// Reconcile does and records when each write was made.
type budgetSim struct {
	g        *writeGuard
	clk      *clocktesting.FakeClock
	key      types.NamespacedName
	source   int       // the value the source holds
	target   int       // the value written to the referencer
	resolved bool      // its condition is Resolved, not Oscillating
	due      time.Time // a requeue, zero when none
	holdEnd  time.Time // the end of the latest hold
	writes   []time.Time
}

func newBudgetSim(b WriteBudget) *budgetSim {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return &budgetSim{g: newWriteGuard(b, clk), clk: clk, key: types.NamespacedName{Namespace: "a", Name: "w"}, source: 1}
}

func (s *budgetSim) write() { s.writes = append(s.writes, s.clk.Now()) }

// reconcile resolves the source into the referencer, within the budget.
func (s *budgetSim) reconcile() {
	need := 0
	switch {
	case s.target != s.source:
		need = 2
	case !s.resolved:
		need = 1
	default:
		return
	}
	v := s.g.admit(s.key, 1, need)
	if v.held {
		if v.report {
			s.resolved = false
			s.write()
			s.g.wrote(s.key)
			s.g.reported(s.key)
		}
		s.due = s.clk.Now().Add(v.wait)
		s.holdEnd = s.due
		return
	}
	if s.target != s.source {
		s.target = s.source
		s.write()
		s.g.wrote(s.key)
	}
	s.resolved = true
	s.write()
	s.g.wrote(s.key)
}

// run advances the clock by d in steps of 10ms, calling change (which
// reports whether it changed the source) at each step and reconciling
// after a change or when a requeue is due.
func (s *budgetSim) run(d time.Duration, change func(now time.Duration) bool) {
	for elapsed := time.Duration(0); elapsed < d; elapsed += 10 * time.Millisecond {
		s.clk.Step(10 * time.Millisecond)
		changed := change(elapsed)
		if changed || !s.due.IsZero() && !s.clk.Now().Before(s.due) {
			s.due = time.Time{}
			s.reconcile()
		}
	}
}

// maxInWindow is the most writes the referencer took in any window.
func (s *budgetSim) maxInWindow(window time.Duration) int {
	most := 0
	for i := range s.writes {
		n := 0
		for _, w := range s.writes[i:] {
			if w.Sub(s.writes[i]) < window {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// TestWriteGuardBurstConverges changes a source in bursts of every length
// and pace, then holds it still: however the budget held the referencer,
// the source's last value is written when the hold in force passes (at
// once when none is), and the writes stay within the budget.
func TestWriteGuardBurstConverges(t *testing.T) {
	for _, b := range []WriteBudget{{}, {Writes: 6, Window: 4 * time.Second, MaxHold: 4 * time.Second}} {
		b := b.withDefaults()
		for changes := 1; changes <= 40; changes++ {
			for _, every := range []time.Duration{100 * time.Millisecond, time.Second, 3 * time.Second} {
				name := fmt.Sprintf("%d-in-%s-every-%s", changes, b.Window, every)
				s := newBudgetSim(b)
				s.run(time.Second, func(time.Duration) bool { return false })
				s.reconcile()
				var last time.Time
				n := 0
				s.run(time.Duration(changes)*every, func(now time.Duration) bool {
					if now%every != 0 || n == changes {
						return false
					}
					n++
					s.source++
					last = s.clk.Now()
					return true
				})
				// Still from here on.
				deadline := last
				if s.holdEnd.After(deadline) {
					deadline = s.holdEnd
				}
				s.run(deadline.Sub(s.clk.Now())+time.Second, func(time.Duration) bool { return false })
				if s.target != s.source || !s.resolved {
					t.Errorf("%s: %s after the last change (the hold ended %s after it): want %d, got value %d (resolved %t)", name, s.clk.Now().Sub(last), s.holdEnd.Sub(last), s.source, s.target, s.resolved)
				}
				if got := s.maxInWindow(b.Window); got > b.Writes {
					t.Errorf("%s: want at most %d, got %d writes in a window", name, b.Writes, got)
				}
			}
		}
	}
}

// TestWriteGuardLoopBounded runs a referencer whose source changes again
// whenever it is written, as in a loop, for an hour: it never takes more
// than its budget in a window, and a write per hold once held.
func TestWriteGuardLoopBounded(t *testing.T) {
	for _, b := range []WriteBudget{{}, {Writes: 3, Window: time.Second, MaxHold: 4 * time.Second}} {
		b := b.withDefaults()
		s := newBudgetSim(b)
		s.reconcile()
		const run = time.Hour
		s.run(run, func(time.Duration) bool {
			if s.target == s.source {
				s.source++ // the other side of the loop answers at once
				return true
			}
			return false
		})
		if got := s.maxInWindow(b.Window); got > b.Writes {
			t.Errorf("budget %+v: want at most %d, got %d writes in a window", b, b.Writes, got)
		}
		// After the first trip, a probe and a trip per hold, which
		// doubles up to MaxHold.
		if limit := b.Writes + int(run/b.Window)*(probeWrites+1); len(s.writes) > limit {
			t.Errorf("budget %+v: want at most %d, got %d writes in %s", b, limit, len(s.writes), run)
		}
		if limit := b.Writes + int(run/b.MaxHold+8)*(probeWrites+1); len(s.writes) > limit {
			t.Errorf("budget %+v: want at most %d, got %d writes in %s (holds of up to %s)", b, limit, len(s.writes), run, b.MaxHold)
		}
		t.Logf("budget %d in %s: %d writes in %s", b.Writes, b.Window, len(s.writes), run)
	}
}
