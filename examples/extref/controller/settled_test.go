package controller_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/extref/controller"
	"github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/extref"
	extv1alpha1 "github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// subnetWrites records the controller's write requests to Subnets.
type subnetWrites struct {
	mu  sync.Mutex
	log []string
}

func (w *subnetWrites) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/subnets/") {
				w.mu.Lock()
				w.log = append(w.log, req.Method+" "+req.URL.Path)
				w.mu.Unlock()
			}
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

func (w *subnetWrites) since(n int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.log[n:]...)
}

func (w *subnetWrites) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.log)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSettledZeroWrites settles a Subnet that resolves (with Always values
// that follow a VPC's published ID and a ConfigMap) and one that a tenant
// pointed at a Secret it may not read, then changes their sources in ways
// that do not change the values: each change reconciles both Subnets, and
// neither is written again.
func TestSettledZeroWrites(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	writes := &subnetWrites{}
	mo := env.ManagerOptions()
	mo.Logger = logr.Discard()
	mgr, err := manager.New(writes.wrap(env.Config), mo)
	require.NoError(t, err)
	require.NoError(t, controller.Setup(mgr, controller.Options{}))
	testenv.StartManager(t, mgr)

	require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "crossplane-system"}})))
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "crossplane-system", Name: "common-settings"}, Data: map[string]string{"region": "eu-west-1", "zone": "a"}}
	if err := env.Client.Create(ctx, settings); apierrors.IsAlreadyExists(err) {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(settings), settings))
	} else {
		require.NoError(t, err)
	}
	vpc := &v1alpha1.VPC{ObjectMeta: metav1.ObjectMeta{Name: "settled-vpc"}, Spec: v1alpha1.VPCSpec{ForProvider: v1alpha1.VPCParameters{CIDRBlock: "10.9.0.0/16"}}}
	require.NoError(t, env.Client.Create(ctx, vpc))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), vpc) })

	always := &extv1alpha1.Policy{Resolve: extv1alpha1.ResolveAlways}
	good := &v1alpha1.Subnet{ObjectMeta: metav1.ObjectMeta{Name: "settled-good"}, Spec: v1alpha1.SubnetSpec{ExternalValues: []extv1alpha1.ExternalValue{
		{FromObject: &extv1alpha1.ObjectFieldRef{Group: v1alpha1.GroupVersion.Group, Version: "v1alpha1", Resource: "vpcs", Name: vpc.Name, FieldPath: "spec.forProvider.cidrBlock"}, ToFieldPath: "spec.cidrBlock", Policy: always},
		{FromObject: &extv1alpha1.ObjectFieldRef{Group: v1alpha1.GroupVersion.Group, Version: "v1alpha1", Resource: "vpcs", Name: vpc.Name, FieldPath: "status.atProvider.vpcId"}, ToFieldPath: "spec.forProvider.vpcId", Policy: always},
		{FromObject: &extv1alpha1.ObjectFieldRef{Version: "v1", Resource: "configmaps", Namespace: "crossplane-system", Name: "common-settings", FieldPath: "data.region"}, ToFieldPath: "spec.forProvider.region", Policy: always},
	}}}
	bad := &v1alpha1.Subnet{ObjectMeta: metav1.ObjectMeta{Name: "settled-bad"}, Spec: v1alpha1.SubnetSpec{ExternalValues: []extv1alpha1.ExternalValue{
		{FromObject: &extv1alpha1.ObjectFieldRef{Group: v1alpha1.GroupVersion.Group, Version: "v1alpha1", Resource: "vpcs", Name: vpc.Name, FieldPath: "spec.forProvider.cidrBlock"}, ToFieldPath: "spec.cidrBlock", Policy: always},
		{FromObject: &extv1alpha1.ObjectFieldRef{Version: "v1", Resource: "secrets", Namespace: "kube-system", Name: "anything", FieldPath: "data.token"}, ToFieldPath: "spec.forProvider.region"},
	}}}
	for _, s := range []*v1alpha1.Subnet{good, bad} {
		require.NoError(t, env.Client.Create(ctx, s))
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), s) })
	}
	waitForReason(t, env, ctx, good, extref.ReasonResolved)
	waitForReason(t, env, ctx, bad, extref.ReasonResolutionDenied)
	testenv.Eventually(t, time.Minute, "the good Subnet to be ready", func() error {
		got := &v1alpha1.Subnet{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(good), got))
		if got.Status.AtProvider.SubnetID == "" {
			return errors.New("no subnet ID yet")
		}
		return nil
	})
	touch := func(o client.Object, label string) func() {
		return func() {
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(o), o))
			l := o.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			l["touched"] = label
			o.SetLabels(l)
			require.NoError(t, env.Client.Update(ctx, o))
		}
	}
	for _, step := range []struct {
		name string
		do   func()
	}{
		{"a label on the VPC", touch(&v1alpha1.VPC{ObjectMeta: metav1.ObjectMeta{Name: vpc.Name}}, "1")},
		{"a label on the ConfigMap", touch(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "crossplane-system", Name: "common-settings"}}, "1")},
	} {
		time.Sleep(2 * time.Second)
		n := writes.count()
		step.do()
		time.Sleep(3 * time.Second)
		if got := writes.since(n); len(got) != 0 {
			t.Errorf("writes to settled Subnets after %s: %q, want none", step.name, got)
		}
	}

	// The same watch brings a change that matters: the good Subnet follows
	// the region (so the steps above did reach the controller).
	n := writes.count()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(settings), settings))
	settings.Data["region"] = "eu-central-1"
	require.NoError(t, env.Client.Update(ctx, settings))
	t.Cleanup(func() {
		cur := &corev1.ConfigMap{}
		if env.Client.Get(context.Background(), client.ObjectKeyFromObject(settings), cur) == nil {
			cur.Data["region"] = "eu-west-1"
			_ = env.Client.Update(context.Background(), cur)
		}
	})
	testenv.Eventually(t, time.Minute, "the good Subnet to follow the region", func() error {
		got := &v1alpha1.Subnet{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(good), got))
		if got.Spec.ForProvider.Region != "eu-central-1" {
			return fmt.Errorf("region %q", got.Spec.ForProvider.Region)
		}
		return nil
	})
	if got := writes.since(n); len(got) == 0 {
		t.Error("no write followed the region's change: the counter sees nothing")
	}
}
