package scopes

import (
	"context"
	"strings"
	"testing"
)

// The marker planted in scopes and definitions. No error, and no skipped
// entry's reason, may hold 4 bytes in a row of it: they name paths and the
// type and size of a value, never its content, since a controller puts them
// into conditions and events.
const (
	markerString = "s3cr3t-MARKER-Zq7x9Wv"
	markerDigits = "31337424242"
)

// leak returns the longest run of 4 or more bytes of the marker that msg
// holds, or "" when it holds none.
func leak(msg string) string {
	for _, m := range []string{markerString, markerDigits, "3.13374242425e+10"} {
		for n := len(m); n >= 4; n-- {
			for i := 0; i+n <= len(m); i++ {
				if strings.Contains(msg, m[i:i+n]) {
					return m[i : i+n]
				}
			}
		}
	}
	return ""
}

func checkNoLeak(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if l := leak(err.Error()); l != "" {
		t.Errorf("%s: the error quotes %q of a planted value: %s", what, l, err)
	}
}

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
	ctx := context.Background()
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
				checkNoLeak(t, "WorkloadRefs "+path+" of "+spec, err)
				_, err = AddWorkloadRef(scopeOf(t, spec), path, ref)
				checkNoLeak(t, "AddWorkloadRef "+path+" of "+spec, err)
				_, err = RemoveWorkloadRef(scopeOf(t, spec), path, ref)
				checkNoLeak(t, "RemoveWorkloadRef "+path+" of "+spec, err)

				if strings.HasPrefix(v, `"`) && strings.Contains(spec, `"name":`) {
					// A well-formed reference: its apiVersion, kind and
					// name name the workload, which Locate's errors do.
					continue
				}
				var skipped []SkippedEntry
				_, err = Locate(ctx, &memReader{}, testMapper(), scopeOf(t, spec), AtPath(path), ReportSkipped(&skipped))
				checkNoLeak(t, "Locate "+path+" of "+spec, err)
				for _, s := range skipped {
					if l := leak(s.String()); l != "" {
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
			checkNoLeak(t, "refPath of "+spec, err)
			_, err = allowOverlap(def)
			checkNoLeak(t, "allowOverlap of "+spec, err)
			_, err = ChildResourceKinds(definition("WorkloadDefinition", "example-workload.oam.dev", spec))
			checkNoLeak(t, "ChildResourceKinds of "+spec, err)
			_, err = Locate(ctx, (&memReader{}).add(def), testMapper(), scopeOf(t, `{"workloadRefs":[]}`))
			checkNoLeak(t, "Locate with "+spec, err)
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
		checkNoLeak(t, "ChildResourceKinds", err)
	}

}
