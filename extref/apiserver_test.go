package extref

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestAPIServerSeedExamples resolves the seed's two examples, verbatim but
// for the VPC's group, on a cluster-scoped referencer as a Crossplane
// managed resource would be, under the policy such a provider would set.
func TestAPIServerSeedExamples(t *testing.T) {
	h := start(t, testapi.ClusterWidgetKind, Options{Policy: SourcePolicy{Allow: []SourceRule{
		{Name: "vpcs", Group: "extref.test.ctrlkit.dev", Resource: "vpcs"},
		{Name: "common settings", Resource: "configmaps", Namespaces: []string{"crossplane-system"}, Names: []string{"common-settings"}},
	}}})
	h.create(t,
		vpc("seed-main-vpc", "10.0.0.0/16"),
		configMap("crossplane-system", "common-settings", map[string]any{"region": "us-east-1"}),
	)
	subnet := fromYAML(t, `
apiVersion: extref.test.ctrlkit.dev/v1alpha1
kind: ClusterWidget
metadata:
  name: seed-subnet
spec:
  externalValues:
  # A generic reference to another managed resource.
  - fromObject:
      group: extref.test.ctrlkit.dev
      version: v1alpha1
      resource: vpcs
      name: seed-main-vpc
      fieldPath: spec.forProvider.cidrBlock
    toFieldPath: spec.cidrBlock
  # A generic reference to a namespaced Kubernetes resource.
  - fromObject:
      version: v1
      resource: configmaps
      name: common-settings
      namespace: crossplane-system
      fieldPath: data.region
    toFieldPath: spec.forProvider.region
`)
	h.create(t, subnet)
	got := h.resolved(t, subnet, metav1.ConditionTrue, ReasonResolved)
	if s := str(t, got, "spec", "cidrBlock"); s != "10.0.0.0/16" {
		t.Errorf("spec.cidrBlock: want 10.0.0.0/16, got %q", s)
	}
	if s := str(t, got, "spec", "forProvider", "region"); s != "us-east-1" {
		t.Errorf("spec.forProvider.region: want us-east-1, got %q", s)
	}
	if m := condition(t, got).Message; m != "2 external values resolved" {
		t.Errorf("condition message: want %q, got %q", "2 external values resolved", m)
	}
}

// TestAPIServerSeedMultipleSources resolves both examples of the seed's
// "Multiple Source References", verbatim but for apiVersion, kind and
// metadata, against a ConfigMap with the region and a Secret with the
// account ID: the Secret's data is read decoded.
func TestAPIServerSeedMultipleSources(t *testing.T) {
	h := start(t, testapi.ClusterWidgetKind, Options{Policy: seedPolicy})
	h.create(t,
		configMap("crossplane-system", "common-settings", map[string]any{"region": "us-east-1"}),
		secret("crossplane-system", "accounts", map[string]string{"prodAWSAccountID": "123456789012"}),
	)
	combine := fromYAML(t, `
apiVersion: extref.test.ctrlkit.dev/v1alpha1
kind: ClusterWidget
metadata:
  name: seed-combine
spec:
  externalValues:
  - combine:
    - version: v1
      resource: configmaps
      name: common-settings
      namespace: crossplane-system
      fieldPath: data.region
    - version: v1
      resource: secrets
      name: accounts
      namespace: crossplane-system
      fieldPath: data.prodAWSAccountID
    fmt: "arn:aws:clouddirectory:%s:%s:schema/published/cognito/1.0"
    toFieldPath: "spec.forProvider.directoryArn"
`)
	variables := fromYAML(t, `
apiVersion: extref.test.ctrlkit.dev/v1alpha1
kind: ClusterWidget
metadata:
  name: seed-variables
spec:
  externalValues:
  - variables:
    - name: region
      fromRef:
        version: v1
        resource: configmaps
        name: common-settings
        namespace: crossplane-system
        fieldPath: data.region
    - name: accountId
      fromRef:
        version: v1
        resource: secrets
        name: accounts
        namespace: crossplane-system
        fieldPath: data.prodAWSAccountID
    template: "arn:aws:clouddirectory:{{ .region }}:{{ .accountId }}:schema/published/cognito/1.0"
    toFieldPath: "spec.forProvider.directoryArn"
`)
	h.create(t, combine, variables)
	for _, o := range []*unstructured.Unstructured{combine, variables} {
		got := h.resolved(t, o, metav1.ConditionTrue, ReasonResolved)
		if s := str(t, got, "spec", "forProvider", "directoryArn"); s != "arn:aws:clouddirectory:us-east-1:123456789012:schema/published/cognito/1.0" {
			t.Errorf("%s: spec.forProvider.directoryArn: want arn:aws:clouddirectory:us-east-1:123456789012:schema/published/cognito/1.0, got %q", o.GetName(), s)
		}
	}
}

