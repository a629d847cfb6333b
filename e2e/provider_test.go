package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/e2e/internal/crossplane"
	"github.com/ctrlkit/ctrlkit/e2e/internal/xpkg"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	nopv1alpha1 "github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// The provider package scenario's names.
const (
	providerName = "provider-nop"
	// providerSA is the ServiceAccount the suite runs the provider as:
	// Crossplane creates none when a provider's runtime is External.
	providerSA  = "provider-nop"
	packageRepo = "ctrlkit/provider-nop"
	packageTag  = "v0.0.0-e2e"
)

// testProviderPackage installs nop's Crossplane package (make xpkg's
// output, CTRLKIT_XPKG, or built here for this platform) the way a user
// does: pushed to a registry, a Provider object naming it. Crossplane's
// package manager must pull it, install the CRDs of its package.yaml
// (controlled by the ProviderRevision) and its RBAC manager must create the
// provider's ClusterRoles. The suite then runs the package's own binary,
// taken from the image, as the External runtime with a ServiceAccount bound
// to the system ClusterRole Crossplane created: it is nop's controller for
// the rest of the suite. The runtime and the registry stop when suiteT ends.
func testProviderPackage(t, suiteT *testing.T, s *suite) {
	env := s.env
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	start := time.Now()
	dir := os.Getenv("CTRLKIT_XPKG")
	if dir == "" {
		root, err := filepath.Abs("..")
		if err != nil {
			t.Fatal(err)
		}
		if dir, err = xpkg.Build(ctx, root, t.TempDir()); err != nil {
			t.Fatal(err)
		}
		t.Logf("nop's package built for this platform in %s (make test-e2e passes make xpkg's as CTRLKIT_XPKG)", time.Since(start).Round(time.Millisecond))
	}
	reg, err := xpkg.StartRegistry()
	if err != nil {
		t.Fatal(err)
	}
	suiteT.Cleanup(func() { _ = reg.Stop() })
	ref, err := reg.Push(ctx, dir, packageRepo, packageTag)
	if err != nil {
		t.Fatal(err)
	}
	img, err := xpkg.Pull(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := xpkg.PackageYAML(img)
	if err != nil {
		t.Fatalf("cannot read the package of %s: %v", ref, err)
	}
	want := packageCRDs(t, stream)
	t.Logf("pushed %s (%d CRDs in its package.yaml)", ref, len(want))

	installed := time.Now()
	env.ApplyStrict(t, "", fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1
kind: Provider
metadata:
  name: %s
spec:
  package: %s
`, providerName, ref))
	provider := &unstructured.Unstructured{}
	provider.SetAPIVersion("pkg.crossplane.io/v1")
	provider.SetKind("Provider")
	// The package manager creates the revision, pulls and lints the
	// package, and then waits for the runtime's TLS server Secret.
	var revision string
	testenv.Eventually(t, 2*time.Minute, "the Provider has a revision", func() error {
		if err := env.Client.Get(ctx, client.ObjectKey{Name: providerName}, provider); err != nil {
			return err
		}
		revision, _, _ = unstructured.NestedString(provider.Object, "status", "currentRevision")
		if revision == "" {
			return fmt.Errorf("no revision yet; Provider conditions:%s", conditionSummary(provider))
		}
		return nil
	})
	if err := s.xp.SetProviderTLS(ctx, providerName, revision); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 2*time.Minute, "the Provider is installed", func() error {
		if err := env.Client.Get(ctx, client.ObjectKey{Name: providerName}, provider); err != nil {
			return err
		}
		revision, _, _ = unstructured.NestedString(provider.Object, "status", "currentRevision")
		if c := condition(provider, "Installed"); c == nil || c["status"] != "True" || revision == "" {
			return fmt.Errorf("Provider conditions:%s", conditionSummary(provider))
		}
		return nil
	})
	t.Logf("Provider installed (revision %s) %s after its creation; conditions:%s", revision, time.Since(installed).Round(time.Millisecond), conditionSummary(provider))

	// The served CRDs are the package's, installed by the revision.
	for crdName, w := range want {
		var got apiextensionsv1.CustomResourceDefinition
		testenv.Eventually(t, time.Minute, "CRD "+crdName+" is established", func() error {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("apiextensions.k8s.io/v1")
			u.SetKind("CustomResourceDefinition")
			if err := env.Client.Get(ctx, client.ObjectKey{Name: crdName}, u); err != nil {
				return err
			}
			got = apiextensionsv1.CustomResourceDefinition{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &got); err != nil {
				return err
			}
			for _, c := range got.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return nil
				}
			}
			return fmt.Errorf("not established")
		})
		ctl := metav1.GetControllerOf(&got)
		if ctl == nil || ctl.Kind != "ProviderRevision" || ctl.Name != revision {
			t.Errorf("CRD %s is controlled by %+v, want ProviderRevision %s", crdName, ctl, revision)
		}
		if diff := cmp.Diff(w.Spec, got.Spec, cmpopts.IgnoreFields(apiextensionsv1.CustomResourceDefinitionSpec{}, "Conversion")); diff != "" {
			t.Errorf("served CRD %s differs from the package's (-package +served):\n%s", crdName, diff)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// Crossplane's RBAC manager creates the provider's ClusterRoles. In
	// External mode Crossplane creates no ServiceAccount (it binds the
	// system role to the ServiceAccounts of the Deployments the revision
	// owns, and there are none): the suite binds its own.
	system := "crossplane:provider:" + revision + ":system"
	role := &rbacv1.ClusterRole{}
	testenv.Eventually(t, time.Minute, "Crossplane creates ClusterRole "+system, func() error {
		return env.Client.Get(ctx, client.ObjectKey{Name: system}, role)
	})
	crb := &rbacv1.ClusterRoleBinding{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: system}, crb); err == nil {
		t.Logf("Crossplane's ClusterRoleBinding %s binds %d subjects (External runtime: no Deployment, so no ServiceAccount)", system, len(crb.Subjects))
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: crossplane.Namespace, Name: providerSA}}
	if err := env.Client.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "ctrlkit-e2e:" + providerName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: system},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: crossplane.Namespace, Name: providerSA}},
	}); err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	checkPermissions(t, cs)
	tok, err := cs.CoreV1().ServiceAccounts(crossplane.Namespace).CreateToken(ctx, providerSA, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(3600))},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("cannot request a token for ServiceAccount %s/%s: %v", crossplane.Namespace, providerSA, err)
	}

	// The package's image is its runtime: its entrypoint, run here.
	runDir := suiteT.TempDir()
	bin, err := xpkg.ExtractEntrypoint(img, runDir)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(runDir, "kubeconfig")
	if err := writeTokenKubeconfig(env, tok.Status.Token, kubeconfig); err != nil {
		t.Fatal(err)
	}
	probe, metrics := freePort(t), freePort(t)
	logPath := filepath.Join(runDir, "provider-nop.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--concurrency", "4",
		"--metrics-bind-address", "127.0.0.1:"+strconv.Itoa(metrics),
		"--health-probe-bind-address", "127.0.0.1:"+strconv.Itoa(probe))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot run the package's runtime: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); _ = logFile.Close() }()
	s.providerMetrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", metrics)
	suiteT.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if suiteT.Failed() {
			logTail(suiteT, logPath, 40)
		}
	})
	readyz := fmt.Sprintf("http://127.0.0.1:%d/readyz", probe)
	testenv.Eventually(t, time.Minute, "the package's runtime is ready (its caches synced as "+providerSA+")", func() error {
		select {
		case err := <-exited:
			exited <- err
			logTail(t, logPath, 40)
			t.Fatalf("the package's runtime exited: %v", err)
		default:
		}
		rsp, err := http.Get(readyz)
		if err != nil {
			return err
		}
		_ = rsp.Body.Close()
		if rsp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", rsp.Status)
		}
		return nil
	})
	// A ready runtime is what the Deployment runtime would report as
	// RuntimeHealthy; the Provider is then Healthy.
	if err := s.xp.SetProviderRuntimeHealthy(ctx, revision); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "the Provider is Healthy", func() error {
		if err := env.Client.Get(ctx, client.ObjectKey{Name: providerName}, provider); err != nil {
			return err
		}
		if c := condition(provider, "Healthy"); c == nil || c["status"] != "True" {
			return fmt.Errorf("Provider conditions:%s", conditionSummary(provider))
		}
		return nil
	})
	t.Logf("provider-nop from the package runs as %s/%s; package pushed, installed and running in %s", crossplane.Namespace, providerSA, time.Since(start).Round(time.Millisecond))
}

// nopNeeds are the permissions docs/design/nop.md says provider-nop's
// ServiceAccount needs, as group/resource/subresource: verbs; provider-nop
// records core Events.
var nopNeeds = []struct {
	group, resource, sub string
	verbs                []string
}{
	{"nop.ctrlkit.dev", "nopresources", "", []string{"get", "list", "watch", "update", "patch"}},
	{"nop.ctrlkit.dev", "clusternopresources", "", []string{"get", "list", "watch", "update", "patch"}},
	{"nop.ctrlkit.dev", "nopresources", "status", []string{"update"}},
	{"nop.ctrlkit.dev", "clusternopresources", "status", []string{"update"}},
	{"", "secrets", "", []string{"get", "create", "update", "list", "watch"}},
	{"", "events", "", []string{"create", "patch"}},
}

// checkPermissions checks, with SubjectAccessReviews, that the provider's
// ServiceAccount may do what nop needs, and logs whether it may create
// events.k8s.io Events (which the library records by default): Crossplane's
// system ClusterRole grants events in the core group only.
func checkPermissions(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	user := "system:serviceaccount:" + crossplane.Namespace + ":" + providerSA
	allowed := func(group, resource, sub, verb string) bool {
		r, err := cs.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{
				User:   user,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + crossplane.Namespace, "system:authenticated"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: "default", Verb: verb, Group: group, Resource: resource, Subresource: sub,
				},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("cannot review %s's permissions: %v", user, err)
		}
		return r.Status.Allowed
	}
	for _, n := range nopNeeds {
		for _, v := range n.verbs {
			if !allowed(n.group, n.resource, n.sub, v) {
				t.Errorf("%s may not %s %s/%s %s: Crossplane's system ClusterRole lacks what nop needs", user, v, n.group, n.resource, n.sub)
			}
		}
	}
	t.Logf("%s may create events.k8s.io Events: %v; core Events: %v", user,
		allowed("events.k8s.io", "events", "", "create"), allowed("", "events", "", "create"))
}

// packageCRDs returns the CRDs of a package.yaml by name; its first
// document must be a meta.pkg.crossplane.io Provider.
func packageCRDs(t *testing.T, stream []byte) map[string]apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	out := map[string]apiextensionsv1.CustomResourceDefinition{}
	for i, doc := range strings.Split("\n"+string(stream), "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var head metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("package.yaml document %d: %v", i, err)
		}
		if i == 0 {
			if head.APIVersion != "meta.pkg.crossplane.io/v1" || head.Kind != "Provider" {
				t.Fatalf("package.yaml starts with %s %s, want a meta.pkg.crossplane.io/v1 Provider", head.APIVersion, head.Kind)
			}
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict([]byte(doc), &crd); err != nil || crd.Kind != "CustomResourceDefinition" {
			t.Fatalf("package.yaml document %d is not a CRD (%s, %v)", i, crd.Kind, err)
		}
		out[crd.Name] = crd
	}
	if len(out) == 0 {
		t.Fatal("package.yaml holds no CRD")
	}
	return out
}

// writeTokenKubeconfig writes a kubeconfig for env's API server that
// authenticates with a bearer token.
func writeTokenKubeconfig(env *testenv.Env, token, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	kc.AuthInfos["provider"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "provider"}
	kc.CurrentContext = "local"
	return clientcmd.WriteToFile(*kc, path)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func ptr[T any](v T) *T { return &v }

// testPaused: the package's runtime honours crossplane.io/paused: a paused
// NopResource shows Synced=False (ReconcilePaused) and nothing of its
// schedule; once the annotation is removed its due Ready lands.
func testPaused(t *testing.T, s *suite) {
	env := s.env
	ctx := context.Background()
	ns := env.Namespace(t, "nop-paused")
	obj := &nopv1alpha1.NopResource{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "paused", Annotations: map[string]string{"crossplane.io/paused": "true"}},
		Spec: nopv1alpha1.NopResourceSpec{ForProvider: nopv1alpha1.NopResourceParameters{ConditionAfter: []nopv1alpha1.ConditionAfter{
			{Time: "1s", ConditionType: "Ready", ConditionStatus: metav1.ConditionTrue},
		}}},
	}
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	got := &nopv1alpha1.NopResource{}
	synced := func(reason string) func() error {
		return func() error {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
				return err
			}
			if c := findCondition(got.Status.Conditions, "Synced"); c == nil || c.Reason != reason {
				return fmt.Errorf("conditions %+v", got.Status.Conditions)
			}
			return nil
		}
	}
	testenv.Eventually(t, 30*time.Second, "Synced=False (ReconcilePaused)", synced("ReconcilePaused"))
	time.Sleep(time.Until(got.CreationTimestamp.Add(2 * time.Second)))
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
		t.Fatal(err)
	}
	if c := findCondition(got.Status.Conditions, "Ready"); c != nil || len(got.Finalizers) > 0 {
		t.Errorf("a paused NopResource changed: conditions %+v, finalizers %v", got.Status.Conditions, got.Finalizers)
	}
	if err := env.Client.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"crossplane.io/paused":null}}}`))); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "resumed: Synced=True and Ready=True", func() error {
		if err := synced("ReconcileSuccess")(); err != nil {
			return err
		}
		if c := findCondition(got.Status.Conditions, "Ready"); c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("conditions %+v", got.Status.Conditions)
		}
		return nil
	})
}

