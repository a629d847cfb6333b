package crossplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Names Crossplane is started with.
const (
	Namespace        = "crossplane-system"
	CASecret         = "crossplane-root-ca"
	ClientSecret     = "crossplane-tls-client"
	ServerSecret     = "crossplane-tls-server"
	secretKeyCA      = "ca.crt"
	initRetryTimeout = 2 * time.Minute
)

// A Crossplane is Crossplane core running out of cluster.
type Crossplane struct {
	// MetricsURL serves Crossplane's Prometheus metrics.
	MetricsURL string
	// Log is the file Crossplane's output goes to; RBACLog that of its RBAC
	// manager.
	Log, RBACLog string

	client     client.Client
	dir        string
	cmd        *exec.Cmd
	exited     chan error
	rbac       *exec.Cmd
	rbacExited chan error
}

// Start initialises Crossplane on the cluster cfg reaches (its CRDs, TLS
// secrets, lock) and starts its controllers with webhooks off and every
// package runtime External, so that Crossplane runs no Deployment: the
// caller serves functions itself (ServeFunction) and runs providers. It also
// starts Crossplane's RBAC manager (crossplane rbac start), which creates a
// provider's ClusterRoles. dir holds the kubeconfig, certificates, caches and
// the logs. Start returns once Crossplane's health probe answers.
func Start(ctx context.Context, in Install, cfg *rest.Config, c client.Client, dir string) (*Crossplane, error) {
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(cfg, kubeconfig); err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("cannot create namespace %s: %w", Namespace, err)
	}
	logPath := filepath.Join(dir, "crossplane.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("cannot create crossplane log: %w", err)
	}
	env := append(os.Environ(), "KUBECONFIG="+kubeconfig)

	// Crossplane's flags are set through their environment variables,
	// which are stabler across releases than the flag names.
	env = append(env,
		"ENABLE_WEBHOOKS=false",
		"TLS_CA_SECRET_NAME="+CASecret,
		"TLS_CLIENT_SECRET_NAME="+ClientSecret,
		"TLS_SERVER_SECRET_NAME="+ServerSecret,
	)
	// init applies the CRDs and then creates the Lock object, which fails
	// until the API server serves the new CRDs: it is retried.
	initEnv := append(slices.Clip(env), "CRDS_PATH="+in.CRDs)
	deadline := time.Now().Add(initRetryTimeout)
	for attempt := 1; ; attempt++ {
		cmd := exec.CommandContext(ctx, in.Binary, "core", "init")
		cmd.Env, cmd.Stdout, cmd.Stderr = initEnv, logFile, logFile
		err := cmd.Run()
		if err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			_ = logFile.Close()
			return nil, fmt.Errorf("cannot initialise crossplane (%d attempts, log %s): %w", attempt, logPath, err)
		}
		time.Sleep(time.Second)
	}

	certs := filepath.Join(dir, "client-certs")
	if err := writeSecret(ctx, c, ClientSecret, certs); err != nil {
		_ = logFile.Close()
		return nil, err
	}
	metricsPort, err := freePort()
	if err != nil {
		return nil, err
	}
	healthPort, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(in.Binary, "core", "start", "--debug")
	for _, d := range []string{"xpkg", "xfn"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	cmd.Env = append(slices.Clip(env),
		"PACKAGE_RUNTIME=External",
		"TLS_CLIENT_CERTS_DIR="+certs,
		"XPKG_CACHE_DIR="+filepath.Join(dir, "xpkg"),
		"XFN_CACHE_DIR="+filepath.Join(dir, "xfn"),
		"METRICS_PORT="+strconv.Itoa(metricsPort),
		"HEALTH_PROBE_PORT="+strconv.Itoa(healthPort),
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Crossplane must not outlive the test binary, whatever ends it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("cannot start crossplane: %w", err)
	}
	x := &Crossplane{
		MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort),
		Log:        logPath,
		client:     c,
		dir:        dir,
		cmd:        cmd,
		exited:     make(chan error, 1),
	}
	go func() { x.exited <- cmd.Wait(); _ = logFile.Close() }()

	health := fmt.Sprintf("http://127.0.0.1:%d/healthz", healthPort)
	for {
		if rsp, err := http.Get(health); err == nil {
			_ = rsp.Body.Close()
			if rsp.StatusCode == http.StatusOK {
				if err := x.startRBAC(env); err != nil {
					_ = x.Stop()
					return nil, err
				}
				return x, nil
			}
		}
		select {
		case err := <-x.exited:
			return nil, fmt.Errorf("crossplane exited before it was healthy (log %s): %v", logPath, err)
		case <-ctx.Done():
			_ = x.Stop()
			return nil, fmt.Errorf("crossplane was not healthy (log %s): %w", logPath, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// startRBAC starts Crossplane's RBAC manager. It has no flag for its
// metrics address, which is controller-runtime's default (:8080).
func (x *Crossplane) startRBAC(env []string) error {
	x.RBACLog = filepath.Join(x.dir, "crossplane-rbac.log")
	f, err := os.Create(x.RBACLog)
	if err != nil {
		return fmt.Errorf("cannot create crossplane's RBAC manager log: %w", err)
	}
	cmd := exec.Command(x.cmd.Path, "rbac", "start", "--debug")
	cmd.Env, cmd.Stdout, cmd.Stderr = env, f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return fmt.Errorf("cannot start crossplane's RBAC manager: %w", err)
	}
	x.rbac, x.rbacExited = cmd, make(chan error, 1)
	go func() { x.rbacExited <- cmd.Wait(); _ = f.Close() }()
	return nil
}

// Stop ends Crossplane and its RBAC manager.
func (x *Crossplane) Stop() error {
	if x.rbac != nil {
		stop(x.rbac, x.rbacExited)
	}
	if x.cmd.Process != nil {
		stop(x.cmd, x.exited)
	}
	return nil
}

// stop ends cmd, which has started, and waits until it has exited.
func stop(cmd *exec.Cmd, exited chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err // for a later Stop
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		exited <- <-exited
	}
}

// Metrics returns Crossplane's metrics in Prometheus' text format.
func (x *Crossplane) Metrics(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, x.MetricsURL, nil)
	if err != nil {
		return "", err
	}
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("cannot read crossplane's metrics: %w", err)
	}
	defer rsp.Body.Close()
	b, err := io.ReadAll(rsp.Body)
	if err != nil {
		return "", fmt.Errorf("cannot read crossplane's metrics: %w", err)
	}
	return string(b), nil
}

// writeKubeconfig writes an administrator kubeconfig for cfg.
func writeKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
		CertificateAuthority:     cfg.CAFile,
	}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientCertificate:     cfg.CertFile,
		ClientKeyData:         cfg.KeyData,
		ClientKey:             cfg.KeyFile,
		Token:                 cfg.BearerToken,
	}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "admin"}
	kc.CurrentContext = "local"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("cannot write a kubeconfig for crossplane: %w", err)
	}
	return nil
}

// writeSecret writes the data of Secret name in Namespace as files of dir.
func writeSecret(ctx context.Context, c client.Client, name, dir string) error {
	s := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, s); err != nil {
		return fmt.Errorf("cannot read secret %s/%s: %w", Namespace, name, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, k := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey, secretKeyCA} {
		if len(s.Data[k]) == 0 {
			return fmt.Errorf("cannot use secret %s/%s: no %s", Namespace, name, k)
		}
		if err := os.WriteFile(filepath.Join(dir, k), s.Data[k], 0o600); err != nil {
			return err
		}
	}
	return nil
}

// freePort returns a TCP port free on the loopback interface.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("cannot find a free port: %w", err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("cannot find a free port")
	}
	return addr.Port, nil
}
