package conditions_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// secretDetail stands for what only the platform team may read.
const secretDetail = "dial tcp 10.0.0.7:5432: password authentication failed for user admin"

func xrWith(conds ...any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.org/v1", "kind": "XApp",
		"metadata": map[string]any{"name": "shop-x7k2p", "generation": int64(4)},
		"status":   map[string]any{"conditions": conds},
	}}
}

func entry(typ, status, reason, msg string, gen int64) map[string]any {
	e := map[string]any{"type": typ, "status": status, "reason": reason, "message": msg, "lastTransitionTime": "2026-03-01T12:00:00Z"}
	if gen > 0 {
		e["observedGeneration"] = gen
	}
	return e
}

func TestPropagateSynced(t *testing.T) {
	generic := "The composite resource could not be synced. The platform team can look up XApp shop-x7k2p (Synced False, ReconcileError, generation 4)."
	cases := map[string]struct {
		reason  string
		xr      *unstructured.Unstructured
		claim   []any
		want    *metav1.Condition // nil: none on the claim
		changed bool
	}{
		"FalseWithoutClaimMessage": {
			reason:  "The XR's message never reaches the claim: a generic sentence names the XR, Synced's status and reason and the generation.",
			xr:      xrWith(entry("Synced", "False", "ReconcileError", secretDetail, 4)),
			want:    &metav1.Condition{Type: "CompositeSynced", Status: "False", Reason: "ReconcileError", Message: generic, ObservedGeneration: 2},
			changed: true,
		},
		"FalseWithClaimMessage": {
			reason: "A False CompositeSynced on the XR of Synced's generation carries the message for the claim.",
			xr: xrWith(entry("Synced", "False", "ReconcileError", secretDetail, 4),
				entry("CompositeSynced", "False", "ReconcileError", "Internal error, the platform team has been alerted.", 4)),
			want:    &metav1.Condition{Type: "CompositeSynced", Status: "False", Reason: "ReconcileError", Message: "Internal error, the platform team has been alerted.", ObservedGeneration: 2},
			changed: true,
		},
		"StaleClaimMessage": {
			reason: "A carried message of another generation than Synced's describes another failure: the generic sentence.",
			xr: xrWith(entry("Synced", "False", "ReconcileError", secretDetail, 4),
				entry("CompositeSynced", "False", "ReconcileError", "Image not found.", 3)),
			want:    &metav1.Condition{Type: "CompositeSynced", Status: "False", Reason: "ReconcileError", Message: generic, ObservedGeneration: 2},
			changed: true,
		},
		"SyncedWithoutGeneration": {
			reason:  "Synced without observedGeneration (a schema before Crossplane v2): the XR's generation is named.",
			xr:      xrWith(entry("Synced", "False", "ReconcileError", secretDetail, 0)),
			want:    &metav1.Condition{Type: "CompositeSynced", Status: "False", Reason: "ReconcileError", Message: generic, ObservedGeneration: 2},
			changed: true,
		},
		"InvalidReason": {
			reason:  "A reason that is not a valid reason is not copied (nor quoted).",
			xr:      xrWith(entry("Synced", "False", "password=hunter2", secretDetail, 4)),
			want:    &metav1.Condition{Type: "CompositeSynced", Status: "False", Reason: "Unavailable", Message: strings.Replace(generic, "ReconcileError", "Unavailable", 1), ObservedGeneration: 2},
			changed: true,
		},
		"Unknown": {
			reason:  "Unknown says so, with the reference.",
			xr:      xrWith(entry("Synced", "Unknown", "Pending", secretDetail, 4)),
			want:    &metav1.Condition{Type: "CompositeSynced", Status: "Unknown", Reason: "Pending", Message: "The composite resource has not said whether it is synced. The platform team can look up XApp shop-x7k2p (Synced Unknown, Pending, generation 4).", ObservedGeneration: 2},
			changed: true,
		},
		"Recovered": {
			reason:  "Synced True clears the failure: True, Synced's reason, no message.",
			xr:      xrWith(entry("Synced", "True", "ReconcileSuccess", "", 4)),
			claim:   []any{entry("CompositeSynced", "False", "ReconcileError", generic, 2)},
			want:    &metav1.Condition{Type: "CompositeSynced", Status: "True", Reason: "ReconcileSuccess", ObservedGeneration: 2},
			changed: true,
		},
		"Settled": {
			reason: "A claim that shows it already is not changed.",
			xr:     xrWith(entry("Synced", "True", "ReconcileSuccess", "", 4)),
			claim:  []any{entry("CompositeSynced", "True", "ReconcileSuccess", "", 2)},
			want:   &metav1.Condition{Type: "CompositeSynced", Status: "True", Reason: "ReconcileSuccess", ObservedGeneration: 2},
		},
		"SettledWithoutObservedGeneration": {
			reason: "A claim condition that lacks only observedGeneration (pruned by the schema) is not rewritten for it.",
			xr:     xrWith(entry("Synced", "False", "ReconcileError", secretDetail, 4)),
			claim:  []any{entry("CompositeSynced", "False", "ReconcileError", generic, 0)},
			want:   &metav1.Condition{Type: "CompositeSynced", Status: "False", Reason: "ReconcileError", Message: generic},
		},
		"NoSynced": {
			reason:  "An XR without Synced (new, or recreated) takes the claim's CompositeSynced away.",
			xr:      xrWith(),
			claim:   []any{entry("CompositeSynced", "False", "ReconcileError", generic, 2)},
			changed: true,
		},
		"NoSyncedNothingToDo": {
			reason: "Nothing to show, nothing shown.",
			xr:     xrWith(entry("Ready", "True", "Available", "", 4)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			claim := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "example.org/v1", "kind": "App",
				"metadata": map[string]any{"namespace": "team-a", "name": "shop", "generation": int64(2)},
			}}
			if tc.claim != nil {
				claim.Object["status"] = map[string]any{"conditions": tc.claim}
			}
			changed, err := conditions.PropagateSynced(tc.xr, claim)
			require.NoError(t, err)
			if changed != tc.changed {
				t.Errorf("%s\nchanged: want %t, got %t", tc.reason, tc.changed, changed)
			}
			conds, err := conditions.FromUnstructured(claim)
			require.NoError(t, err)
			got := conditions.Get(conds, conditions.TypeCompositeSynced)
			if diff := cmp.Diff(tc.want, got, condCmp...); diff != "" {
				t.Errorf("%s\nCompositeSynced: -want, +got:\n%s", tc.reason, diff)
			}
			if got != nil && strings.Contains(got.Message, "10.0.0.7") {
				t.Errorf("%s\nthe claim shows the XR's message: %q", tc.reason, got.Message)
			}
			if changed, _ = conditions.PropagateSynced(tc.xr, claim); changed {
				t.Errorf("%s\na second call changed the claim again", tc.reason)
			}
		})
	}
}

