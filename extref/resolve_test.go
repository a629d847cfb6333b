package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/conditions"
	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/fieldpath"
)

func TestResolveTyped(t *testing.T) {
	reader := newReader(
		configMap("team-a", "settings", map[string]any{"region": "eu-west-1", "size": "3"}),
		secret("team-a", "db", map[string]string{"password": "s3cr3t"}),
	)
	cm := func(field string) *v1alpha1.ObjectFieldRef {
		return &v1alpha1.ObjectFieldRef{Version: "v1", Resource: "configmaps", Name: "settings", FieldPath: field}
	}
	w := &testapi.Widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w"},
		Spec: testapi.WidgetSpec{ExternalValues: []v1alpha1.ExternalValue{
			{FromObject: cm("data.region"), ToFieldPath: "spec.forProvider.region"},
			{FromObject: cm("data.size"), ToFieldPath: "spec.forProvider.size", Transforms: []v1alpha1.Transform{{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertInt64}}},
			{FromObject: &v1alpha1.ObjectFieldRef{Version: "v1", Resource: "secrets", Name: "db", FieldPath: "data.password"}, MakeAvailableAs: "password"},
		}},
	}
	r := NewResolver(reader, testMapper(), SourcePolicy{OwnNamespaceSecrets: true})
	out, err := r.Resolve(t.Context(), w)
	require.NoError(t, err)
	want := summary{Changed: true, Resolved: 3, Values: map[string]any{"password": "s3cr3t"}}
	if diff := cmp.Diff(want, summarize(out)); diff != "" {
		t.Errorf("Resolve(typed): -want, +got:\n%s", diff)
	}
	size := int64(3)
	wantParams := testapi.WidgetParameters{Region: "eu-west-1", Size: &size}
	if diff := cmp.Diff(wantParams, w.Spec.ForProvider); diff != "" {
		t.Errorf("Resolve(typed): spec.forProvider: -want, +got:\n%s", diff)
	}

	// Settled: nothing changes.
	out, err = r.Resolve(t.Context(), w)
	require.NoError(t, err)
	if out.Changed {
		t.Errorf("Resolve(typed) again: want no change")
	}

	// A field the type does not have is an error, and nothing is written.
	w2 := &testapi.Widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w2"},
		Spec: testapi.WidgetSpec{ExternalValues: []v1alpha1.ExternalValue{
			{FromObject: cm("data.region"), ToFieldPath: "spec.forProvider.region"},
			{FromObject: cm("data.region"), ToFieldPath: "spec.forProvider.nope"},
		}},
	}
	before := w2.DeepCopy()
	_, err = r.Resolve(t.Context(), w2)
	const wantErr = `cannot resolve spec.externalValues[1].toFieldPath: cannot write value to spec.forProvider.nope: cannot write to *v1alpha1.Widget: `
	if !errors.Is(err, ErrTarget) || !strings.HasPrefix(err.Error(), wantErr) {
		t.Fatalf("Resolve(typed, unknown field): want ErrTarget starting %q, got %v", wantErr, err)
	}
	if diff := cmp.Diff(before, w2); diff != "" {
		t.Errorf("Resolve(typed, unknown field) must write nothing: -want, +got:\n%s", diff)
	}
}

