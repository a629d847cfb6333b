package extref

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// summary is what a test compares of an Outcome.
type summary struct {
	Changed  bool
	Values   map[string]any
	Resolved int
	Present  int
	Skipped  []string
	Failed   []string
}

func summarize(o Outcome) summary {
	s := summary{Changed: o.Changed, Values: o.Values, Resolved: o.Resolved, Present: o.Present}
	for _, e := range o.Skipped {
		s.Skipped = append(s.Skipped, e.Error())
	}
	for _, e := range o.Failed {
		s.Failed = append(s.Failed, e.Error())
	}
	return s
}

// The seed's policy for cluster-scoped referencers: read VPCs, and the
// common-settings ConfigMap in crossplane-system.
var seedPolicy = SourcePolicy{Allow: []SourceRule{
	{Name: "vpcs", Group: "extref.test.ctrlkit.dev", Resource: "vpcs"},
	{Name: "common settings", Resource: "configmaps", Namespaces: []string{"crossplane-system"}, Names: []string{"common-settings"}},
	{Name: "accounts", Resource: "secrets", Namespaces: []string{"crossplane-system"}, Names: []string{"accounts"}},
}}

func TestResolve(t *testing.T) {
	sources := []*unstructured.Unstructured{
		vpc("main-vpc", "10.0.0.0/16"),
		configMap("crossplane-system", "common-settings", map[string]any{"region": "us-east-1", "size": "3"}),
		configMap("team-a", "settings", map[string]any{"region": "eu-west-1", "zone": "b"}),
		configMap("team-b", "settings", map[string]any{"region": "ap-south-1"}),
		secret("crossplane-system", "accounts", map[string]string{"prodAWSAccountID": "123456789012"}),
		secret("team-a", "db", map[string]string{"password": "s3cr3t"}),
	}
	cases := map[string]struct {
		reason     string
		referencer *unstructured.Unstructured
		policy     SourcePolicy
		wantSpec   string // YAML; empty: the spec must be unchanged
		wantLabels map[string]string
		want       summary
		wantErr    error
		wantReads  *int
	}{
		"SeedVPC": {
			reason: "The seed's first example: a cluster-scoped referencer takes a VPC's CIDR block.",
			referencer: widget(t, "", "subnet", `
externalValues:
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: vpcs, name: main-vpc, fieldPath: spec.forProvider.cidrBlock}
  toFieldPath: spec.cidrBlock`),
			policy: seedPolicy,
			wantSpec: `
externalValues:
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: vpcs, name: main-vpc, fieldPath: spec.forProvider.cidrBlock}
  toFieldPath: spec.cidrBlock
cidrBlock: 10.0.0.0/16`,
			want: summary{Changed: true, Resolved: 1},
		},
		"SeedConfigMap": {
			reason: "The seed's second example: a ConfigMap in another namespace gives the region.",
			referencer: widget(t, "", "subnet", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`),
			policy: seedPolicy,
			wantSpec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
forProvider: {region: us-east-1}`,
			want: summary{Changed: true, Resolved: 1},
		},
		"OwnNamespaceByDefault": {
			reason: "A namespaced referencer reads its own namespace without any rule, and the namespace defaults to its own.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`),
			wantSpec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
forProvider: {region: eu-west-1}`,
			want: summary{Changed: true, Resolved: 1},
		},
		"IfNotPresentLeavesAValueAlone": {
			reason: "IfNotPresent (the default) does not resolve, or even read, a target that has a value.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
forProvider: {region: set-by-hand}`),
			want:      summary{Present: 1},
			wantReads: ptr.To(0),
		},
		"IfNotPresentFillsAnEmptyString": {
			reason: "An empty string counts as no value.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
forProvider: {region: ""}`),
			wantSpec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
forProvider: {region: eu-west-1}`,
			want: summary{Changed: true, Resolved: 1},
		},
		"AlwaysReplacesAStaleValue": {
			reason: "Always re-resolves and replaces a value that differs from the source.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}
forProvider: {region: old}`),
			wantSpec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}
forProvider: {region: eu-west-1}`,
			want: summary{Changed: true, Resolved: 1},
		},
		"AlwaysSettled": {
			reason: "Always with an equal value changes nothing, so the caller writes nothing.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}
forProvider: {region: eu-west-1}`),
			want: summary{Resolved: 1},
		},
		"RequiredSourceMissing": {
			reason: "A missing source fails a required value, and nothing else is written either.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
- fromObject: {version: v1, resource: configmaps, name: missing, fieldPath: data.x}
  toFieldPath: spec.cidrBlock`),
			want: summary{Resolved: 1, Failed: []string{
				`cannot resolve spec.externalValues[1].fromObject (configmaps team-a/missing, data.x): source not found: ConfigMap "missing" does not exist`,
			}},
			wantErr: ErrSourceNotFound,
		},
		"RequiredFieldMissing": {
			reason: "A missing field fails a required value.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.nope}
  toFieldPath: spec.forProvider.region`),
			want: summary{Failed: []string{
				`cannot resolve spec.externalValues[0].fromObject (configmaps team-a/settings, data.nope): field not found: cannot get data.nope: data has no field "nope"`,
			}},
			wantErr: ErrFieldNotFound,
		},
		"OptionalSkipped": {
			reason: "An optional value that fails is skipped and reported; the others are written.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: missing, fieldPath: data.x}
  toFieldPath: spec.cidrBlock
  policy: {resolution: Optional}
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`),
			wantSpec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: missing, fieldPath: data.x}
  toFieldPath: spec.cidrBlock
  policy: {resolution: Optional}
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
forProvider: {region: eu-west-1}`,
			want: summary{Changed: true, Resolved: 1, Skipped: []string{
				`cannot resolve spec.externalValues[0].fromObject (configmaps team-a/missing, data.x): source not found: ConfigMap "missing" does not exist`,
			}},
		},
		"CrossNamespaceDenied": {
			reason: "A namespaced referencer may not read another namespace by default; nothing is read or written.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, namespace: team-b, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`),
			want: summary{Failed: []string{
				`cannot resolve spec.externalValues[0].fromObject (configmaps team-b/settings, data.region): denied by the default source policy: only the referencer's namespace "team-a" is readable unless an allow rule matches namespace "team-b", and none of the 0 allow rules does`,
			}},
			wantErr:   ErrDenied,
			wantReads: ptr.To(0),
		},
		"CrossNamespaceAllowed": {
			reason: "An allow rule opens another namespace.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, namespace: team-b, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`),
			policy: SourcePolicy{Allow: []SourceRule{{Name: "b", Resource: "configmaps", Namespaces: []string{"team-b"}, ReferencerNamespaces: []string{"team-a"}}}},
			wantSpec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, namespace: team-b, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
forProvider: {region: ap-south-1}`,
			want: summary{Changed: true, Resolved: 1},
		},
		"OwnSecretDenied": {
			reason: "Secrets are not readable by default, even in the referencer's namespace.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: secrets, name: db, fieldPath: data.password}
  makeAvailableAs: password`),
			want: summary{Failed: []string{
				`cannot resolve spec.externalValues[0].fromObject (secrets team-a/db, data.password): denied by the default source policy: Secrets are readable only with SourcePolicy.OwnNamespaceSecrets or an allow rule for secrets, and none of the 0 allow rules does`,
			}},
			wantErr:   ErrDenied,
			wantReads: ptr.To(0),
		},
		"OwnSecretAllowed": {
			reason: "OwnNamespaceSecrets allows Secrets in the referencer's namespace; an obscure value is handed over, not written.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: secrets, name: db, fieldPath: data.password}
  makeAvailableAs: password`),
			policy: SourcePolicy{OwnNamespaceSecrets: true},
			want:   summary{Resolved: 1, Values: map[string]any{"password": "s3cr3t"}},
		},
		"WildcardRuleDoesNotOpenSecrets": {
			reason: "A rule for any resource does not match Secrets.",
			referencer: widget(t, "", "w", `
externalValues:
- fromObject: {version: v1, resource: secrets, name: accounts, namespace: crossplane-system, fieldPath: data.prodAWSAccountID}
  makeAvailableAs: account`),
			policy:    SourcePolicy{Allow: []SourceRule{{Name: "everything", Group: "*", Resource: "*", Namespaces: []string{"*"}}}},
			want:      summary{Failed: []string{`cannot resolve spec.externalValues[0].fromObject (secrets crossplane-system/accounts, data.prodAWSAccountID): denied by the default source policy: a cluster-scoped referencer reads only what an allow rule matches, and none of the 1 allow rules does`}},
			wantErr:   ErrDenied,
			wantReads: ptr.To(0),
		},
		"ClusterScopedSourceNeedsARule": {
			reason: "A namespaced referencer may not read a cluster-scoped source by default.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: vpcs, name: main-vpc, fieldPath: spec.forProvider.cidrBlock}
  toFieldPath: spec.cidrBlock`),
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].fromObject (vpcs.extref.test.ctrlkit.dev main-vpc, spec.forProvider.cidrBlock): denied by the default source policy: cluster-scoped sources are readable only when an allow rule matches, and none of the 0 allow rules does`}},
			wantErr: ErrDenied,
		},
		"ClusterScopedReferencerNeedsNamespace": {
			reason: "A cluster-scoped referencer must say the namespace of a namespaced source.",
			referencer: widget(t, "", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: common-settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`),
			policy:  seedPolicy,
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].fromObject (configmaps common-settings, data.region): invalid external value: configmaps is namespaced and the referencer is cluster-scoped, so namespace is required`}},
			wantErr: ErrInvalid,
		},
		"ClusterScopedSourceTakesNoNamespace": {
			reason: "A namespace given for a cluster-scoped source is an error, not silently ignored.",
			referencer: widget(t, "", "w", `