// TestAPIServerSettledZeroWrites resolves a referencer, then makes its
// sources change without changing the values it reads: the reconciles that
// follow write nothing.
func TestAPIServerSettledZeroWrites(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	cm := configMap("settled", "settings", map[string]any{"region": "eu-west-1", "zone": "b"})
	h.create(t, cm)
	w := widget(t, "settled", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}
- variables: [{name: zone, fromRef: {version: v1, resource: configmaps, name: settings, fieldPath: data.zone}}]
  template: "zone-{{ .zone }}"
  toFieldPath: "metadata.annotations[example.org/zone]"
  policy: {resolve: Always}`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "eu-west-1" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "eu-west-1", v)
	}
	if zone := got.GetAnnotations()["example.org/zone"]; zone != "zone-b" {
		t.Errorf("annotation example.org/zone: want %q, got %q", "zone-b", zone)
	}

	// Let the reconciles of our own writes finish: the write count holds
	// still while reconciles complete.
	var writes, reconciles int64
	testenv.Eventually(t, 30*time.Second, "settle", func() error {
		w0, r0 := h.writes.writes.Load(), h.reconciles.n.Load()
		time.Sleep(300 * time.Millisecond)
		writes, reconciles = h.writes.writes.Load(), h.reconciles.n.Load()
		if writes != w0 || reconciles != r0 {
			return fmt.Errorf("still busy: %d writes, %d reconciles", writes, reconciles)
		}
		return nil
	})

	// Touch the source three times without changing what is read: the
	// referencer is not even reconciled.
	for i := range 3 {
		cur := h.get(t, cm)
		cur.SetAnnotations(map[string]string{"touched": fmt.Sprint(i)})
		require.NoError(t, h.env.Client.Update(t.Context(), cur))
	}
	time.Sleep(3 * wakeInterval)
	if got := h.reconciles.n.Load() - reconciles; got != 0 {
		t.Errorf("reconciles after touching fields no referencer reads: want 0, got %d", got)
	}
	if got := h.writes.writes.Load() - writes; got != 0 {
		h.writes.mu.Lock()
		defer h.writes.mu.Unlock()
		t.Errorf("writes by reconciles of a settled referencer: want 0, got %d: %v", got, h.writes.log[writes:])
	}
}

// TestAPIServerIfNotPresent leaves a value that is set alone, even when the
// source changes.
func TestAPIServerIfNotPresent(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	cm := configMap("if-not-present", "settings", map[string]any{"region": "eu-west-1"})
	h.create(t, cm)
	w := widget(t, "if-not-present", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.cidrBlock
forProvider: {region: set-by-hand}`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "set-by-hand" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "set-by-hand", v)
	}
	if v := str(t, got, "spec", "cidrBlock"); v != "eu-west-1" {
		t.Errorf("spec.cidrBlock: want %q, got %q (an empty target is resolved once)", "eu-west-1", v)
	}

	// The source changes; IfNotPresent values do not watch it, so touch the
	// referencer to have it reconciled.
	cur := h.get(t, cm)
	require.NoError(t, unstructured.SetNestedField(cur.Object, "ap-south-1", "data", "region"))
	require.NoError(t, h.env.Client.Update(t.Context(), cur))
	r := h.reconciles.n.Load()
	got.SetAnnotations(map[string]string{"touched": "yes"})
	require.NoError(t, h.env.Client.Update(t.Context(), got))
	testenv.Eventually(t, 30*time.Second, "a reconcile after the touch", func() error {
		if h.reconciles.n.Load() == r {
			return errors.New("none yet")
		}
		return nil
	})
	got = h.get(t, w)
	if v := str(t, got, "spec", "forProvider", "region"); v != "set-by-hand" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "set-by-hand", v)
	}
	if v := str(t, got, "spec", "cidrBlock"); v != "eu-west-1" {
		t.Errorf("spec.cidrBlock: want %q, got %q (IfNotPresent resolves once)", "eu-west-1", v)
	}
	if m := condition(t, got).Message; m != "2 external values resolved" {
		t.Errorf("condition message: want %q, got %q", "2 external values resolved", m)
	}
}

