package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVolatileSources refuses, as malformed, every source field that
// changes whenever its object is written, and every path that holds one,
// however it is spelled and whatever the policy; nothing is read or changed.
func TestVolatileSources(t *testing.T) {
	refused := []string{
		"metadata.resourceVersion",
		"metadata[resourceVersion]",
		"metadata['resourceVersion']",
		`[metadata]["generation"]`,
		"metadata.generation",
		"metadata.managedFields",
		"metadata.managedFields[0].time",
		"metadata.managedFields[0]",
		"metadata",
		"[metadata]",
		"status",
		"status.observedGeneration",
		"status.conditions",
		"status.conditions[0]",
		"status.conditions[3].observedGeneration",
	}
	allowed := []string{
		"metadata.name",
		"metadata.uid",
		"metadata.labels[team]",
		"metadata.annotations[metadata.generation]",
		"status.atProvider.arn",
		"status.conditions[0].reason",
		"spec.metadata.generation",
		"data.status",
	}
	for _, path := range refused {
		for _, policy := range []string{"{resolve: Always}", "{resolve: Always, resolution: Optional}"} {
			w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: widgets, name: w, fieldPath: "`+strings.ReplaceAll(path, `"`, `\"`)+`"}
  toFieldPath: spec.forProvider.region
  policy: `+policy)
			reader := newReader(w)
			before := w.DeepCopy()
			out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("fieldPath %s, policy %s: want ErrInvalid, got %v", path, policy, err)
				continue
			}
			for _, want := range []string{"cannot resolve spec.externalValues[0].fromObject.fieldPath", "changes whenever its object is written"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("fieldPath %s, policy %s: want it to contain %q, got error %q", path, policy, want, err)
				}
			}
			if out.Changed {
				t.Errorf("fieldPath %s, policy %s: want nothing changed, got Changed", path, policy)
			}
			if diff := cmp.Diff(before, w); diff != "" {
				t.Errorf("fieldPath %s, policy %s: the referencer changed: -want, +got:\n%s", path, policy, diff)
			}
			if n := reader.reads(); n != 0 {
				t.Errorf("fieldPath %s, policy %s: want none, got %d reads", path, policy, n)
			}
		}
	}
	for _, path := range allowed {
		if err := checkVolatile(path); err != nil {
			t.Errorf("fieldPath %s: want no error, got %v", path, err.err)
		}
	}
}