externalValues:
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: vpcs, name: main-vpc, namespace: default, fieldPath: spec.forProvider.cidrBlock}
  toFieldPath: spec.cidrBlock`),
			policy:  seedPolicy,
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].fromObject (vpcs.extref.test.ctrlkit.dev default/main-vpc, spec.forProvider.cidrBlock): invalid external value: vpcs.extref.test.ctrlkit.dev is cluster-scoped, so namespace must be empty`}},
			wantErr: ErrInvalid,
		},
		"UnknownResource": {
			reason: "A resource the mapper does not know is a clear error.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {group: nope.example.org, version: v1, resource: things, name: x, fieldPath: spec.x}
  toFieldPath: spec.cidrBlock`),
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].fromObject (things.nope.example.org x, spec.x): unknown resource things.nope.example.org: no matches for nope.example.org/v1, Resource=things`}},
			wantErr: ErrUnknownResource,
		},
		"Combine": {
			reason: "The seed's combine example: a region and an account ID formatted into an ARN.",
			referencer: widget(t, "", "w", `
externalValues:
- combine:
  - {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  - {version: v1, resource: secrets, name: accounts, namespace: crossplane-system, fieldPath: data.prodAWSAccountID}
  fmt: "arn:aws:clouddirectory:%s:%s:schema/published/cognito/1.0"
  transforms: []
  toFieldPath: spec.forProvider.directoryArn`),
			policy: seedPolicy,
			wantSpec: `
externalValues:
- combine:
  - {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  - {version: v1, resource: secrets, name: accounts, namespace: crossplane-system, fieldPath: data.prodAWSAccountID}
  fmt: "arn:aws:clouddirectory:%s:%s:schema/published/cognito/1.0"
  transforms: []
  toFieldPath: spec.forProvider.directoryArn
forProvider: {directoryArn: "arn:aws:clouddirectory:us-east-1:123456789012:schema/published/cognito/1.0"}`,
			want: summary{Changed: true, Resolved: 1},
		},
		"CombineWithAMissingSource": {
			reason: "A combine with one missing source applies nothing.",
			referencer: widget(t, "", "w", `
externalValues:
- combine:
  - {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  - {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.account}
  fmt: "arn:%s:%s"
  toFieldPath: spec.forProvider.directoryArn`),
			policy:  seedPolicy,
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].combine[1] (configmaps crossplane-system/common-settings, data.account): field not found: cannot get data.account: data has no field "account"`}},
			wantErr: ErrFieldNotFound,
		},
		"Template": {
			reason: "The seed's template example: the Secret's data is decoded.",
			referencer: widget(t, "", "w", `