// TestAPIServerAlwaysFollowsSource changes the source of an Always value:
// the watch brings the change to the referencer within two seconds (the
// manager's resync is ten hours, and a settled referencer is not requeued).
func TestAPIServerAlwaysFollowsSource(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	cm := configMap("always", "settings", map[string]any{"region": "eu-west-1"})
	h.create(t, cm)
	w := widget(t, "always", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`)
	h.create(t, w)
	h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)

	for _, region := range []string{"ap-south-1", "us-west-2"} {
		cur := h.get(t, cm)
		require.NoError(t, unstructured.SetNestedField(cur.Object, region, "data", "region"))
		require.NoError(t, h.env.Client.Update(t.Context(), cur))
		changed := time.Now()
		testenv.Eventually(t, 2*time.Second, "the referencer follows its source", func() error {
			if got := str(t, h.get(t, w), "spec", "forProvider", "region"); got != region {
				return fmt.Errorf("region is %q, want %q", got, region)
			}
			return nil
		})
		t.Logf("followed the source in %s", time.Since(changed).Round(time.Millisecond))
	}
}

// TestAPIServerMissingSourceCreatedLater fails while the source is missing,
// and resolves when it is created, through the watch.
func TestAPIServerMissingSourceCreatedLater(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	w := widget(t, "later", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionFailed)
	if m := condition(t, got).Message; m != `cannot resolve spec.externalValues[0].fromObject (configmaps later/settings, data.region): source not found: ConfigMap "settings" does not exist` {
		t.Errorf("condition message: want %q, got %q", `cannot resolve spec.externalValues[0].fromObject (configmaps later/settings, data.region): source not found: ConfigMap "settings" does not exist`, m)
	}
	if gen := got.GetGeneration(); gen != 1 {
		t.Errorf("generation: want 1, got %d (nothing written to spec)", gen)
	}
	warningEvent(t, h, w, ReasonResolutionFailed)

	h.create(t, configMap("later", "settings", map[string]any{"region": "eu-west-1"}))
	got = h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "eu-west-1" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "eu-west-1", v)
	}
}

// TestAPIServerSecretNeverQuoted makes transforms fail on a value from a
// Secret and on an obscure value from a ConfigMap under SetupReconciler:
// neither the condition, nor any event, nor any log line holds it.
func TestAPIServerSecretNeverQuoted(t *testing.T) {
	logs := testenv.NewLogs(10)
	h := start(t, testapi.WidgetKind, Options{Policy: SourcePolicy{OwnNamespaceSecrets: true}}, logs.Logger)
	h.create(t,
		secret("no-leak", "vault", map[string]string{"pw": planted}),
		configMap("no-leak", "settings", map[string]any{"pw": planted}),
	)
	w := widget(t, "no-leak", "w", `
externalValues:
- fromObject: {version: v1, resource: secrets, name: vault, fieldPath: data.pw}
  transforms: [{type: Convert, toType: int64}]
  toFieldPath: spec.forProvider.size
- combine:
  - {version: v1, resource: secrets, name: vault, fieldPath: data.pw}
  fmt: "%d"
  toFieldPath: spec.forProvider.region
- variables: [{name: pw, fromRef: {version: v1, resource: secrets, name: vault, fieldPath: data.pw}}]
  template: '{{ index .pw 99 }}'
  toFieldPath: spec.forProvider.directoryArn
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.pw}
  transforms: [{type: Map, map: {a: b}}]
  makeAvailableAs: password
- fromObject: {version: v1, resource: secrets, name: vault, fieldPath: data.pw}
  toFieldPath: spec.forProvider.password
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.pw}
  toFieldPath: spec.forProvider.password.x`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionFailed)
	warningEvent(t, h, w, ReasonResolutionFailed)
	msg := condition(t, got).Message
	for _, want := range []string{"Convert: cannot convert a string of 15 bytes to int64", "fmt: value 1: integer verbs print whole numbers, not a string of 15 bytes", "the reason is withheld", "Map: the map has no entry for a string of 15 bytes", "spec.forProvider.password is a string of 15 bytes, not an object"} {
		if !strings.Contains(msg, want) {
			t.Errorf("condition message: want it to contain %q, got %q", want, msg)
		}
	}

	events := &unstructured.UnstructuredList{}
	events.SetAPIVersion("events.k8s.io/v1")
	events.SetKind("EventList")
	require.NoError(t, h.env.Client.List(t.Context(), events, client.InNamespace("no-leak")))
	var all strings.Builder
	for _, e := range events.Items {
		b, err := json.Marshal(e.Object)
		require.NoError(t, err)
		all.Write(b)
	}
	logged := logs.String()
	require.NotEmpty(t, logged, "the manager logs at verbosity 10")
	for where, text := range map[string]string{"the condition": msg, "the events": all.String(), "the log": logged} {
		if found := leaks(text); found != nil {
			t.Errorf("%s holds %q:\n%s", where, found, text)
		}
	}
}

// warningEvent waits for a Warning event about o with the given reason.
func warningEvent(t *testing.T, h *harness, o *unstructured.Unstructured, reason string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "a Warning event "+reason, func() error {
		events := &unstructured.UnstructuredList{}
		events.SetAPIVersion("events.k8s.io/v1")
		events.SetKind("EventList")
		if err := h.env.Client.List(context.Background(), events, client.InNamespace(o.GetNamespace())); err != nil {
			return err
		}
		for _, e := range events.Items {
			name, _, _ := unstructured.NestedString(e.Object, "regarding", "name")
			typ, _, _ := unstructured.NestedString(e.Object, "type")
			if name == o.GetName() && typ == "Warning" && e.Object["reason"] == reason {
				return nil
			}
		}
		return fmt.Errorf("none among %d events", len(events.Items))
	})
}

// TestAPIServerDeniedSecret reads a Secret in another namespace: the
// default policy denies it and nothing is written; a rule that allows it is
// still subject to a SubjectAccessReview, which RBAC then decides.
func TestAPIServerDeniedSecret(t *testing.T) {
	rule := SourceRule{Name: "team-b accounts", Resource: "secrets", Namespaces: []string{"denied-b"}}
	h := start(t, testapi.WidgetKind, Options{})
	h.create(t, secret("denied-b", "accounts", map[string]string{"id": "1234"}))
	spec := `