func TestResolveRefreshesMapper(t *testing.T) {
	m := &resettableMapper{DefaultRESTMapper: testMapper()}
	gadget := object(gadgetKind, "team-a", "g", map[string]any{"spec": map[string]any{"region": "eu-north-1"}})
	reader := newReader(gadget)
	ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {group: late.extref.test.ctrlkit.dev, version: v1alpha1, resource: gadgets, name: g, fieldPath: spec.region}
  toFieldPath: spec.forProvider.region`)
	out, err := NewResolver(reader, m, SourcePolicy{}).Resolve(t.Context(), ref)
	require.NoError(t, err, "the mapper learns gadgets when it is reset")
	if !out.Changed || m.resets != 1 {
		t.Errorf("Resolve(...): want a change after exactly 1 reset, got changed=%t after %d resets", out.Changed, m.resets)
	}

	// A resource that stays unknown costs one reset per Resolve, not one per reference.
	m = &resettableMapper{DefaultRESTMapper: testMapper()}
	ref = widget(t, "team-a", "w", `
externalValues:
- fromObject: {group: nope.example.org, version: v1, resource: things, name: a, fieldPath: spec.a}
  toFieldPath: spec.cidrBlock
- fromObject: {group: nope.example.org, version: v1, resource: things, name: b, fieldPath: spec.b}
  toFieldPath: spec.forProvider.region`)
	_, err = NewResolver(reader, m, SourcePolicy{}).Resolve(t.Context(), ref)
	if !errors.Is(err, ErrUnknownResource) {
		t.Fatalf("Resolve(...): want ErrUnknownResource, got %v", err)
	}
	if m.resets != 1 {
		t.Errorf("resets: want 1, got %d", m.resets)
	}
}

func TestResolveReadError(t *testing.T) {
	reader := newReader()
	reader.err = errors.New("connection refused")
	ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`)
	out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), ref)
	want := "cannot resolve spec.externalValues[0].fromObject (configmaps team-a/settings, data.region): cannot read the source: connection refused"
	if err == nil || err.Error() != want {
		t.Fatalf("Resolve(...): want error %q, got %v", want, err)
	}
	if !transient(out.Failed) {
		t.Errorf("transient(...): a failed read is transient")
	}
}

func TestResolveNil(t *testing.T) {
	var w *testapi.Widget
	_, err := NewResolver(newReader(), testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("Resolve(nil): want ErrInvalid, got %v", err)
	}
	_, err = NewResolver(newReader(), testMapper(), SourcePolicy{}, Path("spec[")).Resolve(t.Context(), widget(t, "a", "w", "{}"))
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("Resolve with a bad Path: want ErrInvalid, got %v", err)
	}
}

func TestResolvePath(t *testing.T) {
	reader := newReader(configMap("team-a", "settings", map[string]any{"region": "eu-west-1"}))
	ref := widget(t, "team-a", "w", `
forProvider:
  tags:
    a: b
refs:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`)
	out, err := NewResolver(reader, testMapper(), SourcePolicy{}, Path("spec.refs")).Resolve(t.Context(), ref)
	require.NoError(t, err)
	if got, _ := fieldpath.Pave(ref.Object).GetString("spec.forProvider.region"); !out.Changed || got != "eu-west-1" {
		t.Errorf("Resolve with Path(spec.refs): want region eu-west-1, got %q (changed=%t)", got, out.Changed)
	}
}

