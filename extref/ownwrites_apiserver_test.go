package extref

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerReconcilesPerSourceChange: a source change costs each
// referencer that reads the changed field two reconciles and two writes:
// the Watcher's wake writes the value, and the watch event of that write
// brings the reconcile that writes the condition's observedGeneration; the
// watch event of the condition write costs none. With one worker, every
// value is written before any condition. A spec change made by someone else
// is still reconciled.
func TestAPIServerReconcilesPerSourceChange(t *testing.T) {
	const n = 20
	h := start(t, testapi.WidgetKind, Options{Workers: 1})
	ctx := t.Context()
	const ns = "own-writes"
	cm := configMap(ns, "settings", map[string]any{"region": "one"})
	h.create(t, cm)
	var ws []*unstructured.Unstructured
	for i := range n {
		w := widget(t, ns, fmt.Sprintf("w%d", i), `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`)
		h.create(t, w)
		ws = append(ws, w)
	}
	for _, w := range ws {
		h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	}
	quiet := func() int64 {
		t.Helper()
		last := h.reconciles.n.Load()
		for {
			time.Sleep(2 * wakeInterval)
			now := h.reconciles.n.Load()
			if now == last {
				return now
			}
			last = now
		}
	}

	before, writes := quiet(), h.writes.writes.Load()
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(cm.GroupVersionKind())
	require.NoError(t, h.env.Client.Get(ctx, client.ObjectKeyFromObject(cm), got))
	require.NoError(t, unstructured.SetNestedField(got.Object, "two", "data", "region"))
	require.NoError(t, h.env.Client.Update(ctx, got))
	testenv.Eventually(t, time.Minute, "every referencer has the new value", func() error {
		for _, w := range ws {
			if v := str(t, h.get(t, w), "spec", "forProvider", "region"); v != "two" {
				return fmt.Errorf("%s: %q", w.GetName(), v)
			}
		}
		return nil
	})
	for _, w := range ws {
		h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	}
	reconciles, wrote := quiet()-before, h.writes.writes.Load()-writes
	if reconciles != 2*n || wrote != 2*n {
		t.Errorf("a source change read by %d referencers took %d reconciles and %d writes: want %d and %d (two reconciles each, one for its value and one for its condition)", n, reconciles, wrote, 2*n, 2*n)
	}
	h.writes.mu.Lock()
	order := slices.Clone(h.writes.log[writes:])
	h.writes.mu.Unlock()
	lastValue, firstCondition := -1, len(order)
	for i, w := range order {
		if strings.HasSuffix(w, "/status") {
			firstCondition = min(firstCondition, i)
		} else {
			lastValue = i
		}
	}
	if lastValue > firstCondition {
		t.Errorf("writes after a source change: want every value before any condition, got %v", order)
	}

	// Someone else's change of a referencer's spec is reconciled: the
	// value it overwrote is written back.
	w := h.get(t, ws[0])
	require.NoError(t, unstructured.SetNestedField(w.Object, "edited", "spec", "forProvider", "region"))
	require.NoError(t, h.env.Client.Update(ctx, w))
	testenv.Eventually(t, 30*time.Second, "the edited referencer holds its source's value again", func() error {
		if v := str(t, h.get(t, ws[0]), "spec", "forProvider", "region"); v != "two" {
			return fmt.Errorf("%q", v)
		}
		return nil
	})
}