externalValues:
- fromObject: {version: v1, resource: secrets, name: accounts, namespace: denied-b, fieldPath: data.id}
  toFieldPath: spec.forProvider.directoryArn`
	w := widget(t, "denied-a", "w", spec)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionDenied)
	if m := condition(t, got).Message; !strings.Contains(m, "denied by the default source policy") {
		t.Errorf("condition message: want it to contain %q, got %q", "denied by the default source policy", m)
	}
	if v := str(t, got, "spec", "forProvider", "directoryArn"); v != "" {
		t.Errorf("spec.forProvider.directoryArn: want %q, got %q", "", v)
	}
	if gen := got.GetGeneration(); gen != 1 {
		t.Errorf("generation: want 1, got %d (nothing written to spec)", gen)
	}

	// Allowed by a rule, but the service account may not read it.
	env := h.env
	h2 := start(t, testapi.WidgetKind, Options{
		Policy:   SourcePolicy{Allow: []SourceRule{rule}},
		Resolver: []ResolverOption{WithAccessReview(&AccessReview{Client: env.Client, ServiceAccount: "reader"})},
	})
	w2 := widget(t, "denied-a", "w2", spec)
	h2.create(t, w2)
	got = h2.resolved(t, w2, metav1.ConditionFalse, ReasonResolutionDenied)
	if m := condition(t, got).Message; !strings.Contains(m, "denied by a SubjectAccessReview: system:serviceaccount:denied-a:reader may not get it") {
		t.Errorf("condition message: want it to contain %q, got %q", "denied by a SubjectAccessReview: system:serviceaccount:denied-a:reader may not get it", m)
	}
	if gen := got.GetGeneration(); gen != 1 {
		t.Errorf("generation: want 1, got %d (nothing written to spec)", gen)
	}

	// RBAC lets the service account read that one Secret.
	h2.create(t,
		fromYAML(t, `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: read-accounts, namespace: denied-b}
