package extref

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerStringMatchMath resolves the String, Match and Math
// transforms, and Convert with formats quantity and json, under
// SetupReconciler on the real API server: the CRD's
// schema takes them (Match's results of any JSON type included), the
// values written are patch-and-transform's, and a failing one on a Secret's
// value says why without the value.
func TestAPIServerStringMatchMath(t *testing.T) {
	logs := testenv.NewLogs(10)
	h := start(t, testapi.WidgetKind, Options{Policy: SourcePolicy{OwnNamespaceSecrets: true}}, logs.Logger)
	h.create(t,
		configMap("pt-transforms", "settings", map[string]any{"url": "https://eu-west-1.example.org", "tier": "gold", "mem": "2Ki", "zones": `["a", "b", 3]`}),
		secret("pt-transforms", "vault", map[string]string{"pw": planted}),
	)
	w := widget(t, "pt-transforms", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.url}
  transforms:
  - {type: String, string: {type: TrimPrefix, trim: "https://"}}
  - {type: String, string: {type: Regexp, regexp: {match: '^([a-z0-9-]+)\.', group: 1}}}
  - {type: String, string: {type: Convert, convert: ToUpper}}
  toFieldPath: spec.forProvider.region
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.mem}
  transforms:
  - {type: Convert, toType: float64, format: quantity}
  - {type: Convert, toType: int}
  - {type: Math, math: {type: Multiply, multiply: 2}}
  - {type: Math, math: {type: ClampMax, clampMax: 4000}}
  toFieldPath: spec.forProvider.size
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.tier}
  transforms:
  - type: Match
    match:
      patterns:
      - {type: Literal, literal: silver, result: {tier: "2"}}
      - {type: Regexp, regexp: '^g', result: {tier: "1", support: "24x7"}}
      fallbackValue: {tier: "3"}
  toFieldPath: spec.forProvider.tags
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.tier}
  transforms:
  - {type: String, string: {type: Convert, convert: ToSha256}}
  toFieldPath: "metadata.annotations[example.org/tier-sha256]"
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.zones}
  transforms:
  - {type: Convert, toType: array, format: json}
  - {type: String, string: {type: Join, join: {separator: ", "}}}
  toFieldPath: "metadata.annotations[example.org/zones]"`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "EU-WEST-1" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "EU-WEST-1", v)
	}
	if v, _, _ := unstructured.NestedInt64(got.Object, "spec", "forProvider", "size"); v != 4000 {
		t.Errorf("spec.forProvider.size: want 4000, got %d", v)
	}
	if v, _, _ := unstructured.NestedStringMap(got.Object, "spec", "forProvider", "tags"); v["tier"] != "1" || v["support"] != "24x7" || len(v) != 2 {
		t.Errorf("spec.forProvider.tags: want tier 1, got %v, support 24x7", v)
	}
	if v := got.GetAnnotations()["example.org/zones"]; v != "a, b, 3" {
		t.Errorf("annotation example.org/zones: want %q, got %q", "a, b, 3", v)
	}
	sum := sha256.Sum256([]byte("gold"))
	if v, want := got.GetAnnotations()["example.org/tier-sha256"], hex.EncodeToString(sum[:]); v != want {
		t.Errorf("annotation example.org/tier-sha256: want %q, got %q", want, v)
	}

	// A Secret's value that no regexp matches: the condition says so, by
	// the value's type and size, and nothing holds the value.
	bad := widget(t, "pt-transforms", "bad", `
externalValues:
- fromObject: {version: v1, resource: secrets, name: vault, fieldPath: data.pw}
  transforms:
  - {type: String, string: {type: Regexp, regexp: {match: '^[0-9]+$'}}}
  toFieldPath: spec.forProvider.region
- fromObject: {version: v1, resource: secrets, name: vault, fieldPath: data.pw}
  transforms:
  - {type: Math, math: {type: Multiply, multiply: 2}}
  toFieldPath: spec.forProvider.size`)
	h.create(t, bad)
	failed := h.resolved(t, bad, metav1.ConditionFalse, ReasonResolutionFailed)
	msg := condition(t, failed).Message
	for _, want := range []string{"String: a string of 15 bytes does not match the regexp", "Math: takes a number, not a string of 15 bytes"} {
		if !strings.Contains(msg, want) {
			t.Errorf("condition message: want it to contain %q, got %q", want, msg)
		}
	}
	for where, text := range map[string]string{"the condition": msg, "the log": logs.String()} {
		if found := leaks(text); found != nil {
			t.Errorf("%s holds %q", where, found)
		}
	}
}
