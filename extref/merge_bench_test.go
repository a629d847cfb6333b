package extref

import (
	"context"
	"testing"
)

// BenchmarkResolveMerged resolves a settled referencer with two values
// merged into one target, one appending arrays: the settled path of a
// merged target (undo, merge, record, compare), which writes nothing.
func BenchmarkResolveMerged(b *testing.B) {
	w := widget(b, "team-a", "w", "externalValues:\n"+
		mergeFrom("defaults", "", "spec.values", "ForceMergeObjects")+
		mergeFrom("overrides", "", "spec.values", "ForceMergeObjects")+
		mergeFrom("list-1", "array", "spec.list", "MergeObjectsAppendArrays")+
		"values: {own: 1}\nlist: [w]\n")
	r := NewResolver(newReader(mergeSources()...), testMapper(), SourcePolicy{})
	ctx := context.Background()
	if _, err := r.Resolve(ctx, w); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := r.Resolve(ctx, w)
		if err != nil || out.Changed {
			b.Fatalf("Resolve(a settled referencer): changed %v, error %v", out.Changed, err)
		}
	}
}
