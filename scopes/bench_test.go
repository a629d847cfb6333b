package scopes

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// benchScope returns a HealthScope holding n references at spec.workloadRefs,
// the last one to "w<n-1>".
func benchScope(n int) *unstructured.Unstructured {
	list := make([]any, n)
	for i := range list {
		list[i] = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": fmt.Sprintf("w%d", i)}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.oam.dev/v1alpha2", "kind": "HealthScope",
		"metadata": map[string]any{"name": "hs", "namespace": "default"},
		"spec":     map[string]any{"workloadRefs": list},
	}}
}

func BenchmarkAddWorkloadRef(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		// A reconcile of a settled application: the reference is there.
		b.Run(fmt.Sprintf("Present/refs=%d", n), func(b *testing.B) {
			scope := benchScope(n)
			ref := WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: fmt.Sprintf("w%d", n-1)}
			b.ReportAllocs()
			for b.Loop() {
				if changed, err := AddWorkloadRef(scope, "spec.workloadRefs", ref); err != nil || changed {
					b.Fatal(changed, err)
				}
			}
		})
		// Adding a new reference, and removing it again to restore the scope.
		b.Run(fmt.Sprintf("AddThenRemove/refs=%d", n), func(b *testing.B) {
			scope := benchScope(n)
			ref := WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "new"}
			b.ReportAllocs()
			for b.Loop() {
				if changed, err := AddWorkloadRef(scope, "spec.workloadRefs", ref); err != nil || !changed {
					b.Fatal(changed, err)
				}
				if changed, err := RemoveWorkloadRef(scope, "spec.workloadRefs", ref); err != nil || !changed {
					b.Fatal(changed, err)
				}
			}
		})
	}
}

func BenchmarkRemoveWorkloadRef(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		// A reconcile after the removal: the reference is gone already.
		b.Run(fmt.Sprintf("Absent/refs=%d", n), func(b *testing.B) {
			scope := benchScope(n)
			ref := WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "absent"}
			b.ReportAllocs()
			for b.Loop() {
				if changed, err := RemoveWorkloadRef(scope, "spec.workloadRefs", ref); err != nil || changed {
					b.Fatal(changed, err)
				}
			}
		})
	}
}

// BenchmarkChildResources measures the filtering, walking and sorting of
// ChildResources over listed objects (memReader returns them without
// copying; listing from a cache or the API server costs more, and is the
// same for any implementation).
func BenchmarkChildResources(b *testing.B) {
	for _, total := range []int{100, 1000} {
		r := &memReader{}
		owned := 0
		for i := range total {
			owner := "other!"
			if i%100 == 0 {
				owner = "W!"
				owned++
			}
			d := object("apps/v1", "Deployment", "prod", fmt.Sprintf("d%04d", i), fmt.Sprintf("d%d", i), nil, owner)
			rs := object("apps/v1", "ReplicaSet", "prod", fmt.Sprintf("d%04d-1", i), fmt.Sprintf("r%d", i), nil, fmt.Sprintf("d%d!", i))
			r.add(d, rs)
		}
		w := object("x/v1", "W", "prod", "w", "W", nil)
		b.Run(fmt.Sprintf("OneLevel/objects=%d/owned=%d", 2*total, owned), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, err := ChildResources(context.Background(), r, w, []ChildResourceKind{deployments, replicaSets})
				if err != nil || len(got) != owned {
					b.Fatal(len(got), err)
				}
			}
		})
		b.Run(fmt.Sprintf("TwoLevels/objects=%d/owned=%d", 2*total, 2*owned), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, err := ChildResources(context.Background(), r, w, []ChildResourceKind{deployments, replicaSets}, Depth(2))
				if err != nil || len(got) != 2*owned {
					b.Fatal(len(got), err)
				}
			}
		})
	}
}
