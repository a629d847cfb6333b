package extref

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestWriteGuard(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	g := newWriteGuard(WriteBudget{}, clk)
	key := types.NamespacedName{Namespace: "a", Name: "w"}
	fp := uint64(1)
	fingerprint := func() uint64 { return fp }
	// reconcile asks to write need writes and makes them when admitted.
	reconcile := func(gen int64, need int) verdict {
		v := g.admit(key, gen, need, fingerprint)
		if !v.held {
			for range need {
				g.wrote(key)
			}
		}
		return v
	}

	// DefaultBudgetWrites in a window: five reconciles of two writes.
	for i := range DefaultBudgetWrites / 2 {
		if reconcile(1, 2).held {
			t.Errorf("reconcile %d within the budget: got held, want admitted", i)
		}
		clk.Step(time.Second)
	}
	v := reconcile(1, 2)
	if want := (verdict{held: true, report: true, wait: DefaultBudgetWindow, hold: DefaultBudgetWindow, writes: DefaultBudgetWrites}); v != want {
		t.Errorf("the sixth reconcile: got %+v, want %+v (it trips)", v, want)
	}
	g.reported(key)

	// Held for the window, whatever changes but the spec.
	fp = 2
	clk.Step(10 * time.Second)
	v = reconcile(1, 1)
	if !v.held || v.report || v.wait != 20*time.Second {
		t.Errorf("within the hold: got %+v, want held, not to report again, wait 20s", v)
	}

	// After the hold, what the trip held back is still held back.
	fp = 1
	clk.Step(20 * time.Second)
	v = reconcile(1, 2)
	if !v.held || v.wait != 0 {
		t.Errorf("the same values after the hold: got %+v, want held with no wait (only a change ends it now)", v)
	}

	// Something else to write: one reconcile on probation, and the next
	// write within a window trips it again, for twice as long.
	fp = 3
	if reconcile(1, 2).held {
		t.Errorf("the probe: got held, want admitted")
	}
	clk.Step(5 * time.Second)
	v = reconcile(1, 1)
	if !v.held || v.hold != 2*DefaultBudgetWindow {
		t.Errorf("a write within a window after the probe: got %+v, want held for %v", v, 2*DefaultBudgetWindow)
	}
	g.reported(key)

	// A spec change ends the hold at once, with a fresh budget.
	clk.Step(time.Second)
	for i := range DefaultBudgetWrites / 2 {
		if reconcile(2, 2).held {
			t.Errorf("after the spec change, reconcile %d: got held, want admitted", i)
		}
	}
	v = reconcile(2, 2)
	if !v.held || v.hold != 4*DefaultBudgetWindow {
		t.Errorf("a trip after the spec change: got %+v, want held for %v (the back-off stays)", v, 4*DefaultBudgetWindow)
	}

	// The hold doubles up to MaxHold.
	for range 10 {
		clk.Step(v.hold)
		fp++
		if reconcile(2, 2).held {
			t.Errorf("the probe after a hold: got held, want admitted")
		}
		v = reconcile(2, 2)
		if !v.held {
			t.Errorf("a write after the probe: got %+v, want held", v)
		}
	}
	if v.hold != DefaultBudgetMaxHold {
		t.Errorf("hold after 10 trips: got %v, want %v (MaxHold)", v.hold, DefaultBudgetMaxHold)
	}

	// Quiet for long: the back-off starts again.
	clk.Step(v.hold + 2*DefaultBudgetMaxHold)
	fp++
	if reconcile(2, 2).held {
		t.Errorf("the probe after a long quiet: got held, want admitted")
	}
	clk.Step(DefaultBudgetWindow)
	for i := range DefaultBudgetWrites / 2 {
		if reconcile(2, 2).held {
			t.Errorf("reconcile %d after a long quiet: got held, want admitted", i)
		}
	}
	v = reconcile(2, 2)
	if !v.held || v.hold != DefaultBudgetWindow {
		t.Errorf("a trip after a long quiet: got %+v, want held for %v (the back-off starts again)", v, DefaultBudgetWindow)
	}

	g.forget(key)
	if len(g.refs) != 0 {
		t.Errorf("forget: got %d referencers remembered, want none", len(g.refs))
	}
}
