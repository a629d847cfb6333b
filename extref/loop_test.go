package extref

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/ctrlkit/ctrlkit/conditions"
	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// loopCase is a set of referencers that would write one another for ever.
type loopCase struct {
	name        string
	referencers []*unstructured.Unstructured
	refused     bool // validation refuses it: only the condition is written
}

// reads is an external value of Widget name's field path, Always, into
// spec.forProvider.region, with the given transforms (YAML).
func reads(name, fieldPath, transforms string) string {
	s := `
externalValues:
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: widgets, name: ` + name + `, fieldPath: ` + fieldPath + `}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`
	if transforms != "" {
		s += "\n  transforms: " + transforms
	}
	return s
}

// flip turns "on" into "off" and back, so that a cycle through it never
// settles.
const flip = `[{type: Map, map: {"on": "off", "off": "on"}}]`

// loopCases are the loops of the issue: a referencer reading its own
// resourceVersion or generation (refused), a ping/pong pair and a cycle of
// three through ordinary fields.
func loopCases(t *testing.T, prefix string) []loopCase {
	ns := func(c string) string { return prefix + "-" + c }
	withRegion := func(u *unstructured.Unstructured) *unstructured.Unstructured {
		require.NoError(t, unstructured.SetNestedField(u.Object, "on", "spec", "forProvider", "region"))
		return u
	}
	return []loopCase{
		{name: "self-resourceversion", refused: true, referencers: []*unstructured.Unstructured{
			widget(t, ns("self-rv"), "a", reads("a", "metadata.resourceVersion", "")),
		}},
		{name: "self-generation", refused: true, referencers: []*unstructured.Unstructured{
			widget(t, ns("self-gen"), "a", reads("a", "metadata.generation", `[{type: Convert, toType: string}]`)),
		}},
		{name: "ping-pong", referencers: []*unstructured.Unstructured{
			widget(t, ns("pingpong"), "a", reads("b", "spec.forProvider.region", flip)),
			withRegion(widget(t, ns("pingpong"), "b", reads("a", "spec.forProvider.region", ""))),
		}},
		{name: "three-cycle", referencers: []*unstructured.Unstructured{
			widget(t, ns("cycle"), "a", reads("c", "spec.forProvider.region", flip)),
			widget(t, ns("cycle"), "b", reads("a", "spec.forProvider.region", "")),
			withRegion(widget(t, ns("cycle"), "c", reads("b", "spec.forProvider.region", ""))),
		}},
	}
}

// writesTo counts the harness's writes to each referencer, by namespace/name.
func (h *harness) writesTo() map[string]int {
	h.writes.mu.Lock()
	defer h.writes.mu.Unlock()
	n := map[string]int{}
	for _, l := range h.writes.log {
		// PUT /apis/<group>/<version>/namespaces/<ns>/widgets/<name>[/status]
		parts := strings.Split(l, "/")
		for i := range parts {
			if parts[i] == "namespaces" && i+3 < len(parts) {
				n[parts[i+1]+"/"+parts[i+3]]++
				break
			}
		}
	}
	return n
}

// TestAPIServerWriteLoopsDefaultBudget runs the loop cases for 30 seconds
// under the default write budget: a refused case takes one write (its
// condition), a loop at most DefaultBudgetWrites and one for the
// Oscillating condition per referencer.
func TestAPIServerWriteLoopsDefaultBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 30 seconds")
	}
	h := start(t, testapi.WidgetKind, Options{})
	cases := loopCases(t, "loop30")
	began := time.Now()
	for _, c := range cases {
		h.create(t, c.referencers...)
	}
	time.Sleep(30*time.Second - time.Since(began))
	writes := h.writesTo()
	for _, c := range cases {
		total := 0
		var per []string
		for _, r := range c.referencers {
			n := writes[r.GetNamespace()+"/"+r.GetName()]
			total += n
			per = append(per, fmt.Sprintf("%s %d", r.GetName(), n))
			limit := DefaultBudgetWrites + 1
			if c.refused {
				limit = 1
			}
			if n > limit {
				t.Errorf("%s: %s took %d writes in 30s, want at most %d", c.name, r.GetName(), n, limit)
			}
		}
		t.Logf("%s: %d writes in 30s (%s)", c.name, total, strings.Join(per, ", "))
	}
	for _, c := range cases {
		if c.refused {
			got := h.resolved(t, c.referencers[0], metav1.ConditionFalse, ReasonResolutionFailed)
			if m := condition(t, got).Message; !strings.Contains(m, "changes whenever its object is written") {
				t.Errorf("condition message: want it to contain %q, got %q", "changes whenever its object is written", m)
			}
			continue
		}
		held := 0
		for _, r := range c.referencers {
			if condition(t, h.get(t, r)).Reason == ReasonOscillating {
				held++
			}
		}
		if held == 0 {
			t.Errorf("%s: want at least one, got no referencer held as Oscillating", c.name)
		}
	}
}