// testWarningEvents: the package's runtime, under the ClusterRole Crossplane
// created for it, records a Warning Event when a NopResource names a Secret
// it does not own: a core Event, which that role grants.
func testWarningEvents(t *testing.T, s *suite) {
	env := s.env
	ctx := context.Background()
	ns := env.Namespace(t, "nop-events")
	taken := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken"}}
	if err := env.Client.Create(ctx, taken); err != nil {
		t.Fatal(err)
	}
	obj := &nopv1alpha1.NopResource{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "foreign-secret"},
		Spec: nopv1alpha1.NopResourceSpec{
			ForProvider: nopv1alpha1.NopResourceParameters{
				ConnectionDetails: []nopv1alpha1.ConnectionDetail{{Name: "user", Value: "nop"}},
			},
			WriteConnectionSecretToRef: &nopv1alpha1.SecretReference{Name: taken.Name},
		},
	}
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "a core Warning Event about the NopResource", func() error {
		list := &corev1.EventList{}
		if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, ev := range list.Items {
			if ev.InvolvedObject.Name == obj.Name && ev.Type == corev1.EventTypeWarning && ev.Reason == "ConnectionSecretFailed" {
				return nil
			}
		}
		return fmt.Errorf("%d Events in %s, none a Warning about %s", len(list.Items), ns, obj.Name)
	})
}
