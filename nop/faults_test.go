package nop

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// recoveryBound is how soon after the API server returns from an outage a
// transition that fell due meanwhile, or falls due later, lands.
const recoveryBound = 5 * time.Second

// TestFaultAPIServerOutage kills kube-apiserver (etcd kept) while schedules run,
// and starts it again on the same address: every transition due during the
// outage or after it lands within recoveryBound of the server's return (the
// cache, whose watch reconnects with a back-off of up to half a minute, is
// not waited for), once, in schedule order, and every object ends in its
// schedule's final state. While the server is down, failed requests are
// bounded by back-off.
//
// It takes a control plane of its own and about a minute: it runs under make
// test-faults (CTRLKIT_FAULTS=1).
func TestFaultAPIServerOutage(t *testing.T) {
	if os.Getenv("CTRLKIT_FAULTS") == "" {
		t.Skip("a fault test: make test-faults (CTRLKIT_FAULTS=1)")
	}
	const test = "outage"
	env := testenv.Fresh(t)
	ctx := t.Context()

	var (
		mu     sync.Mutex
		landed = map[types.NamespacedName][]Transition{}
	)
	_, requests := startManagerOn(t, env, test, Options{OnTransition: func(tr Transition) {
		mu.Lock()
		defer mu.Unlock()
		landed[tr.Object] = append(landed[tr.Object], tr)
	}}, nil)

	// Ready flips every 2 s from 4 s to 50 s: due during the outage, just
	// after the return and later, each entry a transition.
	var entries []v1alpha1.ConditionAfter
	for s := 4; s <= 50; s += 2 {
		status := "True"
		if s%4 == 0 {
			status = "False"
		}
		entries = append(entries, ca(fmt.Sprintf("%ds", s), "Ready", status))
	}
	const objects = 10
	var nops []*v1alpha1.NopResource
	for i := range objects {
		n := newNop(test, fmt.Sprintf("n-%d", i), entries...)
		require.NoError(t, env.Client.Create(ctx, n))
		nops = append(nops, n)
	}

	time.Sleep(3 * time.Second)
	requests.reset()
	stopped := time.Now()
	require.NoError(t, env.StopAPIServer())
	time.Sleep(15 * time.Second)
	down := requests.reads.Load() + requests.writes.Load()
	require.NoError(t, env.StartAPIServer())
	returned := time.Now()
	outage := returned.Sub(stopped)
	t.Logf("API server down for %s; %d requests meanwhile (%.0f/s): %s", outage.Round(time.Millisecond), down, float64(down)/outage.Seconds(), requests)

	lastEntry := len(entries) - 1
	testenv.Eventually(t, 60*time.Second, "the last entry written to every nop", func() error {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range nops {
			trs := landed[types.NamespacedName{Namespace: n.Namespace, Name: n.Name}]
			if len(trs) == 0 || trs[len(trs)-1].Entry != lastEntry {
				return fmt.Errorf("%s: %d transitions, not yet the last entry", n.Name, len(trs))
			}
		}
		return nil
	})
	last := entries[lastEntry]
	for _, n := range nops {
		got := &v1alpha1.NopResource{}
		require.NoError(t, env.Client.Get(ctx, types.NamespacedName{Namespace: n.Namespace, Name: n.Name}, got))
		if c := conditions.Get(got.Status.Conditions, "Ready"); c == nil || c.Status != last.ConditionStatus || got.Status.ObservedGeneration != got.Generation {
			t.Errorf("%s: not in the final state: %s", n.Name, describe(got.Status))
		}
	}

	mu.Lock()
	defer mu.Unlock()
	var worst time.Duration
	for _, n := range nops {
		k := types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
		trs := landed[k]
		var seen []int
		for _, tr := range trs {
			if tr.Condition.Type != "Ready" {
				continue
			}
			if slices.Contains(seen, tr.Entry) {
				t.Errorf("%s: entry %d written twice", k.Name, tr.Entry)
			}
			if len(seen) > 0 && tr.Entry < seen[len(seen)-1] {
				t.Errorf("%s: entry %d written after entry %d", k.Name, tr.Entry, seen[len(seen)-1])
			}
			seen = append(seen, tr.Entry)
			if tr.Due.Before(stopped) {
				continue
			}
			from := tr.Due
			if from.Before(returned) {
				from = returned
			}
			late := tr.Landed.Sub(from)
			worst = max(worst, late)
			if late > recoveryBound {
				t.Errorf("%s: entry %d (due %s) landed %s after %s", k.Name, tr.Entry, tr.Due.Format(time.TimeOnly), late.Round(time.Millisecond), map[bool]string{true: "the server returned", false: "its deadline"}[from.Equal(returned)])
			}
		}
	}
	t.Logf("latest transition after the outage: %s after max(due, server's return)", worst.Round(time.Millisecond))
}

// TestFaultLeaderHandOver runs two replicas with leader election over
// objects mid-schedule and stops the leader: released, as on SIGTERM (the
// Lease is given back once its controllers have stopped), or crashed, as
// kill -9 leaves it (the Lease is held until it expires). The standby takes
// over; every transition lands once across both replicas, in schedule order,
// every object ends in its final state, and a transition due during the
// hand-over lands within recoveryBound of the standby's election, which comes
// within a retry period (2 s) of a release and within the Lease's duration
// (15 s) of a crash.
func TestFaultLeaderHandOver(t *testing.T) {
	if os.Getenv("CTRLKIT_FAULTS") == "" {
		t.Skip("a fault test: make test-faults (CTRLKIT_FAULTS=1)")
	}
	for _, tc := range []struct {
		name    string
		release bool
		within  time.Duration // from the stop to the standby's first transition
	}{
		{name: "Released", release: true, within: 2*time.Second + recoveryBound},
		{name: "Crashed", release: false, within: 15*time.Second + 2*time.Second + recoveryBound},
	} {
		t.Run(tc.name, func(t *testing.T) { testHandOver(t, tc.release, tc.within) })
	}
}

