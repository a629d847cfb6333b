package controller_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/extref/controller"
	"github.com/ctrlkit/ctrlkit/examples/extref/demo"
	"github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/extref"
	extv1alpha1 "github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	log.SetLogger(logr.Discard())
	testenv.Main(m, testenv.CRDDirs("../crds"), testenv.WithScheme(v1alpha1.AddToScheme))
}

// TestExample runs the demo against the controllers and a real API server:
// the Subnet takes its values from the VPC, the ConfigMap and the Secrets,
// follows the ConfigMap, and never shows the password.
func TestExample(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	startControllers(t, env)

	var out bytes.Buffer
	require.NoError(t, demo.Run(ctx, env.Client, &out), "demo output so far:\n%s", out.String())
	t.Logf("demo output:\n%s", out.String())

	s := &v1alpha1.Subnet{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "main-subnet"}, s))
	want := v1alpha1.SubnetParameters{
		Region:           "eu-west-1",
		AvailabilityZone: "eu-west-1a",
		VPCID:            s.Spec.ForProvider.VPCID,
		DirectoryARN:     "arn:aws:clouddirectory:eu-west-1:123456789012:schema/published/cognito/1.0",
	}
	if diff := cmp.Diff(want, s.Spec.ForProvider); diff != "" {
		t.Errorf("spec.forProvider (-want, +got):\n%s", diff)
	}
	if s.Spec.CIDRBlock != "10.0.0.0/16" {
		t.Errorf("spec.cidrBlock: want %q, got %q", "10.0.0.0/16", s.Spec.CIDRBlock)
	}
	if !strings.HasPrefix(s.Spec.ForProvider.VPCID, "vpc-") {
		t.Errorf("spec.forProvider.vpcID: want the VPC's ID, published by its controller (vpc-...), got %q", s.Spec.ForProvider.VPCID)
	}
	if !s.Status.AtProvider.CredentialsReceived {
		t.Errorf("status.atProvider.credentialsReceived: want true (the controller was handed the password), got false")
	}
	raw, err := json.Marshal(s)
	require.NoError(t, err)
	sum := sha256.Sum256([]byte("correct-horse-battery-staple"))
	for _, shown := range []string{"correct-horse-battery-staple", hex.EncodeToString(sum[:]), base64.StdEncoding.EncodeToString(sum[:])} {
		if strings.Contains(string(raw), shown) {
			t.Errorf("the Subnet shows the password or its SHA-256 (%s):\n%s", shown, raw)
		}
	}
	c := conditions.Get(s.Status.Conditions, extref.TypeReferencesResolved)
	require.NotNil(t, c, "the Subnet has a ReferencesResolved condition")
	if c.Message != "6 external values resolved" {
		t.Errorf("ReferencesResolved message: want %q, got %q", "6 external values resolved", c.Message)
	}
}

// TestDenied refers a Subnet to a Secret the policy does not allow: it is
// not resolved, not ready, and nothing is written to its spec.
func TestDenied(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	startControllers(t, env)

	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "other"}}}
	_ = env.Client.Create(ctx, ns)
	sec := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "admin", "namespace": "other"}, "stringData": map[string]any{"token": "root"}}}
	require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, sec)))
	s := &v1alpha1.Subnet{
		ObjectMeta: metav1.ObjectMeta{Name: "denied"},
		Spec: v1alpha1.SubnetSpec{
			CIDRBlock: "10.1.0.0/24",
			ExternalValues: []extv1alpha1.ExternalValue{{
				FromObject:  &extv1alpha1.ObjectFieldRef{Version: "v1", Resource: "secrets", Name: "admin", Namespace: "other", FieldPath: "data.token"},
				ToFieldPath: "spec.forProvider.region",
			}},
		},
	}
	require.NoError(t, env.Client.Create(ctx, s))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), s) })

	got, c := waitForReason(t, env, ctx, s, extref.ReasonResolutionDenied)
	checkRefused(t, got, c, "denied by the default source policy")
	if got.Spec.ForProvider.Region != "" {
		t.Errorf("spec.forProvider.region: want nothing written, got %q", got.Spec.ForProvider.Region)
	}
}

