package extref

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
)

// writeTimes returns when the harness wrote the referencer o (its spec or
// status).
func (h *harness) writeTimes(o *unstructured.Unstructured) []time.Time {
	h.writes.mu.Lock()
	defer h.writes.mu.Unlock()
	suffix := "/namespaces/" + o.GetNamespace() + "/widgets/" + o.GetName()
	var at []time.Time
	for i, l := range h.writes.log {
		if strings.HasSuffix(l, suffix) || strings.HasSuffix(l, suffix+"/status") {
			at = append(at, h.writes.at[i])
		}
	}
	return at
}

// mostInWindow is the most of the times at that fall in any window.
func mostInWindow(at []time.Time, window time.Duration) int {
	most := 0
	for i := range at {
		n := 0
		for _, w := range at[i:] {
			if w.Sub(at[i]) < window {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// TestAPIServerWriteBudgetBurst changes the sources of two referencers: one
// five times a second apart, which trips the budget at the last change, the
// other five times a second for ten seconds. When each source holds still,
// its last value is written within the hold and a second, and no window
// takes more writes than the budget, the Oscillating condition included.
func TestAPIServerWriteBudgetBurst(t *testing.T) {
	// Creation takes two writes and each change two more: the fifth
	// change is the one that leaves no room for the Oscillating condition.
	budget := WriteBudget{Writes: 11, Window: 6 * time.Second, MaxHold: 6 * time.Second}
	h := start(t, testapi.WidgetKind, Options{Writes: budget})
	metricsBefore := gatherMetrics(t)
	const ns = "budget-burst"
	spec := `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: %s, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`
	type burst struct {
		name    string
		changes int
		every   time.Duration
	}
	bursts := []burst{{name: "burst", changes: 5, every: time.Second}, {name: "storm", changes: 50, every: 200 * time.Millisecond}}
	var ws []*unstructured.Unstructured
	for _, b := range bursts {
		h.create(t, configMap(ns, b.name, map[string]any{"region": "r0"}))
		w := widget(t, ns, b.name, fmt.Sprintf(spec, b.name))
		h.create(t, w)
		ws = append(ws, w)
	}
	for _, w := range ws {
		h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	}

	// Each burst runs on its own, and then waits for its last value.
	still := make([]time.Time, len(bursts))       // when each source held still
	written := make([]time.Duration, len(bursts)) // its last value seen that long after
	errs := make([]error, len(bursts))
	var wg sync.WaitGroup
	for i, b := range bursts {
		wg.Go(func() {
			ctx := context.Background()
			for j := 1; j <= b.changes; j++ {
				time.Sleep(b.every)
				errs[i] = retry.RetryOnConflict(retry.DefaultRetry, func() error {
					cm := configMap(ns, b.name, nil)
					if err := h.env.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
						return err
					}
					if err := unstructured.SetNestedField(cm.Object, "r"+strconv.Itoa(j), "data", "region"); err != nil {
						return err
					}
					return h.env.Client.Update(ctx, cm)
				})
				if errs[i] != nil {
					return
				}
			}
			still[i] = time.Now()
			want, got := "r"+strconv.Itoa(b.changes), ""
			for time.Since(still[i]) < budget.MaxHold+time.Second {
				w := ws[i].DeepCopy()
				if errs[i] = h.env.Client.Get(ctx, client.ObjectKeyFromObject(w), w); errs[i] != nil {
					return
				}
				if got, _, _ = unstructured.NestedString(w.Object, "spec", "forProvider", "region"); got == want {
					written[i] = time.Since(still[i])
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			errs[i] = fmt.Errorf("spec.forProvider.region is %q %s after the source held still, want %q", got, budget.MaxHold+time.Second, want)
		})
	}
	wg.Wait()

	for i, b := range bursts {
		w := ws[i]
		if errs[i] != nil {
			t.Errorf("%s: %v", b.name, errs[i])
			continue
		}
		got := h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
		writes := h.writeTimes(w)
		if n := mostInWindow(writes, budget.Window); n > budget.Writes {
			t.Errorf("%s: want at most %d, got %d writes in a window of %s", b.name, budget.Writes, n, budget.Window)
		}
		t.Logf("%s: %d writes; the last value written %s after the source held still; generation %d", b.name, len(writes), written[i].Round(time.Millisecond), got.GetGeneration())
	}
	// The storm outruns the budget: it is held at least once.
	if d := grew(metricsBefore, gatherMetrics(t))["ctrlkit_extref_holds_total"]; d < 1 {
		t.Errorf("ctrlkit_extref_holds_total grew by %v during a storm of changes, want at least 1", d)
	}
}