func testHandOver(t *testing.T, release bool, within time.Duration) {
	test := "handover-" + strings.ToLower(fmt.Sprint(release))
	env := testenv.Get(t)
	ctx := context.Background()

	type landing struct {
		Transition
		replica string
	}
	var (
		mu     sync.Mutex
		landed = map[types.NamespacedName][]landing{}
	)
	replica := func(name string) (stop func()) {
		o := Options{OnTransition: func(tr Transition) {
			mu.Lock()
			defer mu.Unlock()
			landed[tr.Object] = append(landed[tr.Object], landing{tr, name})
		}}
		cfg := rest.CopyConfig(env.Config)
		cfg.QPS = -1
		mo := env.ManagerOptions()
		mo.Cache = cache.Options{DefaultLabelSelector: labels.SelectorFromSet(labels.Set{testLabel: test})}
		mo.LeaderElection = true
		mo.LeaderElectionID = test
		mo.LeaderElectionNamespace = "default"
		mo.LeaderElectionReleaseOnCancel = release
		mgr, err := ctrl.NewManager(cfg, mo)
		require.NoError(t, err)
		require.NoError(t, Setup(mgr, o))
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- mgr.Start(runCtx) }()
		stopped := false
		stop = func() {
			if !stopped {
				stopped = true
				cancel()
				<-done
			}
		}
		t.Cleanup(stop)
		return stop
	}

	// Ready flips every 2 s from 4 s to 30 s.
	var entries []v1alpha1.ConditionAfter
	for s := 4; s <= 30; s += 2 {
		status := "True"
		if s%4 == 0 {
			status = "False"
		}
		entries = append(entries, ca(fmt.Sprintf("%ds", s), "Ready", status))
	}
	stopFirst := replica("first")
	const objects = 10
	var nops []*v1alpha1.NopResource
	for i := range objects {
		n := newNop(test, fmt.Sprintf("n-%d", i), entries...)
		require.NoError(t, env.Client.Create(ctx, n))
		cleanup(t, env.Client, n)
		nops = append(nops, n)
	}
	testenv.Eventually(t, 30*time.Second, "the first replica writing transitions", func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(landed) < objects {
			return fmt.Errorf("%d of %d objects have a transition", len(landed), objects)
		}
		return nil
	})
	replica("second")
	time.Sleep(3 * time.Second)
	stoppedAt := time.Now()
	stopFirst()
	t.Logf("the first replica stopped in %s", time.Since(stoppedAt).Round(time.Millisecond))

	lastEntry := len(entries) - 1
	testenv.Eventually(t, 90*time.Second, "the last entry written to every nop", func() error {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range nops {
			trs := landed[types.NamespacedName{Namespace: n.Namespace, Name: n.Name}]
			if len(trs) == 0 || trs[len(trs)-1].Entry != lastEntry {
				return fmt.Errorf("%s: %d transitions, not yet the last entry", n.Name, len(trs))
			}
		}
		return nil
	})
	for _, n := range nops {
		got := &v1alpha1.NopResource{}
		require.NoError(t, env.Client.Get(ctx, types.NamespacedName{Namespace: n.Namespace, Name: n.Name}, got))
		if c := conditions.Get(got.Status.Conditions, "Ready"); c == nil || c.Status != entries[lastEntry].ConditionStatus {
			t.Errorf("%s: not in the final state: %s", n.Name, describe(got.Status))
		}
	}

	mu.Lock()
	defer mu.Unlock()
	var takeOver time.Time
	var worst time.Duration
	for _, n := range nops {
		k := types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
		var seen []int
		for _, tr := range landed[k] {
			if tr.Condition.Type != "Ready" {
				continue
			}
			if slices.Contains(seen, tr.Entry) {
				t.Errorf("%s: entry %d written twice", k.Name, tr.Entry)
			}
			if len(seen) > 0 && tr.Entry < seen[len(seen)-1] {
				t.Errorf("%s: entry %d written after entry %d", k.Name, tr.Entry, seen[len(seen)-1])
			}
			seen = append(seen, tr.Entry)
			if tr.replica == "second" {
				if takeOver.IsZero() || tr.Landed.Before(takeOver) {
					takeOver = tr.Landed
				}
				worst = max(worst, tr.Landed.Sub(tr.Due))
			} else if tr.Landed.After(stoppedAt) {
				t.Errorf("%s: entry %d written by the stopped leader %s after its stop", k.Name, tr.Entry, tr.Landed.Sub(stoppedAt))
			}
		}
	}
	if takeOver.IsZero() {
		t.Fatal("the second replica wrote no transition")
	}
	gap := takeOver.Sub(stoppedAt)
	if gap > within {
		t.Errorf("the standby's first transition came %s after the leader's stop; want within %s", gap.Round(time.Millisecond), within)
	}
	t.Logf("hand-over: the standby's first transition %s after the leader's stop; latest transition of the standby %s after its deadline", gap.Round(time.Millisecond), worst.Round(time.Millisecond))
}
