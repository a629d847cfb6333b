package localcluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	local, err := Connect(ctx, Options{CRDDirs: []string{testCRDs}, Out: testWriter{t}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = local.Stop() })
	require.True(t, local.Local)
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

	// A second Connect through the kubeconfig starts nothing, and installing
	// the same CRDs again is harmless.
	remote, err := Connect(ctx, Options{Kubeconfig: local.KubeconfigPath, CRDDirs: []string{testCRDs}})
	require.NoError(t, err)
	require.False(t, remote.Local)
	require.Equal(t, local.Config.Host, remote.Config.Host)
	require.NoError(t, remote.Stop(), "stopping a cluster we did not start does nothing")
	require.Error(t, remote.WriteKubeconfig(filepath.Join(t.TempDir(), "kc")), "only a local cluster has a kubeconfig to write")
	_, err = cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	require.NoError(t, err, "the local control plane still runs")

	work, kubeconfig := local.workDir, local.KubeconfigPath
	require.NoError(t, local.Stop())
	require.NoDirExists(t, work, "Stop removes etcd's data and the certificates")
	require.NoFileExists(t, kubeconfig, "Stop removes the kubeconfig it wrote")
	_, err = cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	require.Error(t, err, "the API server is gone after Stop")
}

func TestStartMissingCRDDir(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	_, err := Start(ctx, Options{CRDDirs: []string{missing}, Out: testWriter{t}})
	require.Error(t, err)
	require.Contains(t, err.Error(), missing)
}

func TestConnectBadKubeconfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(p, []byte("not: [a kubeconfig"), 0o600))
	_, err := Connect(context.Background(), Options{Kubeconfig: p})
	require.Error(t, err)
	require.Contains(t, err.Error(), p)
}

func TestReadCRDs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("a.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: as.example.com\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\n---\n")
	write("b.json", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"bs.example.com"}}`)
	write("notes.txt", "not a manifest")

	crds, err := readCRDs([]string{dir})
	require.NoError(t, err)
	var names []string
	for _, c := range crds {
		names = append(names, c.GetName())
	}
	require.Equal(t, []string{"as.example.com", "bs.example.com"}, names, "CRDs in file order; other kinds and files ignored")

	write("c.yaml", "kind: [unterminated")
	_, err = readCRDs([]string{dir})
	require.Error(t, err)
	require.Contains(t, err.Error(), filepath.Join(dir, "c.yaml"), "a parse error names the file")
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
