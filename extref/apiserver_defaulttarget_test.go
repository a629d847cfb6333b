package extref

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
)

// TestAPIServerDefaultTarget resolves a fromObject without toFieldPath
// under SetupReconciler on the real API server: the CRD's schema admits
// it, and the value goes to the source's path in the referencer.
func TestAPIServerDefaultTarget(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	peer := widget(t, "default-target", "peer", "forProvider: {region: eu-west-1}")
	h.create(t, peer)
	w := widget(t, "default-target", "w", `
externalValues:
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: widgets, name: peer, fieldPath: spec.forProvider.region}`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "eu-west-1" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "eu-west-1", v)
	}

	// Neither destination nor fromObject is still refused by the schema.
	bad := widget(t, "default-target", "bad", `
externalValues:
- combine: [{version: v1, resource: configmaps, name: x, fieldPath: data.a}]
  fmt: "%s"`)
	require.Error(t, h.env.Client.Create(t.Context(), bad))
}