rules:
- {apiGroups: [""], resources: [secrets], resourceNames: [accounts], verbs: [get]}`),
		fromYAML(t, `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-accounts, namespace: denied-b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: read-accounts}
subjects:
- {kind: ServiceAccount, name: reader, namespace: denied-a}`),
	)
	h3 := start(t, testapi.WidgetKind, Options{
		Policy:   SourcePolicy{Allow: []SourceRule{rule}},
		Resolver: []ResolverOption{WithAccessReview(&AccessReview{Client: env.Client, ServiceAccount: "reader"})},
	})
	w3 := widget(t, "denied-a", "w3", spec)
	h3.create(t, w3)
	got = h3.resolved(t, w3, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "directoryArn"); v != "1234" {
		t.Errorf("spec.forProvider.directoryArn: want %q, got %q", "1234", v)
	}
}

// TestAPIServerCombineMissingSource resolves a combine with one missing
// source: nothing is applied, not even the other values, until the source
// appears.
func TestAPIServerCombineMissingSource(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	h.create(t, configMap("combine", "settings", map[string]any{"region": "us-east-1"}))
	w := widget(t, "combine", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
- combine:
  - {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  - {version: v1, resource: configmaps, name: accounts, fieldPath: data.prodAWSAccountID}
  fmt: "arn:aws:clouddirectory:%s:%s:schema/published/cognito/1.0"
  toFieldPath: spec.forProvider.directoryArn`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionFailed)
	if m := condition(t, got).Message; m != `cannot resolve spec.externalValues[1].combine[1] (configmaps combine/accounts, data.prodAWSAccountID): source not found: ConfigMap "accounts" does not exist` {
		t.Errorf("condition message: want %q, got %q", `cannot resolve spec.externalValues[1].combine[1] (configmaps combine/accounts, data.prodAWSAccountID): source not found: ConfigMap "accounts" does not exist`, m)
	}
	if v := str(t, got, "spec", "forProvider", "region"); v != "" {
		t.Errorf("spec.forProvider.region: want %q, got %q (all or nothing)", "", v)
	}
	if v := str(t, got, "spec", "forProvider", "directoryArn"); v != "" {
		t.Errorf("spec.forProvider.directoryArn: want %q, got %q", "", v)
	}

	h.create(t, configMap("combine", "accounts", map[string]any{"prodAWSAccountID": "123456789012"}))
	got = h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "us-east-1" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "us-east-1", v)
	}
	if v := str(t, got, "spec", "forProvider", "directoryArn"); v != "arn:aws:clouddirectory:us-east-1:123456789012:schema/published/cognito/1.0" {
		t.Errorf("spec.forProvider.directoryArn: want %q, got %q", "arn:aws:clouddirectory:us-east-1:123456789012:schema/published/cognito/1.0", v)
	}
}

