package fielddiff_test

import (
	"fmt"
	"testing"

	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/fielddiff/internal/testpb"
)

// bigObject returns unstructured content with items*fields leaf fields under
// spec.items, and a copy of it with the leaf at (item, field) changed, or
// every leaf changed when item is negative.
func bigObject(items, fields, item, field int) (desired, actual map[string]any) {
	build := func(change func(i, j int) bool) map[string]any {
		list := make([]any, items)
		for i := range list {
			m := make(map[string]any, fields)
			for j := range fields {
				v := any(fmt.Sprintf("value-%d-%d", i, j))
				if change(i, j) {
					v = "changed"
				}
				m[fmt.Sprintf("f%03d", j)] = v
			}
			list[i] = m
		}
		return map[string]any{"spec": map[string]any{"items": list}}
	}
	desired = build(func(int, int) bool { return false })
	actual = build(func(i, j int) bool { return item < 0 || i == item && j == field })
	return desired, actual
}

type benchItem struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Size        int64             `json:"size"`
	Enabled     bool              `json:"enabled"`
	Zone        string            `json:"zone"`
	Labels      map[string]string `json:"labels,omitempty"`
}

type benchSpec struct {
	Items []benchItem `json:"items"`
}

// bigStruct returns a typed spec with n items of 10 fields each (5 scalars and
// 5 labels), and a copy with item changed's size changed.
func bigStruct(n, changed int) (desired, actual *benchSpec) {
	build := func(change bool) *benchSpec {
		s := &benchSpec{Items: make([]benchItem, n)}
		for i := range s.Items {
			s.Items[i] = benchItem{
				Name: fmt.Sprintf("item-%d", i), Description: "an item", Size: int64(i), Enabled: true, Zone: "eu-1",
				Labels: map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"},
			}
			if change && i == changed {
				s.Items[i].Size = -1
			}
		}
		return s
	}
	return build(false), build(true)
}

// bigProto returns a Cluster with n node pools of 10 fields each (name, size
// and 8 labels), and a copy with pool changed's size changed.
func bigProto(n, changed int) (desired, actual *testpb.Cluster) {
	build := func(change bool) *testpb.Cluster {
		c := &testpb.Cluster{Name: "c"}
		for i := range n {
			p := &testpb.NodePool{Name: fmt.Sprintf("pool-%d", i), Size: int32(i), Labels: map[string]string{}}
			for j := range 8 {
				p.Labels[fmt.Sprintf("l%d", j)] = "v"
			}
			if change && i == changed {
				p.Size = -1
			}
			c.NodePools = append(c.NodePools, p)
		}
		return c
	}
	return build(false), build(true)
}

// The objects have 10,000 leaf fields and, but for the full diffs, one change
// in the first 1 %, or in the last field for the FullWalk cases, which
// FirstChangedField reaches only after comparing every other field.
func BenchmarkFirstChangedField(b *testing.B) {
	ud, ua := bigObject(100, 100, 0, 50)
	sd, sa := bigStruct(1000, 5)
	pd, pa := bigProto(1000, 5)
	uld, ula := bigObject(100, 100, 99, 99)
	sld, sla := bigStruct(1000, 999)
	pld, pla := bigProto(1000, 999)
	cases := map[string]struct{ desired, actual any }{
		"Unstructured":         {ud, ua},
		"Struct":               {sd, sa},
		"Proto":                {pd, pa},
		"UnstructuredFullWalk": {uld, ula},
		"StructFullWalk":       {sld, sla},
		"ProtoFullWalk":        {pld, pla},
	}
	for name, tc := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, changed, err := fielddiff.FirstChangedField(tc.desired, tc.actual); err != nil || !changed {
					b.Fatalf("FirstChangedField: %t, %v", changed, err)
				}
			}
		})
	}
}

func BenchmarkChangedFields(b *testing.B) {
	ud, ua := bigObject(100, 100, 0, 50)
	fd, fa := bigObject(100, 100, -1, 0)
	sd, sa := bigStruct(1000, 5)
	pd, pa := bigProto(1000, 5)
	cases := map[string]struct {
		desired, actual any
		want            int
	}{
		"UnstructuredOneChange":  {ud, ua, 1},
		"UnstructuredAllChanged": {fd, fa, 10000},
		"StructOneChange":        {sd, sa, 1},
		"ProtoOneChange":         {pd, pa, 1},
	}
	for name, tc := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := fielddiff.ChangedFields(tc.desired, tc.actual); err != nil || len(got) != tc.want {
					b.Fatalf("ChangedFields: %d paths, %v", len(got), err)
				}
			}
		})
	}
}

// BenchmarkCompare is ChangedFields' walk with each change's values written
// out: one change, or every one of 10,000 (of which a Diff keeps
// MaxChanges).
func BenchmarkCompare(b *testing.B) {
	ud, ua := bigObject(100, 100, 0, 50)
	fd, fa := bigObject(100, 100, -1, 0)
	sd, sa := bigStruct(1000, 5)
	pd, pa := bigProto(1000, 5)
	cases := map[string]struct {
		desired, actual any
		want            int
	}{
		"UnstructuredOneChange":  {ud, ua, 1},
		"UnstructuredAllChanged": {fd, fa, fielddiff.MaxChanges},
		"StructOneChange":        {sd, sa, 1},
		"ProtoOneChange":         {pd, pa, 1},
	}
	for name, tc := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := fielddiff.Compare(tc.desired, tc.actual); err != nil || len(got.Changes) != tc.want {
					b.Fatalf("Compare: %d changes, %v", len(got.Changes), err)
				}
			}
		})
	}
}
