// Package testenv runs a test package against a real kube-apiserver and etcd.
//
// A package that talks to the API server wires testenv into its TestMain:
//
//	func TestMain(m *testing.M) {
//		testenv.Main(m, testenv.CRDDirs("testdata/crds"))
//	}
//
// and each test that needs the API server asks for it:
//
//	env := testenv.Get(t)
//	env.Client.Create(ctx, obj)
//
// Helpers for a test: env.ManagerOptions() for a manager without metrics or
// probes, StartManager(t, mgr) to run it until the test ends,
// env.Namespace(t, prefix) for a namespace of its own, and
// Eventually(t, within, what, check) to wait for the controller, failing with
// what was last seen.
//
// The control plane starts on the first Get, so unit tests and fuzz runs in
// the same package never pay for it; it is shared by every test of the package
// and stopped when the package's tests end. A benchmark whose figures must not
// depend on what ran before it (objects, the API server's watch-cache history
// and heap) takes a control plane of its own with Fresh. Binaries come from
// internal/controlplane (KUBEBUILDER_ASSETS, or built from the Go module proxy
// and cached). A test that needs the control plane and cannot have it fails
// with the reason; it skips only under go test -short, which runs the unit
// tests alone (make test-newest).
package testenv

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlkit/ctrlkit/internal/localcluster"
)

// Env is a running control plane and clients for it.
type Env struct {
	// Config reaches the API server as a cluster administrator.
	Config *rest.Config
	// Client is a direct (uncached) client using Scheme.
	Client client.Client
	// Mapper maps kinds to resources, discovering CRDs installed later.
	Mapper meta.RESTMapper
	// Scheme knows the client-go types and those added with WithScheme.
	Scheme *runtime.Scheme

	cluster *localcluster.Cluster
}

// An Option configures the package's control plane: CRDDirs, CRDs and
// WithScheme.
type Option interface {
	applyToSettings(*settings)
}

type settings struct {
	crdDirs []string
	crdFS   []fs.FS
	schemes []func(*runtime.Scheme) error
}

type crdDirs []string

func (d crdDirs) applyToSettings(s *settings) { s.crdDirs = append(s.crdDirs, d...) }

// CRDDirs installs the CRDs (YAML or JSON) found in dirs before the first test
// uses the control plane. A missing directory is an error.
func CRDDirs(dirs ...string) Option { return crdDirs(dirs) }

type crdFS []fs.FS

func (f crdFS) applyToSettings(s *settings) { s.crdFS = append(s.crdFS, f...) }

// CRDs installs the CRDs in the top-level YAML and JSON files of each file
// system, e.g. the embed.FS of a package's crds folder, so that a test
// needs no path relative to its directory. They are installed after those of
// CRDDirs.
func CRDs(fsys ...fs.FS) Option { return crdFS(fsys) }

type schemes []func(*runtime.Scheme) error

func (a schemes) applyToSettings(s *settings) { s.schemes = append(s.schemes, a...) }

// WithScheme adds types to the scheme of Env.Client, e.g. a package's
// generated AddToScheme.
func WithScheme(add ...func(*runtime.Scheme) error) Option { return schemes(add) }

var pkg struct {
	settings settings
	once     sync.Once
	env      *Env
	err      error
}

// Main runs the package's tests and stops the control plane, if one was
// started, before exiting with their status.
func Main(m *testing.M, opts ...Option) {
	for _, o := range opts {
		o.applyToSettings(&pkg.settings)
	}
	code := m.Run()
	if pkg.env != nil {
		if err := pkg.env.cluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: cannot stop the control plane: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// Get returns the package's control plane, starting it on first use. It fails
// t, with the reason, when the control plane cannot be started.
func Get(t testing.TB) *Env {
	t.Helper()
	skipShort(t)
	pkg.once.Do(func() { pkg.env, pkg.err = start(pkg.settings) })
	if pkg.err != nil {
		t.Fatalf("testenv: no control plane for this test: %v", pkg.err)
	}
	return pkg.env
}

// Fresh starts a control plane for t alone, with the CRDs and scheme given to
// Main, and stops it when t ends. It takes a few seconds; most tests share
// Get's. It fails t, with the reason, when the control plane cannot be
// started.
func Fresh(t testing.TB) *Env {
	t.Helper()
	skipShort(t)
	env, err := start(pkg.settings)
	if err != nil {
		t.Fatalf("testenv: no control plane for this test: %v", err)
	}
	t.Cleanup(func() {
		if err := env.cluster.Stop(); err != nil {
			t.Errorf("testenv: cannot stop the control plane: %v", err)
		}
	})
	return env
}

// skipShort skips t under go test -short: the unit tests alone.
func skipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("testenv: no control plane under -short")
	}
}

// StopAPIServer kills kube-apiserver (SIGKILL, as a crash), keeping etcd and
// its data, until StartAPIServer starts it again on the same address. Every
// client of the control plane meanwhile fails to connect, so a test that
// stops it takes a control plane of its own (Fresh).
func (e *Env) StopAPIServer() error { return e.cluster.StopAPIServer() }

// StartAPIServer starts kube-apiserver again after StopAPIServer, with the
// same address, certificates and etcd, and returns once it is healthy.
func (e *Env) StartAPIServer() error { return e.cluster.StartAPIServer() }

// WriteKubeconfig writes an administrator kubeconfig for the control plane to
// path, for a process the test starts (KUBECONFIG=path).
func (e *Env) WriteKubeconfig(path string) error { return e.cluster.WriteKubeconfig(path) }

func start(s settings) (*Env, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	for _, add := range s.schemes {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("cannot build the test scheme: %w", err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	startedAt := time.Now()
	c, err := localcluster.Start(ctx, localcluster.Options{CRDDirs: s.crdDirs, CRDs: s.crdFS})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "testenv: kube-apiserver at %s ready in %s\n", c.Config.Host, time.Since(startedAt).Round(time.Millisecond))

	env := &Env{Config: c.Config, Scheme: scheme, cluster: c}
	httpClient, err := rest.HTTPClientFor(c.Config)
	if err == nil {
		env.Mapper, err = apiutil.NewDynamicRESTMapper(c.Config, httpClient)
	}
	if err == nil {
		env.Client, err = client.New(c.Config, client.Options{Scheme: scheme, Mapper: env.Mapper, HTTPClient: httpClient})
	}
	if err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("cannot build clients for the control plane: %w", err)
	}
	return env, nil
}