// TestAPIServerCRDInstalledLater names a resource whose CRD does not exist
// yet: the mapper is refreshed and the value resolved once the CRD and the
// source exist, without waiting for UnknownResourceRetry.
func TestAPIServerCRDInstalledLater(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	ctx := t.Context()
	crd := fromYAML(t, readFile(t, "internal/testapi/late/crds/late.extref.test.ctrlkit.dev_gadgets.yaml"))
	if err := h.env.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd.DeepCopy()); !apierrors.IsNotFound(err) {
		t.Fatalf("the Gadget CRD must not exist before this test (err %v)", err)
	}
	w := widget(t, "late", "w", `
externalValues:
- fromObject: {group: late.extref.test.ctrlkit.dev, version: v1alpha1, resource: gadgets, name: g, fieldPath: spec.region}
  toFieldPath: spec.forProvider.region`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionFailed)
	if m := condition(t, got).Message; !strings.Contains(m, "unknown resource gadgets.late.extref.test.ctrlkit.dev") {
		t.Errorf("condition message: want it to contain %q, got %q", "unknown resource gadgets.late.extref.test.ctrlkit.dev", m)
	}

	require.NoError(t, h.env.Client.Create(ctx, crd))
	crdCreated := time.Now()
	t.Cleanup(func() {
		_ = h.env.Client.Delete(context.Background(), crd)
		gone(t, h.env, crd)
	})
	gadget := object(gadgetKind, "late", "g", map[string]any{"spec": map[string]any{"region": "eu-north-1"}})
	testenv.Eventually(t, 30*time.Second, "create a Gadget", func() error {
		err := h.env.Client.Create(ctx, gadget.DeepCopy())
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	t.Logf("Gadget created %s after its CRD", time.Since(crdCreated).Round(time.Millisecond))
	start := time.Now()
	got = h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "forProvider", "region"); v != "eu-north-1" {
		t.Errorf("spec.forProvider.region: want %q, got %q", "eu-north-1", v)
	}
	if waited := time.Since(crdCreated); waited >= UnknownResourceRetry/2 {
		t.Errorf("resolved %s after the CRD was created: the CRD watch should have brought it well before UnknownResourceRetry (%s)", waited, UnknownResourceRetry)
	}
	t.Logf("resolved %s after the Gadget was created", time.Since(start).Round(time.Millisecond))
}

// TestAPIServerCompositeResource resolves the external values of a kind
// that has no Go type, such as a Crossplane composite resource: its CRD,
// written by hand, embeds v1alpha1.ExternalValuesSchema, and
// SetupReconciler handles it as unstructured content.
func TestAPIServerCompositeResource(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	xnetwork := schema.GroupVersionKind{Group: "xr.extref.test.ctrlkit.dev", Version: "v1alpha1", Kind: "XNetwork"}
	preserve := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "xnetworks.xr.extref.test.ctrlkit.dev"},
		"spec": map[string]any{
			"group": xnetwork.Group,
			"scope": "Cluster",
			"names": map[string]any{"kind": "XNetwork", "listKind": "XNetworkList", "plural": "xnetworks", "singular": "xnetwork"},
			"versions": []any{map[string]any{
				"name": "v1alpha1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{"type": "object", "properties": map[string]any{
							"externalValues": v1alpha1.ExternalValuesSchema(),
							"parameters":     preserve,
						}},
						"status": preserve,
					},
				}},
			}},
		},
	}}
	require.NoError(t, env.Client.Create(ctx, crd), "the API server accepts the schema fragment")
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), crd)
		gone(t, env, crd)
	})

	// Admission applies the fragment's rules.
	bad := object(xnetwork, "", "xr-bad", map[string]any{"spec": map[string]any{"externalValues": []any{map[string]any{
		"fromObject":  map[string]any{"version": "v1", "resource": "configmaps", "name": "x", "namespace": "y", "fieldPath": "data.x"},
		"toFieldPath": "spec.parameters.x", "makeAvailableAs": "x",
	}}}})
	testenv.Eventually(t, 30*time.Second, "the XNetwork CRD serves and validates", func() error {
		err := env.Client.Create(ctx, bad.DeepCopy())
		if err == nil {
			_ = env.Client.Delete(ctx, bad)
			return errors.New("an external value with two destinations was admitted")
		}
		if !apierrors.IsInvalid(err) {
			return err
		}
		if !strings.Contains(err.Error(), "exactly one of toFieldPath and makeAvailableAs must be set") {
			return fmt.Errorf("want the CEL rule's message, got %v", err)
		}
		return nil
	})

	h := start(t, xnetwork, Options{Policy: SourcePolicy{Allow: []SourceRule{
		{Name: "platform settings", Resource: "configmaps", Namespaces: []string{"xr-platform"}},
	}}})
	h.create(t, configMap("xr-platform", "settings", map[string]any{"region": "eu-central-1"}))
	xr := fromYAML(t, `
apiVersion: xr.extref.test.ctrlkit.dev/v1alpha1
kind: XNetwork
metadata: {name: xr-network}
spec:
  parameters: {size: small}
  externalValues:
  - fromObject: {version: v1, resource: configmaps, name: settings, namespace: xr-platform, fieldPath: data.region}
    toFieldPath: spec.parameters.region
`)
	h.create(t, xr)
	got := h.resolved(t, xr, metav1.ConditionTrue, ReasonResolved)
	if v := str(t, got, "spec", "parameters", "region"); v != "eu-central-1" {
		t.Errorf("spec.parameters.region: want %q, got %q", "eu-central-1", v)
	}
}

