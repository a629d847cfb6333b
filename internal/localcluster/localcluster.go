// Package localcluster gives example controllers and tests a Kubernetes API
// server: the one a kubeconfig names, or, when none is given, a local control
// plane (kube-apiserver + etcd) that controller-runtime's envtest starts on
// loopback from the binaries internal/controlplane builds and caches.
//
// In a pod (KUBERNETES_SERVICE_HOST set, the ServiceAccount's token and CA
// mounted) Connect uses the pod's cluster as its ServiceAccount and installs
// no CRD. For a local control plane Connect writes an admin kubeconfig file
// and prints how to point kubectl at it, so a user can watch an example work:
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
	"net"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

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
	// ServiceAccountDir is where a pod finds its ServiceAccount's token and
	// the cluster's CA (token, ca.crt). Defaults to
	// DefaultServiceAccountDir; tests set it.
	ServiceAccountDir string
}

// DefaultServiceAccountDir is where a kubelet mounts a pod's ServiceAccount
// token and the cluster's CA certificate.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// serviceAccountDir is the default of Options.ServiceAccountDir. A test that
// runs a command as a ServiceAccount outside a pod builds it with
// -ldflags "-X github.com/ctrlkit/ctrlkit/internal/localcluster.serviceAccountDir=DIR"
// (a relative DIR is found from the command's working directory); nothing
// else changes it, so a binary in a pod reads what the kubelet mounted.
var serviceAccountDir = DefaultServiceAccountDir

// inCluster returns the configuration of a process in a pod: the API server
// that KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT name, reached with
// the ServiceAccount's token (re-read as the kubelet rotates it) and the
// cluster's CA, as rest.InClusterConfig does, or nil outside a pod.
func (o Options) inCluster() (*rest.Config, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, nil
	}
	dir := o.ServiceAccountDir
	if dir == "" {
		dir = serviceAccountDir
	}
	token, ca := filepath.Join(dir, "token"), filepath.Join(dir, "ca.crt")
	for _, f := range []string{token, ca} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("KUBERNETES_SERVICE_HOST is set, but the pod's ServiceAccount files are not there: %w", err)
		}
	}
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		BearerTokenFile: token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: ca},
	}, nil
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

	env     *envtest.Environment
	tempDir string
	certDir string // kube-apiserver's certificates, kept across a restart
}

