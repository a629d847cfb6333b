// Package localcluster gives example controllers and tests a Kubernetes API
// server: the one a kubeconfig names, or, when none is given, a local control
// plane (kube-apiserver + etcd) started on loopback from the binaries that
// internal/controlplane builds and caches.
//
// For a local control plane Connect writes an admin kubeconfig file and prints
// how to point kubectl at it, so a user can watch an example work:
//
//	c, err := localcluster.Connect(ctx, localcluster.Options{Kubeconfig: *kubeconfig, CRDs: []fs.FS{crds.FS}})
//	if err != nil { ... }
//	defer c.Stop()
//	mgr, err := ctrl.NewManager(c.Config, ctrl.Options{...})
package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ctrlkit/ctrlkit/internal/controlplane"
)

// Options say which API server to use and what to install into it.
type Options struct {
	// Kubeconfig is a kubeconfig file to use (e.g. a --kubeconfig flag). When
	// empty, KUBECONFIG is consulted; when that is empty too, a local control
	// plane is started.
	Kubeconfig string
	// CRDDirs are directories of CRD manifests to install. A missing
	// directory is an error.
	CRDDirs []string
	// CRDs are file systems whose top-level *.yaml, *.yml and *.json files
	// hold CRD manifests to install, e.g. an embed.FS of a crds folder
	// (//go:embed *.yaml), so that a binary carries its CRDs. They are
	// installed with CRDDirs, after them.
	CRDs []fs.FS
	// KubeconfigPath is where Connect writes the local control plane's
	// kubeconfig. Defaults to a file in a new temporary directory.
	KubeconfigPath string
	// Out receives progress and the kubectl hint. Defaults to os.Stderr.
	Out io.Writer
	// Timeout bounds each call to the API server while connecting and
	// installing CRDs. Defaults to DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds each call to the API server during Connect and Start.
const DefaultTimeout = 20 * time.Second

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// reachable asks the API server for its version within timeout.
func reachable(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The discovery client takes no context: a request with one instead.
	err = cs.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error()
	if errors.Is(err, context.DeadlineExceeded) || (err != nil && ctx.Err() == context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", timeout, context.DeadlineExceeded)
	}
	return err
}

// Cluster is an API server to talk to.
type Cluster struct {
	// Config reaches the API server with administrator rights.
	Config *rest.Config
	// KubeconfigPath is the kubeconfig file in use, written by Connect for a
	// local control plane; empty after Start.
	KubeconfigPath string
	// Local reports whether this process started the control plane.
	Local bool

	etcd, apiserver *process
	workDir         string
	tempDir         string
}

// Connect returns the cluster named by o.Kubeconfig or KUBECONFIG, or starts a
// local control plane and writes a kubeconfig for it. It prints to o.Out which
// API server it uses and why before it changes anything there. Each call to a
// named cluster's API server during Connect is bounded by o.Timeout, so a
// server that never answers is an error naming it, not a hang.
func Connect(ctx context.Context, o Options) (*Cluster, error) {
	out := o.Out
	if out == nil {
		out = os.Stderr
	}
	path, why := o.Kubeconfig, "named by --kubeconfig"
	if path == "" {
		path, why = os.Getenv(clientcmd.RecommendedConfigPathEnvVar), "named by KUBECONFIG"
	}
	if path != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("cannot load kubeconfig %s: %w", path, err)
		}
		fmt.Fprintf(out, "using the API server at %s (kubeconfig %s, %s)\n", cfg.Host, path, why)
		if err := reachable(ctx, cfg, o.timeout()); err != nil {
			return nil, fmt.Errorf("cannot reach the API server at %s (kubeconfig %s): %w", cfg.Host, path, err)
		}
		if err := installCRDs(ctx, cfg, o.sources(), o.timeout()); err != nil {
			return nil, fmt.Errorf("API server at %s: %w", cfg.Host, err)
		}
		return &Cluster{Config: cfg, KubeconfigPath: path}, nil
	}

	fmt.Fprintln(out, "starting a local control plane (neither --kubeconfig nor KUBECONFIG names a cluster; a first run builds kube-apiserver and etcd: several minutes, progress below)")
	c, err := Start(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := c.WriteKubeconfig(o.KubeconfigPath); err != nil {
		_ = c.Stop()
		return nil, err
	}
	fmt.Fprintf(out, "local control plane at %s\nto use kubectl against it:\n  export KUBECONFIG=%s\n", c.Config.Host, c.KubeconfigPath)
	return c, nil
}

