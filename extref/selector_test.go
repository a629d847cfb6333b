package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// labelled returns a ConfigMap with labels and data.
func labelled(ns, name string, lbls map[string]string, data map[string]any) *unstructured.Unstructured {
	u := configMap(ns, name, data)
	u.SetLabels(lbls)
	return u
}

// listingReader returns a reader that gets and lists objs, as a cache does.
func listingReader(objs ...*unstructured.Unstructured) client.Reader {
	b := fake.NewClientBuilder().WithRESTMapper(testMapper())
	for _, o := range objs {
		b = b.WithObjects(o)
	}
	return b.Build()
}

// teamConfigs are the ConfigMaps of team-a (and one of team-b) that the
// selector tests select from.
func teamConfigs() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		labelled("team-a", "c", map[string]string{"app": "web", "tier": "gold"}, map[string]any{"region": "eu-west-1", "rank": "2"}),
		labelled("team-a", "a", map[string]string{"app": "web", "tier": "silver"}, map[string]any{"region": "us-east-1", "rank": "2"}),
		labelled("team-a", "b", map[string]string{"app": "web", "tier": "bronze"}, map[string]any{"region": "ap-south-1", "rank": "1"}),
		labelled("team-a", "db", map[string]string{"app": "db"}, map[string]any{"region": "sa-east-1"}),
		labelled("team-b", "web", map[string]string{"app": "web"}, map[string]any{"region": "eu-north-1"}),
	}
}

