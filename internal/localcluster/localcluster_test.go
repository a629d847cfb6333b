package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

const testCRDs = "../testenv/testapi/crds"

var widgets = schema.GroupVersionResource{Group: "test.ctrlkit.dev", Version: "v1alpha1", Resource: "widgets"}

// TestConnect starts a real local control plane, uses it through the written
// kubeconfig, connects a second time through that kubeconfig, and stops it.
func TestConnect(t *testing.T) {
	t.Setenv(clientcmd.RecommendedConfigPathEnvVar, "")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	local, err := Connect(ctx, Options{CRDDirs: []string{testCRDs}, Out: testWriter{t}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = local.Stop() })
	if !local.Local {
		t.Errorf("local.Local: want true, got false")
	}
	require.FileExists(t, local.KubeconfigPath)

	// The kubeconfig file works on its own, as kubectl would use it.
	cfg, err := clientcmd.BuildConfigFromFlags("", local.KubeconfigPath)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	require.NoError(t, err)
	dc, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = dc.Resource(widgets).Namespace("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err, "the CRDs were installed and are served")

	// A second Connect through the kubeconfig starts nothing, installing the
	// same CRDs again is harmless, and CRDs from a file system (as a binary
	// embeds them) are installed too.
	embedded := fstest.MapFS{"gadgets.yaml": {Data: []byte(crdYAML("gadgets.test.ctrlkit.dev"))}}
	remote, err := Connect(ctx, Options{Kubeconfig: local.KubeconfigPath, CRDDirs: []string{testCRDs}, CRDs: []fs.FS{embedded}})
	require.NoError(t, err)
	gadgets := schema.GroupVersionResource{Group: "test.ctrlkit.dev", Version: "v1", Resource: "gadgets"}
	_, err = dc.Resource(gadgets).Namespace("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err, "the CRD from the file system was installed and is served")
	if remote.Local {
		t.Errorf("remote.Local: want false, got true")
	}
	if diff := cmp.Diff(local.Config.Host, remote.Config.Host); diff != "" {
		t.Errorf("remote.Config.Host: -want, +got:\n%s", diff)
	}
	require.NoError(t, remote.Stop(), "stopping a cluster we did not start does nothing")

	// In a pod (KUBERNETES_SERVICE_HOST and _PORT, the ServiceAccount's files
	// where the kubelet mounts them), Connect uses the ServiceAccount and
	// installs no CRD: its manifests bring them, and it may not.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "in-cluster", Namespace: "default"}}
	_, err = cs.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{})
	require.NoError(t, err)
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	require.NoError(t, err)
	saDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(saDir, "token"), []byte(tr.Status.Token), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(saDir, "ca.crt"), local.Config.CAData, 0o600))
	u, err := url.Parse(local.Config.Host)
	require.NoError(t, err)
	t.Setenv("KUBERNETES_SERVICE_HOST", u.Hostname())
	t.Setenv("KUBERNETES_SERVICE_PORT", u.Port())
	sprockets := fstest.MapFS{"sprockets.yaml": {Data: []byte(crdYAML("sprockets.test.ctrlkit.dev"))}}
	pod, err := Connect(ctx, Options{CRDs: []fs.FS{sprockets}, ServiceAccountDir: saDir, Out: testWriter{t}})
	require.NoError(t, err)
	if pod.Local || pod.KubeconfigPath != "" {
		t.Errorf("in a pod: Local %t, KubeconfigPath %q; want a cluster neither started nor written", pod.Local, pod.KubeconfigPath)
	}
	podCS, err := kubernetes.NewForConfig(pod.Config)
	require.NoError(t, err)
	who, err := podCS.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	require.NoError(t, err)
	if got, want := who.Status.UserInfo.Username, "system:serviceaccount:default:in-cluster"; got != want {
		t.Errorf("in a pod, the API server sees %q, want %q", got, want)
	}
	sprocketsGVR := schema.GroupVersionResource{Group: "test.ctrlkit.dev", Version: "v1", Resource: "sprockets"}
	if _, err := dc.Resource(sprocketsGVR).Namespace("default").List(ctx, metav1.ListOptions{}); err == nil {
		t.Error("in a pod Connect installed a CRD")
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if err := remote.WriteKubeconfig(filepath.Join(t.TempDir(), "kc")); err == nil {
		t.Errorf("WriteKubeconfig of a remote cluster: want an error, got none: only a local cluster has a kubeconfig to write")
	}
	_, err = cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	require.NoError(t, err, "the local control plane still runs")

	etcdData, certs, kubeconfig := local.env.ControlPlane.Etcd.DataDir, local.env.ControlPlane.APIServer.CertDir, local.KubeconfigPath
	require.NoError(t, local.Stop())
	for what, path := range map[string]string{"etcd's data": etcdData, "the certificates": certs, "the kubeconfig it wrote": kubeconfig} {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stop removes %s: %s still exists (stat: %v)", what, path, err)
		}
	}
	if _, err = cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err == nil {
		t.Errorf("the API server is gone after Stop: want an error reading a namespace, got none")
	}
}

