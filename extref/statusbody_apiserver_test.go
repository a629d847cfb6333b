package extref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerStatusWriteSendsStatusAlone: SetupReconciler's controller
// writes a referencer's condition with a body of the referencer's identity,
// resourceVersion and status alone, which the API server takes as a status
// write of the whole referencer: the condition is stored, the spec it
// resolved stays, and the next source change is resolved from the version
// the write returned.
func TestAPIServerStatusWriteSendsStatusAlone(t *testing.T) {
	env := testenv.Get(t)
	h := &harness{gvk: testapi.WidgetKind, env: env, label: fmt.Sprintf("status-alone-%d", harnesses.Add(1)), writes: &requestCounter{}, reconciles: &reconcileCounter{}}
	var mu sync.Mutex
	var bodies []map[string]any
	cfg := rest.CopyConfig(env.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodPut && strings.HasSuffix(req.URL.Path, "/status") && strings.Contains(req.URL.Path, "widgets") && req.Body != nil {
				raw, err := io.ReadAll(req.Body)
				if err != nil {
					return nil, err
				}
				req.Body = io.NopCloser(bytes.NewReader(raw))
				var body map[string]any
				if err := json.Unmarshal(raw, &body); err == nil {
					mu.Lock()
					bodies = append(bodies, body)
					mu.Unlock()
				}
			}
			return rt.RoundTrip(req)
		})
	})
	referencers := &unstructured.Unstructured{}
	referencers.SetGroupVersionKind(testapi.WidgetKind)
	mo := env.ManagerOptions()
	mo.Cache = cache.Options{SyncPeriod: ptr.To(10 * time.Hour), ByObject: map[client.Object]cache.ByObject{referencers: {Label: labels.SelectorFromSet(labels.Set{testLabel: h.label})}}}
	mo.Logger = log.Log
	mgr, err := manager.New(cfg, mo)
	require.NoError(t, err)
	r, err := newReconciler(mgr, testapi.WidgetKind, Options{Name: "extref-" + h.label})
	require.NoError(t, err)
	require.NoError(t, r.controller(mgr).Complete(h.reconciles.wrap(r)))
	testenv.StartManager(t, mgr)

	const ns = "status-alone"
	cm := configMap(ns, "settings", map[string]any{"region": "eu-west-1"})
	h.create(t, cm)
	w := widget(t, ns, "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`)
	w.SetAnnotations(map[string]string{"kept": "yes"})
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	require.Equal(t, "eu-west-1", str(t, got, "spec", "forProvider", "region"))

	// A source change: the spec write, then the condition, from the
	// resourceVersion the first status write returned.
	src := &unstructured.Unstructured{}
	src.SetGroupVersionKind(cm.GroupVersionKind())
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(cm), src))
	require.NoError(t, unstructured.SetNestedField(src.Object, "us-east-1", "data", "region"))
	require.NoError(t, env.Client.Update(t.Context(), src))
	testenv.Eventually(t, 30*time.Second, "the referencer holds the new value, resolved", func() error {
		got = h.get(t, w)
		c := condition(t, got)
		if v := str(t, got, "spec", "forProvider", "region"); v != "us-east-1" || c.ObservedGeneration != got.GetGeneration() {
			return fmt.Errorf("region %q, condition for generation %d of %d", v, c.ObservedGeneration, got.GetGeneration())
		}
		return nil
	})
	if got.GetAnnotations()["kept"] != "yes" || got.GetLabels()[testLabel] != h.label {
		t.Errorf("metadata after the status writes: annotations %v, labels %v", got.GetAnnotations(), got.GetLabels())
	}

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, bodies)
	for i, b := range bodies {
		var keys []string
		for k := range b {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var meta []string
		if m, ok := b["metadata"].(map[string]any); ok {
			for k := range m {
				meta = append(meta, k)
			}
		}
		slices.Sort(meta)
		if !slices.Equal(keys, []string{"apiVersion", "kind", "metadata", "status"}) || !slices.Equal(meta, []string{"name", "namespace", "resourceVersion", "uid"}) {
			t.Errorf("status write %d sent %v with metadata %v: want apiVersion, kind, metadata (name, namespace, resourceVersion, uid) and status alone", i, keys, meta)
		}
	}
}