externalValues:
- variables:
  - name: region
    fromRef: {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  - name: accountId
    fromRef: {version: v1, resource: secrets, name: accounts, namespace: crossplane-system, fieldPath: data.prodAWSAccountID}
  template: "arn:aws:clouddirectory:{{ .region }}:{{ .accountId }}:schema/published/cognito/1.0"
  toFieldPath: spec.forProvider.directoryArn`),
			policy: seedPolicy,
			wantSpec: `
externalValues:
- variables:
  - name: region
    fromRef: {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  - name: accountId
    fromRef: {version: v1, resource: secrets, name: accounts, namespace: crossplane-system, fieldPath: data.prodAWSAccountID}
  template: "arn:aws:clouddirectory:{{ .region }}:{{ .accountId }}:schema/published/cognito/1.0"
  toFieldPath: spec.forProvider.directoryArn
forProvider: {directoryArn: "arn:aws:clouddirectory:us-east-1:123456789012:schema/published/cognito/1.0"}`,
			want: summary{Changed: true, Resolved: 1},
		},
		"TransformsAndLabel": {
			reason: "Transforms run in order; a label takes the resulting string.",
			referencer: widget(t, "", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  transforms:
  - {type: Map, map: {us-east-1: use1}}
  - {type: Format, format: "%s-a"}
  toFieldPath: "metadata.labels[example.org/zone]"
- fromObject: {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.size}
  transforms: [{type: Convert, toType: int64}]
  toFieldPath: spec.forProvider.size`),
			policy: seedPolicy,
			wantSpec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.region}
  transforms:
  - {type: Map, map: {us-east-1: use1}}
  - {type: Format, format: "%s-a"}
  toFieldPath: "metadata.labels[example.org/zone]"
