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
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	startControllers(t, env, ctx, cancel)

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
	require.Equal(t, want, s.Spec.ForProvider)
	require.Equal(t, "10.0.0.0/16", s.Spec.CIDRBlock)
	require.True(t, strings.HasPrefix(s.Spec.ForProvider.VPCID, "vpc-"), "the VPC's ID, published by its controller: %q", s.Spec.ForProvider.VPCID)

	require.True(t, s.Status.AtProvider.CredentialsReceived, "the controller was handed the password")
	raw, err := json.Marshal(s)
	require.NoError(t, err)
	sum := sha256.Sum256([]byte("correct-horse-battery-staple"))
	for _, shown := range []string{"correct-horse-battery-staple", hex.EncodeToString(sum[:]), base64.StdEncoding.EncodeToString(sum[:])} {
		if strings.Contains(string(raw), shown) {
			t.Errorf("the Subnet shows the password or its SHA-256 (%s):\n%s", shown, raw)
		}
	}
	c := conditions.Get(s.Status.Conditions, extref.TypeReferencesResolved)
	require.NotNil(t, c)
	require.Equal(t, "6 external values resolved", c.Message)
}

// TestDenied refers a Subnet to a Secret the policy does not allow: it is
// not resolved, not ready, and nothing is written to its spec.
func TestDenied(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	startControllers(t, env, ctx, cancel)

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
	require.Equal(t, metav1.ConditionFalse, c.Status)
	require.Contains(t, c.Message, "denied by the default source policy")
	require.True(t, conditions.IsFalse(got.Status.Conditions, conditions.TypeReady))
	require.Equal(t, "", got.Spec.ForProvider.Region, "nothing written")
	require.Equal(t, int64(1), got.Generation)
}

// TestWriteRejected resolves a value the API server rejects (a CIDR block,
// with its slash, as a label value): the Subnet reports it, is not ready,
// and nothing is written to it.
func TestWriteRejected(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	startControllers(t, env, ctx, cancel)

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
	require.Equal(t, metav1.ConditionFalse, c.Status)
	require.Contains(t, c.Message, "the API server rejected the resolved values (")
	require.Contains(t, c.Message, "metadata.labels")
	require.True(t, conditions.IsFalse(got.Status.Conditions, conditions.TypeReady))
	require.Empty(t, got.Labels, "nothing written")
	require.Equal(t, int64(1), got.Generation)
}

// startControllers runs the example's controllers in a manager of their own
// until ctx ends; cancel ends it when the test does.
func startControllers(t *testing.T, env *testenv.Env, ctx context.Context, cancel context.CancelFunc) {
	t.Helper()
	mgr, err := manager.New(env.Config, manager.Options{
		Scheme:     env.Scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	require.NoError(t, controller.Setup(mgr, controller.Options{}))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
}

// waitForReason waits up to a minute for s's ReferencesResolved condition to
// have reason, and returns s as read then with that condition.
func waitForReason(t *testing.T, env *testenv.Env, ctx context.Context, s *v1alpha1.Subnet, reason string) (*v1alpha1.Subnet, *metav1.Condition) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := &v1alpha1.Subnet{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(s), got))
		if c := conditions.Get(got.Status.Conditions, extref.TypeReferencesResolved); c != nil && c.Reason == reason {
			return got, c
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s condition within a minute; last seen %s", reason, fmt.Sprint(got.Status.Conditions))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
