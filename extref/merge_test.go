package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// mergeSources are the sources of the merge tests: ConfigMaps whose data
// is merged whole, or whose key json holds JSON text read to an object or
// an array.
func mergeSources() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		configMap("team-a", "defaults", map[string]any{"team": "a", "tier": "bronze"}),
		configMap("team-a", "overrides", map[string]any{"tier": "gold", "zone": "b"}),
		configMap("team-a", "list-1", map[string]any{"json": `["x","v"]`}),
		configMap("team-a", "list-2", map[string]any{"json": `["v","z"]`}),
		configMap("team-a", "nested", map[string]any{"json": `{"a":{"b":1,"l":[1]},"c":"s"}`}),
	}
}

// mergeFrom is an external value merging ConfigMap cm's data (or, with
// json, the JSON of its key json, to toType) into target with policy.
func mergeFrom(cm, toType, target, policy string) string {
	if toType == "" {
		return "- fromObject: {version: v1, resource: configmaps, name: " + cm + ", fieldPath: data}\n  toFieldPath: " + target + "\n  policy: {toFieldPath: " + policy + "}\n"
	}
	return "- fromObject: {version: v1, resource: configmaps, name: " + cm + ", fieldPath: data.json}\n  toFieldPath: " + target +
		"\n  policy: {toFieldPath: " + policy + "}\n  transforms: [{type: Convert, toType: " + toType + ", format: json}]\n"
}

// spec returns the field at path under the widget's spec.
func specField(t *testing.T, w *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(w.Object, append([]string{"spec"}, path...)...)
	if err != nil {
		t.Fatalf("spec.%s: %v", strings.Join(path, "."), err)
	}
	return v
}

func mergeYAML(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad YAML: %v", err)
	}
	return v
}