func TestCondition(t *testing.T) {
	skipped := &ReferenceError{Path: "spec.externalValues[1]", Index: 1, Optional: true, Err: ErrSourceNotFound}
	denied := &ReferenceError{Path: "spec.externalValues[0]", Err: ErrDenied}
	failed := &ReferenceError{Path: "spec.externalValues[2]", Index: 2, Err: ErrFieldNotFound}
	cases := map[string]struct {
		reason string
		out    Outcome
		err    error
		want   metav1.Condition
	}{
		"None": {
			reason: "No external values is a success.",
			want:   metav1.Condition{Type: TypeReferencesResolved, Status: metav1.ConditionTrue, Reason: ReasonResolved, Message: "no external values", ObservedGeneration: 4},
		},
		"Resolved": {
			reason: "The message counts what happened.",
			out:    Outcome{Resolved: 2, Present: 1, Skipped: []*ReferenceError{skipped}},
			want: metav1.Condition{Type: TypeReferencesResolved, Status: metav1.ConditionTrue, Reason: ReasonResolved, ObservedGeneration: 4,
				Message: "3 external values resolved, 1 optional skipped; cannot resolve spec.externalValues[1]: source not found"},
		},
		"Failed": {
			reason: "A failure names the value.",
			out:    Outcome{Failed: []*ReferenceError{failed}},
			err:    errorList{failed},
			want: metav1.Condition{Type: TypeReferencesResolved, Status: metav1.ConditionFalse, Reason: ReasonResolutionFailed, ObservedGeneration: 4,
				Message: "cannot resolve spec.externalValues[2]: field not found"},
		},
		"Denied": {
			reason: "A denial among the failures makes the reason ResolutionDenied.",
			out:    Outcome{Failed: []*ReferenceError{denied, failed}},
			err:    errorList{denied, failed},
			want: metav1.Condition{Type: TypeReferencesResolved, Status: metav1.ConditionFalse, Reason: ReasonResolutionDenied, ObservedGeneration: 4,
				Message: "cannot resolve spec.externalValues[0]: denied; cannot resolve spec.externalValues[2]: field not found"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Condition(tc.out, tc.err, 4), cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
				t.Errorf("%s\nCondition(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	long := errorList{&ReferenceError{Path: "x", Err: errors.New(string(make([]byte, 40000)))}}
	if got := len(Condition(Outcome{}, long, 1).Message); got > conditions.MaxMessageLength {
		t.Errorf("Condition(...).Message: want at most %d bytes, got %d", conditions.MaxMessageLength, got)
	}
}

func TestResolveTracks(t *testing.T) {
	reader := newReader(configMap("team-a", "settings", map[string]any{"region": "eu-west-1"}))
	w := NewWatcher(nil) // not started: tracking only
	r := NewResolver(reader, testMapper(), SourcePolicy{}, WithWatcher(w))
	ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}
- fromObject: {version: v1, resource: configmaps, name: later, fieldPath: data.region}
  toFieldPath: spec.cidrBlock
- fromObject: {group: nope.example.org, version: v1, resource: things, name: a, fieldPath: spec.a}
  toFieldPath: spec.forProvider.directoryArn
  policy: {resolution: Optional}
- fromObject: {version: v1, resource: configmaps, name: other, namespace: team-b, fieldPath: data.region}
  makeAvailableAs: denied
  policy: {resolution: Optional}`)
	_, _ = r.Resolve(t.Context(), ref)
	key := types.NamespacedName{Namespace: "team-a", Name: "w"}
	want := []watchKey{
		{gk: configMapKind.GroupKind(), gvk: configMapKind, namespace: "team-a", name: "settings"},
		{gk: configMapKind.GroupKind(), gvk: configMapKind, namespace: "team-a", name: "later"},
		{crd: schemaGR("nope.example.org", "things")},
	}
	if diff := cmp.Diff(want, w.byReferencer[key].keys(), cmp.AllowUnexported(watchKey{}), cmpopts.IgnoreFields(watchKey{}, "field")); diff != "" {
		t.Errorf("tracked sources (a denied read is not watched): -want, +got:\n%s", diff)
	}
	w.Forget(key)
	if len(w.byReferencer) != 0 || len(w.bySource) != 0 {
		t.Errorf("Forget: want an empty index, got %v and %v", w.byReferencer, w.bySource)
	}
}

func TestResolveErrors(t *testing.T) {
	ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: a, fieldPath: data.x}
  toFieldPath: spec.cidrBlock
- fromObject: {version: v1, resource: configmaps, name: b, namespace: team-b, fieldPath: data.x}
  toFieldPath: spec.forProvider.region`)
	_, err := NewResolver(newReader(), testMapper(), SourcePolicy{}).Resolve(t.Context(), ref)
	var re *ReferenceError
	if !errors.As(err, &re) || re.Index != 0 || !errors.Is(re, ErrSourceNotFound) {
		t.Fatalf("errors.As(...): want the first failure, index 0, got %v", re)
	}
	if !errors.Is(err, ErrDenied) {
		t.Errorf("errors.Is(err, ErrDenied): want the second failure found too")
	}
	want := `cannot resolve spec.externalValues[0].fromObject (configmaps team-a/a, data.x): source not found: ConfigMap "a" does not exist; ` +
		`cannot resolve spec.externalValues[1].fromObject (configmaps team-b/b, data.x): denied by the default source policy: only the referencer's namespace "team-a" is readable unless an allow rule matches namespace "team-b", and none of the 0 allow rules does`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Resolve(...): -want, +got error:\n%s", diff)
	}

	// A single failure is the *ReferenceError itself.
	ref = widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: a, fieldPath: data.x}
  toFieldPath: spec.cidrBlock`)
	_, err = NewResolver(newReader(), testMapper(), SourcePolicy{}).Resolve(t.Context(), ref)
	if _, ok := err.(*ReferenceError); !ok {
		t.Errorf("Resolve(...) with one failure: want a *ReferenceError, got %T", err)
	}
}

// TestResolveOptionalInvalid checks that a malformed Optional value fails,
// as the doc says, also when it is found malformed only once its resource
// is mapped: a namespace for a cluster-scoped source, or none for a
// namespaced source of a cluster-scoped referencer.
func TestResolveOptionalInvalid(t *testing.T) {
	reader := newReader(vpc("main-vpc", "10.0.0.0/16"), configMap("team-a", "settings", map[string]any{"region": "eu-west-1"}))
	policy := SourcePolicy{Allow: []SourceRule{{Group: "*", Resource: "*", Namespaces: []string{"*"}}, {Group: "*", Resource: "*"}}}
	for name, ref := range map[string]*unstructured.Unstructured{
		"NamespaceForClusterScoped": widget(t, "team-a", "w", `
externalValues:
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: vpcs, namespace: team-a, name: main-vpc, fieldPath: spec.forProvider.cidrBlock}
  toFieldPath: spec.cidrBlock
  policy: {resolution: Optional}
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`),
		"NoNamespaceFromClusterReferencer": widget(t, "", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolution: Optional}
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: vpcs, name: main-vpc, fieldPath: spec.forProvider.cidrBlock}
  toFieldPath: spec.cidrBlock`),
	} {
		t.Run(name, func(t *testing.T) {
			before := ref.DeepCopy()
			out, err := NewResolver(reader, testMapper(), policy).Resolve(t.Context(), ref)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Resolve(...): want ErrInvalid, got %v", err)
			}
			if len(out.Failed) != 1 || len(out.Skipped) != 0 || out.Failed[0].Index != 0 || out.Failed[0].Optional {
				t.Errorf("Resolve(...): want value 0 failed, not skipped, got %+v", summarize(out))
			}
			if out.Changed || !equalObjects(before, ref) {
				t.Errorf("Resolve(...): want nothing written (all or nothing), got %v", ref.Object)
			}
		})
	}
}