// TestWriteRejected resolves a value the API server rejects (a CIDR block,
// with its slash, as a label value): the Subnet reports it, is not ready,
// and nothing is written to it.
func TestWriteRejected(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	startControllers(t, env)

	vpc := &v1alpha1.VPC{ObjectMeta: metav1.ObjectMeta{Name: "rejected-vpc"}, Spec: v1alpha1.VPCSpec{ForProvider: v1alpha1.VPCParameters{CIDRBlock: "10.2.0.0/16"}}}
	require.NoError(t, env.Client.Create(ctx, vpc))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), vpc) })
	s := &v1alpha1.Subnet{
		ObjectMeta: metav1.ObjectMeta{Name: "rejected"},
		Spec: v1alpha1.SubnetSpec{
			ExternalValues: []extv1alpha1.ExternalValue{{
				FromObject:  &extv1alpha1.ObjectFieldRef{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version, Resource: "vpcs", Name: "rejected-vpc", FieldPath: "spec.forProvider.cidrBlock"},
				ToFieldPath: "metadata.labels[cidr]",
			}},
		},
	}
	require.NoError(t, env.Client.Create(ctx, s))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), s) })

	got, c := waitForReason(t, env, ctx, s, extref.ReasonWriteRejected)
	checkRefused(t, got, c, "the API server rejected the resolved values (", "metadata.labels")
	if len(got.Labels) != 0 {
		t.Errorf("labels: want nothing written, got %v", got.Labels)
	}
}

// checkRefused checks that a Subnet whose references were refused says so
// in ReferencesResolved (False, its message containing each of msg), is not
// Ready, and kept generation 1.
func checkRefused(t *testing.T, got *v1alpha1.Subnet, c *metav1.Condition, msg ...string) {
	t.Helper()
	if c.Status != metav1.ConditionFalse {
		t.Errorf("ReferencesResolved status: want False, got %s", c.Status)
	}
	for _, m := range msg {
		if !strings.Contains(c.Message, m) {
			t.Errorf("ReferencesResolved message: want it to contain %q, got %q", m, c.Message)
		}
	}
	if !conditions.IsFalse(got.Status.Conditions, conditions.TypeReady) {
		t.Errorf("Ready: want False, got %v", got.Status.Conditions)
	}
	if got.Generation != 1 {
		t.Errorf("generation: want 1 (spec unchanged), got %d", got.Generation)
	}
}

// startControllers runs the example's controllers in a manager of their own
// until the test ends.
func startControllers(t *testing.T, env *testenv.Env) {
	t.Helper()
	startControllersWith(t, env, controller.Options{}, logr.Discard())
}

// startControllersWith starts the controllers with options o, logging to
// logger.
func startControllersWith(t *testing.T, env *testenv.Env, o controller.Options, logger logr.Logger) {
	t.Helper()
	mo := env.ManagerOptions()
	mo.Logger = logger
	mgr, err := manager.New(env.Config, mo)
	require.NoError(t, err)
	require.NoError(t, controller.Setup(mgr, o))
	testenv.StartManager(t, mgr)
}

// waitForReason waits up to a minute for s's ReferencesResolved condition to
// have reason, and returns s as read then with that condition.
func waitForReason(t *testing.T, env *testenv.Env, ctx context.Context, s *v1alpha1.Subnet, reason string) (got *v1alpha1.Subnet, c *metav1.Condition) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "a "+reason+" condition", func() error {
		got = &v1alpha1.Subnet{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(s), got))
		if c = conditions.Get(got.Status.Conditions, extref.TypeReferencesResolved); c == nil || c.Reason != reason {
			return fmt.Errorf("conditions %v", got.Status.Conditions)
		}
		return nil
	})
	return got, c
}

// TestLongMessageEvent fails a Subnet with a ReferencesResolved message
// longer than an event's note may be (1 KiB): the Warning event is still
// recorded, shortened.
func TestLongMessageEvent(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	startControllers(t, env)
	s := &v1alpha1.Subnet{ObjectMeta: metav1.ObjectMeta{Name: "long-message"}}
	for i := range 8 {
		s.Spec.ExternalValues = append(s.Spec.ExternalValues, extv1alpha1.ExternalValue{
			FromObject:  &extv1alpha1.ObjectFieldRef{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version, Resource: "vpcs", Name: fmt.Sprintf("%s-%d", strings.Repeat("missing", 20), i), FieldPath: "spec.forProvider.cidrBlock"},
			ToFieldPath: "spec.forProvider.region",
		})
	}
	require.NoError(t, env.Client.Create(ctx, s))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), s) })
	_, c := waitForReason(t, env, ctx, s, extref.ReasonResolutionFailed)
	if len(c.Message) <= 1024 {
		t.Fatalf("ReferencesResolved message: want more than 1024 for this test, got %d bytes", len(c.Message))
	}
	testenv.Eventually(t, time.Minute, "a Warning event", func() error {
		events := &unstructured.UnstructuredList{}
		events.SetAPIVersion("events.k8s.io/v1")
		events.SetKind("EventList")
		if err := env.Client.List(ctx, events); err != nil {
			return err
		}
		for _, e := range events.Items {
			name, _, _ := unstructured.NestedString(e.Object, "regarding", "name")
			if name == s.Name && e.Object["type"] == "Warning" {
				return nil
			}
		}
		return fmt.Errorf("none among %d events", len(events.Items))
	})
}

