package localcluster

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// silentServer accepts TLS connections and reads requests but never answers
// until the test ends. It returns a kubeconfig naming it.
func silentServer(t *testing.T) (url, kubeconfig string) {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
		panic(http.ErrAbortHandler) // no answer, not even an empty 200
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	kc := clientcmdapi.NewConfig()
	kc.Clusters["silent"] = &clientcmdapi.Cluster{Server: srv.URL, InsecureSkipTLSVerify: true}
	kc.AuthInfos["silent"] = &clientcmdapi.AuthInfo{Token: "t"}
	kc.Contexts["silent"] = &clientcmdapi.Context{Cluster: "silent", AuthInfo: "silent"}
	kc.CurrentContext = "silent"
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, kubeconfig))
	return srv.URL, kubeconfig
}

// TestConnectSilentServer: a server that accepts TLS but never answers is an
// error naming it within the timeout, with the default timeout well within 30 s.
func TestConnectSilentServer(t *testing.T) {
	if DefaultTimeout > 25*time.Second {
		t.Errorf("the default leaves time to report within 30 s: DefaultTimeout = %v, want at most %v", DefaultTimeout, 25*time.Second)
	}
	url, kubeconfig := silentServer(t)
	var out bytes.Buffer
	start := time.Now()
	_, err := Connect(t.Context(), Options{Kubeconfig: kubeconfig, Out: &out, Timeout: 2 * time.Second,
		CRDDirs: []string{testCRDs}})
	took := time.Since(start)
	require.Error(t, err)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want %v", err, context.DeadlineExceeded)
	}
	if err == nil || !strings.Contains(err.Error(), url) {
		t.Errorf("the error names the server: err = %v, want it to contain %q", err, url)
	}
	if took >= 10*time.Second {
		t.Errorf("took = %v, want less than %v", took, 10*time.Second)
	}
	if !strings.Contains(out.String(), "using the API server at "+url+" (kubeconfig "+kubeconfig+", named by --kubeconfig)") {
		t.Errorf("out.String() = %q, want it to contain %q", out.String(), "using the API server at "+url+" (kubeconfig "+kubeconfig+", named by --kubeconfig)")
	}
}

// TestConnectInterrupted: cancelling the context stops Connect at once.
func TestConnectInterrupted(t *testing.T) {
	_, kubeconfig := silentServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Connect(ctx, Options{Kubeconfig: kubeconfig, Out: &bytes.Buffer{}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Connect with a canceled context: err = %v, want %v", err, context.Canceled)
	}
	if took := time.Since(start); took >= 5*time.Second {
		t.Errorf("Connect took %v, want less than 5s", took)
	}
}

// TestConnectSaysWhichServer: KUBECONFIG is named as the reason.
func TestConnectSaysWhichServer(t *testing.T) {
	url, kubeconfig := silentServer(t)
	t.Setenv(clientcmd.RecommendedConfigPathEnvVar, kubeconfig)
	var out bytes.Buffer
	_, err := Connect(t.Context(), Options{Out: &out, Timeout: 500 * time.Millisecond})
	require.Error(t, err)
	if !strings.Contains(out.String(), "using the API server at "+url+" (kubeconfig "+kubeconfig+", named by KUBECONFIG)") {
		t.Errorf("out.String() = %q, want it to contain %q", out.String(), "using the API server at "+url+" (kubeconfig "+kubeconfig+", named by KUBECONFIG)")
	}
}
