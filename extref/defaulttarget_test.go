package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDefaultTarget checks that fromObject's toFieldPath defaults to its
// fieldPath where that is a field a value may be written to, and is
// refused, naming why, where it is not (metadata other than one label or
// annotation, status, a protected field, the external values).
func TestDefaultTarget(t *testing.T) {
	source := object(configMapKind, "team-a", "peer", map[string]any{
		"spec":     map[string]any{"forProvider": map[string]any{"region": "eu-west-1"}, "claimRef": map[string]any{"name": "x"}},
		"metadata": map[string]any{"labels": map[string]any{"team": "a"}},
		"status":   map[string]any{"phase": "Ready"},
	})
	source.SetGroupVersionKind(configMapKind)
	source.SetNamespace("team-a")
	source.SetName("peer")
	from := func(path string) string {
		return "- fromObject: {version: v1, resource: configmaps, name: peer, fieldPath: '" + path + "'}\n"
	}
	cases := map[string]struct {
		reason string
		spec   string
		want   map[string]any // spec after, without externalValues
		labels map[string]string
		err    string
	}{
		"SamePath": {
			reason: "A field under spec goes to the same field of the referencer.",
			spec:   from("spec.forProvider.region"),
			want:   map[string]any{"forProvider": map[string]any{"region": "eu-west-1"}},
		},
		"Label": {
			reason: "One label goes to the same label.",
			spec:   from("metadata.labels[team]"),
			labels: map[string]string{"team": "a"},
		},
		"Status": {
			reason: "status is not a target.",
			spec:   from("status.phase"),
			err:    `omitted, so it is fromObject's fieldPath "status.phase", which is not a target: a value may be written only under spec, or to a label or an annotation`,
		},
		"Protected": {
			reason: "A protected field is not a target.",
			spec:   from("spec.claimRef.name"),
			err:    "a field protected from external values",
		},
		"ExternalValues": {
			reason: "The external values are not a target.",
			spec:   from("spec.externalValues"),
			err:    "where the external values are",
		},
		"MakeAvailableAs": {
			reason: "makeAvailableAs takes no target.",
			spec:   from("status.phase") + "  makeAvailableAs: phase\n",
			want:   map[string]any{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := widget(t, "team-a", "w", "externalValues:\n"+tc.spec)
			_, err := NewResolver(newReader(source), testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
			if tc.err != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%s\nResolve(...): want ErrInvalid holding %q, got %v", tc.reason, tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nResolve(...): %v", tc.reason, err)
			}
			spec := w.Object["spec"].(map[string]any)
			delete(spec, "externalValues")
			if tc.want == nil {
				tc.want = map[string]any{}
			}
			if diff := cmp.Diff(tc.want, spec); diff != "" {
				t.Errorf("%s\nspec: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.labels != nil {
				if diff := cmp.Diff(tc.labels, w.GetLabels()); diff != "" {
					t.Errorf("%s\nlabels: -want, +got:\n%s", tc.reason, diff)
				}
			}
		})
	}
}
