package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolveInvalid(t *testing.T) {
	const cm = `{version: v1, resource: configmaps, name: settings, fieldPath: data.region}`
	cases := map[string]struct {
		reason string
		spec   string
		want   string // the error message
	}{
		"NotAList": {
			reason: "externalValues must be a list.",
			spec:   `externalValues: {a: b}`,
			want:   `cannot resolve spec.externalValues: invalid external value: want a list, got an object`,
		},
		"NotAnObject": {
			reason: "Each external value is an object.",
			spec:   `externalValues: [x]`,
			want:   `cannot resolve spec.externalValues[0]: invalid external value: want an object, got a string ("x")`,
		},
		"UnknownField": {
			reason: "A misspelt field is reported, not ignored.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldpath: spec.cidrBlock",
			want:   `cannot resolve spec.externalValues[0]: invalid external value: unknown field "toFieldpath"`,
		},
		"WrongType": {
			reason: "A field of the wrong type is named.",
			spec:   "externalValues:\n- fromObject: {version: v1, resource: configmaps, name: 3, fieldPath: data.x}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fromObject.name: invalid external value: want a string, got a number (3)`,
		},
		"UnknownNestedField": {
			reason: "Unknown fields are found at any depth.",
			spec:   "externalValues:\n- fromObject: {version: v1, resource: configmaps, name: x, fieldpath: data.x}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fromObject: invalid external value: unknown field "fieldpath"`,
		},
		"MapOfNumbers": {
			reason: "A Map transform maps strings to strings.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Map, map: {a: 1}}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0].map[a]: invalid external value: want a string, got a number (1)`,
		},
		"StringUnknownField": {
			reason: "A String transform's fields are checked like any other.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: String, string: {type: Regexp, regexp: {match: x, grup: 1}}}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0].string.regexp: invalid external value: unknown field "grup"`,
		},
		"StringGroupNotANumber": {
			reason: "A regexp group is a whole number.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: String, string: {type: Regexp, regexp: {match: x, group: 1.5}}}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0].string.regexp.group: invalid external value: want a group number, got a number (1.5)`,
		},
		"StringJoinNotAnObject": {
			reason: "join is an object.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: String, string: {type: Join, join: ','}}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0].string.join: invalid external value: want an object, got a string (",")`,
		},
		"StringWithoutString": {
			reason: "A String transform needs string.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: String}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0]: invalid external value: type String needs string`,
		},
		"StringBadRegexp": {
			reason: "A regexp that does not compile is refused, with the path.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: String, string: {type: Regexp, regexp: {match: '(a'}}}]",
			want:   "cannot resolve spec.externalValues[0].transforms[0]: invalid external value: string: regexp.match: error parsing regexp: missing closing ): `(a`",
		},
		"MatchUnknownPatternField": {
			reason: "A Match transform's patterns are checked like any other field.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Match, match: {patterns: [{type: Literal, literal: a, reslt: 1}]}}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0].match.patterns[0]: invalid external value: unknown field "reslt"`,
		},
		"MatchLiteralNotAString": {
			reason: "A literal is a string.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Match, match: {patterns: [{type: Literal, literal: 1, result: 1}]}}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0].match.patterns[0].literal: invalid external value: want a string, got a number (1)`,
		},
		"MatchBadRegexp": {
			reason: "A pattern's regexp that does not compile is refused, with the path.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Match, match: {patterns: [{type: Regexp, regexp: '(', result: 1}]}}]",
			want:   "cannot resolve spec.externalValues[0].transforms[0]: invalid external value: match: patterns[0]: regexp: error parsing regexp: missing closing ): `(`",
		},
		"MathNotAnInteger": {
			reason: "A Math transform's numbers are integers.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Math, math: {type: Multiply, multiply: 1.5}}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0].math.multiply: invalid external value: want an integer, got a number (1.5)`,
		},
		"SourcesNotAList": {
			reason: "Combine sources are a list.",
			spec:   "externalValues:\n- combine: {a: b}\n  fmt: x\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].combine: invalid external value: want a list, got an object`,
		},
		"NoSource": {
			reason: "One source is required.",
			spec:   "externalValues:\n- toFieldPath: spec.cidrBlock",
			want:   `cannot resolve spec.externalValues[0]: invalid external value: exactly one of fromObject, combine, variables and dependsOn must be set, found 0`,
		},
		"TwoSources": {
			reason: "Only one source is allowed.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  combine: [" + cm + "]\n  fmt: '%s'\n  toFieldPath: spec.cidrBlock",
			want:   `cannot resolve spec.externalValues[0]: invalid external value: exactly one of fromObject, combine, variables and dependsOn must be set, found 2`,
		},
		"NoDestination": {
			reason: "toFieldPath defaults to fromObject's fieldPath, which must be a target.",
			spec:   "externalValues:\n- fromObject: " + cm,
			want:   `cannot resolve spec.externalValues[0].toFieldPath: invalid external value: omitted, so it is fromObject's fieldPath "data.region", which is not a target: a value may be written only under spec, or to a label or an annotation`,
		},
		"TwoDestinations": {
			reason: "toFieldPath and makeAvailableAs are exclusive.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  makeAvailableAs: a",
			want:   `cannot resolve spec.externalValues[0]: invalid external value: toFieldPath and makeAvailableAs are exclusive`,
		},
		"MissingVersion": {
			reason: "A source needs a version.",
			spec:   "externalValues:\n- fromObject: {resource: configmaps, name: x, fieldPath: data.x}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fromObject.version: invalid external value: version is required`,
		},
		"MissingName": {
			reason: "A source needs a name.",
			spec:   "externalValues:\n- fromObject: {version: v1, resource: configmaps, fieldPath: data.x}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fromObject.name: invalid external value: name is required`,
		},
		"BadFieldPath": {
			reason: "A source's field path must parse; the error gives the position.",
			spec:   "externalValues:\n- fromObject: {version: v1, resource: configmaps, name: x, fieldPath: 'data[x'}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fromObject.fieldPath: invalid external value: `,
		},
		"WildcardFieldPath": {
			reason: "A source's field path names one field.",
			spec:   "externalValues:\n- fromObject: {version: v1, resource: configmaps, name: x, fieldPath: 'data[*]'}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fromObject.fieldPath: invalid external value: "data[*]": wildcards are not allowed`,
		},
		"TargetInExternalValues": {
			reason: "A value may not rewrite the external values.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.externalValues[0].toFieldPath",
			want:   `cannot resolve spec.externalValues[0].toFieldPath: invalid external value: "spec.externalValues[0].toFieldPath": overlaps spec.externalValues, where the external values are`,
		},
		"TargetSpec": {
			reason: "A value may not replace the whole spec.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec",
			want:   `cannot resolve spec.externalValues[0].toFieldPath: invalid external value: "spec": a value may be written only under spec, or to a label or an annotation`,
		},
		"TargetMetadataName": {
			reason: "Only labels and annotations are writable metadata.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: metadata.name",
			want:   `cannot resolve spec.externalValues[0].toFieldPath: invalid external value: "metadata.name": the only metadata a value may be written to is one label or annotation`,
		},
		"TargetStatus": {
			spec: "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: status.conditions",
			want: `cannot resolve spec.externalValues[0].toFieldPath: invalid external value: "status.conditions": a value may be written only under spec, or to a label or an annotation`,
		},
		"TargetKind": {
			spec: "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: kind",
			want: `cannot resolve spec.externalValues[0].toFieldPath: invalid external value: "kind": a value may be written only under spec, or to a label or an annotation`,
		},
		"TargetAllLabels": {
			spec: "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: metadata.labels",
			want: `cannot resolve spec.externalValues[0].toFieldPath: invalid external value: "metadata.labels": the only metadata a value may be written to is one label or annotation`,
		},
		"HugeIndex": {
			reason: "An index above fieldpath's limit is refused before anything is read or allocated.",
			spec:   "externalValues:\n- fromObject: {version: v1, resource: configmaps, name: x, fieldPath: 'data.a[100000000]'}\n  toFieldPath: spec.a[100000000]",
			want:   `cannot resolve spec.externalValues[0].fromObject.fieldPath: invalid external value: cannot parse field path "data.a[100000000]": index 100000000 is above the limit of 1024 at position 7`,
		},
		"BadPolicy": {
			reason: "Policy values are checked.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  policy: {resolve: Sometimes}",
			want:   `cannot resolve spec.externalValues[0].policy.resolve: invalid external value: unsupported value "Sometimes" (want IfNotPresent or Always)`,
		},
		"BadResolution": {
			reason: "Resolution values are checked.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  policy: {resolution: Maybe}",
			want:   `cannot resolve spec.externalValues[0].policy.resolution: invalid external value: unsupported value "Maybe" (want Required or Optional)`,
		},
		"CombineWithoutSources": {
			reason: "A combine needs sources.",
			spec:   "externalValues:\n- combine: []\n  fmt: x\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].combine: invalid external value: at least one source is required`,
		},
		"CombineWithoutFmt": {
			reason: "A combine needs fmt beside it.",
			spec:   "externalValues:\n- combine: [" + cm + "]\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fmt: invalid external value: combine needs fmt`,
		},
		"FmtWithoutCombine": {
			reason: "fmt formats combine's sources only.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  fmt: '%s'\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fmt: invalid external value: fmt needs combine`,
		},
		"CombineAsAnObject": {
			reason: "The combine layout is a list of sources with fmt beside it, not an object holding both.",
			spec:   "externalValues:\n- combine: {sources: [" + cm + "], fmt: '%s'}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].combine: invalid external value: want a list, got an object`,
		},
		"CombineFmtMismatch": {
			reason: "A combine's format must print every source, and nothing more.",
			spec:   "externalValues:\n- combine: [" + cm + ", " + cm + "]\n  fmt: 'a-%s'\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fmt: invalid external value: format "a-%s": prints 1 of 2 values`,
		},
		"CombineFmtTooFewValues": {
			reason: "A verb without a value is an error.",
			spec:   "externalValues:\n- combine: [" + cm + "]\n  fmt: '%s-%s'\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fmt: invalid external value: format "%s-%s": the verb at position 3 has no value (1 given)`,
		},
		"TemplateWithoutVariables": {
			reason: "A template needs variables.",
			spec:   "externalValues:\n- template: x\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].template: invalid external value: a template needs variables`,
		},
		"VariablesWithoutTemplate": {
			reason: "Variables need a template.",
			spec:   "externalValues:\n- variables: [{name: a, fromRef: " + cm + "}]\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].template: invalid external value: variables need a template`,
		},
		"BadVariableName": {
			reason: "A variable name must be usable as {{ .name }}.",
			spec:   "externalValues:\n- variables: [{name: a-b, fromRef: " + cm + "}]\n  template: x\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].variables[0].name: invalid external value: "a-b" is not a valid variable name (letters, digits and _, not starting with a digit)`,
		},
		"DuplicateVariable": {
			reason: "Variable names are unique.",
			spec:   "externalValues:\n- variables: [{name: a, fromRef: " + cm + "}, {name: a, fromRef: " + cm + "}]\n  template: x\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].variables[1].name: invalid external value: duplicate variable "a"`,
		},
		"TemplateRange": {
			reason: "range is not allowed in a template.",
			spec:   "externalValues:\n- variables: [{name: a, fromRef: " + cm + "}]\n  template: '{{ range 1000000000 }}{{ end }}'\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].template: invalid external value: template: template:1:9: range is not allowed`,
		},
		"UnknownTransform": {
			reason: "Transform types are checked.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Upper}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0]: invalid external value: unsupported type "Upper" (want Base64Decode, Base64Encode, Format, Map, Convert, String, Match or Math)`,
		},
		"FormatWithoutFormat": {
			reason: "A Format transform needs a format.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Format}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0]: invalid external value: type Format needs format`,
		},
		"TransformExtraField": {
			reason: "A transform takes only its own fields.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Base64Decode, format: '%s'}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0]: invalid external value: type Base64Decode does not take format`,
		},
		"BadConvert": {
			reason: "Convert types are checked.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Convert, toType: uint32}]",
			want:   `cannot resolve spec.externalValues[0].transforms[0]: invalid external value: unsupported toType "uint32" (want string, int, int64, float64, bool, object or array)`,
		},
		"LongName": {
			reason: "A source's name is bounded as the API's schema bounds it, whatever the referencer's schema says: caches keep it.",
			spec:   "externalValues:\n- fromObject: {version: v1, resource: configmaps, name: " + strings.Repeat("n", 254) + ", fieldPath: data.x}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fromObject.name: invalid external value: longer than 253 bytes`,
		},
		"LongGroup": {
			reason: "A source's group is bounded too.",
			spec:   "externalValues:\n- fromObject: {group: " + strings.Repeat("g", 254) + ", version: v1, resource: things, name: thing, fieldPath: data.x}\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fromObject.group: invalid external value: longer than 253 bytes`,
		},
		"LongFmt": {
			reason: "Formats are bounded in length.",
			spec:   "externalValues:\n- combine: [" + cm + "]\n  fmt: '%s" + strings.Repeat("x", maxExpressionLength) + "'\n  toFieldPath: spec.a",
			want:   `cannot resolve spec.externalValues[0].fmt: invalid external value: longer than 4096 bytes`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reader := newReader(configMap("team-a", "settings", map[string]any{"region": "x"}))
			w := widget(t, "team-a", "w", tc.spec)
			out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
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
			if out.Changed || out.Values != nil {
				t.Errorf("%s\nResolve(...): an invalid value must change nothing, got %+v", tc.reason, out)
			}
			if reader.reads() != 0 && strings.Contains(name, "Target") {
				t.Errorf("%s\na bad target must be found before any read, got %d reads", tc.reason, reader.reads())
			}
		})
	}
}
