package extref

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerAdmissionDenialNotLogged has an admission policy deny the
// write of a value read from a Secret with a message that quotes it: the
// reconciler's error, which the manager logs, does not repeat that message
// but says why the write failed.
func TestAPIServerAdmissionDenialNotLogged(t *testing.T) {
	const ns = "denied-admission"
	logs := testenv.NewLogs(7) // client-go logs request bodies, which hold the values written, from 8 on
	h := start(t, testapi.WidgetKind, Options{Policy: SourcePolicy{OwnNamespaceSecrets: true}}, logs.Logger)
	ctx := t.Context()
	policy := fromYAML(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: extref-denied-admission}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [`+testapi.WidgetKind.Group+`], apiVersions: ["*"], operations: [UPDATE], resources: [widgets]}
  validations:
  - expression: "!has(object.spec.forProvider) || !has(object.spec.forProvider.region)"
    messageExpression: "'region ' + object.spec.forProvider.region + ' is not allowed'"
    reason: Forbidden`)
	binding := fromYAML(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: extref-denied-admission}
spec:
  policyName: extref-denied-admission
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: `+ns+`}}`)
	for _, o := range []*unstructured.Unstructured{policy, binding} {
		require.NoError(t, h.env.Client.Create(ctx, o))
		t.Cleanup(func() { _ = h.env.Client.Delete(context.Background(), o) })
	}
	// The policy takes effect a moment after it is created.
	probe := widget(t, ns, "probe", "forProvider: {}")
	h.create(t, probe)
	testenv.Eventually(t, 30*time.Second, "the policy to deny an update", func() error {
		cur := h.get(t, probe)
		require.NoError(t, unstructured.SetNestedField(cur.Object, "x", "spec", "forProvider", "region"))
		if err := h.env.Client.Update(ctx, cur); !apierrors.IsForbidden(err) {
			return fmt.Errorf("update: want Forbidden, got %v", err)
		}
		return nil
	})

	h.create(t, secret(ns, "vault", map[string]string{"pw": planted}))
	w := widget(t, ns, "w", `
externalValues:
- fromObject: {version: v1, resource: secrets, name: vault, fieldPath: data.pw}
  toFieldPath: spec.forProvider.region`)
	h.create(t, w)
	testenv.Eventually(t, 30*time.Second, "a reconcile to fail", func() error {
		if n := h.reconciles.errors.Load(); n == 0 {
			return fmt.Errorf("no reconcile returned an error")
		}
		return nil
	})
	logged := logs.String()
	if !strings.Contains(logged, "403 Forbidden") {
		t.Errorf("the log does not say the write was forbidden:\n%s", logged)
	}
	if found := leaks(logged); found != nil {
		t.Errorf("the log holds %q:\n%s", found, logged)
	}
}

// TestAPIServerLongMessageEvent fails a referencer with a condition message
// longer than an event's note may be (1 KiB): the Warning event is still
// recorded, its note shortened, where the API server would refuse it.
func TestAPIServerLongMessageEvent(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	var spec strings.Builder
	spec.WriteString("externalValues:\n")
	for i := range 8 {
		fmt.Fprintf(&spec, "- fromObject: {version: v1, resource: configmaps, name: %s-%d, fieldPath: data.region}\n  toFieldPath: spec.forProvider.region\n", strings.Repeat("missing", 20), i)
	}
	w := widget(t, "long-message", "w", spec.String())
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionFailed)
	if n := len(condition(t, got).Message); n <= maxEventNote {
		t.Fatalf("condition message: want more than %d for this test, got %d bytes", maxEventNote, n)
	}
	warningEvent(t, h, w, ReasonResolutionFailed)
}
