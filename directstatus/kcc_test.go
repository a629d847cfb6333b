package directstatus_test

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

//go:embed testdata/crds/*.yaml
var kccCRDFiles embed.FS

func kccCRDs() fs.FS {
	sub, err := fs.Sub(kccCRDFiles, "testdata/crds")
	if err != nil {
		panic(err)
	}
	return sub
}

var kccGV = schema.GroupVersion{Group: "test.ctrlkit.dev", Version: "v1beta1"}

// kccCondition is shaped like Config Connector's v1alpha1.Condition: a
// corev1.ConditionStatus, lastTransitionTime as a string, no
// observedGeneration.
type kccCondition struct {
	LastTransitionTime string                 `json:"lastTransitionTime,omitempty"`
	Message            string                 `json:"message,omitempty"`
	Reason             string                 `json:"reason,omitempty"`
	Status             corev1.ConditionStatus `json:"status"`
	Type               string                 `json:"type"`
}

// KCCWidget is a typed object shaped like a Config Connector resource.
type KCCWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size string `json:"size,omitempty"`
	} `json:"spec,omitempty"`
	Status struct {
		Conditions         []kccCondition `json:"conditions,omitempty"`
		ExternalRef        *string        `json:"externalRef,omitempty"`
		ObservedGeneration *int64         `json:"observedGeneration,omitempty"`
	} `json:"status,omitempty"`
}

// DeepCopyObject copies through JSON: a test type needs no generated code.
func (w *KCCWidget) DeepCopyObject() runtime.Object {
	out := &KCCWidget{}
	b, err := json.Marshal(w)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

type KCCWidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KCCWidget `json:"items"`
}

func (l *KCCWidgetList) DeepCopyObject() runtime.Object {
	out := &KCCWidgetList{}
	b, err := json.Marshal(l)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

func addKCCWidget(s *runtime.Scheme) error {
	s.AddKnownTypes(kccGV, &KCCWidget{}, &KCCWidgetList{})
	metav1.AddToGroupVersion(s, kccGV)
	return nil
}

func newKCCWidget(t *testing.T, env *testenv.Env, name string) *KCCWidget {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := &KCCWidget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	w.Spec.Size = "small"
	require.NoError(t, env.Client.Create(ctx, w))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), w) })
	return w
}

