package extref

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerWriteRejectedNamesValues writes values that a CRD's
// validation (enum, pattern, maxLength, a CEL rule whose message quotes the
// value) and the API server's label rules refuse: the condition names each
// external value, its target and its problem once, and no byte of a value.
func TestAPIServerWriteRejectedNamesValues(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	sprocket := schema.GroupVersionKind{Group: "rejects.extref.test.ctrlkit.dev", Version: "v1alpha1", Kind: "Sprocket"}
	str := func(rules map[string]any) map[string]any {
		s := map[string]any{"type": "string"}
		for k, v := range rules {
			s[k] = v
		}
		return s
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "sprockets.rejects.extref.test.ctrlkit.dev"},
		"spec": map[string]any{
			"group": sprocket.Group,
			"scope": "Namespaced",
			"names": map[string]any{"kind": "Sprocket", "listKind": "SprocketList", "plural": "sprockets", "singular": "sprocket"},
			"versions": []any{map[string]any{
				"name": "v1alpha1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{"type": "object", "properties": map[string]any{
							"externalValues": v1alpha1.ExternalValuesSchema(),
							"fine":           str(nil),
							"tier":           str(map[string]any{"enum": []any{"gold", "silver"}}),
							"code":           str(map[string]any{"pattern": "^[a-z]+$"}),
							"short":          str(map[string]any{"maxLength": 5}),
							"checked":        str(map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": "self.size() < 4", "messageExpression": "'got ' + self"}}}),
						}},
						"status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
					},
				}},
			}},
		},
	}}
	require.NoError(t, env.Client.Create(ctx, crd))
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), crd)
		gone(t, env, crd)
	})
	const ns = "rejects"
	testenv.Eventually(t, 30*time.Second, "the Sprocket CRD serves", func() error {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(sprocket.GroupVersion().WithKind("SprocketList"))
		return env.Client.List(ctx, l)
	})

	h := start(t, sprocket, Options{Policy: SourcePolicy{OwnNamespaceSecrets: true}})
	const planted = "hunter2-Planted" // in every value written
	h.create(t,
		configMap(ns, "values", map[string]any{
			"fine": "ok", "tier": planted, "code": planted, "short": planted, "checked": planted,
			"label": "bad value " + planted, "long": strings.Repeat(planted, 5),
		}),
		secret(ns, "vault", map[string]string{"label": planted + "!"}),
	)
	from := func(key string) map[string]any {
		return map[string]any{"version": "v1", "resource": "configmaps", "name": "values", "fieldPath": "data." + key}
	}
	value := func(key, target string) any {
		return map[string]any{"fromObject": from(key), "toFieldPath": target}
	}
	cases := map[string]struct {
		values []any
		want   []string // in the message, each once
	}{
		"enum": {
			values: []any{value("fine", "spec.fine"), value("tier", "spec.tier")},
			want:   []string{"spec.externalValues[1] (to spec.tier): not one of the supported values"},
		},
		"schema": {
			values: []any{value("code", "spec.code"), value("fine", "spec.fine"), value("short", "spec.short")},
			want: []string{
				"spec.externalValues[0] (to spec.code): an invalid value",
				"spec.externalValues[2] (to spec.short): longer than 5 bytes",
			},
		},
		"cel": {
			// CEL rules run only once the schema's other checks pass.
			values: []any{value("fine", "spec.fine"), value("checked", "spec.checked")},
			want:   []string{"spec.externalValues[1] (to spec.checked): an invalid value"},
		},
		"labels": {
			values: []any{
				value("fine", "metadata.labels[fine]"),
				value("label", "metadata.labels[app]"),
				value("long", "metadata[labels][tier]"),
				map[string]any{"fromObject": map[string]any{"version": "v1", "resource": "secrets", "name": "vault", "fieldPath": "data.label"}, "toFieldPath": "metadata.labels[team]"},
			},
			want: []string{
				"spec.externalValues[1] (to metadata.labels[app]): " + notLabel,
				"spec.externalValues[2] (to metadata[labels][tier]): its value is longer than 63 bytes",
				"spec.externalValues[3] (to metadata.labels[team]): " + notLabel,
			},
		},
	}
	for name, tc := range cases {
		s := object(sprocket, ns, name, map[string]any{"spec": map[string]any{"externalValues": tc.values}})
		h.create(t, s)
		got := h.resolved(t, s, metav1.ConditionFalse, ReasonWriteRejected)
		msg := condition(t, got).Message
		t.Logf("%s: %s", name, msg)
		if strings.Contains(msg, "Planted") || strings.Contains(msg, "hunter2") {
			t.Errorf("%s: the condition quotes a value: %q", name, msg)
		}
		for _, want := range tc.want {
			if n := strings.Count(msg, want); n != 1 {
				t.Errorf("%s: condition message %q: want once, got %q %d times", name, msg, want, n)
			}
		}
		if n, want := strings.Count(msg, "spec.externalValues["), len(tc.want); n != want {
			t.Errorf("%s: condition message %q names %d external values, want %d", name, msg, n, want)
		}
		warningEvent(t, h, s, ReasonWriteRejected)
	}
	if n := h.reconciles.errors.Load(); n != 0 {
		t.Errorf("reconciles that returned an error: want 0, got %d", n)
	}
}
