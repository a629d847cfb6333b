package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestNameFromReferencer takes a source's name and namespace from fields of
// the referencer: one spec serves every tenant, the policy applies to the
// namespace found there as to one written in the spec, and a field that
// holds no usable string is an error naming the external value and the
// field, never what the field holds.
func TestNameFromReferencer(t *testing.T) {
	const leak = "LEAKED-VALUE"
	objs := []*unstructured.Unstructured{
		configMap("team-a", "tenant-1", map[string]any{"region": "eu-west-1"}),
		configMap("team-a", "tenant-2", map[string]any{"region": "us-east-1"}),
		configMap("team-b", "tenant-1", map[string]any{"region": "ap-south-1"}),
	}
	const refs = `
- fromObject: {version: v1, resource: configmaps, nameFromFieldPath: spec.tenant, fieldPath: data.region}
  toFieldPath: spec.out`
	const nsRefs = `
- fromObject: {version: v1, resource: configmaps, nameFromFieldPath: spec.tenant, namespaceFromFieldPath: spec.home, fieldPath: data.region}
  toFieldPath: spec.out`
	teamB := SourcePolicy{Allow: []SourceRule{{Name: "team-b", Resource: "configmaps", Namespaces: []string{"team-b"}}}}
	cases := map[string]struct {
		reason string
		policy SourcePolicy
		spec   string
		want   string
		err    error
		msg    string
	}{
		"Tenant1":   {reason: "The name is the referencer's field.", spec: "tenant: tenant-1\nexternalValues:" + refs, want: "eu-west-1"},
		"Tenant2":   {reason: "The same spec, another tenant.", spec: "tenant: tenant-2\nexternalValues:" + refs, want: "us-east-1"},
		"Namespace": {reason: "An allowed namespace from the referencer.", policy: teamB, spec: "tenant: tenant-1\nhome: team-b\nexternalValues:" + nsRefs, want: "ap-south-1"},
		"NamespaceDenied": {
			reason: "The policy applies to a namespace from the referencer as to a literal one.",
			spec:   "tenant: tenant-1\nhome: team-b\nexternalValues:" + nsRefs,
			err:    ErrDenied,
			msg:    `cannot resolve spec.externalValues[0].fromObject (configmaps team-b/tenant-1, data.region): denied by the default source policy: only the referencer's namespace "team-a" is readable unless an allow rule matches namespace "team-b"`,
		},
		"Missing": {
			reason: "A missing field is an error naming it.",
			spec:   "externalValues:" + refs,
			err:    ErrFieldNotFound,
			msg:    "cannot resolve spec.externalValues[0].fromObject (configmaps (spec.tenant), data.region): field not found: nameFromFieldPath: the referencer has no value at spec.tenant",
		},
		"Empty": {
			reason: "An empty field is an error naming it.",
			spec:   "tenant: ''\nexternalValues:" + refs,
			err:    ErrFieldNotFound,
			msg:    "nameFromFieldPath: the referencer's spec.tenant is empty",
		},
		"NotAString": {
			reason: "A field of another type is described, not quoted.",
			spec:   "tenant: {a: " + leak + "}\nexternalValues:" + refs,
			err:    ErrFieldNotFound,
			msg:    "nameFromFieldPath: the referencer's spec.tenant is an object of 1 field, not a string",
		},
		"TooLong": {
			reason: "A string that is no object name is described by its size.",
			spec:   "tenant: " + strings.Repeat("a", 300) + leak + "\nexternalValues:" + refs,
			err:    ErrFieldNotFound,
			msg:    "nameFromFieldPath: the referencer's spec.tenant is not an object name (a string of 312 bytes)",
		},
		"Slash": {
			reason: "A name with a slash is refused.",
			spec:   "tenant: a/" + leak + "\nexternalValues:" + refs,
			err:    ErrFieldNotFound,
			msg:    "is not an object name (a string of 14 bytes)",
		},
		"BadNamespace": {
			reason: "A namespace that is no DNS label is refused.",
			spec:   "tenant: tenant-1\nhome: " + leak + "\nexternalValues:" + nsRefs,
			err:    ErrFieldNotFound,
			msg:    "namespaceFromFieldPath: the referencer's spec.home is not a namespace name (a string of 12 bytes)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := widget(t, "team-a", "w", tc.spec)
			_, err := NewResolver(listingReader(objs...), testMapper(), tc.policy).Resolve(t.Context(), w)
			if tc.err == nil {
				require.NoError(t, err, tc.reason)
				if got, _, _ := unstructured.NestedString(w.Object, "spec", "out"); got != tc.want {
					t.Errorf("%s\nspec.out: want %q, got %q", tc.reason, tc.want, got)
				}
				return
			}
			if !errors.Is(err, tc.err) {
				t.Fatalf("%s\nerror %v: want %v", tc.reason, err, tc.err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s\nerror: want it to hold %q, got %q", tc.reason, tc.msg, err)
			}
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%s\nerror quotes the referencer's value: %q", tc.reason, err)
			}
		})
	}

	t.Run("Optional", func(t *testing.T) {
		w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, nameFromFieldPath: spec.tenant, fieldPath: data.region}
  toFieldPath: spec.out
  policy: {resolution: Optional}`)
		out, err := NewResolver(listingReader(objs...), testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
		require.NoError(t, err)
		if len(out.Skipped) != 1 || !errors.Is(out.Skipped[0], ErrFieldNotFound) {
			t.Errorf("skipped: want the value, its field not found, got %v", out.Skipped)
		}
	})

	t.Run("LabelValueNotQuoted", func(t *testing.T) {
		w := widget(t, "team-a", "w", `
team: "`+strings.Repeat("b", 100)+leak+`"
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: team, valueFromFieldPath: spec.team}]}, fieldPath: data.region}
  toFieldPath: spec.out`)
		_, err := NewResolver(listingReader(objs...), testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
		if !errors.Is(err, ErrFieldNotFound) || !strings.Contains(err.Error(), "selector.matchLabels[0].valueFromFieldPath: the referencer's spec.team is not a label value (a string of 112 bytes)") {
			t.Errorf("error: want a label value refused by its size, got %v", err)
		}
		if strings.Contains(err.Error(), leak) {
			t.Errorf("error quotes the referencer's value: %q", err)
		}
	})
}