// TestResolveMetadataTakesStrings checks that a label or annotation takes
// only strings, whatever the notation of its path.
func TestResolveMetadataTakesStrings(t *testing.T) {
	reader := newReader(configMap("team-a", "settings", map[string]any{"size": "3"}))
	for _, target := range []string{"metadata.labels[size]", "metadata[labels][size]", "metadata[annotations][size]", "metadata[annotations].size", "metadata.annotations[example.org/size]"} {
		t.Run(target, func(t *testing.T) {
			ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.size}
  transforms: [{type: Convert, toType: int64}]
  toFieldPath: "`+target+`"`)
			before := ref.DeepCopy()
			out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), ref)
			if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "labels and annotations take strings, not a number (3)") {
				t.Fatalf("Resolve(...): want ErrTarget, labels and annotations take strings, got %v", err)
			}
			if out.Changed || !equalObjects(before, ref) {
				t.Errorf("Resolve(...): want nothing written, got %v", ref.Object)
			}
		})
	}
	// A string is written, in either notation.
	ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.size}
  toFieldPath: "metadata[labels][size]"`)
	if _, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), ref); err != nil || ref.GetLabels()["size"] != "3" {
		t.Errorf("Resolve(...) of a string to metadata[labels][size]: want label size=3, got %v, %v", ref.GetLabels(), err)
	}
}

