package directstatus_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestSchemasSettle takes objects of CRDs shaped as Config Connector's and
// their variants through an update that a Config Connector controller had
// reported first (its own Ready condition, status.externalRef and
// status.observedState), and checks that a settled object takes no write from
// any Writer, and that the status fields the Writer does not own are kept.
func TestSchemasSettle(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	clk := clocktesting.NewFakePassiveClock(t0)

	tests := []struct {
		kind string
		// the status fields the schema keeps besides conditions and observedGeneration
		keep []string
	}{
		{kind: "KCCWidget", keep: []string{"externalRef"}},
		{kind: "NoGenWidget", keep: []string{"externalRef", "observedState"}},
		{kind: "OpaqueWidget", keep: []string{"externalRef", "observedState"}},
		{kind: "TerseWidget"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			gvk := kccGV.WithKind(tt.kind)
			obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": "small"}}}
			obj.SetGroupVersionKind(gvk)
			obj.SetNamespace("default")
			obj.SetName("shape-" + map[string]string{"KCCWidget": "kcc", "NoGenWidget": "nogen", "OpaqueWidget": "opaque", "TerseWidget": "terse"}[tt.kind])
			require.NoError(t, env.Client.Create(ctx, obj))
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })

			// Config Connector's controller reported the object first.
			obj.Object["status"] = map[string]any{
				"observedGeneration": obj.GetGeneration(),
				"externalRef":        "projects/p/datasets/d",
				"observedState":      map[string]any{"etag": "e1"},
				"conditions": []any{map[string]any{
					"type": "Ready", "status": "True", "reason": "UpToDate",
					"message": "The resource is up to date", "lastTransitionTime": "2024-01-02T03:04:05Z",
				}},
			}
			require.NoError(t, env.Client.Status().Update(ctx, obj))
			get := func() *unstructured.Unstructured {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(gvk)
				require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), u))
				return u
			}
			c := newCountingClient(t, env)

			op, err := directstatus.NewWriter(c, directstatus.WithClock(clk)).StartUpdate(ctx, get(), "spec.size")
			require.NoError(t, err)
			require.NoError(t, op.Succeeded(ctx))
			if got := c.writes.Load(); got != 2 {
				t.Errorf("status writes for an update: want 2, got %d (Updating and UpToDate)", got)
			}
			w := directstatus.NewWriter(c, directstatus.WithClock(clk))
			reconcileSettled(t, ctx, get, w, directstatus.NewWriter(c, directstatus.WithClock(clk)))
			if got := c.writes.Load(); got != 2 {
				t.Errorf("status writes after settled reconciles: want 2, got %d", got)
			}
			st := get().Object["status"].(map[string]any)
			for _, k := range tt.keep {
				if _, ok := st[k]; !ok {
					t.Errorf("status.%s: want it kept, got none", k)
				}
			}
		})
	}
}

// TestUnreadableConditionTime gives an object of a Config Connector-shaped
// CRD, whose schema takes any string as a condition's lastTransitionTime, a
// time that is not RFC 3339: the Writer writes nothing, and its error names
// the object, the field and the value.
func TestUnreadableConditionTime(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": "small"}}}
	obj.SetGroupVersionKind(kccGV.WithKind("KCCWidget"))
	obj.SetNamespace("default")
	obj.SetName("odd-time")
	require.NoError(t, env.Client.Create(ctx, obj))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
	obj.Object["status"] = map[string]any{"conditions": []any{map[string]any{
		"type": "Ready", "status": "False", "reason": "DependencyNotReady", "message": "waiting", "lastTransitionTime": "2018-11-08",
	}}}
	require.NoError(t, env.Client.Status().Update(ctx, obj))
	before := obj.GetResourceVersion()
	c := newCountingClient(t, env)

	_, err := directstatus.NewWriter(c).SetReady(ctx, obj, directstatus.UpToDate())
	if !errors.Is(err, conditions.ErrMalformed) {
		t.Fatalf("SetReady on a condition with lastTransitionTime \"2018-11-08\": want one wrapping conditions.ErrMalformed, got error %v", err)
	}
	for _, want := range []string{"KCCWidget default/odd-time", "status.conditions[0].lastTransitionTime", "a string of 10 bytes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if got := c.writes.Load(); got != 0 {
		t.Errorf("status writes: want 0, got %d", got)
	}
	if got := obj.GetResourceVersion(); got != before {
		t.Errorf("resourceVersion: want %s, got %s (object unchanged)", before, got)
	}
}

// warningRecorder keeps the API server's warnings to a client.
type warningRecorder struct {
	mu  sync.Mutex
	got []string
}

func (r *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, text)
}

func (r *warningRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.got
	r.got = nil
	return got
}

