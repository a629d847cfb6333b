package extref

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerStrippedCache: SetupReconciler's controller on a manager
// whose cache drops managedFields (cache.TransformStripManagedFields)
// resolves referencers as before, and its updates, sent from cached
// objects without managedFields, leave the stored entries of other
// managers in place.
func TestAPIServerStrippedCache(t *testing.T) {
	env := testenv.Get(t)
	h := &harness{gvk: testapi.WidgetKind, env: env, label: fmt.Sprintf("stripped-cache-%d", harnesses.Add(1)), writes: &requestCounter{}, reconciles: &reconcileCounter{}}
	referencers := &unstructured.Unstructured{}
	referencers.SetGroupVersionKind(testapi.WidgetKind)
	mo := env.ManagerOptions()
	mo.Cache = cache.Options{
		SyncPeriod:       ptr.To(10 * time.Hour),
		ByObject:         map[client.Object]cache.ByObject{referencers: {Label: labels.SelectorFromSet(labels.Set{testLabel: h.label})}},
		DefaultTransform: cache.TransformStripManagedFields(),
	}
	mo.Logger = log.Log
	mgr, err := manager.New(h.writes.wrap(env.Config), mo)
	require.NoError(t, err)
	r, err := newReconciler(mgr, testapi.WidgetKind, Options{Name: "extref-" + h.label})
	require.NoError(t, err)
	require.NoError(t, r.controller(mgr).Complete(h.reconciles.wrap(r)))
	testenv.StartManager(t, mgr)

	const ns = "stripped-cache"
	h.create(t, configMap(ns, "settings", map[string]any{"region": "eu-west-1"}))
	w := widget(t, ns, "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "eu-west-1" {
		t.Errorf("spec.forProvider.region: want eu-west-1, got %q", v)
	}
	managers := map[string]bool{}
	for _, f := range got.GetManagedFields() {
		managers[f.Manager+" "+f.Subresource] = true
	}
	creator := false
	for m := range managers {
		creator = creator || !strings.HasPrefix(m, "extref") && !strings.HasSuffix(m, " status") && m != ""
	}
	t.Logf("managers of the stored referencer: %v", managers)
	if len(managers) < 2 || !creator {
		t.Errorf("stored managedFields after the controller's writes: managers %v, want the creator's entry kept beside the controller's", managers)
	}
}