func TestStartMissingCRDDir(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	_, err := Start(ctx, Options{CRDDirs: []string{missing}, Out: testWriter{t}})
	require.Error(t, err)
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("err = %v, want it to contain %q", err, missing)
	}
}

func TestConnectBadKubeconfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(p, []byte("not: [a kubeconfig"), 0o600))
	_, err := Connect(t.Context(), Options{Kubeconfig: p})
	require.Error(t, err)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("err = %v, want it to contain %q", err, p)
	}
}

func TestReadCRDs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("a.yaml", crdYAML("as.example.com")+"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\n---\n")
	write("b.json", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bs.example.com"}}`)
	write("notes.txt", "not a manifest")
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "c.yaml"), []byte("kind: [unterminated"), 0o644))
	missing := filepath.Join(t.TempDir(), "no-such-dir")

	embedded := fstest.MapFS{
		"crds.go":            {Data: []byte("package crds")},
		"c.yml":              {Data: []byte(crdYAML("cs.example.com"))},
		"sub/d.yaml":         {Data: []byte(crdYAML("ds.example.com"))},
		"e.YAML":             {Data: []byte(crdYAML("es.example.com"))},
		"nested/deeper/f.go": {Data: []byte("package deeper")},
	}

	cases := map[string]struct {
		reason    string
		o         Options
		wantNames []string
		wantErr   string // a part of the error; empty for none
	}{
		"Dir": {
			reason:    "CRDs in file order; other kinds and other files are ignored",
			o:         Options{CRDDirs: []string{dir}},
			wantNames: []string{"as.example.com", "bs.example.com"},
		},
		"FS": {
			reason:    "only the top-level manifests of a file system; sub-folders and Go files are ignored",
			o:         Options{CRDs: []fs.FS{embedded}},
			wantNames: []string{"cs.example.com", "es.example.com"},
		},
		"DirsThenFS": {
			reason:    "directories first, then file systems, each in the given order",
			o:         Options{CRDs: []fs.FS{embedded, os.DirFS(dir)}, CRDDirs: []string{dir}},
			wantNames: []string{"as.example.com", "bs.example.com", "cs.example.com", "es.example.com", "as.example.com", "bs.example.com"},
		},
		"ParseErrorInDir": {
			reason:  "a parse error names the file by its path",
			o:       Options{CRDDirs: []string{dir, bad}},
			wantErr: "cannot parse CRD file " + filepath.Join(bad, "c.yaml"),
		},
		"ParseErrorInFS": {
			reason:  "a parse error names the file by the file system's index in CRDs",
			o:       Options{CRDs: []fs.FS{embedded, fstest.MapFS{"c.yaml": {Data: []byte("kind: [unterminated")}}}},
			wantErr: "cannot parse CRD file CRDs[1]/c.yaml",
		},
		"MissingDir": {
			reason:  "a missing directory is an error that names it",
			o:       Options{CRDDirs: []string{missing}},
			wantErr: "cannot read CRD directory " + missing + ": no such file or directory",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			crds, err := readCRDs(tc.o.sources())
			var names []string
			for _, c := range crds {
				names = append(names, c.GetName())
			}
			if diff := cmp.Diff(tc.wantNames, names); diff != "" {
				t.Errorf("%s\nreadCRDs(...) names: -want, +got:\n%s", tc.reason, diff)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%s\nreadCRDs(...): unexpected error %v", tc.reason, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("%s\nreadCRDs(...): error %v, want one containing %q", tc.reason, err, tc.wantErr)
			}
		})
	}
}

// crdYAML is a minimal namespaced CRD named <plural>.<group> with an
// unchecked schema.
func crdYAML(name string) string {
	plural, group, _ := strings.Cut(name, ".")
	kind := strings.ToUpper(plural[:1]) + strings.TrimSuffix(plural[1:], "s")
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %s
spec:
  group: %s
  names: {kind: %s, listKind: %sList, plural: %s, singular: %s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`, name, group, kind, kind, plural, strings.ToLower(kind))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// TestStartInterrupted: cancelling the context while the control plane
// starts returns the context's error and leaves no process running.
func TestStartInterrupted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("lists child processes through /proc")
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(time.Second, cancel)
	_, err := Start(ctx, Options{CRDDirs: []string{testCRDs}, Out: testWriter{t}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want %v", err, context.Canceled)
	}
	if diff := cmp.Diff([]string(nil), children(t)); diff != "" {
		t.Errorf("child processes after an interrupted Start (-want, +got):\n%s", diff)
	}
}

// children returns the names of this process's running children.
func children(t *testing.T) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	var names []string
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // ended since the glob
		}
		// pid (comm) state ppid ...
		s := string(data)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) > 2 && fields[0] != "Z" && fields[1] == strconv.Itoa(os.Getpid()) {
			names = append(names, s[open+1:end])
		}
	}
	return names
}
