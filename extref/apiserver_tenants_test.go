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

// unlistableKinds are namespaced kinds the default policy lets a
// referencer read in its own namespace, and that leastPrivilege does not
// let the controller list.
var unlistableKinds = slices.Concat(sourceKinds[1:], []struct{ group, version, resource string }{
	{"", "v1", "endpoints"},
	{"networking.k8s.io", "v1", "ingresses"},
	{"networking.k8s.io", "v1", "networkpolicies"},
	{"policy", "v1", "poddisruptionbudgets"},
	{"autoscaling", "v2", "horizontalpodautoscalers"},
	{"discovery.k8s.io", "v1", "endpointslices"},
	{"storage.k8s.io", "v1", "csistoragecapacities"},
})

// leastPrivilege is a ClusterRole that lets a controller of widgets do its
// work and read ConfigMaps, and nothing else.
const leastPrivilege = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: extref-least-privilege}
rules:
- {apiGroups: [extref.test.ctrlkit.dev], resources: [widgets], verbs: [get, list, watch, update, patch]}
- {apiGroups: [extref.test.ctrlkit.dev], resources: [widgets/status], verbs: [get, update, patch]}
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
- {apiGroups: ["", events.k8s.io], resources: [events], verbs: [create, patch, update]}
- {apiGroups: [apiextensions.k8s.io], resources: [customresourcedefinitions], verbs: [get, list, watch]}`

// TestAPIServerUnlistableKindsDoNotStallOtherTenants runs SetupReconciler
// with one worker as a user that may list ConfigMaps only. Tenant A's
// referencer names 26 kinds the controller may not list; tenant B's,
// created just after it, reads a ConfigMap. B is resolved within one
// ReadTimeout of its creation (the documented bound), A's condition names
// a kind it may not list and why, and a second referencer of the same kinds
// fails at once.
func TestAPIServerUnlistableKindsDoNotStallOtherTenants(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	const user = "extref-least-privilege"
	for _, doc := range []string{leastPrivilege, `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: extref-least-privilege}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: extref-least-privilege}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: ` + user + `}`} {
		o := fromYAML(t, doc)
		require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, o)))
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	h := startAs(t, cfg, Options{Workers: 1})

	h.create(t, configMap("tenant-b", "settings", map[string]any{"region": "eu-west-1"}))
	var b strings.Builder
	b.WriteString("externalValues:\n")
	for i, k := range unlistableKinds {
		fmt.Fprintf(&b, "- {fromObject: {group: %q, version: %s, resource: %s, name: x, fieldPath: metadata.name}, toFieldPath: spec.v%d}\n", k.group, k.version, k.resource, i)
	}
	hostile := widget(t, "tenant-a", "hostile", b.String())
	victim := widget(t, "tenant-b", "victim", `
externalValues:
- {fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}, toFieldPath: spec.forProvider.region}`)
	h.create(t, hostile)
	created := time.Now()
	h.create(t, victim)
	got := h.resolved(t, victim, metav1.ConditionTrue, ReasonResolved)
	delay := time.Since(created)
	t.Logf("tenant B's referencer was resolved %s after tenant A's, which names %d kinds the controller may not list, was created (one worker)", delay.Round(time.Millisecond), len(unlistableKinds))
	if delay > DefaultReadTimeout {
		t.Errorf("tenant B's referencer was resolved after %s: want within one ReadTimeout (%s)", delay, DefaultReadTimeout)
	}
	if v := str(t, got, "spec", "forProvider", "region"); v != "eu-west-1" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "eu-west-1", v)
	}

	failed := h.resolved(t, hostile, metav1.ConditionFalse, ReasonResolutionFailed)
	msg := condition(t, failed).Message
	for _, want := range []string{"cannot read the source: serviceaccounts cannot be read: the controller may not list and watch it (forbidden)", "cronjobs.batch cannot be read: the controller may not list and watch it (forbidden)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("tenant A's condition: want it to contain %q, got %q", want, msg)
		}
	}

	// The kinds are known now: another referencer of them fails at once.
	again := widget(t, "tenant-c", "again", b.String())
	h.create(t, again)
	created = time.Now()
	h.resolved(t, again, metav1.ConditionFalse, ReasonResolutionFailed)
	if took := time.Since(created); took > 2*time.Second {
		t.Errorf("a second referencer of the same %d kinds failed after %s: want at once", len(unlistableKinds), took)
	} else {
		t.Logf("a second referencer of the same %d kinds failed %s after it was created", len(unlistableKinds), took.Round(time.Millisecond))
	}
}

// startAs is start, with the manager talking to the API server as cfg.
func startAs(t *testing.T, cfg *rest.Config, o Options) *harness {
	t.Helper()
	env := testenv.Get(t)
	gvk := testapi.WidgetKind
	label := fmt.Sprintf("%s-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), harnesses.Add(1))
	h := &harness{gvk: gvk, env: env, label: label, writes: &requestCounter{}, reconciles: &reconcileCounter{}}
	referencers := &unstructured.Unstructured{}
	referencers.SetGroupVersionKind(gvk)
	mo := env.ManagerOptions()
	mo.Cache = cache.Options{SyncPeriod: ptr.To(10 * time.Hour), ByObject: map[client.Object]cache.ByObject{referencers: {Label: labels.SelectorFromSet(labels.Set{testLabel: h.label})}}}
	mo.Logger = log.Log
	mgr, err := manager.New(h.writes.wrap(cfg), mo)
	require.NoError(t, err)
	o.Name = "extref-" + h.label
	r, err := newReconciler(mgr, gvk, o)
	require.NoError(t, err)
	require.NoError(t, r.controller(mgr).Complete(h.reconciles.wrap(r)))
	testenv.StartManager(t, mgr)
	return h
}
