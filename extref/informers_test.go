package extref

import (
	"fmt"
	"os"
	"slices"
	"strconv"
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

// sourceKinds are 20 namespaced kinds the default policy lets a referencer
// read in its own namespace.
var sourceKinds = []struct{ group, version, resource string }{
	{"", "v1", "configmaps"}, {"", "v1", "serviceaccounts"}, {"", "v1", "services"},
	{"", "v1", "events"}, {"", "v1", "pods"}, {"", "v1", "podtemplates"},
	{"", "v1", "replicationcontrollers"}, {"", "v1", "limitranges"}, {"", "v1", "resourcequotas"},
	{"", "v1", "persistentvolumeclaims"}, {"apps", "v1", "deployments"}, {"apps", "v1", "statefulsets"},
	{"apps", "v1", "daemonsets"}, {"apps", "v1", "replicasets"}, {"apps", "v1", "controllerrevisions"},
	{"batch", "v1", "jobs"}, {"batch", "v1", "cronjobs"}, {"coordination.k8s.io", "v1", "leases"},
	{"rbac.authorization.k8s.io", "v1", "roles"}, {"rbac.authorization.k8s.io", "v1", "rolebindings"},
}

// sourceWatches are the open watches but the referencers' own.
func (h *harness) sourceWatches() []string {
	return slices.DeleteFunc(h.writes.openWatches(), func(p string) bool { return strings.HasSuffix(p, "widgets") })
}

// TestAPIServerInformersComeAndGo creates referencers of 20 kinds: one
// informer per kind runs while they exist, and none once they are gone,
// within InformerIdle. EXTREF_INFORMERS=1000 runs it with 1,000.
func TestAPIServerInformersComeAndGo(t *testing.T) {
	n := 60
	if s := os.Getenv("EXTREF_INFORMERS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err)
	}
	const idle = 2 * time.Second
	h := start(t, testapi.WidgetKind, Options{InformerIdle: idle})
	ctx := t.Context()
	const ns = "informers"
	began := time.Now()
	for i := range n {
		k := sourceKinds[i%len(sourceKinds)]
		h.create(t, widget(t, ns, fmt.Sprintf("w%d", i), `
externalValues:
- fromObject: {group: "`+k.group+`", version: `+k.version+`, resource: `+k.resource+`, name: missing, fieldPath: metadata.name}
  toFieldPath: spec.forProvider.region`))
	}
	testenv.Eventually(t, 2*time.Minute, "an informer per kind", func() error {
		if got := h.sourceWatches(); len(got) != len(sourceKinds) {
			return fmt.Errorf("%d watches: %v", len(got), got)
		}
		return nil
	})
	t.Logf("%d referencers of %d kinds: %d source informers, %s after the first was created", n, len(sourceKinds), len(h.sourceWatches()), time.Since(began).Round(time.Millisecond))

	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(testapi.WidgetKind)
	require.NoError(t, h.env.Client.DeleteAllOf(ctx, u, client.InNamespace(ns)))
	deleted := time.Now()
	testenv.Eventually(t, 2*time.Minute, "no source informer", func() error {
		if got := h.sourceWatches(); len(got) != 0 {
			return fmt.Errorf("%d watches: %v", len(got), got)
		}
		return nil
	})
	took := time.Since(deleted)
	t.Logf("after the %d referencers were deleted: %d source informers, the last stopped %s after the deletion (InformerIdle %s)", n, len(h.sourceWatches()), took.Round(time.Millisecond), idle)
	// The deletions reach the controller in a few seconds; each informer
	// stops InformerIdle after its last referencer is forgotten.
	if took > idle+30*time.Second {
		t.Errorf("the informers stopped %s after the deletion, want within InformerIdle (%s) of the last referencer's", took, idle)
	}
}

// TestAPIServerDeniedStartsNoWatch names sources the policy denies: a
// Secret, a cluster-scoped kind, another namespace's pods, and for a
// cluster-scoped referencer without allow rules a resource no CRD defines
// yet. Nothing is read or watched.
func TestAPIServerDeniedStartsNoWatch(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	denied := []string{
		`{version: v1, resource: secrets, name: s, fieldPath: data.x}`,
		`{version: v1, resource: SECRET, name: s, fieldPath: data.x}`,
		`{version: v1, resource: namespaces, name: default, fieldPath: metadata.name}`,
		`{version: v1, resource: pods, namespace: kube-system, name: p, fieldPath: metadata.name}`,
		`{group: rbac.authorization.k8s.io, version: v1, resource: clusterroles, name: admin, fieldPath: metadata.name}`,
	}
	var ws []*unstructured.Unstructured
	for i, src := range denied {
		w := widget(t, "denied-watch", fmt.Sprintf("w%d", i), `
externalValues:
- fromObject: `+src+`
  toFieldPath: spec.forProvider.region`)
		h.create(t, w)
		ws = append(ws, w)
	}
	for _, w := range ws {
		h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionDenied)
	}

	hc := start(t, testapi.ClusterWidgetKind, Options{})
	cw := widget(t, "", "denied-watch-crd", `
externalValues:
- fromObject: {group: nothing.example.org, version: v1, resource: things, name: t, fieldPath: spec.x}
  toFieldPath: spec.forProvider.region`)
	hc.create(t, cw)
	hc.resolved(t, cw, metav1.ConditionFalse, ReasonResolutionFailed)

	// Any watch would have started before the condition was written.
	if got := h.sourceWatches(); len(got) != 0 {
		t.Errorf("watches for denied sources: want none, got %q", got)
	}
	if got := hc.sourceWatches(); len(got) != 0 {
		t.Errorf("watches for a cluster-scoped referencer's unknown resource it could not read: want none, got %q", got)
	}
}

// TestCouldAllow decides whether to watch the CRD of an unknown resource.
func TestCouldAllow(t *testing.T) {
	none := SourcePolicy{}
	if !none.couldAllow("team-a", "example.org", "things") {
		t.Errorf("no rules, a namespaced referencer: want true, got false (it reads its own namespace)")
	}
	if none.couldAllow("", "example.org", "things") {
		t.Errorf("no rules, a cluster-scoped referencer: want false, got true (it reads nothing by default)")
	}
	rules := SourcePolicy{Allow: []SourceRule{
		{Group: "example.org", Resource: "things", ReferencerNamespaces: []string{"team-b"}},
		{Group: "*", Resource: "gadgets"},
	}}
	if rules.couldAllow("", "example.org", "things") {
		t.Errorf("things.example.org with a rule for other referencers: want false, got true")
	}
	if !rules.couldAllow("", "other.org", "gadgets") {
		t.Errorf("gadgets.other.org with a rule for gadgets in any group: want true, got false")
	}
	if rules.couldAllow("", "example.org", "widgets") {
		t.Errorf("widgets.example.org with no rule for it: want false, got true")
	}
}
