package extref

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
			out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(context.Background(), w)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("fieldPath %s, policy %s: want ErrInvalid, got %v", path, policy, err)
				continue
			}
			require.Contains(t, err.Error(), "cannot resolve spec.externalValues[0].fromObject.fieldPath", "the error names the reference")
			require.Contains(t, err.Error(), "changes whenever its object is written")
			require.False(t, out.Changed)
			require.Equal(t, before, w, "nothing changed")
			require.Equal(t, 0, reader.reads(), "nothing read")
		}
	}
	for _, path := range allowed {
		if err := checkVolatile(path); err != nil {
			t.Errorf("fieldPath %s: want no error, got %v", path, err.err)
		}
	}
}
