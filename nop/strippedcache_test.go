package nop

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// TestAPIServerStrippedCache runs the controller on a cache that drops
// managedFields and the last-applied-configuration annotation, with a
// clock 5 s ahead of the API server's: the reconciler still learns the
// offset (from its writes' responses, which the cache does not touch) and
// lands each transition on the server's time, and its writes leave the
// stored managedFields and annotation as they were.
func TestAPIServerStrippedCache(t *testing.T) {
	const test = "stripped-cache"
	env := testenv.Get(t)
	ctx := t.Context()
	var ahead clock.PassiveClock = aheadClock{5 * time.Second}
	managerWithCache(t, env, test, stripLastApplied, func(r *reconciler) { r.useLocalClock(ahead) })

	first := newNop(test, "first", ca("0s", "Ready", "False"))
	require.NoError(t, env.Client.Create(ctx, first))
	cleanup(t, env.Client, first)
	waitForCondition(t, env.Client, first, "Ready", metav1.ConditionFalse, ReasonScheduled)

	var nops []*v1alpha1.NopResource
	for i := range 3 {
		n := newNop(test, fmt.Sprintf("late-%d", i), ca("0s", "Ready", "False"), ca("3s", "Ready", "True"))
		n.Annotations = map[string]string{lastApplied: `{"applied":"by kubectl"}`}
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
		}
		if got.Annotations[lastApplied] == "" {
			t.Errorf("%s: the %s annotation is gone from the stored object", n.Name, lastApplied)
		}
		var main, status bool
		for _, f := range got.ManagedFields {
			main = main || f.Subresource == ""
			status = status || f.Subresource == "status"
		}
		if !main || !status {
			t.Errorf("%s: stored managedFields %+v: want the creator's entry and the status writer's", n.Name, got.ManagedFields)
		}
	}
}
