package nop

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func TestServerClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// A write sent at local time t0+sent and answered at t0+recv, that the
	// server recorded in its second t0+server.
	type write struct{ sent, recv, server time.Duration }
	cases := map[string]struct {
		reason     string
		writes     []write
		wantOffset time.Duration
	}{
		"NoWrites": {reason: "without a write the local clock is trusted", wantOffset: 0},
		"InSync": {
			reason:     "writes that allow no offset leave the local clock alone",
			writes:     []write{{ms(100), ms(120), 0}, {ms(1950), ms(1970), time.Second}},
			wantOffset: 0,
		},
		"LocalAhead": {
			reason: "a local clock 5 s ahead: the lower end of what the writes allow, which narrows to 40 ms of the truth",
			writes: []write{
				{ms(10300), ms(10320), 5 * time.Second}, // [-5.32 s, -4.3 s]
				{ms(11950), ms(11970), 6 * time.Second}, // [-5.97 s, -4.95 s]
				{ms(13020), ms(13040), 8 * time.Second}, // [-5.04 s, -4.02 s]
			},
			wantOffset: -ms(5040),
		},
		"LocalBehind": {
			reason:     "a local clock 3 s behind",
			writes:     []write{{ms(1500), ms(1520), 4 * time.Second}}, // [2.48 s, 3.5 s]
			wantOffset: ms(2480),
		},
		"Stepped": {
			reason: "a write that contradicts the ones before (the local clock was set right) replaces them",
			writes: []write{
				{ms(10300), ms(10320), 5 * time.Second},
				{ms(20300), ms(20320), 20 * time.Second}, // [-0.32 s, 0.7 s]
			},
			wantOffset: 0,
		},
		"Nonsense": {
			reason:     "an answer before its request, or no server time, teaches nothing",
			writes:     []write{{ms(500), ms(400), 9 * time.Second}, {ms(100), ms(120), -1}},
			wantOffset: 0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			local := clocktesting.NewFakePassiveClock(t0)
			c := &serverClock{local: local}
			for _, w := range tc.writes {
				server := t0.Add(w.server)
				if w.server < 0 {
					server = time.Time{}
				}
				c.observe(t0.Add(w.sent), t0.Add(w.recv), server)
			}
			if got := c.Offset(); got != tc.wantOffset {
				t.Errorf("%s\nOffset() = %s, want %s", tc.reason, got, tc.wantOffset)
			}
			if got, want := c.Now(), t0.Add(tc.wantOffset); !got.Equal(want) {
				t.Errorf("Now() = %s, want %s", got, want)
			}
		})
	}
}

// TestClockSkew runs the controller with a clock 5 s ahead of the API
// server's: deadlines come from creationTimestamp, the server's clock, so
// without knowing the skew every transition would land about 5 s early. The
// reconciler learns the offset from its first writes and lands the later
// transitions on the server's time: never before the deadline, and within a
// second after it.
func TestClockSkew(t *testing.T) {
	const test = "skew"
	env := testenv.Get(t)
	ctx := t.Context()
	var ahead clock.PassiveClock = aheadClock{5 * time.Second}
	startManagerWith(t, test, Options{}, func(r *reconciler) reconcile.Reconciler {
		r.useLocalClock(ahead)
		return r
	})

	// A first object, whose entry at 0 s is written at once, teaches the
	// reconciler the offset; then the objects whose deadlines are checked.
	first := newNop(test, "first", ca("0s", "Ready", "False"))
	require.NoError(t, env.Client.Create(ctx, first))
	cleanup(t, env.Client, first)
	waitForCondition(t, env.Client, first, "Ready", metav1.ConditionFalse, ReasonScheduled)

	var nops []*v1alpha1.NopResource
	for i := range 4 {
		n := newNop(test, fmt.Sprintf("late-%d", i), ca("0s", "Ready", "False"), ca("3s", "Ready", "True"))
		require.NoError(t, env.Client.Create(ctx, n))
		cleanup(t, env.Client, n)
		nops = append(nops, n)
	}
	seen := map[string]time.Time{}
	testenv.Eventually(t, 30*time.Second, "every object Ready", func() error {
		for _, n := range nops {
			if _, ok := seen[n.Name]; ok {
				continue
			}
			got := &v1alpha1.NopResource{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
			if conditions.IsTrue(got.Status.Conditions, "Ready") {
				seen[n.Name] = time.Now()
				continue
			}
			return fmt.Errorf("%s: %s", n.Name, describe(got.Status))
		}
		return nil
	})
	for _, n := range nops {
		got := &v1alpha1.NopResource{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(n), got))
		due := got.CreationTimestamp.Add(3 * time.Second)
		if late := seen[n.Name].Sub(due); late < 0 || late > 2*time.Second {
			t.Errorf("%s: Ready=True seen %s after its deadline by the server's clock; want within [0, 2 s)", n.Name, late.Round(time.Millisecond))
		} else {
			t.Logf("%s: Ready=True seen %s after its deadline", n.Name, late.Round(time.Millisecond))
		}
	}
}