// TestSelectSources resolves sources chosen by labels: modes, counts, the
// sort and its tie rule, values from the referencer, and how a Multiple
// selection feeds combine and templates.
func TestSelectSources(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   string
		want   any    // spec.out
		err    error  // wrapped by the error, when one is wanted
		msg    string // in the error
		skip   bool   // an Optional value skipped
	}{
		"SingleOne": {
			reason: "Single takes the one object that matches.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: db}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			want: "sa-east-1",
		},
		"SingleNone": {
			reason: "No match fails as a missing source does.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: cache}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			err: ErrSourceNotFound,
			msg: `cannot resolve spec.externalValues[0].fromObject (configmaps team-a/selected by app=cache, data.region): source not found: no ConfigMap matches the selector`,
		},
		"SingleNoneOptional": {
			reason: "An Optional value with no match is skipped, as with a missing named source.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: cache}]}, fieldPath: data.region}
  toFieldPath: spec.out
  policy: {resolution: Optional}`,
			skip: true,
		},
		"SingleMany": {
			reason: "Single refuses more than one match.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			err: ErrAmbiguous,
			msg: "3 objects match the selector, and mode Single takes one",
		},
		"MultipleByName": {
			reason: "Multiple gives an array of the values, sorted by name by default.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {mode: Multiple, matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			want: []any{"us-east-1", "ap-south-1", "eu-west-1"},
		},
		"MultipleSortedTiesByName": {
			reason: "sortByFieldPath orders the objects; equal fields keep name order (a before c).",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {mode: Multiple, sortByFieldPath: data.rank, matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			want: []any{"ap-south-1", "us-east-1", "eu-west-1"},
		},
		"MaxMatch": {
			reason: "maxMatch takes the first objects in sort order.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {mode: Multiple, maxMatch: 2, sortByFieldPath: data.rank, matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			want: []any{"ap-south-1", "us-east-1"},
		},
		"MinMatch": {
			reason: "Fewer matches than minMatch fail as a missing source does.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {mode: Multiple, minMatch: 2, matchLabels: [{key: app, value: db}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			err: ErrSourceNotFound,
			msg: "1 object matches the selector, fewer than minMatch 2",
		},
		"MinMatchZero": {
			reason: "minMatch 0 lets no match give an empty array.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {mode: Multiple, minMatch: 0, matchLabels: [{key: app, value: cache}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			want: []any{},
		},
		"Expressions": {
			reason: "matchExpressions narrow the selection.",
			spec: `
externalValues:
- fromObject:
    version: v1
    resource: configmaps
    selector: {mode: Multiple, matchExpressions: [{key: tier, operator: In, values: [gold, bronze]}, {key: app, operator: Exists}]}
    fieldPath: data.region
  toFieldPath: spec.out`,
			want: []any{"ap-south-1", "eu-west-1"},
		},
		"ValueFromReferencer": {
			reason: "A label's value may come from the referencer.",
			spec: `
tier: silver
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: tier, valueFromFieldPath: spec.tier}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			want: "us-east-1",
		},
		"ValueFromReferencerMissing": {
			reason: "A Required label whose field the referencer lacks fails, naming the field.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: tier, valueFromFieldPath: spec.tier}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			err: ErrFieldNotFound,
			msg: "cannot resolve spec.externalValues[0].fromObject (configmaps selected by tier=(spec.tier), data.region): field not found: selector.matchLabels[0].valueFromFieldPath: the referencer has no value at spec.tier",
		},
		"ValueFromReferencerOptional": {
			reason: "An Optional label whose field the referencer lacks is left out.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: db}, {key: tier, valueFromFieldPath: spec.tier, fromFieldPathPolicy: Optional}]}, fieldPath: data.region}
  toFieldPath: spec.out`,
			want: "sa-east-1",
		},
		"Combine": {
			reason: "A Multiple selection is one array value of combine.",
			spec: `
externalValues:
- combine:
  - {version: v1, resource: configmaps, selector: {mode: Multiple, matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  - {version: v1, resource: configmaps, name: db, fieldPath: data.region}
  fmt: "%v %s"
  toFieldPath: spec.out`,
			want: "[us-east-1 ap-south-1 eu-west-1] sa-east-1",
		},
		"TemplateJoin": {
			reason: "A Multiple selection is an array variable of a template.",
			spec: `
externalValues:
- variables: [{name: regions, fromRef: {version: v1, resource: configmaps, selector: {mode: Multiple, matchLabels: [{key: app, value: web}]}, fieldPath: data.region}}]
  template: '{{ join "," .regions }}'
  toFieldPath: spec.out`,
			want: "us-east-1,ap-south-1,eu-west-1",
		},
		"FieldMissing": {
			reason: "A selected object without the field fails, naming the object.",
			spec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {mode: Multiple, matchLabels: [{key: app, value: db}]}, fieldPath: data.rank}
  toFieldPath: spec.out`,
			err: ErrFieldNotFound,
			msg: "(configmaps team-a/db selected by app=db, data.rank)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := NewResolver(listingReader(teamConfigs()...), testMapper(), SourcePolicy{})
			w := widget(t, "team-a", "w", tc.spec)
			out, err := r.Resolve(t.Context(), w)
			if tc.err != nil {
				require.Error(t, err, tc.reason)
				if !errors.Is(err, tc.err) {
					t.Errorf("%s\nerror %q does not wrap %v", tc.reason, err, tc.err)
				}
				if !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("%s\nerror: want it to hold %q, got %q", tc.reason, tc.msg, err)
				}
				return
			}
			require.NoError(t, err, tc.reason)
			if tc.skip {
				if len(out.Skipped) != 1 || !errors.Is(out.Skipped[0], ErrSourceNotFound) {
					t.Errorf("%s\nskipped: want one source not found, got %v", tc.reason, out.Skipped)
				}
				return
			}
			got, _, _ := unstructured.NestedFieldNoCopy(w.Object, "spec", "out")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nspec.out: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestSelectInvalid refuses malformed selectors before any read.
func TestSelectInvalid(t *testing.T) {
	cases := map[string]struct {
		selector string
		msg      string
	}{
		"NameAndSelector":    {`name: x, selector: {matchLabels: [{key: app, value: web}]}`, "fromObject: invalid external value: exactly one of name, nameFromFieldPath and selector may be set, found 2"},
		"UnknownMode":        {`selector: {mode: Some}`, `fromObject.selector.mode: invalid external value: want Single or Multiple, got a string ("Some")`},
		"MinMatchSingle":     {`selector: {minMatch: 2}`, "fromObject.selector: invalid external value: minMatch and maxMatch need mode Multiple"},
		"MaxMatchTooLarge":   {`selector: {mode: Multiple, maxMatch: 257}`, "fromObject.selector.maxMatch: invalid external value: want 1 to 256, got 257"},
		"MinAboveMax":        {`selector: {mode: Multiple, minMatch: 3, maxMatch: 2}`, "fromObject.selector.minMatch: invalid external value: 3 is more than maxMatch 2"},
		"BadKey":             {`selector: {matchLabels: [{key: "a b", value: x}]}`, `fromObject.selector.matchLabels[0].key: invalid external value: "a b" is not a label key`},
		"BothValues":         {`selector: {matchLabels: [{key: a, value: x, valueFromFieldPath: spec.x}]}`, "fromObject.selector.matchLabels[0]: invalid external value: exactly one of value and valueFromFieldPath must be set"},
		"WrongType":          {`selector: {matchLabels: [{key: a, type: FromFieldPath, value: x}]}`, "matchLabels[0].type: invalid external value: type FromFieldPath does not fit the field set"},
		"PolicyOnValue":      {`selector: {matchLabels: [{key: a, value: x, fromFieldPathPolicy: Optional}]}`, "fromFieldPathPolicy: invalid external value: applies to valueFromFieldPath only"},
		"BadOperator":        {`selector: {matchExpressions: [{key: a, operator: Gt, values: ["1"]}]}`, `matchExpressions[0].operator: invalid external value: want In, NotIn, Exists or DoesNotExist, got a string ("Gt")`},
		"InWithoutValues":    {`selector: {matchExpressions: [{key: a, operator: In}]}`, "fromObject.selector.matchExpressions[0]: invalid external value"},
		"VolatileSort":       {`selector: {mode: Multiple, sortByFieldPath: metadata.resourceVersion}`, "fromObject.selector.sortByFieldPath: invalid external value"},
		"WildcardPath":       {`selector: {matchLabels: [{key: a, valueFromFieldPath: "spec.x[*]"}]}`, "valueFromFieldPath: invalid external value"},
		"UnknownField":       {`selector: {matchLabel: []}`, `unknown field "matchLabel"`},
		"NameAndNameFrom":    {`name: x, nameFromFieldPath: spec.x`, "exactly one of name, nameFromFieldPath and selector may be set, found 2"},
		"NamespaceTwice":     {`name: x, namespace: a, namespaceFromFieldPath: spec.x`, "namespace and namespaceFromFieldPath are exclusive"},
		"NameFromBadPath":    {`nameFromFieldPath: "spec["`, "fromObject.nameFromFieldPath: invalid external value"},
		"HugeKey":            {`selector: {matchLabels: [{key: "` + strings.Repeat("k", 10000) + `", value: x}]}`, "fromObject.selector.matchLabels[0].key: invalid external value: longer than 317 bytes"},
		"HugeValue":          {`selector: {matchLabels: [{key: k, value: "` + strings.Repeat("v", 10000) + `"}]}`, "fromObject.selector.matchLabels[0].value: invalid external value: longer than 63 bytes"},
		"HugeExprValue":      {`selector: {matchExpressions: [{key: k, operator: In, values: ["` + strings.Repeat("v", 10000) + `"]}]}`, "matchExpressions[0].values[0]: invalid external value: longer than 63 bytes"},
		"HugeOperator":       {`selector: {matchExpressions: [{key: k, operator: "` + strings.Repeat("o", 10000) + `"}]}`, `got a string ("oooooooooooooooooooooooooooooooooooooooo"...)`},
		"TooManyValues":      {`selector: {matchExpressions: [{key: k, operator: In, values: [` + strings.Repeat(`a, `, 65) + `]}]}`, "65 items, more than 64"},
		"TooManyMatchLabels": {`selector: {matchLabels: [` + strings.Repeat(`{key: a, value: b}, `, 17) + `]}`, "17 items, more than 16"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reader := newReader()
			r := NewResolver(reader, testMapper(), SourcePolicy{})
			w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, fieldPath: data.region, `+tc.selector+`}
  toFieldPath: spec.out
  policy: {resolution: Optional}`)
			_, err := r.Resolve(t.Context(), w)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v: want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error: want it to hold %q, got %q", tc.msg, err)
			}
			if len(err.Error()) > 1024 {
				t.Errorf("error of %d bytes: the spec's value is quoted whole", len(err.Error()))
			}
			if reader.reads() != 0 {
				t.Errorf("reads: want none, got %d", reader.reads())
			}
		})
	}
}

// TestAmbiguousNotTransient: a selection that matches too many objects
// waits for a change of them (the Watcher wakes it), not for a retry.
func TestAmbiguousNotTransient(t *testing.T) {
	r := NewResolver(listingReader(teamConfigs()...), testMapper(), SourcePolicy{})
	w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.out`)
	out, err := r.Resolve(t.Context(), w)
	if !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("error: want ErrAmbiguous, got %v", err)
	}
	if transient(out.Failed) {
		t.Errorf("an ambiguous selection is retried with backoff as a transient failure")
	}
}