// TestAdmissionDenialNotLogged has an admission policy deny the write of a
// value read from a Secret with a message that quotes it: the error the
// manager logs does not repeat that message.
func TestAdmissionDenialNotLogged(t *testing.T) {
	const ns = "vap-denied"
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	logs := testenv.NewLogs(7) // client-go logs request bodies, which hold the values written, from 8 on
	policy := extref.SourcePolicy{Allow: []extref.SourceRule{{Resource: "secrets", Namespaces: []string{ns}}}}
	startControllersWith(t, env, controller.Options{Policy: &policy}, logs.Logger)

	for _, doc := range []string{`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: subnet-region}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [` + v1alpha1.GroupVersion.Group + `], apiVersions: ["*"], operations: [UPDATE], resources: [subnets]}
  validations:
  - expression: "!object.metadata.name.startsWith('vap-') || !has(object.spec.forProvider.region)"
    messageExpression: "'region ' + object.spec.forProvider.region + ' is not allowed'"
    reason: Forbidden`, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: subnet-region}
spec:
  policyName: subnet-region
  validationActions: [Deny]`} {
		o := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &o.Object))
		require.NoError(t, env.Client.Create(ctx, o))
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), o) })
	}
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, nsObj)))
	const planted = "hunter2-planted"
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pw"}, Data: map[string][]byte{"pw": []byte(planted)}}))

	// The policy takes effect a moment after it is created: a probe is
	// updated with a region until the update is denied.
	probe := &v1alpha1.Subnet{ObjectMeta: metav1.ObjectMeta{Name: "vap-probe"}}
	require.NoError(t, env.Client.Create(ctx, probe))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), probe) })
	testenv.Eventually(t, time.Minute, "the policy to deny an update", func() error {
		cur := &v1alpha1.Subnet{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(probe), cur))
		cur.Spec.ForProvider.Region = "x"
		if err := env.Client.Update(ctx, cur); !apierrors.IsForbidden(err) {
			return fmt.Errorf("update: want Forbidden, got %v", err)
		}
		return nil
	})
	s := &v1alpha1.Subnet{ObjectMeta: metav1.ObjectMeta{Name: "vap-denied"}, Spec: v1alpha1.SubnetSpec{ExternalValues: []extv1alpha1.ExternalValue{{
		FromObject:  &extv1alpha1.ObjectFieldRef{Version: "v1", Resource: "secrets", Namespace: ns, Name: "pw", FieldPath: "data.pw"},
		ToFieldPath: "spec.forProvider.region",
	}}}}
	require.NoError(t, env.Client.Create(ctx, s)) // only updates are denied
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), s) })

	testenv.Eventually(t, time.Minute, "the denied write to be logged", func() error {
		if !strings.Contains(logs.String(), "Reconciler error") {
			return fmt.Errorf("no reconcile has failed")
		}
		return nil
	})
	logged := logs.String()
	if strings.Contains(logged, "hunter2") {
		t.Errorf("the log holds the Secret's value:\n%s", logged)
	}
	if !strings.Contains(logged, "403 Forbidden") {
		t.Errorf("no log line says the write was forbidden (403 Forbidden):\n%s", logged)
	}
}

// TestDemoKeepsUserEdit runs the demo, edits the ConfigMap's region as a
// user would, and runs the demo again, as a restarted controller does: the
// edit stays, and the Subnet follows it.
func TestDemoKeepsUserEdit(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	startControllers(t, env)
	key := client.ObjectKey{Namespace: "crossplane-system", Name: "common-settings"}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})
	})

	var out bytes.Buffer
	require.NoError(t, demo.Run(ctx, env.Client, &out), "demo output so far:\n%s", out.String())
	cm := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(ctx, key, cm))
	cm.Data["region"] = "ap-south-1"
	require.NoError(t, env.Client.Update(ctx, cm))

	out.Reset()
	require.NoError(t, demo.Run(ctx, env.Client, &out), "demo output so far:\n%s", out.String())
	require.NoError(t, env.Client.Get(ctx, key, cm))
	if cm.Data["region"] != "ap-south-1" {
		t.Errorf("the second run changed the user's region to %q; demo output:\n%s", cm.Data["region"], out.String())
	}
	testenv.Eventually(t, time.Minute, "the Subnet follows the user's region", func() error {
		s := &v1alpha1.Subnet{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: "main-subnet"}, s); err != nil {
			return err
		}
		if s.Spec.ForProvider.Region != "ap-south-1" {
			return fmt.Errorf("region %q", s.Spec.ForProvider.Region)
		}
		return nil
	})
}
