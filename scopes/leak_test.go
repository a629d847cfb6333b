package scopes

import (
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/internal/leaktest"
)

// The marker planted in scopes and definitions. No error, and no skipped
// entry's reason, may hold 4 bytes in a row of it: they name paths and the
// type and size of a value, never its content, since a controller puts them
// into conditions and events.
const (
	markerString = leaktest.String
	markerDigits = leaktest.Digits
)

// markerJSON are planted values as JSON: every type, and containers of the
// marker.
var markerJSON = []string{
	`"` + markerString + `"`,
	markerDigits,
	markerDigits + `.5`,
	`true`,
	`{"k":"` + markerString + `","n":` + markerDigits + `}`,
	`["` + markerString + `",` + markerDigits + `,true]`,
	`[{"apiVersion":"` + markerString + `","kind":` + markerDigits + `}]`,
}

func TestNoErrorQuotesAValue(t *testing.T) {
	ctx := t.Context()
	ref := WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	for _, v := range markerJSON {
		// At the reference path, on the way to it, and as its entries.
		for _, spec := range []string{
			`{"workloadRefs":` + v + `}`,
			`{"workloadRefs":[` + v + `,` + v + `]}`,
			`{"workloadRefs":{"nested":` + v + `}}`,
			`{"workloadRefs":[{"apiVersion":` + v + `,"kind":` + v + `,"name":` + v + `}]}`,
			v,
		} {
			for _, path := range []string{"spec.workloadRefs", "spec.workloadRefs.nested", "spec.workloadRefs[0].name", "spec.workloadRefs.k.x"} {
				scope := scopeOf(t, spec)
				_, err := WorkloadRefs(scope, path)
				leaktest.Check(t, "WorkloadRefs "+path+" of "+spec, err)
				_, err = AddWorkloadRef(scopeOf(t, spec), path, ref)
				leaktest.Check(t, "AddWorkloadRef "+path+" of "+spec, err)
				_, err = RemoveWorkloadRef(scopeOf(t, spec), path, ref)
				leaktest.Check(t, "RemoveWorkloadRef "+path+" of "+spec, err)

				if strings.HasPrefix(v, `"`) && strings.Contains(spec, `"name":`) {
					// A well-formed reference: its apiVersion, kind and
					// name name the workload, which Locate's errors do.
					continue
				}
				var skipped []SkippedEntry
				_, err = Locate(ctx, &memReader{}, testMapper(), scopeOf(t, spec), AtPath(path), ReportSkipped(&skipped))
				leaktest.Check(t, "Locate "+path+" of "+spec, err)
				for _, s := range skipped {
					if l := leaktest.Find(s.String()); l != "" {
						t.Errorf("Locate %s of %s: skipped entry quotes %q of a planted value: %s", path, spec, l, s)
					}
				}
			}
		}

		// In the definitions.
		for _, spec := range []string{
			`{"workloadRefPath":` + v + `}`,
			`{"workloadRefsPath":` + v + `}`,
			`{"workloadRefPath":` + v + `,"allowComponentOverlap":` + v + `}`,
			`{"workloadRefPath":"spec.workloadRefs","allowComponentOverlap":` + v + `}`,
			`{"childResourceKinds":` + v + `}`,
			`{"childResourceKinds":[` + v + `]}`,
			`{"childResourceKinds":[{"apiVersion":` + v + `,"kind":"Service"}]}`,
			`{"childResourceKinds":[{"apiVersion":"v1","kind":` + v + `}]}`,
			`{"childResourceKinds":[{"apiVersion":"v1","kind":"Service","selector":` + v + `}]}`,
			v,
		} {
			def := definition("ScopeDefinition", "healthscopes.core.oam.dev", spec)
			_, _, err := refPath(def)
			leaktest.Check(t, "refPath of "+spec, err)
			_, err = allowOverlap(def)
			leaktest.Check(t, "allowOverlap of "+spec, err)
			_, err = ChildResourceKinds(definition("WorkloadDefinition", "example-workload.oam.dev", spec))
			leaktest.Check(t, "ChildResourceKinds of "+spec, err)
			_, err = Locate(ctx, (&memReader{}).add(def), testMapper(), scopeOf(t, `{"workloadRefs":[]}`))
			leaktest.Check(t, "Locate with "+spec, err)
		}
	}

	// An apiVersion that does not parse, and one with a marker but no kind.
	for _, k := range []ChildResourceKind{
		{APIVersion: markerString + "/v1/x", Kind: "Service"},
		{APIVersion: "a/" + markerString + "/" + markerString, Kind: markerString},
		{APIVersion: markerString + "/v1"},
		{Kind: markerString},
	} {
		def := definition("WorkloadDefinition", "example-workload.oam.dev", "")
		def.Object["spec"] = map[string]any{"childResourceKinds": []any{map[string]any{"apiVersion": k.APIVersion, "kind": k.Kind}}}
		_, err := ChildResourceKinds(def)
		if err == nil {
			t.Errorf("ChildResourceKinds of %+v: want an error, got none", k)
		}
		leaktest.Check(t, "ChildResourceKinds", err)
	}

}