// gone waits until o no longer exists.
func gone(t *testing.T, env *testenv.Env, o *unstructured.Unstructured) {
	t.Helper()
	testenv.Eventually(t, time.Minute, o.GetKind()+" "+o.GetName()+" is deleted", func() error {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(o), o.DeepCopy())
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err == nil:
			return errors.New("it still exists")
		}
		return err
	})
}

// TestAPIServerWriteRejected resolves a string into an integer field: the
// API server rejects the write, which is reported by the condition and a
// Warning event and not retried, until a spec change fixes it.
func TestAPIServerWriteRejected(t *testing.T) {
	h := start(t, testapi.WidgetKind, Options{})
	h.create(t, configMap("rejected", "settings", map[string]any{"size": "3"}))
	w := widget(t, "rejected", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.size}
  toFieldPath: spec.forProvider.size`)
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonWriteRejected)
	msg := condition(t, got).Message
	if !strings.Contains(msg, "the API server rejected the resolved values (") {
		t.Errorf("condition message: want it to contain %q, got %q", "the API server rejected the resolved values (", msg)
	}
	if !strings.Contains(msg, "spec.forProvider.size") {
		t.Errorf("condition message: want it to contain %q, got %q", "spec.forProvider.size", msg)
	}
	if gen := got.GetGeneration(); gen != 1 {
		t.Errorf("generation: want 1, got %d (nothing written to spec)", gen)
	}
	warningEvent(t, h, w, ReasonWriteRejected)

	// Not retried with backoff: no reconcile returned an error.
	if n := h.reconciles.errors.Load(); n != 0 {
		t.Errorf("reconciles that returned an error: want 0, got %d", n)
	}

	// A spec change brings the next attempt.
	cur := h.get(t, w)
	require.NoError(t, unstructured.SetNestedSlice(cur.Object, []any{map[string]any{
		"fromObject":  map[string]any{"version": "v1", "resource": "configmaps", "name": "settings", "fieldPath": "data.size"},
		"toFieldPath": "spec.forProvider.size",
		"transforms":  []any{map[string]any{"type": "Convert", "toType": "int64"}},
	}}, "spec", "externalValues"))
	require.NoError(t, h.env.Client.Update(t.Context(), cur))
	got = h.resolved(t, w, metav1.ConditionTrue, ReasonResolved)
	size, _, err := unstructured.NestedInt64(got.Object, "spec", "forProvider", "size")
	require.NoError(t, err)
	if size != 3 {
		t.Errorf("spec.forProvider.size: want 3, got %d", size)
	}
}
