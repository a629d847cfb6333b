package controller_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/extref/controller"
	"github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/extref"
	extv1alpha1 "github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// rbacDir is the extref example's RBAC in its kustomize base.
const rbacDir = "../../../config/extref/rbac"

// withheldWithin is how soon a Subnet must say that the controller may not
// read a kind it names.
const withheldWithin = 5 * time.Second

// TestWithheldSourceKind runs the controllers as a ServiceAccount with the
// base's manager ClusterRole and every source policy template but the one
// granting Secrets (as an operator who drops that template would), on the
// real API server. A Subnet that takes a value from a Secret says within
// withheldWithin, in its ReferencesResolved condition, that the controller
// may not list and watch secrets.
func TestWithheldSourceKind(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ns := env.Namespace(t, "extref-sa")
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "extref", Namespace: ns}}
	require.NoError(t, env.Client.Create(ctx, sa))

	roles := []*rbacv1.ClusterRole{readRole(t, filepath.Join(rbacDir, "role.yaml"))}
	templates, err := filepath.Glob(filepath.Join(rbacDir, "sources", "source_*.yaml"))
	require.NoError(t, err)
	var withheld int
	for _, f := range templates {
		r := readRole(t, f)
		require.Equal(t, "true", r.Labels["rbac.ctrlkit.dev/aggregate-to-extref"], "%s: a source policy template is labelled for aggregation", f)
		if slices.ContainsFunc(r.Rules, func(p rbacv1.PolicyRule) bool { return slices.Contains(p.Resources, "secrets") }) {
			withheld++
			continue
		}
		roles = append(roles, r)
	}
	require.Equal(t, 1, withheld, "one source policy template grants secrets")
	for _, r := range roles {
		require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, r)))
		// Bound directly: the test's API server runs no
		// kube-controller-manager to aggregate the templates.
		b := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + r.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: r.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa.Name}},
		}
		require.NoError(t, env.Client.Create(ctx, b))
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), b) })
	}

	cs, err := kubernetes.NewForConfig(env.Config)
	require.NoError(t, err)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	require.NoError(t, err)
	cfg := &rest.Config{Host: env.Config.Host, BearerToken: tr.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: env.Config.CAData}}
	// As the example's command runs them: the manager's cache reports to
	// the Resolver a kind it may not list.
	unreadable := &extref.UnreadableKinds{}
	mo := env.ManagerOptions()
	mo.Logger = logr.Discard()
	mo.Cache.DefaultWatchErrorHandler = unreadable.WatchErrorHandler
	mgr, err := manager.New(cfg, mo)
	require.NoError(t, err)
	require.NoError(t, controller.Setup(mgr, controller.Options{Unreadable: unreadable}))
	testenv.StartManager(t, mgr)

	s := &v1alpha1.Subnet{
		ObjectMeta: metav1.ObjectMeta{Name: "withheld-source"},
		Spec: v1alpha1.SubnetSpec{
			CIDRBlock: "10.2.0.0/24",
			ExternalValues: []extv1alpha1.ExternalValue{{
				FromObject:  &extv1alpha1.ObjectFieldRef{Version: "v1", Resource: "secrets", Name: "accounts", Namespace: "crossplane-system", FieldPath: "data.prodAWSAccountID"},
				ToFieldPath: "spec.forProvider.directoryArn",
			}},
		},
	}
	require.NoError(t, env.Client.Create(ctx, s))
	created := time.Now()
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), s) })
	_, c := waitForReason(t, env, ctx, s, extref.ReasonResolutionFailed)
	took := time.Since(created)
	const want = "secrets cannot be read: the controller may not list and watch it (forbidden)"
	if !strings.Contains(c.Message, want) {
		t.Errorf("ReferencesResolved message: want it to contain %q, got %q", want, c.Message)
	}
	t.Logf("%s %s after the Subnet was created: %s", c.Type, c.Reason, took.Round(time.Millisecond))
	if took > withheldWithin {
		t.Errorf("the Subnet said that the controller may not read secrets %s after it was created: want within %s", took, withheldWithin)
	}
}

// readRole reads the ClusterRole of file.
func readRole(t *testing.T, file string) *rbacv1.ClusterRole {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	r := &rbacv1.ClusterRole{}
	require.NoError(t, yaml.Unmarshal(b, r), file)
	require.Equal(t, "ClusterRole", r.Kind, file)
	return r
}
