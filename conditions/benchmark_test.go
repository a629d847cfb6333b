package conditions

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// benchConditions returns n conditions of distinct types.
func benchConditions(n int) []metav1.Condition {
	out := make([]metav1.Condition, n)
	for i := range out {
		out[i] = metav1.Condition{
			Type: fmt.Sprintf("Condition%02dReady", i), Status: metav1.ConditionTrue, Reason: "Available",
			Message: "all good", LastTransitionTime: t0, ObservedGeneration: 3,
		}
	}
	return out
}

// BenchmarkSetNoChange sets the last of 10 conditions to what it already is:
// the common case of a settled reconcile. It must not allocate.
func BenchmarkSetNoChange(b *testing.B) {
	conds := benchConditions(10)
	c := conds[9]
	b.ReportAllocs()
	for b.Loop() {
		if Set(&conds, c) {
			b.Fatal("changed")
		}
	}
}

// BenchmarkMetaSetStatusConditionNoChange is apimachinery's equivalent, the
// figure BenchmarkSetNoChange must not be slower than.
func BenchmarkMetaSetStatusConditionNoChange(b *testing.B) {
	conds := benchConditions(10)
	c := conds[9]
	b.ReportAllocs()
	for b.Loop() {
		if meta.SetStatusCondition(&conds, c) {
			b.Fatal("changed")
		}
	}
}

// BenchmarkSetStatusChange flips the status of the last of 10 conditions.
func BenchmarkSetStatusChange(b *testing.B) {
	conds := benchConditions(10)
	s := fakeSetter()
	c := [2]metav1.Condition{conds[9], conds[9]}
	c[1].Status = metav1.ConditionFalse
	c[0].LastTransitionTime, c[1].LastTransitionTime = metav1.Time{}, metav1.Time{}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i ^= 1
		s.Set(&conds, c[i])
	}
}

func BenchmarkEqual(b *testing.B) {
	a, c := benchConditions(10), benchConditions(10)
	c[0], c[9] = c[9], c[0] // not in the same order
	b.ReportAllocs()
	for b.Loop() {
		if !Equal(a, c) {
			b.Fatal("not equal")
		}
	}
}

func BenchmarkSetUnstructuredNoChange(b *testing.B) {
	conds := benchConditions(10)
	u := object(map[string]any{"conditions": entries(conds...)})
	c := conds[9]
	b.ReportAllocs()
	for b.Loop() {
		if changed, err := SetUnstructured(u, c); changed || err != nil {
			b.Fatal(changed, err)
		}
	}
}

func BenchmarkFromUnstructured(b *testing.B) {
	u := object(map[string]any{"conditions": entries(benchConditions(10)...)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromUnstructured(u); err != nil {
			b.Fatal(err)
		}
	}
}

// propagateBench returns an XR with 20 conditions, all listed for its claim,
// and a claim that already shows them.
func propagateBench() (xr, claim *unstructured.Unstructured) {
	conds := benchConditions(20)
	types := make([]string, len(conds))
	for i := range conds {
		types[i] = conds[i].Type
	}
	xr = xrObject(conds, strs(types...), nil)
	claim = claimObject(nil, nil)
	if _, err := Propagate(xr, claim); err != nil {
		panic(err)
	}
	return xr, claim
}

// BenchmarkPropagateNoChange propagates 20 conditions to a claim that already
// shows them: a settled reconcile.
func BenchmarkPropagateNoChange(b *testing.B) {
	xr, claim := propagateBench()
	b.ReportAllocs()
	for b.Loop() {
		if changed, err := Propagate(xr, claim); changed || err != nil {
			b.Fatal(changed, err)
		}
	}
}

// BenchmarkPropagateOneChange propagates 20 conditions of which one changed
// status since the last pass.
func BenchmarkPropagateOneChange(b *testing.B) {
	xr, claim := propagateBench()
	list := xr.Object["status"].(map[string]any)["conditions"].([]any)
	last := list[len(list)-1].(map[string]any)
	statuses := [2]string{"False", "True"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		last["status"] = statuses[i]
		i ^= 1
		if changed, err := Propagate(xr, claim); !changed || err != nil {
			b.Fatal(changed, err)
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	conds := benchConditions(10)
	conds[4].Status = metav1.ConditionFalse
	b.ReportAllocs()
	for b.Loop() {
		Summarize(TypeReady, conds, NegativePolarity{"Stalled"}, ObservedGeneration(3))
	}
}

func BenchmarkValidate(b *testing.B) {
	c := metav1.Condition{Type: "example.com/DatabaseReady", Status: metav1.ConditionTrue, Reason: "Available", Message: "ok"}
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAggregate(b *testing.B) {
	sources := make([]Source, 100)
	for i := range sources {
		sources[i] = Source{Name: "Deployment w", Conditions: benchConditions(3)}
	}
	sources[7].Conditions[0].Status = metav1.ConditionFalse
	b.ReportAllocs()
	for b.Loop() {
		Aggregate("WorkloadsReady", sources[0].Conditions[0].Type, sources)
	}
}

// BenchmarkPropagateSyncedNoChange shows a failed XR's Synced on a claim that
// already shows it, both with 20 conditions: a settled reconcile.
func BenchmarkPropagateSyncedNoChange(b *testing.B) {
	xr, claim := propagateBench()
	for _, u := range []*unstructured.Unstructured{xr, claim} {
		if _, err := SetUnstructured(u, metav1.Condition{Type: TypeSynced, Status: metav1.ConditionFalse, Reason: "ReconcileError", Message: "cannot compose resources", ObservedGeneration: 1}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := PropagateSynced(xr, claim); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if changed, err := PropagateSynced(xr, claim); changed || err != nil {
			b.Fatal(changed, err)
		}
	}
}

// BenchmarkHealth judges 10 conditions and 10 composed resources, one bad.
func BenchmarkHealth(b *testing.B) {
	conds := benchConditions(10)
	composed := make([]Source, 10)
	for i := range composed {
		composed[i] = Source{Name: fmt.Sprintf("Deployment d%d", i), Conditions: benchConditions(1)}
		composed[i].Conditions[0].Type = TypeReady
	}
	composed[3].Conditions[0].Status = metav1.ConditionFalse
	b.ReportAllocs()
	for b.Loop() {
		Health(conds, composed, ObservedGeneration(3))
	}
}
