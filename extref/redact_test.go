package extref

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// planted is a secret value the tests plant in a Secret (and, for obscure
// references, in a ConfigMap), then look for in every error and condition.
const planted = "hunter2-planted"

// leaks returns the forms of the planted value found in s.
func leaks(s string) []string {
	var found []string
	for _, form := range []string{"hunter2", "HUNTER2", "planted", "PLANTED", base64.StdEncoding.EncodeToString([]byte(planted))[:12], "104 117 110"} {
		if strings.Contains(s, form) {
			found = append(found, form)
		}
	}
	return found
}

// TestResolveNeverQuotesSecrets makes every transform, format and template
// fail on a value from a Secret, or bound for makeAvailableAs, and checks
// that neither the error nor the condition holds any form of it, while they
// name the external value, the transform and the kind of value.
func TestResolveNeverQuotesSecrets(t *testing.T) {
	vault := secret("team-a", "vault", map[string]string{"pw": planted, "bin": "\xff" + planted})
	settings := configMap("team-a", "settings", map[string]any{"pw": planted})
	reader := newReader(vault, settings)
	const pw = "{version: v1, resource: secrets, name: vault, fieldPath: data.pw}"
	const cm = "{version: v1, resource: configmaps, name: settings, fieldPath: data.pw}"

	cases := map[string]struct {
		spec string
		want string // a part of the error that must be there
	}{
		"ConvertInt64":        {spec: "- fromObject: " + pw + "\n  transforms: [{type: Convert, toType: int64}]\n  toFieldPath: spec.forProvider.region", want: "transforms[0]: cannot transform value: Convert: cannot convert a string of 15 bytes to int64: not a decimal integer"},
		"ConvertFloat64":      {spec: "- fromObject: " + pw + "\n  transforms: [{type: Convert, toType: float64}]\n  toFieldPath: spec.forProvider.region", want: "Convert: cannot convert a string of 15 bytes to float64"},
		"ConvertBool":         {spec: "- fromObject: " + pw + "\n  transforms: [{type: Convert, toType: bool}]\n  toFieldPath: spec.forProvider.region", want: "Convert: cannot convert a string of 15 bytes to bool"},
		"Map":                 {spec: "- fromObject: " + pw + "\n  transforms: [{type: Map, map: {a: b}}]\n  toFieldPath: spec.forProvider.region", want: "Map: the map has no entry for a string of 15 bytes"},
		"Format":              {spec: "- fromObject: " + pw + "\n  transforms: [{type: Format, format: '%d'}]\n  toFieldPath: spec.forProvider.region", want: "Format: value 1: integer verbs print whole numbers, not a string of 15 bytes"},
		"Base64Decode":        {spec: "- fromObject: " + pw + "\n  transforms: [{type: Base64Decode}]\n  toFieldPath: spec.forProvider.region", want: "Base64Decode: a string of 15 bytes is not valid base64"},
		"SecondTransform":     {spec: "- fromObject: " + pw + "\n  transforms: [{type: Format, format: 'x-%s'}, {type: Convert, toType: int64}]\n  toFieldPath: spec.forProvider.region", want: "transforms[1]: cannot transform value: Convert: cannot convert a string of 17 bytes"},
		"CombineFmt":          {spec: "- combine: [" + cm + ", " + pw + "]\n  fmt: '%s-%d'\n  toFieldPath: spec.forProvider.region", want: "fmt: cannot transform value: fmt: value 2: integer verbs print whole numbers, not a string of 15 bytes"},
		"CombineTaintsAll":    {spec: "- combine: [" + cm + ", " + pw + "]\n  fmt: '%s-%s'\n  transforms: [{type: Convert, toType: int64}]\n  toFieldPath: spec.forProvider.region", want: "Convert: cannot convert a string of 31 bytes"},
		"TemplatePrintf":      {spec: "- variables: [{name: pw, fromRef: " + pw + "}]\n  template: '{{ printf \"%d\" .pw }}'\n  toFieldPath: spec.forProvider.region", want: "error calling printf: value 1: integer verbs print whole numbers, not a string of 15 bytes"},
		"TemplatePrintfFmt":   {spec: "- variables: [{name: pw, fromRef: " + pw + "}]\n  template: '{{ printf (print .pw \"%\") }}'\n  toFieldPath: spec.forProvider.region", want: "printf: the format (a string of 16 bytes) is not a format of 0 values: see position 15"},
		"TemplateB64dec":      {spec: "- variables: [{name: pw, fromRef: " + pw + "}]\n  template: '{{ b64dec .pw }}'\n  toFieldPath: spec.forProvider.region", want: "error calling b64dec: a string of 15 bytes is not valid base64"},
		"TemplateBuiltin":     {spec: "- variables: [{name: pw, fromRef: " + pw + "}]\n  template: '{{ index .pw 99 }}'\n  toFieldPath: spec.forProvider.region", want: "template: template:1:3: the reason is withheld"},
		"TemplateField":       {spec: "- variables: [{name: pw, fromRef: " + pw + "}]\n  template: '{{ .pw.x }}'\n  toFieldPath: spec.forProvider.region", want: "the reason is withheld"},
		"TemplateSlice":       {spec: "- variables: [{name: pw, fromRef: " + pw + "}, {name: c, fromRef: " + cm + "}]\n  template: '{{ slice .pw 3 99 }}{{ .c }}'\n  toFieldPath: spec.forProvider.region", want: "the reason is withheld"},
		"TemplateConfigMapOK": {spec: "- variables: [{name: c, fromRef: " + cm + "}]\n  template: '{{ printf \"%d\" .c }}'\n  makeAvailableAs: c", want: "not a string of 15 bytes"},
		"ObscureConfigMap":    {spec: "- fromObject: " + cm + "\n  transforms: [{type: Convert, toType: int64}]\n  makeAvailableAs: c", want: "cannot convert a string of 15 bytes"},
		"LabelOfObject":       {spec: "- fromObject: {version: v1, resource: secrets, name: vault, fieldPath: data}\n  toFieldPath: metadata.labels[x]", want: "labels and annotations take strings, not an object of 2 fields"},
		"Binary":              {spec: "- fromObject: {version: v1, resource: secrets, name: vault, fieldPath: data.bin}\n  toFieldPath: spec.forProvider.region", want: "the value (a string of 16 bytes) is not valid UTF-8 text"},
		"FieldOnTheWay":       {spec: "- fromObject: {version: v1, resource: secrets, name: vault, fieldPath: data.pw.x}\n  toFieldPath: spec.forProvider.region", want: "field not found: data.pw.x has no such field"},
		"TargetOnTheWay":      {spec: "- fromObject: " + pw + "\n  toFieldPath: spec.forProvider.region\n- fromObject: " + cm + "\n  toFieldPath: spec.forProvider.region.x", want: "toFieldPath: cannot write value to spec.forProvider.region.x: cannot set spec.forProvider.region.x: spec.forProvider.region is a string of 15 bytes, not an object"},
		"Optional":            {spec: "- fromObject: " + pw + "\n  transforms: [{type: Convert, toType: int64}]\n  toFieldPath: spec.forProvider.region\n  policy: {resolution: Optional}", want: "cannot convert a string of 15 bytes"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := widget(t, "team-a", "w", "externalValues:\n"+tc.spec)
			out, err := NewResolver(reader, testMapper(), SourcePolicy{OwnNamespaceSecrets: true}).Resolve(t.Context(), w)
			msg := Condition(out, err, 1).Message
			if err != nil {
				msg += "\n" + err.Error()
			}
			for _, s := range out.Skipped {
				msg += "\n" + s.Error()
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("Resolve(...): want a message with %q, got:\n%s", tc.want, msg)
			}
			if found := leaks(msg); found != nil {
				t.Errorf("Resolve(...): the error or condition holds %q:\n%s", found, msg)
			}
		})
	}
}