// TestKCCShapedCRDSettles writes the Ready condition of objects whose CRD
// prunes the conditions' observedGeneration, as Config Connector's CRDs do,
// unstructured and typed: a settled object takes no write, from the Writer
// that wrote it or from a new one (a restarted controller), and a spec change
// takes one.
func TestKCCShapedCRDSettles(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	clk := clocktesting.NewFakePassiveClock(t0)

	read := map[string]func(t *testing.T, name string) client.Object{
		"Unstructured": func(t *testing.T, name string) client.Object {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(kccGV.WithKind("KCCWidget"))
			require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, u))
			return u
		},
		"Typed": func(t *testing.T, name string) client.Object {
			w := &KCCWidget{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, w))
			return w
		},
	}
	for mode, get := range read {
		t.Run(mode, func(t *testing.T) {
			name := "kcc-" + map[string]string{"Unstructured": "u", "Typed": "t"}[mode]
			obj := newKCCWidget(t, env, name)
			c := newCountingClient(t, env)
			w := directstatus.NewWriter(c, directstatus.WithClock(clk))

			// An update, as a direct controller makes one.
			op, err := w.StartUpdate(ctx, get(t, name), "spec.size")
			require.NoError(t, err)
			require.NoError(t, op.Succeeded(ctx))
			if got := c.writes.Load(); got != 2 {
				t.Errorf("status writes after an update: want 2, got %d (Updating and UpToDate)", got)
			}

			// Settled: three reconciles, each from a fresh read, write nothing.
			for i := range 3 {
				written, err := w.SetReady(ctx, get(t, name), directstatus.UpToDate())
				require.NoError(t, err)
				if written {
					t.Errorf("SetReady(UpToDate) reconcile %d of a settled object: want no write, got written", i)
				}
			}
			// Nor does a new Writer, which has learned nothing yet.
			restarted := directstatus.NewWriter(c, directstatus.WithClock(clk))
			written, err := restarted.SetReady(ctx, get(t, name), directstatus.UpToDate())
			require.NoError(t, err)
			if written {
				t.Errorf("SetReady(UpToDate) by a new Writer of a settled object: want no write, got written")
			}
			if got := c.writes.Load(); got != 2 {
				t.Errorf("status writes after settled reconciles: want 2, got %d", got)
			}

			// A spec change bumps the generation: one write records it in
			// status.observedGeneration, then the object is settled again.
			fresh := &KCCWidget{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), fresh))
			fresh.Spec.Size = "large"
			require.NoError(t, env.Client.Update(ctx, fresh))
			for _, wr := range []*directstatus.Writer{restarted, directstatus.NewWriter(c, directstatus.WithClock(clk))} {
				_, err := wr.SetReady(ctx, get(t, name), directstatus.UpToDate())
				require.NoError(t, err)
			}
			if got := c.writes.Load(); got != 3 {
				t.Errorf("status writes after a new generation: want 3, got %d (exactly one more)", got)
			}

			got := &KCCWidget{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
			if got.Status.ObservedGeneration == nil {
				t.Errorf("status.observedGeneration: want %d, got none", got.Generation)
			} else if *got.Status.ObservedGeneration != got.Generation {
				t.Errorf("status.observedGeneration: want %d, got %d", got.Generation, *got.Status.ObservedGeneration)
			}
			want := []kccCondition{{
				Type: "Ready", Status: corev1.ConditionTrue, Reason: directstatus.ReasonUpToDate,
				Message: "Resource is up to date", LastTransitionTime: t0.Format(time.RFC3339),
			}}
			if diff := cmp.Diff(want, got.Status.Conditions); diff != "" {
				t.Errorf("status.conditions: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestTerseCRDSettles writes the Ready condition of an object whose CRD keeps
// only the type and status of a condition: an update takes two writes, and
// then a settled object takes none, from the Writer that wrote it or from a
// new one, although every field but status is pruned from what it wrote.
func TestTerseCRDSettles(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	clk := clocktesting.NewFakePassiveClock(t0)
	gvk := kccGV.WithKind("TerseWidget")
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": "small"}}}
	obj.SetGroupVersionKind(gvk)
	obj.SetNamespace("default")
	obj.SetName("terse")
	require.NoError(t, env.Client.Create(ctx, obj))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
	get := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), u))
		return u
	}
	c := newCountingClient(t, env)
	w := directstatus.NewWriter(c, directstatus.WithClock(clk))

	op, err := w.StartUpdate(ctx, get(), "spec.size")
	require.NoError(t, err)
	require.NoError(t, op.Succeeded(ctx))
	reconcileSettled(t, ctx, get, w, directstatus.NewWriter(c, directstatus.WithClock(clk)))
	if got := c.writes.Load(); got != 2 {
		t.Errorf("status writes: want 2, got %d (Updating and UpToDate)", got)
	}
	want := map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	if diff := cmp.Diff(want, get().Object["status"]); diff != "" {
		t.Errorf("status: -want, +got:\n%s", diff)
	}
}

// reconcileSettled runs three reconciles of a settled object, SetReady
// (UpToDate) of what get reads: two by w, which wrote it last, and one by
// fresh, a Writer just started; none may find anything to write.
func reconcileSettled(t *testing.T, ctx context.Context, get func() *unstructured.Unstructured, w, fresh *directstatus.Writer) {
	t.Helper()
	for i, wr := range []*directstatus.Writer{w, w, fresh} {
		written, err := wr.SetReady(ctx, get(), directstatus.UpToDate())
		require.NoError(t, err)
		if written {
			t.Errorf("SetReady(UpToDate) reconcile %d of a settled object: want no write, got written", i)
		}
	}
}