// TestMergePolicies checks each of policy.toFieldPath's merge policies,
// alone and with several values merged into one target in list order, and
// that a second Resolve of the result changes nothing: the result is
// recomputed from the target's base, so appending and de-duplicating again
// adds nothing.
func TestMergePolicies(t *testing.T) {
	cases := map[string]struct {
		reason string
		values string
		target string // YAML of spec.values before
		want   string // YAML of spec.values after
	}{
		"MergeObjectsKeepsTheTargetsValues": {
			reason: "MergeObjects adds the fields the target lacks and keeps those it has.",
			values: mergeFrom("defaults", "", "spec.values", "MergeObjects"),
			target: "{tier: silver, own: 1}",
			want:   "{tier: silver, own: 1, team: a}",
		},
		"ForceMergeObjectsTheValueWins": {
			reason: "ForceMergeObjects merges, the value's fields winning.",
			values: mergeFrom("defaults", "", "spec.values", "ForceMergeObjects"),
			target: "{tier: silver, own: 1}",
			want:   "{tier: bronze, own: 1, team: a}",
		},
		"ListOrderForced": {
			reason: "Several values merge in list order: with ForceMergeObjects the later wins, as Flux's valuesFrom.",
			values: mergeFrom("defaults", "", "spec.values", "ForceMergeObjects") + mergeFrom("overrides", "", "spec.values", "ForceMergeObjects"),
			want:   "{team: a, tier: gold, zone: b}",
		},
		"ListOrderKept": {
			reason: "With MergeObjects what is there first stays: the earlier value wins.",
			values: mergeFrom("defaults", "", "spec.values", "MergeObjects") + mergeFrom("overrides", "", "spec.values", "MergeObjects"),
			want:   "{team: a, tier: bronze, zone: b}",
		},
		"Replace": {
			reason: "Replace, spelled out, is today's write.",
			values: strings.Replace(mergeFrom("overrides", "", "spec.values", "Replace"), "{toFieldPath:", "{resolve: Always, toFieldPath:", 1),
			target: "{tier: silver, own: 1}",
			want:   "{tier: gold, zone: b}",
		},
		"AppendArraysDeduplicated": {
			reason: "MergeObjectsAppendArrays appends the items the array lacks.",
			values: mergeFrom("list-1", "array", "spec.list", "MergeObjectsAppendArrays") + mergeFrom("list-2", "array", "spec.list", "MergeObjectsAppendArrays"),
			target: "[w, x]",
			want:   "[w, x, v, z]",
		},
		"ForceAppendArrays": {
			reason: "ForceMergeObjectsAppendArrays appends too.",
			values: mergeFrom("list-2", "array", "spec.list", "ForceMergeObjectsAppendArrays"),
			target: "[z]",
			want:   "[z, v]",
		},
		"ArraysReplacedWithoutAppend": {
			reason: "Without AppendArrays an array replaces the target's, whatever the Force.",
			values: mergeFrom("list-2", "array", "spec.list", "ForceMergeObjects"),
			target: "[w]",
			want:   "[v, z]",
		},
		"NestedObjects": {
			reason: "Objects merge field by field at every depth; arrays below are appended whole.",
			values: mergeFrom("nested", "object", "spec.values", "ForceMergeObjectsAppendArrays"),
			target: "{a: {b: 2, l: [0], own: true}}",
			want:   "{a: {b: 1, l: [0, 1], own: true}, c: s}",
		},
		"NoTarget": {
			reason: "A missing target is the value.",
			values: mergeFrom("defaults", "", "spec.values", "MergeObjects"),
			want:   "{team: a, tier: bronze}",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			list := "list"
			if strings.Contains(tc.values, "spec.values") {
				list = "values"
			}
			spec := "externalValues:\n" + tc.values
			if tc.target != "" {
				spec += list + ": " + tc.target + "\n"
			}
			w := widget(t, "team-a", "w", spec)
			r := NewResolver(newReader(mergeSources()...), testMapper(), SourcePolicy{})
			out, err := r.Resolve(t.Context(), w)
			if err != nil {
				t.Fatalf("%s\nResolve(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(mergeYAML(t, tc.want), specField(t, w, list)); diff != "" {
				t.Errorf("%s\nspec.%s: -want, +got:\n%s", tc.reason, list, diff)
			}
			if !out.Changed {
				t.Errorf("%s\nResolve(...): Changed false, want true", tc.reason)
			}
			// The next resolution finds the result, and changes nothing.
			again := w.DeepCopy()
			out, err = r.Resolve(t.Context(), again)
			if err != nil || out.Changed {
				t.Errorf("%s\nResolve(the result): Changed %v, error %v; want no change", tc.reason, out.Changed, err)
			}
			if diff := cmp.Diff(w.Object, again.Object); diff != "" {
				t.Errorf("%s\nResolve(the result) changed it: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestMergeRemoval checks what happens to a merged target when a value
// stops contributing: an Optional source that disappears, or an external
// value removed from the list. Its contribution goes, the values of the
// target's base stay (those a forced merge replaced come back), and a field
// someone changed since it was merged is theirs and stays.
func TestMergeRemoval(t *testing.T) {
	ctx := t.Context()
	reader := newReader(mergeSources()...)
	r := NewResolver(reader, testMapper(), SourcePolicy{})
	optional := func(v string) string {
		return strings.Replace(v, "{toFieldPath: ", "{resolution: Optional, toFieldPath: ", 1)
	}
	values := mergeFrom("defaults", "", "spec.values", "ForceMergeObjects") + optional(mergeFrom("overrides", "", "spec.values", "ForceMergeObjects")) +
		mergeFrom("list-1", "array", "spec.list", "MergeObjectsAppendArrays") + optional(mergeFrom("list-2", "array", "spec.list", "MergeObjectsAppendArrays"))
	w := widget(t, "team-a", "w", "externalValues:\n"+values+"values: {tier: silver, own: 1}\nlist: [w]\n")
	if _, err := r.Resolve(ctx, w); err != nil {
		t.Fatalf("Resolve(...): %v", err)
	}
	if diff := cmp.Diff(mergeYAML(t, "{tier: gold, own: 1, team: a, zone: b}"), specField(t, w, "values")); diff != "" {
		t.Fatalf("spec.values: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(mergeYAML(t, "[w, x, v, z]"), specField(t, w, "list")); diff != "" {
		t.Fatalf("spec.list: -want, +got:\n%s", diff)
	}

	// Someone sets a field of the target that a value merged, and one that
	// none did.
	if err := unstructured.SetNestedField(w.Object, "mine", "spec", "values", "zone"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(w.Object, "added", "spec", "values", "later"); err != nil {
		t.Fatal(err)
	}

	// The overrides and list-2 disappear.
	reader.mu.Lock()
	for k := range reader.objs {
		if k.name == "overrides" || k.name == "list-2" {
			delete(reader.objs, k)
		}
	}
	reader.mu.Unlock()
	out, err := r.Resolve(ctx, w)
	if err != nil || !out.Changed || len(out.Skipped) != 2 {
		t.Fatalf("Resolve(sources gone): Changed %v, skipped %d, error %v; want a change and 2 skipped", out.Changed, len(out.Skipped), err)
	}
	// tier: the base's silver was forced to bronze by defaults (gold came
	// from overrides, now gone); zone is the user's now; later is too.
	if diff := cmp.Diff(mergeYAML(t, "{tier: bronze, own: 1, team: a, zone: mine, later: added}"), specField(t, w, "values")); diff != "" {
		t.Errorf("spec.values after overrides went: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(mergeYAML(t, "[w, x, v]"), specField(t, w, "list")); diff != "" {
		t.Errorf("spec.list after list-2 went: -want, +got:\n%s", diff)
	}
	if out, err := r.Resolve(ctx, w.DeepCopy()); err != nil || out.Changed {
		t.Errorf("Resolve(the result): Changed %v, error %v; want no change", out.Changed, err)
	}

	// The external values are removed: the bases come back whole, and the
	// record goes.
	if err := unstructured.SetNestedSlice(w.Object, []any{}, "spec", "externalValues"); err != nil {
		t.Fatal(err)
	}
	w.Object["spec"].(map[string]any)["externalValues"] = []any{mergeYAML(t, "{fromObject: {version: v1, resource: configmaps, name: defaults, fieldPath: data.team}, toFieldPath: spec.forProvider.region}")}
	if _, err := r.Resolve(ctx, w); err != nil {
		t.Fatalf("Resolve(no merged values): %v", err)
	}
	if diff := cmp.Diff(mergeYAML(t, "{tier: silver, own: 1, zone: mine, later: added}"), specField(t, w, "values")); diff != "" {
		t.Errorf("spec.values after its values went: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(mergeYAML(t, "[w]"), specField(t, w, "list")); diff != "" {
		t.Errorf("spec.list after its values went: -want, +got:\n%s", diff)
	}
	if _, ok := w.GetAnnotations()[MergedAnnotation]; ok {
		t.Errorf("the annotation %s is still there with no merged values", MergedAnnotation)
	}
}

// TestMergeRemovalOfACreatedTarget checks that a target the merge created
// is removed when nothing merges into it any more.
func TestMergeRemovalOfACreatedTarget(t *testing.T) {
	ctx := t.Context()
	r := NewResolver(newReader(mergeSources()...), testMapper(), SourcePolicy{})
	w := widget(t, "team-a", "w", "externalValues:\n"+mergeFrom("defaults", "", "spec.values", "MergeObjects"))
	if _, err := r.Resolve(ctx, w); err != nil {
		t.Fatalf("Resolve(...): %v", err)
	}
	w.Object["spec"].(map[string]any)["externalValues"] = []any{}
	if _, err := r.Resolve(ctx, w); err != nil {
		t.Fatalf("Resolve(no values): %v", err)
	}
	if v := specField(t, w, "values"); v != nil {
		t.Errorf("spec.values: want none, got %v", v)
	}
}

// TestMergeInvalid checks the merge policies' refusals, and that a record
// of merged values, which whoever may write the referencer may forge, can
// neither reach a field a value may not be written to nor quote itself in
// the error.
func TestMergeInvalid(t *testing.T) {
	cases := map[string]struct {
		reason     string
		spec       string
		annotation string // the record
		want       string // in the error
		wantErr    error
	}{
		"Unknown": {
			reason:  "An unknown policy is refused.",
			spec:    mergeFrom("defaults", "", "spec.values", "Append"),
			want:    `policy.toFieldPath: invalid external value: unsupported value "Append"`,
			wantErr: ErrInvalid,
		},
		"MakeAvailableAs": {
			reason:  "A value handed over has no target to merge into.",
			spec:    "- fromObject: {version: v1, resource: configmaps, name: defaults, fieldPath: data}\n  makeAvailableAs: x\n  policy: {toFieldPath: MergeObjects}\n",
			want:    "makeAvailableAs has none",
			wantErr: ErrInvalid,
		},
		"Label": {
			reason:  "A label is a string.",
			spec:    mergeFrom("defaults", "", "metadata.labels[x]", "MergeObjects"),
			want:    "a label or an annotation is a string",
			wantErr: ErrInvalid,
		},
		"IfNotPresent": {
			reason:  "A merged value is resolved on every call.",
			spec:    strings.Replace(mergeFrom("defaults", "", "spec.values", "MergeObjects"), "{toFieldPath:", "{resolve: IfNotPresent, toFieldPath:", 1),
			want:    "resolve must be Always or unset",
			wantErr: ErrInvalid,
		},
		"TheRecordAsATarget": {
			reason:  "No value may write the record.",
			spec:    "- fromObject: {version: v1, resource: configmaps, name: defaults, fieldPath: data.team}\n  toFieldPath: metadata.annotations[" + MergedAnnotation + "]\n",
			want:    "extref's record of merged values",
			wantErr: ErrInvalid,
		},
		"Overlapping": {
			reason:  "Merged targets one within the other would undo each other.",
			spec:    mergeFrom("defaults", "", "spec.values", "MergeObjects") + mergeFrom("overrides", "", "spec.values.inner", "MergeObjects"),
			want:    "overlaps",
			wantErr: ErrInvalid,
		},
		"MalformedRecord": {
			reason:     "A record that is not JSON is refused, without quoting it.",
			spec:       mergeFrom("defaults", "", "spec.values", "MergeObjects"),
			annotation: `{"spec.values": hunter2`,
			want:       "is not one it wrote",
			wantErr:    ErrInvalid,
		},
		"ForgedRecordProtected": {
			reason:     "A forged record may not restore a protected field.",
			spec:       mergeFrom("defaults", "", "spec.values", "MergeObjects"),
			annotation: `{"spec.claimRef":{"h":"x","w":"hunter2"}}`,
			want:       "is not one it wrote",
			wantErr:    ErrInvalid,
		},
		"ForgedRecordMetadata": {
			reason:     "A forged record may not reach metadata.",
			spec:       mergeFrom("defaults", "", "spec.values", "MergeObjects"),
			annotation: `{"metadata.ownerReferences":{"h":"x","w":"hunter2"}}`,
			want:       "is not one it wrote",
			wantErr:    ErrInvalid,
		},
		"ForgedRecordTooLarge": {
			reason:     "A record is bounded.",
			spec:       mergeFrom("defaults", "", "spec.values", "MergeObjects"),
			annotation: `{"spec.values":{"w":"` + strings.Repeat("hunter2", maxMergeRecord/7) + `"}}`,
			want:       "is not one it wrote",
			wantErr:    ErrInvalid,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := widget(t, "team-a", "w", "externalValues:\n"+tc.spec)
			if tc.annotation != "" {
				w.SetAnnotations(map[string]string{MergedAnnotation: tc.annotation})
			}
			before := w.DeepCopy()
			_, err := NewResolver(newReader(mergeSources()...), testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s\nResolve(...): want an error wrapping %v, got %v", tc.reason, tc.wantErr, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nResolve(...): want an error holding %q, got %v", tc.reason, tc.want, err)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("%s\nResolve(...): the error quotes the record: %v", tc.reason, err)
			}
			if diff := cmp.Diff(before.Object, w.Object); diff != "" {
				t.Errorf("%s\nResolve(...) changed the referencer: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestMergeBounds checks that an appended array's de-duplication and the
// record are bounded.
func TestMergeBounds(t *testing.T) {
	items := make([]string, 0, 2000)
	for i := range 2000 {
		items = append(items, `"`+strings.Repeat("s", 40)+string(rune('a'+i%26))+`"`)
	}
	big := configMap("team-a", "big", map[string]any{"json": "[" + strings.Join(items, ",") + "]"})
	long := make([]any, 1500)
	for i := range long {
		long[i] = int64(i)
	}
	w := widget(t, "team-a", "w", "externalValues:\n"+mergeFrom("big", "array", "spec.list", "MergeObjectsAppendArrays"))
	w.Object["spec"].(map[string]any)["list"] = long
	_, err := NewResolver(newReader(big), testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
	if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "more than a merge may") {
		t.Errorf("Resolve(an array of 2000 items appended to one of 1500): want ErrTarget on the merge's bound, got %v", err)
	}

	// A record of more than its bound: a forced merge replaces a base
	// value larger than the record may hold.
	w = widget(t, "team-a", "w", "externalValues:\n"+mergeFrom("defaults", "", "spec.values", "ForceMergeObjects"))
	w.Object["spec"].(map[string]any)["values"] = map[string]any{"tier": strings.Repeat("b", maxMergeRecord)}
	_, err = NewResolver(newReader(mergeSources()...), testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
	if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "record of what was merged would exceed") {
		t.Errorf("Resolve(a record too large): want ErrTarget on the record's bound, got %v", err)
	}
}
