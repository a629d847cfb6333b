package nop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// entryOf reads the schedule entry a Ready condition came from out of its
// message ("... (spec.forProvider.conditionAfter[3])").
var entryOf = regexp.MustCompile(`conditionAfter\[(\d+)\]\)$`)

// observed is one version of a NopResource as a watch saw it.
type observed struct {
	at     time.Time
	object *v1alpha1.NopResource // without resourceVersion and managedFields
	status v1alpha1.NopResourceStatus
}

// TestFaultControllerKilled runs the provider-nop binary, kills it with
// SIGKILL while schedules run and starts it again, as a Deployment's restart
// does (no leader election, so the new process does not wait for a Lease).
// A watch of its own records every version of every object: each schedule
// entry reaches the object once and in order, no version repeats the status
// of the one before it (a write without a change), every object ends in its
// final state, and a transition due while the process was down lands within
// recoveryBound of the restart.
func TestFaultControllerKilled(t *testing.T) {
	if os.Getenv("CTRLKIT_FAULTS") == "" {
		t.Skip("a fault test: make test-faults (CTRLKIT_FAULTS=1)")
	}
	const test = "killed"
	env := testenv.Fresh(t)
	ctx := t.Context()

	dir := t.TempDir()
	bin := filepath.Join(dir, "provider-nop")
	if out, err := exec.Command(goTool(), "build", "-o", bin, "./cmd/provider-nop").CombinedOutput(); err != nil {
		t.Fatalf("building provider-nop: %v\n%s", err, out)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, env.WriteKubeconfig(kubeconfig))
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--metrics-bind-address", "0", "--health-probe-bind-address", "0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}

	// A watch of its own, resumed from the last version it saw if the server
	// ends it.
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Client.Scheme()})
	require.NoError(t, err)
	var (
		mu   sync.Mutex
		seen = map[string][]observed{}
	)
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	list := &v1alpha1.NopResourceList{}
	require.NoError(t, wc.List(ctx, list, client.InNamespace("default"), client.MatchingLabels{testLabel: test}))
	rv := list.ResourceVersion
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		for watchCtx.Err() == nil {
			w, err := wc.Watch(watchCtx, &v1alpha1.NopResourceList{}, client.InNamespace("default"),
				&client.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{testLabel: test}), Raw: rawWatch(rv)})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			for ev := range w.ResultChan() {
				n, ok := ev.Object.(*v1alpha1.NopResource)
				if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified) {
					continue
				}
				rv = n.ResourceVersion
				n = n.DeepCopy()
				n.ResourceVersion, n.ManagedFields = "", nil
				mu.Lock()
				seen[n.Name] = append(seen[n.Name], observed{at: time.Now(), object: n, status: n.Status})
				mu.Unlock()
			}
			w.Stop()
		}
	}()

	// Ready flips every 2 s from 4 s to 30 s.
	var entries []v1alpha1.ConditionAfter
	for s := 4; s <= 30; s += 2 {
		status := "True"
		if s%4 == 0 {
			status = "False"
		}
		entries = append(entries, ca(fmt.Sprintf("%ds", s), "Ready", status))
	}
	first := start()
	const objects = 10
	var nops []*v1alpha1.NopResource
	created := time.Now() // within a second of every object's creationTimestamp
	for i := range objects {
		n := newNop(test, fmt.Sprintf("n-%d", i), entries...)
		require.NoError(t, env.Client.Create(ctx, n))
		nops = append(nops, n)
	}

	// Kill it between two entries and start it again after a while.
	time.Sleep(time.Until(created.Add(9 * time.Second)))
	require.NoError(t, first.Process.Kill())
	_ = first.Wait()
	killed := time.Now()
	time.Sleep(4 * time.Second)
	start()
	restarted := time.Now()
	t.Logf("provider-nop killed %s after the objects were created, started again %s later", killed.Sub(created).Round(time.Millisecond), restarted.Sub(killed).Round(time.Millisecond))

	lastEntry := len(entries) - 1
	readyEntry := func(s v1alpha1.NopResourceStatus) int {
		c := conditions.Get(s.Conditions, "Ready")
		if c == nil {
			return -1
		}
		m := entryOf.FindStringSubmatch(c.Message)
		if m == nil {
			return -1
		}
		i, _ := strconv.Atoi(m[1])
		return i
	}
	testenv.Eventually(t, 60*time.Second, "the last entry on every nop", func() error {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range nops {
			vs := seen[n.Name]
			if len(vs) == 0 || readyEntry(vs[len(vs)-1].status) != lastEntry {
				return fmt.Errorf("%s: %d versions, not yet the last entry", n.Name, len(vs))
			}
		}
		return nil
	})
	time.Sleep(2 * time.Second) // a write after the last entry would show now
	stopWatch()
	<-watching

	mu.Lock()
	defer mu.Unlock()
	var worst time.Duration
	for _, n := range nops {
		vs := seen[n.Name]
		last := -1
		for i, v := range vs {
			if i > 0 && equality.Semantic.DeepEqual(v.object, vs[i-1].object) {
				t.Errorf("%s: a write that changed nothing at %s: %s", n.Name, v.at.Format(time.TimeOnly), describe(v.status))
			}
			e := readyEntry(v.status)
			if e < 0 || e == last {
				continue
			}
			if e < last {
				t.Errorf("%s: entry %d written after entry %d", n.Name, e, last)
			}
			last = e
			// An entry due while the process was down, or just after its
			// restart, lands within recoveryBound of the restart.
			due := n.CreationTimestamp.Add(mustDuration(t, entries[e].Time))
			if due.After(killed) {
				from := due
				if from.Before(restarted) {
					from = restarted
				}
				if late := v.at.Sub(from); late > recoveryBound {
					t.Errorf("%s: entry %d landed %s after %s", n.Name, e, late.Round(time.Millisecond), map[bool]string{true: "the restart", false: "its deadline"}[from.Equal(restarted)])
				} else {
					worst = max(worst, late)
				}
			}
		}
		if last != lastEntry {
			t.Errorf("%s: not in the final state: %s", n.Name, describe(vs[len(vs)-1].status))
		}
	}
	t.Logf("latest entry after the kill: %s after max(due, restart)", worst.Round(time.Millisecond))
}

// rawWatch asks a watch to start after resourceVersion rv.
func rawWatch(rv string) *metav1.ListOptions {
	return &metav1.ListOptions{ResourceVersion: rv}
}

func mustDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	require.NoError(t, err)
	return d
}

// goTool is the go command that runs the test, for building the binary.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}
