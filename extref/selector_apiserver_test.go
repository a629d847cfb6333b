package extref

import (
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

// settle waits until the harness's writes and reconciles hold still, and
// returns their counts.
func settle(t *testing.T, h *harness) (writes, reconciles int64) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "settle", func() error {
		w0, r0 := h.writes.writes.Load(), h.reconciles.n.Load()
		time.Sleep(300 * time.Millisecond)
		writes, reconciles = h.writes.writes.Load(), h.reconciles.n.Load()
		if writes != w0 || reconciles != r0 {
			return fmt.Errorf("still busy: %d writes, %d reconciles", writes, reconciles)
		}
		return nil
	})
	return writes, reconciles
}

// TestAPIServerSelectors runs SetupReconciler against kube-apiserver with
// a referencer that selects ConfigMaps by a label whose value is its own
// label, Multiple, sorted, rendered by a template; and one whose source's
// name is its own label. The CRD, with the selector's CEL rules, is
// accepted; the values resolve; a settled referencer takes no reconcile
// and no write when a selected object changes a field it does not read;
// a label change that brings an object into the selection, or a change of
// a named source, is followed.
func TestAPIServerSelectors(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	ns := "selectors"
	cm := func(name, app, rank, region string) *unstructured.Unstructured {
		return labelled(ns, name, map[string]string{"app": app}, map[string]any{"rank": rank, "region": region})
	}
	a, b, other := cm("a", "web", "2", "eu-west-1"), cm("b", "web", "1", "us-east-1"), cm("other", "db", "0", "sa-east-1")
	h.create(t, a, b, other)
	sel := widget(t, ns, "selecting", `
externalValues:
- variables:
  - name: regions
    fromRef:
      version: v1
      resource: configmaps
      selector: {mode: Multiple, sortByFieldPath: data.rank, matchLabels: [{key: app, valueFromFieldPath: "metadata.labels[app]"}]}
      fieldPath: data.region
  template: '{{ join "," .regions }}'
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`)
	sel.SetLabels(map[string]string{"app": "web"})
	named := widget(t, ns, "named", `
externalValues:
- fromObject: {version: v1, resource: configmaps, nameFromFieldPath: "metadata.labels[tenant]", fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`)
	named.SetLabels(map[string]string{"tenant": "a"})
	h.create(t, sel, named)

	got := h.resolved(t, sel, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "us-east-1,eu-west-1" {
		t.Errorf("selected regions: want %q, got %q (sorted by data.rank)", "us-east-1,eu-west-1", v)
	}
	got = h.resolved(t, named, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "eu-west-1" {
		t.Errorf("region of the named source: want eu-west-1, got %q", v)
	}
	writes, reconciles := settle(t, h)

	// A field no referencer reads, of a selected object and of one that
	// is not selected: no reconcile, no write.
	ctx := t.Context()
	for _, o := range []*unstructured.Unstructured{b, other} {
		cur := h.get(t, o)
		require.NoError(t, unstructured.SetNestedField(cur.Object, "x", "data", "unread"))
		require.NoError(t, h.env.Client.Update(ctx, cur))
	}
	time.Sleep(3 * wakeInterval)
	if n := h.reconciles.n.Load() - reconciles; n != 0 {
		t.Errorf("reconciles after changes no referencer reads: want 0, got %d", n)
	}
	if n := h.writes.writes.Load() - writes; n != 0 {
		t.Errorf("writes of settled referencers: want 0, got %d", n)
	}

	// A label change brings other into the selection, first by rank.
	cur := h.get(t, other)
	cur.SetLabels(map[string]string{"app": "web"})
	require.NoError(t, h.env.Client.Update(ctx, cur))
	testenv.Eventually(t, 10*time.Second, "the selection follows the label", func() error {
		if v := str(t, h.get(t, sel), "spec", "forProvider", "region"); v != "sa-east-1,us-east-1,eu-west-1" {
			return fmt.Errorf("regions are %q", v)
		}
		return nil
	})

	// The named source changes: its referencer follows.
	cur = h.get(t, a)
	require.NoError(t, unstructured.SetNestedField(cur.Object, "eu-central-1", "data", "region"))
	require.NoError(t, h.env.Client.Update(ctx, cur))
	testenv.Eventually(t, 10*time.Second, "the named source is followed", func() error {
		if v := str(t, h.get(t, named), "spec", "forProvider", "region"); v != "eu-central-1" {
			return fmt.Errorf("region is %q", v)
		}
		return nil
	})
}

// TestAPIServerSelectorDenied: under SetupReconciler, a selection of
// another namespace is denied by the default policy, as a name there is,
// whether or not objects there match, and one that matches nothing of its
// own namespace fails as a missing source.
func TestAPIServerSelectorDenied(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	h.create(t, labelled("selectors-other", "secret-ish", map[string]string{"app": "web"}, map[string]any{"region": "hidden"}))
	var msgs []string
	for i, target := range []string{"selectors-other", "selectors-none"} {
		w := widget(t, "selectors-denied", fmt.Sprintf("w%d", i), `
externalValues:
- fromObject: {version: v1, resource: configmaps, namespace: `+target+`, selector: {matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`)
		h.create(t, w)
		got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionDenied)
		msgs = append(msgs, condition(t, got).Message)
	}
	want := `cannot resolve spec.externalValues[0].fromObject (configmaps selectors-other/selected by app=web, data.region): denied by the default source policy: only the referencer's namespace "selectors-denied" is readable unless an allow rule matches namespace "selectors-other", and none of the 0 allow rules does`
	if msgs[0] != want {
		t.Errorf("denial: want %q, got %q", want, msgs[0])
	}
	if want := strings.ReplaceAll(want, "selectors-other", "selectors-none"); msgs[1] != want {
		t.Errorf("denial where nothing exists: want %q, got %q, the same but for the namespace", want, msgs[1])
	}

	w := widget(t, "selectors-denied", "none", `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionFailed)
	if m := condition(t, got).Message; m != `cannot resolve spec.externalValues[0].fromObject (configmaps selectors-denied/selected by app=web, data.region): source not found: no ConfigMap matches the selector` {
		t.Errorf("no match: got %q", m)
	}
}

// TestAPIServerSelectorSchema: the API server refuses, by the schema's CEL
// rules, a source with both a name and a selector, and minMatch in mode
// Single.
func TestAPIServerSelectorSchema(t *testing.T) {
	env := testenv.Get(t)
	for spec, want := range map[string]string{
		`{version: v1, resource: configmaps, name: a, selector: {matchLabels: [{key: app, value: web}]}, fieldPath: data.region}`: "exactly one of name, nameFromFieldPath and selector must be set",
		`{version: v1, resource: configmaps, selector: {minMatch: 2}, fieldPath: data.region}`:                                    "minMatch and maxMatch need mode Multiple",
		`{version: v1, resource: configmaps, name: a, namespace: b, namespaceFromFieldPath: spec.x, fieldPath: data.region}`:      "namespace and namespaceFromFieldPath are exclusive",
		`{version: v1, resource: configmaps, selector: {matchLabels: [{key: app}]}, fieldPath: data.region}`:                      "exactly one of value and valueFromFieldPath must be set",
	} {
		w := widget(t, "default", "selectors-schema", "externalValues:\n- fromObject: "+spec+"\n  toFieldPath: spec.forProvider.region")
		err := env.Client.Create(t.Context(), w)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("create with %s: want an error holding %q, got %v", spec, want, err)
			_ = env.Client.Delete(t.Context(), w)
		}
	}
}