func TestPropagateSyncedErrors(t *testing.T) {
	good := xrWith(entry("Synced", "False", "ReconcileError", secretDetail, 4))
	claim := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"kind": "App", "metadata": map[string]any{"name": "shop", "namespace": "a"}}}
	}
	if _, err := conditions.PropagateSynced(nil, claim()); !errors.Is(err, conditions.ErrNilObject) {
		t.Errorf("nil XR: want ErrNilObject, got %v", err)
	}
	bad := xrWith("not a condition")
	if _, err := conditions.PropagateSynced(bad, claim()); !errors.Is(err, conditions.ErrMalformed) {
		t.Errorf("malformed XR: want ErrMalformed, got %v", err)
	}
	c := claim()
	c.Object["status"] = map[string]any{"conditions": "none"}
	before := c.DeepCopy()
	_, err := conditions.PropagateSynced(good, c)
	if !errors.Is(err, conditions.ErrMalformed) {
		t.Errorf("malformed claim: want ErrMalformed, got %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "10.0.0.7") {
		t.Errorf("the error quotes the XR's message: %v", err)
	}
	if diff := cmp.Diff(before, c); diff != "" {
		t.Errorf("a malformed claim was changed: -before, +after:\n%s", diff)
	}
}

// TestPropagateSyncedAgainstAPIServer writes the claim's CompositeSynced
// through the status subresource of two claim schemas, one with
// observedGeneration on conditions and one without (Crossplane's before
// v2.0), through failure and recovery; each settles, and a settled claim
// takes no write.
func TestPropagateSyncedAgainstAPIServer(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := env.Client

	xr := newObject(xrGVK, "", "synced-k2p9x")
	create(ctx, t, c, xr)
	for _, gvk := range []struct {
		name   string
		claim  *unstructured.Unstructured
		hasGen bool
	}{
		{"seed", newObject(claimGVK, "default", "synced-seed"), true},
		{"crossplane", newObject(oldGVK, "default", "synced-old"), false},
	} {
		claim := gvk.claim
		create(ctx, t, c, claim)
		for _, step := range []struct{ status, reason, msg string }{
			{"False", "ReconcileError", secretDetail},
			{"True", "ReconcileSuccess", ""},
		} {
			setStatus(ctx, t, c, xr, map[string]any{"conditions": []any{entry("Synced", step.status, step.reason, step.msg, 1)}})
			got, wrote := propagateSynced(ctx, t, c, xr, claim)
			if !wrote {
				t.Errorf("%s, Synced %s: the first pass should write the claim", gvk.name, step.status)
			}
			cs := conditions.Get(conditionsOf(t, got), conditions.TypeCompositeSynced)
			if cs == nil || string(cs.Status) != step.status || cs.Reason != step.reason || strings.Contains(cs.Message, "10.0.0.7") {
				t.Errorf("%s, Synced %s: CompositeSynced %+v", gvk.name, step.status, cs)
			}
			if cs != nil && (cs.ObservedGeneration != 0) != gvk.hasGen {
				t.Errorf("%s: observedGeneration %d stored, want stored: %t", gvk.name, cs.ObservedGeneration, gvk.hasGen)
			}
			if _, wrote = propagateSynced(ctx, t, c, xr, claim); wrote {
				t.Errorf("%s, Synced %s: a settled claim should not be written", gvk.name, step.status)
			}
		}
	}
}

func propagateSynced(ctx context.Context, t *testing.T, c client.Client, xr, claim *unstructured.Unstructured) (*unstructured.Unstructured, bool) {
	t.Helper()
	x, cl := get(ctx, t, c, xr), get(ctx, t, c, claim)
	changed, err := conditions.PropagateSynced(x, cl)
	require.NoError(t, err)
	if changed {
		require.NoError(t, c.Status().Update(ctx, cl))
	}
	return get(ctx, t, c, claim), changed
}