// Connect returns the cluster named by o.Kubeconfig or KUBECONFIG, or, in a
// pod, its own cluster (in-cluster configuration: the CRDs are not installed),
// or starts a local control plane and writes a kubeconfig for it. It prints to o.Out which
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
	if path == "" {
		cfg, err := o.inCluster()
		if err != nil {
			return nil, err
		}
		if cfg != nil {
			// In a pod the CRDs come with the manifests (kubectl apply -k),
			// and the ServiceAccount has no right to install them.
			fmt.Fprintf(out, "using the API server at %s (in a pod: its ServiceAccount; CRDs are not installed)\n", cfg.Host)
			if err := reachable(ctx, cfg, o.timeout()); err != nil {
				return nil, fmt.Errorf("cannot reach the API server at %s (in-cluster): %w", cfg.Host, err)
			}
			return &Cluster{Config: cfg}, nil
		}
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
		objs, err := readCRDs(o.sources())
		if err != nil {
			return nil, err
		}
		if err := installCRDs(ctx, cfg, objs, o.timeout()); err != nil {
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

// Start starts a local control plane with envtest (etcd and kube-apiserver on
// loopback, their data in temporary directories) and installs o.CRDDirs and
// o.CRDs into it. The API server authorises with RBAC; Config authenticates
// as a member of system:masters with a client certificate. Cancelling ctx
// stops the control plane as soon as envtest has started it.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	out := o.Out
	if out == nil {
		out = os.Stderr
	}
	objs, err := readCRDs(o.sources())
	if err != nil {
		return nil, err
	}
	crds, policies, err := splitCRDs(objs)
	if err != nil {
		return nil, err
	}
	dir, err := controlplane.Assets(ctx, controlplane.Options{Progress: out})
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDs:                     crds,
		CRDInstallOptions:        envtest.CRDInstallOptions{MaxTime: time.Minute, PollInterval: 50 * time.Millisecond},
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  10 * time.Second,
	}
	// A certificate directory of our own outlives kube-apiserver, so that
	// RestartAPIServer brings it back with the certificates clients trust.
	certDir, err := os.MkdirTemp("", "ctrlkit-apiserver-")
	if err != nil {
		return nil, fmt.Errorf("cannot create a directory for kube-apiserver's certificates: %w", err)
	}
	env.ControlPlane.APIServer = &envtest.APIServer{CertDir: certDir}
	// etcd's data is thrown away with the control plane: no need to sync it.
	env.ControlPlane.Etcd = &envtest.Etcd{}
	env.ControlPlane.Etcd.Configure().Set("unsafe-no-fsync", "true").Set("log-level", "warn")

	// envtest.Environment.Start takes no context: an interrupt waits for it
	// and then stops what it started.
	started := make(chan error, 1)
	go func() { _, err := env.Start(); started <- err }()
	select {
	case err = <-started:
	case <-ctx.Done():
		if err := <-started; err == nil {
			_ = env.Stop()
		}
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("cannot start the local control plane: %w", ctx.Err())
	}
	if err != nil {
		_ = env.Stop()
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("cannot start the local control plane from %s: %w", dir, err)
	}
	c := &Cluster{Config: env.Config, Local: true, env: env, certDir: certDir}
	if err := installPolicies(ctx, c.Config, policies, o.timeout()); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// Stop stops a local control plane and removes the files Connect wrote. It
// does nothing for a cluster named by a kubeconfig.
func (c *Cluster) Stop() error {
	var errs []error
	if c.env != nil {
		errs = append(errs, c.env.Stop())
		c.env = nil
	}
	for _, d := range []*string{&c.tempDir, &c.certDir} {
		if *d != "" {
			errs = append(errs, os.RemoveAll(*d))
			*d = ""
		}
	}
	return errors.Join(errs...)
}

// StopAPIServer kills the kube-apiserver of a local control plane (SIGKILL,
// as a crash: a graceful stop waits for open watches), keeping etcd and its
// data, until StartAPIServer. Clients meanwhile fail to connect.
func (c *Cluster) StopAPIServer() error {
	if c.env == nil {
		return errors.New("cannot stop the API server of a cluster this process did not start")
	}
	s := c.env.ControlPlane.APIServer
	// envtest keeps the process to itself; its id is read, not changed.
	pid := reflect.ValueOf(s).Elem().FieldByName("processState").Elem().FieldByName("Cmd").Elem().FieldByName("Process").Elem().FieldByName("Pid").Int()
	if err := syscall.Kill(int(pid), syscall.SIGKILL); err != nil {
		return fmt.Errorf("cannot kill kube-apiserver (pid %d): %w", pid, err)
	}
	// Stop now finds the process gone, or signals a process that is
	// exiting and waits for it; it fails only if the process was reaped in
	// between, and then succeeds.
	var err error
	for range 50 {
		if err = s.Stop(); err == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("cannot stop kube-apiserver: %w", err)
}

// StartAPIServer starts again the kube-apiserver that StopAPIServer stopped,
// on the same address, with the same certificates and etcd, and returns once
// it is healthy.
func (c *Cluster) StartAPIServer() error {
	if c.env == nil {
		return errors.New("cannot start the API server of a cluster this process did not start")
	}
	if err := c.env.ControlPlane.APIServer.Start(); err != nil {
		return fmt.Errorf("cannot start kube-apiserver again: %w", err)
	}
	return nil
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
	kc.AuthInfos["ctrlkit-admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: c.Config.CertData, ClientKeyData: c.Config.KeyData}
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