// TestResolvePlainValuesQuoted checks that values which are not secret
// are still quoted in errors, for the user's sake.
func TestResolvePlainValuesQuoted(t *testing.T) {
	reader := newReader(configMap("team-a", "settings", map[string]any{"size": "3x"}))
	w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.size}
  transforms: [{type: Convert, toType: int64}]
  toFieldPath: spec.forProvider.region`)
	_, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
	const want = `cannot resolve spec.externalValues[0].transforms[0]: cannot transform value: Convert: cannot convert a string ("3x") to int64: not a decimal integer`
	if err == nil || err.Error() != want {
		t.Errorf("Resolve(...): want %q, got %v", want, err)
	}
}

// timedWidget is a typed referencer with a field whose decoder quotes what
// it cannot parse, as a time's does.
type timedWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              timedSpec `json:"spec"`
}

type timedSpec struct {
	ExternalValues []v1alpha1.ExternalValue `json:"externalValues,omitempty"`
	NotAfter       *metav1.Time             `json:"notAfter,omitempty"`
}

func (w *timedWidget) DeepCopyObject() runtime.Object { c := *w; return &c }

// TestResolveTypedNeverQuotesSecrets writes a Secret's value to a typed
// referencer's time field: the decoder's error, which quotes it, is
// withheld, and the external value and its target are named.
func TestResolveTypedNeverQuotesSecrets(t *testing.T) {
	reader := newReader(secret("team-a", "db", map[string]string{"password": planted}))
	w := &timedWidget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w"}, Spec: timedSpec{ExternalValues: []v1alpha1.ExternalValue{
		{FromObject: &v1alpha1.ObjectFieldRef{Version: "v1", Resource: "secrets", Name: "db", FieldPath: "data.password"}, ToFieldPath: "spec.notAfter"},
	}}}
	_, err := NewResolver(reader, testMapper(), SourcePolicy{OwnNamespaceSecrets: true}).Resolve(t.Context(), w)
	const want = "cannot resolve spec.externalValues[0].toFieldPath: cannot write value to spec.notAfter: *extref.timedWidget cannot hold a string of 15 bytes there: the reason is withheld"
	if !errors.Is(err, ErrTarget) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Resolve(...): want ErrTarget starting %q, got %v", want, err)
	}
	if err != nil {
		if found := leaks(err.Error()); found != nil {
			t.Errorf("Resolve(...): the error holds %q: %v", found, err)
		}
	}
}
