package extref

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzMergeRecord resolves merged values into a target whose value and
// record of merged values (the annotation, which whoever writes the
// referencer may forge) are arbitrary: no panic, an error leaves the
// referencer unchanged and does not quote the record, no value reaches a
// protected field or metadata other than the record, and once resolved
// the referencer has settled.
func FuzzMergeRecord(f *testing.F) {
	f.Add(`{"a":1,"l":[1]}`, `{"spec.values":{"f":{"team":{"h":"x"}}}}`)
	f.Add(`[1,2]`, `{"spec.values":{"a":["x","y"]}}`)
	f.Add(`"s"`, `{"spec.values":{"h":"x","w":{"a":1}},"spec.claimRef":{"w":"hunter2"}}`)
	f.Add(`null`, `{"spec.values":{"h":"","w":null,"f":{"":{"a":[""]}}}}`)
	f.Add(`{}`, `{"spec":{"h":"x"},"spec.values.x":{"w":1}}`)
	f.Fuzz(func(t *testing.T, target, record string) {
		var tv any
		if err := json.Unmarshal([]byte(target), &tv); err != nil {
			return
		}
		w := widget(t, "team-a", "w", "externalValues:\n"+
			mergeFrom("defaults", "", "spec.values", "ForceMergeObjectsAppendArrays")+
			strings.Replace(mergeFrom("list-1", "array", "spec.values", "MergeObjectsAppendArrays"), "{toFieldPath:", "{resolution: Optional, toFieldPath:", 1))
		if tv != nil {
			w.Object["spec"].(map[string]any)["values"] = jsonNumbers(tv)
		}
		w.SetAnnotations(map[string]string{MergedAnnotation: record})
		before := w.DeepCopy()
		r := NewResolver(newReader(mergeSources()...), testMapper(), SourcePolicy{})
		out, err := r.Resolve(context.Background(), w)
		if err != nil {
			if !equalObjects(before, w) {
				t.Errorf("Resolve(...) failed (%v) and changed the referencer", err)
			}
			if len(record) >= 8 && strings.Contains(err.Error(), record) {
				t.Errorf("Resolve(...): the error quotes the record: %v", err)
			}
			return
		}
		if !out.Changed && !equalObjects(before, w) {
			t.Errorf("Resolve(...) changed the referencer without reporting a change")
		}
		spec := w.Object["spec"].(map[string]any)
		for k := range spec {
			if k != "externalValues" && k != "values" {
				t.Errorf("Resolve(...) wrote spec.%s, which no value targets", k)
			}
		}
		for k := range w.GetAnnotations() {
			if k != MergedAnnotation {
				t.Errorf("Resolve(...) wrote the annotation %s", k)
			}
		}
		settled := w.DeepCopy()
		if out, err := r.Resolve(context.Background(), w); err != nil || out.Changed || !equalObjects(settled, w) {
			t.Errorf("Resolve(...) of a settled referencer: changed=%t, err %v, want no change", out.Changed, err)
		}
	})
}