// TestPrunedFieldsNotResent checks that once a write has shown which fields
// the schema prunes, the Writer stops sending them: the API server answers
// each with an "unknown field" warning, which controller-runtime's client
// logs on every write. The writes of a second update draw no warning.
func TestPrunedFieldsNotResent(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cfg := rest.CopyConfig(env.Config)
	warnings := &warningRecorder{}
	cfg.WarningHandlerWithContext = warnings
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme, Mapper: env.Mapper})
	require.NoError(t, err)

	tests := []struct {
		name, kind string
		typed      bool
	}{
		{name: "KCCWidget", kind: "KCCWidget"},
		{name: "KCCWidgetTyped", kind: "KCCWidget", typed: true},
		{name: "NoGenWidget", kind: "NoGenWidget"},
		{name: "TerseWidget", kind: "TerseWidget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gvk := kccGV.WithKind(tt.kind)
			obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": "small"}}}
			obj.SetGroupVersionKind(gvk)
			obj.SetNamespace("default")
			obj.SetName("resent-" + strings.ToLower(tt.name))
			require.NoError(t, env.Client.Create(ctx, obj))
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
			get := func() client.Object {
				if tt.typed {
					w := &KCCWidget{}
					require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(obj), w))
					return w
				}
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(gvk)
				require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(obj), u))
				return u
			}
			w := directstatus.NewWriter(c)
			update := func(size string) {
				t.Helper()
				fresh := get()
				if u, ok := fresh.(*unstructured.Unstructured); ok {
					require.NoError(t, unstructured.SetNestedField(u.Object, size, "spec", "size"))
				} else {
					fresh.(*KCCWidget).Spec.Size = size
				}
				require.NoError(t, c.Update(ctx, fresh))
				op, err := w.StartUpdate(ctx, fresh, "spec.size")
				require.NoError(t, err)
				require.NoError(t, op.Succeeded(ctx))
			}
			update("medium") // the Writer learns the schema
			warnings.take()
			update("large")
			if got := warnings.take(); len(got) != 0 {
				t.Errorf("API server warnings on the writes of a second update: want none, got %q", got)
			}
			written, err := w.SetReady(ctx, get(), directstatus.UpToDate())
			require.NoError(t, err)
			if written {
				t.Errorf("SetReady(UpToDate) of a settled object: want no write, got written")
			}
		})
	}
}

// TestKCCConditionTransitions follows Config Connector's SetStatusCondition
// rules on a typed object with KCC's condition struct: there is one Ready
// condition whatever is written, its reason and message always follow the
// last write, its lastTransitionTime moves only when its status does, and a
// condition of another type (written by someone else) is kept.
func TestKCCConditionTransitions(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	obj := newKCCWidget(t, env, "kcc-transitions")
	obj.Status.Conditions = []kccCondition{{Type: "Foo", Status: corev1.ConditionTrue, Reason: "Bar", LastTransitionTime: "2020-01-01T00:00:00Z"}}
	require.NoError(t, env.Client.Status().Update(ctx, obj))
	clk := clocktesting.NewFakePassiveClock(t0)
	w := directstatus.NewWriter(env.Client, directstatus.WithClock(clk))
	foo := kccCondition{Type: "Foo", Status: corev1.ConditionTrue, Reason: "Bar", LastTransitionTime: "2020-01-01T00:00:00Z"}
	errQuota := errors.New("quota exceeded")

	steps := []struct {
		name    string
		set     metav1.Condition
		wantLTT time.Time
	}{
		{name: "Updating", set: directstatus.Updating("spec.size"), wantLTT: t0},
		{name: "UpdateFailure keeps False", set: directstatus.UpdateFailure("spec.size", errQuota), wantLTT: t0},
		{name: "Updating again keeps False", set: directstatus.Updating("spec.size"), wantLTT: t0},
		{name: "UpToDate turns True", set: directstatus.UpToDate(), wantLTT: t0.Add(3 * time.Minute)},
		{name: "UpToDate again", set: directstatus.UpToDate(), wantLTT: t0.Add(3 * time.Minute)},
		{name: "Updating turns False", set: directstatus.Updating(""), wantLTT: t0.Add(5 * time.Minute)},
	}
	for i, step := range steps {
		clk.SetTime(t0.Add(time.Duration(i) * time.Minute))
		got := &KCCWidget{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
		_, err := w.SetReady(ctx, got, step.set)
		require.NoError(t, err, step.name)
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
		var ready []kccCondition
		others := []kccCondition{}
		for _, c := range got.Status.Conditions {
			switch c.Type {
			case "Ready":
				ready = append(ready, c)
			case "Reconciling", "Stalled":
			default:
				others = append(others, c)
			}
		}
		want := []kccCondition{{
			Type: "Ready", Status: corev1.ConditionStatus(step.set.Status), Reason: step.set.Reason,
			Message: step.set.Message, LastTransitionTime: step.wantLTT.Format(time.RFC3339),
		}}
		if diff := cmp.Diff(want, ready); diff != "" {
			t.Errorf("%s: Ready conditions: -want, +got:\n%s", step.name, diff)
		}
		if diff := cmp.Diff([]kccCondition{foo}, others); diff != "" {
			t.Errorf("%s: other conditions: -want, +got:\n%s", step.name, diff)
		}
		if got.Status.ObservedGeneration == nil || *got.Status.ObservedGeneration != got.Generation {
			t.Errorf("%s: status.observedGeneration: want %d, got %v", step.name, got.Generation, got.Status.ObservedGeneration)
		}
	}
}