// TestAPIServerWriteLoops runs the loop cases under a short write budget
// window, so that holds pass and probes run within the test: the writes
// stay within the bound, a held referencer reports Oscillating with a
// Warning event, and a spec change that breaks the loop settles it.
func TestAPIServerWriteLoops(t *testing.T) {
	// A loop runs at about one reconcile (two writes) a second per
	// referencer, the wake interval's pace: a window of several seconds
	// holds more than a probe's writes at that pace, so every probe trips
	// again. A one-second window let a probe pass when the loop ran a
	// little slower than that, and the pair then wrote freely, never held.
	budget := WriteBudget{Writes: 6, Window: 3 * time.Second, MaxHold: 4 * time.Second}
	h := start(t, testapi.WidgetKind, Options{Writes: budget})
	cases := loopCases(t, "loop")
	began := time.Now()
	for _, c := range cases {
		h.create(t, c.referencers...)
	}
	const run = 8 * time.Second
	time.Sleep(run - time.Since(began))
	writes := h.writesTo()
	// At most the budget and the Oscillating condition at first, then
	// after each hold (at least a window) a probe and the next trip.
	limit := budget.Writes + 1 + int(run/budget.Window)*(probeWrites+1)
	for _, c := range cases {
		var per []string
		for _, r := range c.referencers {
			n := writes[r.GetNamespace()+"/"+r.GetName()]
			per = append(per, fmt.Sprintf("%s %d", r.GetName(), n))
			if c.refused && n > 1 || n > limit {
				t.Errorf("%s: %s took %d writes in %s, want at most %d", c.name, r.GetName(), n, run, limit)
			}
		}
		t.Logf("%s: writes in %s with a %s window: %s", c.name, run, budget.Window, strings.Join(per, ", "))
	}

	pp := cases[2].referencers
	a, b := pp[0], pp[1]
	var held *unstructured.Unstructured
	testenv.Eventually(t, 30*time.Second, "a ping-pong referencer held as Oscillating", func() error {
		for _, r := range pp {
			if c := conditionOf(h.get(t, r)); c != nil && c.Reason == ReasonOscillating {
				held = r
				return nil
			}
		}
		return fmt.Errorf("neither is")
	})
	warningEvent(t, h, held, ReasonOscillating)
	if m := conditionOf(h.get(t, held)).Message; !strings.Contains(m, "nothing more is written until its spec changes") {
		t.Errorf("condition message: want it to contain %q, got %q", "nothing more is written until its spec changes", m)
	}

	// Break the loop: a copies b without the flip. Its spec changes,
	// which ends any hold, and the pair settles.
	update := func(o *unstructured.Unstructured, change func(*unstructured.Unstructured) error) {
		require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur := h.get(t, o)
			if err := change(cur); err != nil {
				return err
			}
			return h.env.Client.Update(context.Background(), cur)
		}))
	}
	update(a, func(cur *unstructured.Unstructured) error {
		return unstructured.SetNestedSlice(cur.Object, []any{map[string]any{
			"fromObject":  map[string]any{"group": "extref.test.ctrlkit.dev", "version": "v1alpha1", "resource": "widgets", "name": "b", "fieldPath": "spec.forProvider.region"},
			"toFieldPath": "spec.forProvider.region",
			"policy":      map[string]any{"resolve": "Always"},
		}}, "spec", "externalValues")
	})
	h.resolved(t, a, metav1.ConditionTrue, ReasonResolved)
	// b may be held still; touching its spec releases it.
	update(b, func(cur *unstructured.Unstructured) error {
		return unstructured.SetNestedField(cur.Object, "touched", "spec", "cidrBlock")
	})
	h.resolved(t, b, metav1.ConditionTrue, ReasonResolved)
	if ra, rb := str(t, h.get(t, a), "spec", "forProvider", "region"), str(t, h.get(t, b), "spec", "forProvider", "region"); ra != rb {
		t.Errorf("spec.forProvider.region: want the same, got %q in %s and %q in %s", ra, a.GetName(), rb, b.GetName())
	}
}

func conditionOf(u *unstructured.Unstructured) *metav1.Condition {
	conds, err := conditions.FromUnstructured(u)
	if err != nil {
		return nil
	}
	for i := range conds {
		if conds[i].Type == TypeReferencesResolved {
			return &conds[i]
		}
	}
	return nil
}