// TestResolveReportsEverySource checks that a combine or template that
// fails reports every failing source, not only the first.
func TestResolveReportsEverySource(t *testing.T) {
	ref := widget(t, "team-a", "w", `
externalValues:
- combine:
  - {version: v1, resource: configmaps, name: a, fieldPath: data.x}
  - {version: v1, resource: configmaps, name: settings, fieldPath: data.x}
  - {version: v1, resource: configmaps, name: b, namespace: team-b, fieldPath: data.x}
  fmt: "%s-%s-%s"
  toFieldPath: spec.cidrBlock
- variables:
  - {name: a, fromRef: {version: v1, resource: configmaps, name: settings, fieldPath: data.missing}}
  - {name: b, fromRef: {version: v1, resource: configmaps, name: settings, fieldPath: data.x}}
  template: "{{ .a }}{{ .b }}"
  toFieldPath: spec.forProvider.region`)
	reader := newReader(configMap("team-a", "settings", map[string]any{"x": "1"}))
	out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), ref)
	want := `cannot resolve spec.externalValues[0].combine[0] (configmaps team-a/a, data.x): source not found: ConfigMap "a" does not exist; ` +
		`cannot resolve spec.externalValues[0].combine[2] (configmaps team-b/b, data.x): denied by the default source policy: only the referencer's namespace "team-a" is readable unless an allow rule matches namespace "team-b", and none of the 0 allow rules does; ` +
		`cannot resolve spec.externalValues[1].variables[0].fromRef (configmaps team-a/settings, data.missing): field not found: cannot get data.missing: data has no field "missing"`
	if err == nil {
		t.Fatal("Resolve(...): want an error, got none")
	}
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Resolve(...): -want, +got error:\n%s", diff)
	}
	if len(out.Failed) != 2 {
		t.Fatalf("Resolve(...): want 2 failed values, got %d", len(out.Failed))
	}
	combine := out.Failed[0]
	if combine.Index != 0 || combine.Path != "spec.externalValues[0].combine[0]" || combine.Source == nil || combine.Source.Name != "a" {
		t.Errorf("the combine's failure: want index 0 and its first failing source, got %d, %s, %v", combine.Index, combine.Path, combine.Source)
	}
	for _, sentinel := range []error{ErrSourceNotFound, ErrDenied} {
		if !errors.Is(combine, sentinel) {
			t.Errorf("errors.Is(the combine's failure, %v): want true", sentinel)
		}
	}
	if got := Condition(out, err, 1).Reason; got != ReasonResolutionDenied {
		t.Errorf("Condition(...).Reason: want %s, as one source is denied, got %s", ReasonResolutionDenied, got)
	}

	// A transient failure among the sources is still transient.
	reader.err = errors.New("connection refused")
	ref = widget(t, "team-a", "w", `
externalValues:
- combine:
  - {version: v1, resource: configmaps, name: b, namespace: team-b, fieldPath: data.x}
  - {version: v1, resource: configmaps, name: settings, fieldPath: data.x}
  fmt: "%s-%s"
  toFieldPath: spec.cidrBlock`)
	out, _ = NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), ref)
	if len(out.Failed) != 1 || !errors.Is(out.Failed[0], ErrDenied) || !transient(out.Failed) {
		t.Errorf("a denied and an unavailable source: want one failure, denied and transient, got %v (transient %t)", out.Failed, transient(out.Failed))
	}
}

// A cache hands the resolver its own objects: what Resolve writes to the
// referencer, and what it hands over in Values, are copies, which the
// caller and later external values may change without changing the source.
func TestResolveLeavesSourcesAlone(t *testing.T) {
	data := map[string]any{"region": "eu-west-1", "tags": map[string]any{"team": "a"}}
	reader := newReader(configMap("team-a", "settings", data))
	w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data}
  toFieldPath: spec.forProvider.settings
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.settings.tags.region
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data}
  makeAvailableAs: settings`)
	out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
	require.NoError(t, err)
	out.Values["settings"].(map[string]any)["tags"].(map[string]any)["changed"] = "by the caller"
	unstructured.RemoveNestedField(w.Object, "spec", "forProvider", "settings", "region")

	want := map[string]any{"region": "eu-west-1", "tags": map[string]any{"team": "a"}}
	if diff := cmp.Diff(want, reader.objs[objectKey{gvk: configMapKind, namespace: "team-a", name: "settings"}]["data"]); diff != "" {
		t.Errorf("the source after Resolve: -want, +got:\n%s", diff)
	}
	wantSettings := map[string]any{"tags": map[string]any{"team": "a", "region": "eu-west-1"}}
	if diff := cmp.Diff(wantSettings, w.Object["spec"].(map[string]any)["forProvider"].(map[string]any)["settings"]); diff != "" {
		t.Errorf("spec.forProvider.settings: -want, +got:\n%s", diff)
	}
}