// Start starts a local control plane (etcd and kube-apiserver on loopback,
// their data in a temporary directory) and installs o.CRDDirs and o.CRDs into
// it. The
// API server authorises with RBAC; Config authenticates as a member of
// system:masters through a static bearer token.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	out := o.Out
	if out == nil {
		out = os.Stderr
	}
	dir, err := controlplane.Assets(ctx, controlplane.Options{Progress: out})
	if err != nil {
		return nil, err
	}
	c := &Cluster{Local: true}
	if err := c.start(ctx, dir); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("cannot start the local control plane from %s: %w", dir, err)
	}
	if err := installCRDs(ctx, c.Config, o.sources(), o.timeout()); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, assets string) error {
	work, err := os.MkdirTemp("", "ctrlkit-controlplane-")
	if err != nil {
		return err
	}
	c.workDir = work
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdURL := "http://127.0.0.1:" + itoa(ports[0])
	c.etcd, err = startProcess(controlplane.Etcd, filepath.Join(assets, controlplane.Etcd),
		"--data-dir="+filepath.Join(work, "etcd"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls=http://127.0.0.1:"+itoa(ports[1]),
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	)
	if err != nil {
		return err
	}

	pki, err := writePKI(work)
	if err != nil {
		return fmt.Errorf("cannot create certificates: %w", err)
	}
	token, err := randomToken()
	if err != nil {
		return err
	}
	tokens := fmt.Sprintf("%s,ctrlkit-admin,ctrlkit-admin,\"system:masters\"\n", token)
	if err := os.WriteFile(filepath.Join(work, "tokens.csv"), []byte(tokens), 0o600); err != nil {
		return err
	}
	host := "https://127.0.0.1:" + itoa(ports[2])
	c.apiserver, err = startProcess(controlplane.APIServer, filepath.Join(assets, controlplane.APIServer),
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+itoa(ports[2]),
		"--cert-dir="+work,
		"--tls-cert-file="+filepath.Join(work, "serving.crt"),
		"--tls-private-key-file="+filepath.Join(work, "serving.key"),
		"--token-auth-file="+filepath.Join(work, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-issuer="+host+"/",
		"--service-account-key-file="+filepath.Join(work, "sa.key"),
		"--service-account-signing-key-file="+filepath.Join(work, "sa.key"),
		// No controller-manager runs to create default service accounts.
		"--disable-admission-plugins=ServiceAccount",
		"--allow-privileged=true",
	)
	if err != nil {
		return err
	}

	c.Config = &rest.Config{
		Host:            host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: pki.caPEM},
		QPS:             200,
		Burst:           400,
	}
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	return waitFor(ctx, "kube-apiserver to serve the default namespace", 100*time.Millisecond, func() error {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err
	}, c.etcd, c.apiserver)
}

// Stop stops a local control plane and removes the files Connect wrote. It
// does nothing for a cluster named by a kubeconfig.
func (c *Cluster) Stop() error {
	var errs []error
	c.apiserver.stop(10 * time.Second)
	c.etcd.stop(10 * time.Second)
	c.apiserver, c.etcd = nil, nil
	for _, dir := range []string{c.workDir, c.tempDir} {
		if dir != "" {
			errs = append(errs, os.RemoveAll(dir))
		}
	}
	c.workDir, c.tempDir = "", ""
	return errors.Join(errs...)
}

// WriteKubeconfig writes an administrator kubeconfig for a local control plane
// to path, or to a new temporary file (removed by Stop) when path is empty, and
// records it in KubeconfigPath.
func (c *Cluster) WriteKubeconfig(path string) error {
	if !c.Local {
		return errors.New("cannot write a kubeconfig for a cluster this process did not start")
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["ctrlkit-local"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: c.Config.CAData}
	kc.AuthInfos["ctrlkit-admin"] = &clientcmdapi.AuthInfo{Token: c.Config.BearerToken}
	kc.Contexts["ctrlkit-local"] = &clientcmdapi.Context{Cluster: "ctrlkit-local", AuthInfo: "ctrlkit-admin"}
	kc.CurrentContext = "ctrlkit-local"
	if path == "" {
		dir, err := os.MkdirTemp("", "ctrlkit-cluster-")
		if err != nil {
			return fmt.Errorf("cannot create a directory for the kubeconfig: %w", err)
		}
		c.tempDir = dir
		path = filepath.Join(dir, "kubeconfig")
	}
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("cannot write kubeconfig %s: %w", path, err)
	}
	c.KubeconfigPath = path
	return nil
}