- fromObject: {version: v1, resource: configmaps, name: common-settings, namespace: crossplane-system, fieldPath: data.size}
  transforms: [{type: Convert, toType: int64}]
  toFieldPath: spec.forProvider.size
forProvider: {size: 3}`,
			wantLabels: map[string]string{"example.org/zone": "use1-a"},
			want:       summary{Changed: true, Resolved: 2},
		},
		"TransformFails": {
			reason: "A transform that fails names the transform.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.zone}
  transforms: [{type: Map, map: {a: x}}]
  toFieldPath: spec.forProvider.region`),
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].transforms[0]: cannot transform value: Map: the map has no entry for a string ("b")`}},
			wantErr: ErrTransform,
		},
		"LabelTakesStrings": {
			reason: "A label cannot hold an object.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data}
  toFieldPath: metadata.labels.data`),
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].toFieldPath: cannot write value to metadata.labels.data: labels and annotations take strings, not an object`}},
			wantErr: ErrTarget,
		},
		"TargetThroughAScalar": {
			reason: "A target whose parent holds a scalar cannot be written.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.cidrBlock.region
cidrBlock: x`),
			wantErr: ErrTarget,
		},
		"SequentialTargets": {
			reason: "Values resolve in order: a second IfNotPresent value for a target the first filled is already set.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.zone}
  toFieldPath: spec.forProvider.region`),
			wantSpec: `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.zone}
  toFieldPath: spec.forProvider.region
