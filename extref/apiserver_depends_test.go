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

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerDependsOn waits, under SetupReconciler on the real API
// server, for a ConfigMap to exist and another Widget to be Ready: the
// referencer reports WaitingForDependency, naming what it waits for, until
// both are, and the watch of each wakes it.
func TestAPIServerDependsOn(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	w := widget(t, "depends-on", "w", `
externalValues:
- dependsOn: {version: v1, resource: configmaps, name: later}
- dependsOn: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: widgets, name: dep, ready: true}`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonWaitingForDependency)
	if msg := condition(t, got).Message; !strings.Contains(msg, `ConfigMap "later" does not exist`) || !strings.Contains(msg, `Widget "dep" does not exist`) {
		t.Errorf("condition message: want it to name both dependencies, got %q", msg)
	}

	h.create(t, configMap("depends-on", "later", map[string]any{"k": "v"}))
	// The other Widget is not this test's, so its reconciler leaves it alone.
	dep := object(testapi.WidgetKind, "depends-on", "dep", map[string]any{"spec": map[string]any{}})
	require.NoError(t, h.env.Client.Create(t.Context(), dep))
	t.Cleanup(func() { _ = h.env.Client.Delete(context.Background(), dep) })
	h.waitMessage(t, w, "widgets dep is not Ready (it has no Ready condition)")

	cur := h.get(t, dep)
	require.NoError(t, unstructured.SetNestedSlice(cur.Object, []any{map[string]any{
		"type": "Ready", "status": "True", "reason": "Available", "message": "ok", "lastTransitionTime": "2026-01-01T00:00:00Z",
	}}, "status", "conditions"))
	require.NoError(t, h.env.Client.Status().Update(t.Context(), cur))
	h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
}

// waitMessage waits for the referencer's condition message to hold want.
func (h *harness) waitMessage(t *testing.T, o *unstructured.Unstructured, want string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "condition message holding "+want, func() error {
		if msg := condition(t, h.get(t, o)).Message; !strings.Contains(msg, want) {
			return fmt.Errorf("last seen %q", msg)
		}
		return nil
	})
}
