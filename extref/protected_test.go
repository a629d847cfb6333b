package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestResolveProtectedTargets(t *testing.T) {
	const cm = `{version: v1, resource: configmaps, name: settings, fieldPath: data.region}`
	const prefix = `cannot resolve spec.externalValues[0].toFieldPath: invalid external value: `
	cases := map[string]struct {
		reason string
		opts   []ResolverOption
		target string
		want   string // the error message; none when the target may be written
	}{
		"ClaimRef": {
			reason: "A value may not rebind a legacy XR to another claim.",
			target: "spec.claimRef",
			want:   prefix + `"spec.claimRef": overlaps spec.claimRef, a field protected from external values`,
		},
		"UnderResourceRefs": {
			reason: "A value may not make an XR adopt a resource, even through one field of a reference.",
			target: "spec.resourceRefs[0].name",
			want:   prefix + `"spec.resourceRefs[0].name": overlaps spec.resourceRefs, a field protected from external values`,
		},
		"ConnectionSecretInBrackets": {
			reason: "A protected field is found whatever the path's notation.",
			target: "spec[writeConnectionSecretToRef][namespace]",
			want:   prefix + `"spec[writeConnectionSecretToRef][namespace]": overlaps spec.writeConnectionSecretToRef, a field protected from external values`,
		},
		"CrossplaneStanza": {
			reason: "A Crossplane v2 XR keeps its machinery under spec.crossplane.",
			target: "spec.crossplane.compositionRef.name",
			want:   prefix + `"spec.crossplane.compositionRef.name": overlaps spec.crossplane, a field protected from external values`,
		},
		"CompositionSelector": {
			reason: "A value may not choose an XR's composition.",
			target: "spec.compositionSelector.matchLabels[provider]",
			want:   prefix + `"spec.compositionSelector.matchLabels[provider]": overlaps spec.compositionSelector, a field protected from external values`,
		},
		"ResourceRef": {
			reason: "A value may not rebind a claim to another XR.",
			target: "spec.resourceRef",
			want:   prefix + `"spec.resourceRef": overlaps spec.resourceRef, a field protected from external values`,
		},
		"SimilarName": {
			reason: "Only the protected field itself and what lies under it are protected, not a field whose name begins the same.",
			target: "spec.claimRefs",
		},
		"OrdinaryField": {
			reason: "Fields of the referencer's own API may be written.",
			target: "spec.forProvider.region",
		},
		"NothingProtected": {
			reason: "ProtectedFields with no fields protects nothing.",
			opts:   []ResolverOption{ProtectedFields()},
			target: "spec.claimRef.name",
		},
		"OwnList": {
			reason: "ProtectedFields replaces the default list.",
			opts:   []ResolverOption{ProtectedFields("spec.forProvider.region", "metadata.labels[crossplane.io/claim-name]")},
			target: "spec.forProvider",
			want:   prefix + `"spec.forProvider": overlaps spec.forProvider.region, a field protected from external values`,
		},
		"OwnListLabel": {
			reason: "A label may be protected.",
			opts:   []ResolverOption{ProtectedFields("metadata.labels[crossplane.io/claim-name]")},
			target: "metadata[labels][crossplane.io/claim-name]",
			want:   prefix + `"metadata[labels][crossplane.io/claim-name]": overlaps metadata.labels[crossplane.io/claim-name], a field protected from external values`,
		},
		"OwnListAllowsDefault": {
			reason: "A field left out of the caller's list may be written.",
			opts:   []ResolverOption{ProtectedFields("spec.forProvider.region")},
			target: "spec.claimRef.name",
		},
		"InvalidProtectedField": {
			reason: "A protected field that is not a field path makes every Resolve fail.",
			opts:   []ResolverOption{ProtectedFields("spec[claimRef")},
			target: "spec.forProvider.region",
			want:   `cannot resolve spec.externalValues: invalid external value: the resolver's protected field "spec[claimRef": `,
		},
		"WildcardProtectedField": {
			reason: "A protected field may not hold a wildcard.",
			opts:   []ResolverOption{ProtectedFields("spec.refs[*]")},
			target: "spec.forProvider.region",
			want:   `cannot resolve spec.externalValues: invalid external value: the resolver's protected field "spec.refs[*]": wildcards are not allowed`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reader := newReader(configMap("team-a", "settings", map[string]any{"region": "eu-west-1"}))
			w := widget(t, "team-a", "w", "externalValues:\n- fromObject: "+cm+"\n  toFieldPath: '"+tc.target+"'")
			before := runtime.DeepCopyJSON(w.Object)
			out, err := NewResolver(reader, testMapper(), SourcePolicy{}, tc.opts...).Resolve(t.Context(), w)
			if tc.want == "" {
				if err != nil || !out.Changed {
					t.Errorf("%s\nResolve(...): want the value written, got %+v, %v", tc.reason, out, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%s\nResolve(...): want an error wrapping ErrInvalid, got %v", tc.reason, err)
			}
			got := err.Error()
			if strings.HasSuffix(tc.want, ": ") { // the rest comes from fieldpath
				got = got[:min(len(got), len(tc.want))]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nResolve(...): -want, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before, w.Object); diff != "" || out.Changed || out.Values != nil {
				t.Errorf("%s\nResolve(...): a protected target must change nothing, got %+v and -before, +after:\n%s", tc.reason, out, diff)
			}
			if reader.reads() != 0 {
				t.Errorf("%s\na protected target must be found before any read, got %d reads", tc.reason, reader.reads())
			}
		})
	}
}