forProvider: {region: eu-west-1}`,
			want:      summary{Changed: true, Resolved: 1, Present: 1},
			wantReads: ptr.To(1),
		},
		"OneReadPerObject": {
			reason: "Two fields of one object cost one read.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- combine:
  - {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  - {version: v1, resource: configmaps, name: settings, fieldPath: data.zone}
  fmt: "%s%s"
  toFieldPath: spec.forProvider.region`),
			wantSpec: `
externalValues:
- combine:
  - {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  - {version: v1, resource: configmaps, name: settings, fieldPath: data.zone}
  fmt: "%s%s"
  toFieldPath: spec.forProvider.region
forProvider: {region: eu-west-1b}`,
			want:      summary{Changed: true, Resolved: 1},
			wantReads: ptr.To(1),
		},
		"InvalidOptionalStillFails": {
			reason: "A malformed value fails whatever its resolution policy.",
			referencer: widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: status.region
  policy: {resolution: Optional}`),
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].toFieldPath: invalid external value: "status.region": a value may be written only under spec, or to a label or an annotation`}},
			wantErr: ErrInvalid,
		},
		"NoExternalValues": {
			reason:     "A referencer without external values resolves to nothing.",
			referencer: widget(t, "team-a", "w", `cidrBlock: x`),
			want:       summary{},
			wantReads:  ptr.To(0),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reader := newReader(sources...)
			before := runtime.DeepCopyJSON(tc.referencer.Object)
			r := NewResolver(reader, testMapper(), tc.policy)
			metricsBefore := gatherMetrics(t)
			out, err := r.Resolve(t.Context(), tc.referencer)
			wantMetrics := map[string]float64{}
			for name, n := range map[string]int{
				"ctrlkit_extref_values_resolved_total":                   out.Resolved,
				"ctrlkit_extref_values_present_total":                    out.Present,
				`ctrlkit_extref_value_failures_total{policy="required"}`: len(out.Failed),
				`ctrlkit_extref_value_failures_total{policy="optional"}`: len(out.Skipped),
			} {
				if n > 0 {
					wantMetrics[name] = float64(n)
				}
			}
			if len(wantMetrics) > 0 || err != nil {
				result := "resolved"
				if err != nil {
					result = "failed"
				}
				wantMetrics[`ctrlkit_extref_resolutions_total{result="`+result+`"}`] = 1
			}
			if diff := cmp.Diff(wantMetrics, grew(metricsBefore, gatherMetrics(t))); diff != "" {
				t.Errorf("%s\nmetrics grown by Resolve(...): -want, +got:\n%s", tc.reason, diff)
			}

			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("%s\nResolve(...): want error wrapping %v, got %v", tc.reason, tc.wantErr, err)
				}
			} else if err != nil {
				t.Fatalf("%s\nResolve(...): %v", tc.reason, err)
			}
			if tc.want.Failed == nil && tc.wantErr != nil {
				tc.want.Failed = summarize(out).Failed // checked by errors.Is only
			}
			if diff := cmp.Diff(tc.want, summarize(out)); diff != "" {
				t.Errorf("%s\nResolve(...): -want, +got:\n%s", tc.reason, diff)
			}
			want := before
			if tc.wantSpec != "" {
				want = widget(t, tc.referencer.GetNamespace(), tc.referencer.GetName(), tc.wantSpec).Object
				if tc.wantLabels != nil {
					(&unstructured.Unstructured{Object: want}).SetLabels(tc.wantLabels)
				}
			}
			if diff := cmp.Diff(want, tc.referencer.Object); diff != "" {
				t.Errorf("%s\nreferencer after Resolve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if tc.wantReads != nil {
				if got := reader.reads(); got != *tc.wantReads {
					t.Errorf("%s\nreads: want %d, got %d", tc.reason, *tc.wantReads, got)
				}
			}
		})
	}
}
