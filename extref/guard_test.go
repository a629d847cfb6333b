package extref

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
		require.False(t, reconcile(1, 2).held, "reconcile %d", i)
		clk.Step(time.Second)
	}
	v := reconcile(1, 2)
	require.Equal(t, verdict{held: true, report: true, wait: DefaultBudgetWindow, hold: DefaultBudgetWindow, writes: DefaultBudgetWrites}, v, "the sixth trips")
	g.reported(key)

	// Held for the window, whatever changes but the spec.
	fp = 2
	clk.Step(10 * time.Second)
	v = reconcile(1, 1)
	require.True(t, v.held)
	require.False(t, v.report, "reported once")
	require.Equal(t, 20*time.Second, v.wait)

	// After the hold, what the trip held back is still held back.
	fp = 1
	clk.Step(20 * time.Second)
	v = reconcile(1, 2)
	require.True(t, v.held, "the same values after the hold")
	require.Zero(t, v.wait, "only a change ends it now")

	// Something else to write: one reconcile on probation, and the next
	// write within a window trips it again, for twice as long.
	fp = 3
	require.False(t, reconcile(1, 2).held, "the probe")
	clk.Step(5 * time.Second)
	v = reconcile(1, 1)
	require.True(t, v.held)
	require.Equal(t, 2*DefaultBudgetWindow, v.hold)
	g.reported(key)

	// A spec change ends the hold at once, with a fresh budget.
	clk.Step(time.Second)
	for i := range DefaultBudgetWrites / 2 {
		require.False(t, reconcile(2, 2).held, "after the spec change, reconcile %d", i)
	}
	v = reconcile(2, 2)
	require.True(t, v.held)
	require.Equal(t, 4*DefaultBudgetWindow, v.hold, "the back-off stays")

	// The hold doubles up to MaxHold.
	for range 10 {
		clk.Step(v.hold)
		fp++
		require.False(t, reconcile(2, 2).held)
		v = reconcile(2, 2)
		require.True(t, v.held)
	}
	require.Equal(t, DefaultBudgetMaxHold, v.hold)

	// Quiet for long: the back-off starts again.
	clk.Step(v.hold + 2*DefaultBudgetMaxHold)
	fp++
	require.False(t, reconcile(2, 2).held)
	clk.Step(DefaultBudgetWindow)
	for range DefaultBudgetWrites / 2 {
		require.False(t, reconcile(2, 2).held)
	}
	v = reconcile(2, 2)
	require.True(t, v.held)
	require.Equal(t, DefaultBudgetWindow, v.hold)

	g.forget(key)
	require.Empty(t, g.refs)
}
