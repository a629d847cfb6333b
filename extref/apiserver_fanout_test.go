package extref

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerHotSourceFanOut: 300 referencers read one key of a
// ConfigMap. Rewriting another key of it, ten times, wakes none of them;
// changing the key they read wakes each about once.
func TestAPIServerHotSourceFanOut(t *testing.T) {
	const n = 300
	h := start(t, testapi.WidgetKind, Options{})
	ctx := t.Context()
	const ns = "fanout"
	cm := configMap(ns, "hot", map[string]any{"read": "one", "noise": "0"})
	h.create(t, cm)
	var ws []*unstructured.Unstructured
	for i := range n {
		w := widget(t, ns, fmt.Sprintf("w%d", i), `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: hot, fieldPath: data.read}
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
	set := func(key, value string) {
		t.Helper()
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(cm.GroupVersionKind())
		require.NoError(t, h.env.Client.Get(ctx, client.ObjectKeyFromObject(cm), got))
		require.NoError(t, unstructured.SetNestedField(got.Object, value, "data", key))
		require.NoError(t, h.env.Client.Update(ctx, got))
	}

	before := quiet()
	const changes = 10
	for i := range changes {
		set("noise", fmt.Sprint(i+1))
		time.Sleep(100 * time.Millisecond)
	}
	unrelated := quiet() - before
	t.Logf("reconciles per unrelated source change: %.1f (%d referencers, %d changes)", float64(unrelated)/changes, n, changes)
	if unrelated > 0 {
		t.Errorf("rewriting a key no referencer reads took %d reconciles: want none", unrelated)
	}

	before = quiet()
	set("read", "two")
	testenv.Eventually(t, time.Minute, "every referencer has the new value", func() error {
		for _, w := range ws {
			if v := str(t, h.get(t, w), "spec", "forProvider", "region"); v != "two" {
				return fmt.Errorf("%s: %q", w.GetName(), v)
			}
		}
		return nil
	})
	related := quiet() - before
	t.Logf("reconciles per related source change: %d (%d referencers)", related, n)
	if related < n || related > 3*n {
		t.Errorf("changing the key every referencer reads took %d reconciles: want about one per referencer, and its writes' own (%d to %d)", related, n, 3*n)
	}
}
