package run

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	compositecrds "github.com/ctrlkit/ctrlkit/examples/composite/crds"
	compositev1alpha1 "github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	extrefv1alpha1 "github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m)
}

func TestParseFlags(t *testing.T) {
	// what the flags say about the cluster and the manager
	type got struct {
		Kubeconfig, CRDs                string
		LeaderElection, ReleaseOnCancel bool
		LeaderElectionID, LeaderElectNS string
		MetricsBindAddress              string
		ProbeBindAddress                string
		Concurrency                     int
		Zap                             bool
		InstallsDirs, InstallsEmbedded  bool
		KeepRunning, Simulate           bool
	}
	embedded := []fs.FS{fstest.MapFS{}}
	cases := map[string]struct {
		reason string
		ex     Example
		args   []string
		// registered adds a --kubeconfig flag before Main's, as
		// controller-runtime's client/config package does.
		registered bool
		want       got
		wantErr    string
	}{
		"Defaults": {
			reason: "the embedded CRDs, metrics and probes off, no leader election, a Lease named after the example",
			ex:     Example{CRDs: embedded},
			want:   got{ReleaseOnCancel: true, LeaderElectionID: ".examples.ctrlkit.dev", LeaderElectNS: "default", MetricsBindAddress: "0", InstallsEmbedded: true},
		},
		"KubeconfigAndCRDs": {
			reason: "--crds replaces the embedded CRDs",
			ex:     Example{CRDs: embedded},
			args:   []string{"--kubeconfig", "kc", "--crds", "dir"},
			want:   got{ReleaseOnCancel: true, LeaderElectionID: ".examples.ctrlkit.dev", LeaderElectNS: "default", Kubeconfig: "kc", CRDs: "dir", MetricsBindAddress: "0", InstallsDirs: true},
		},
		"KubeconfigRegisteredAlready": {
			reason:     "a --kubeconfig flag that controller-runtime registered is the one read",
			ex:         Example{CRDs: embedded},
			args:       []string{"--kubeconfig", "kc"},
			registered: true,
			want:       got{ReleaseOnCancel: true, LeaderElectionID: ".examples.ctrlkit.dev", LeaderElectNS: "default", Kubeconfig: "kc", MetricsBindAddress: "0", InstallsEmbedded: true},
		},
		"Provider": {
			reason: "the flags of a kubebuilder-scaffolded provider",
			ex:     Example{CRDs: embedded, LeaderElectionID: "x.example.com"},
			args: []string{"--leader-elect", "--leader-election-namespace", "ns", "--leader-election-id", "y", "--metrics-bind-address", ":8080",
				"--health-probe-bind-address", ":8081", "--concurrency", "4", "--zap-log-level", "debug", "--zap-devel"},
			want: got{LeaderElection: true, ReleaseOnCancel: true, LeaderElectionID: "y", LeaderElectNS: "ns",
				MetricsBindAddress: ":8080", ProbeBindAddress: ":8081", Concurrency: 4, Zap: true, InstallsEmbedded: true},
		},
		"ProviderDefaults": {
			reason: "a provider does not elect a leader unless asked, in namespace default, with metrics off",
			ex:     Example{CRDs: embedded, LeaderElectionID: "x.example.com"},
			want:   got{ReleaseOnCancel: true, LeaderElectionID: "x.example.com", LeaderElectNS: "default", MetricsBindAddress: "0", InstallsEmbedded: true},
		},
		"LeaderElectionByName": {
			reason: "an example without LeaderElectionID elects with a Lease named after it",
			ex:     Example{Name: "x", CRDs: embedded},
			args:   []string{"--leader-elect"},
			want:   got{LeaderElection: true, ReleaseOnCancel: true, LeaderElectionID: "x.examples.ctrlkit.dev", LeaderElectNS: "default", MetricsBindAddress: "0", InstallsEmbedded: true},
		},
		"CRDDirs": {
			reason: "CRDDirs replaces --crds, and its directories the embedded CRDs",
			ex:     Example{CRDs: embedded, CRDDirs: func() []string { return []string{"a", "b"} }},
			want:   got{ReleaseOnCancel: true, LeaderElectionID: ".examples.ctrlkit.dev", LeaderElectNS: "default", MetricsBindAddress: "0", InstallsDirs: true},
		},
		"CRDDirsNone": {
			reason: "the embedded CRDs when CRDDirs returns none",
			ex:     Example{CRDs: embedded, CRDDirs: func() []string { return nil }},
			want:   got{ReleaseOnCancel: true, LeaderElectionID: ".examples.ctrlkit.dev", LeaderElectNS: "default", MetricsBindAddress: "0", InstallsEmbedded: true},
		},
		"KeepRunningAndSimulate": {
			reason: "--keep-running for every example, --simulate for one that plays kube-controller-manager",
			ex:     Example{CRDs: embedded, PlaysControllerManager: true},
			args:   []string{"--keep-running", "--simulate"},
			want:   got{ReleaseOnCancel: true, LeaderElectionID: ".examples.ctrlkit.dev", LeaderElectNS: "default", MetricsBindAddress: "0", InstallsEmbedded: true, KeepRunning: true, Simulate: true},
		},
		"NoSimulateFlag": {
			reason:  "an example that does not play kube-controller-manager has no --simulate",
			ex:      Example{CRDs: embedded},
			args:    []string{"--simulate"},
			wantErr: "flag provided but not defined: -simulate",
		},
		"CRDDirsNoFlag": {
			reason:  "an example with CRDDirs has no --crds",
			ex:      Example{CRDs: embedded, CRDDirs: func() []string { return nil }},
			args:    []string{"--crds", "dir"},
			wantErr: "flag provided but not defined: -crds",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			set := flag.NewFlagSet(name, flag.ContinueOnError)
			set.SetOutput(io.Discard)
			if tc.registered {
				set.String("kubeconfig", "", "registered by someone else")
			}
			s, err := tc.ex.parseFlags(set, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("%s\nparseFlags(%q): error %v, want one containing %q", tc.reason, tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nparseFlags(%q): %v", tc.reason, tc.args, err)
			}
			co, mo := tc.ex.clusterOptions(s), tc.ex.managerOptions(s, nil, func() bool { return false })
			g := got{
				Kubeconfig: co.Kubeconfig, CRDs: s.crds,
				LeaderElection: mo.LeaderElection, ReleaseOnCancel: mo.LeaderElectionReleaseOnCancel,
				LeaderElectionID: mo.LeaderElectionID, LeaderElectNS: mo.LeaderElectionNamespace,
				MetricsBindAddress: mo.Metrics.BindAddress,
				InstallsDirs:       len(co.CRDDirs) > 0, InstallsEmbedded: len(co.CRDs) > 0,
				Concurrency: mo.Controller.MaxConcurrentReconciles, Zap: s.zapSet,
				KeepRunning: s.keepRunning, Simulate: s.simulate,
			}
			if g.Concurrency == 1 { // the default, left out of want
				g.Concurrency = 0
			}
			if mo.HealthProbeBindAddress != "0" {
				g.ProbeBindAddress = mo.HealthProbeBindAddress
			}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("%s\nparseFlags(%q): -want, +got:\n%s", tc.reason, tc.args, diff)
			}
		})
	}
}

// TestRun runs examples against a real API server, named by a kubeconfig as
// --kubeconfig would.
func TestRun(t *testing.T) {
	env := testenv.Get(t)
	kubeconfig := writeKubeconfig(t, env)
	bad := fstest.MapFS{"bad.yaml": {Data: []byte("kind: [unterminated")}}

	// listing returns a Run that lists objects of gvk, which are served
	// once their CRD is installed.
	listing := func(gvk schema.GroupVersionKind) func(context.Context, Env) error {
		return func(ctx context.Context, e Env) error {
			if e.Manager == nil || e.Client == nil || e.Cluster == nil || e.Cluster.Local {
				return fmt.Errorf("env %+v: want a manager, a client and a cluster this process did not start", e)
			}
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			return e.Client.List(ctx, l)
		}
	}
	errRun, errManager := errors.New("the demo failed"), errors.New("a runnable failed")
	probeAddr := freeAddr(t)
	runnableStarted, managerStopped, ranDemo := make(chan struct{}), false, make(chan struct{})
	cases := map[string]struct {
		reason  string
		ex      Example
		args    []string
		wantErr string
		check   func(t *testing.T)
	}{
		"EmbeddedCRDs": {
			reason: "the CRDs of the binary are installed and served before Run, and the scheme has the example's kinds",
			ex: Example{
				CRDs:        []fs.FS{compositecrds.FS},
				AddToScheme: compositev1alpha1.AddToScheme,
				Setup:       func(manager.Manager) error { return nil },
				Run: func(ctx context.Context, e Env) error {
					if !e.Manager.GetScheme().Recognizes(compositev1alpha1.AppKind) {
						return errors.New("the scheme does not know App")
					}
					return listing(compositev1alpha1.AppKind)(ctx, e)
				},
			},
		},
		"CRDsFlag": {
			reason: "--crds DIR installs the CRDs in DIR instead of the binary's",
			ex: Example{CRDs: []fs.FS{bad}, Setup: func(manager.Manager) error { return nil },
				Run: listing(extrefv1alpha1.GroupVersion.WithKind("VPC"))},
			args: []string{"--crds", "../../extref/crds"},
		},
		"BadEmbeddedCRDs": {
			reason:  "an error installing the CRDs is returned before Setup",
			ex:      Example{CRDs: []fs.FS{bad}, Setup: func(manager.Manager) error { return errors.New("Setup ran") }},
			wantErr: "cannot parse CRD file CRDs[0]/bad.yaml",
		},
		"RunFails": {
			reason: "Run's error is returned once the manager stopped",
			ex: Example{
				Setup: func(mgr manager.Manager) error {
					return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
						close(runnableStarted)
						<-ctx.Done()
						managerStopped = true
						return nil
					}))
				},
				Run: func(ctx context.Context, _ Env) error {
					select {
					case <-runnableStarted: // the manager runs
						return errRun
					case <-ctx.Done():
						return ctx.Err()
					}
				},
			},
			wantErr: errRun.Error(),
			check: func(t *testing.T) {
				if !managerStopped {
					t.Error("the manager still ran when run returned")
				}
			},
		},
		"ManagerFails": {
			reason: "a manager that stops with an error ends Run, and its error is returned",
			ex: Example{
				Setup: func(mgr manager.Manager) error {
					return mgr.Add(manager.RunnableFunc(func(context.Context) error { return errManager }))
				},
				Run: func(ctx context.Context, _ Env) error { <-ctx.Done(); return ctx.Err() },
			},
			wantErr: errManager.Error(),
		},
		"KeepRunning": {
			reason: "with KeepRunning the controllers run on after Run returned, until a runnable fails",
			ex: Example{
				Setup: func(mgr manager.Manager) error {
					return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
						<-ranDemo
						select {
						case <-ctx.Done():
							return nil // stopped when Run returned
						case <-time.After(100 * time.Millisecond):
							return errManager
						}
					}))
				},
				Run:         func(context.Context, Env) error { close(ranDemo); return nil },
				KeepRunning: "The demo ran; the controllers keep running.",
			},
			args:    []string{"--keep-running"},
			wantErr: errManager.Error(),
		},
		"StopsAfterRun": {
			reason: "without --keep-running Main stops once Run returned, whatever KeepRunning says",
			ex: Example{Setup: func(manager.Manager) error { return nil },
				Run:         func(context.Context, Env) error { return nil },
				KeepRunning: "never printed"},
		},
		"Probes": {
			reason: "--health-probe-bind-address serves /healthz and /readyz while the controllers run",
			ex: Example{Setup: func(manager.Manager) error { return nil },
				Run: func(ctx context.Context, _ Env) error {
					for _, path := range []string{"/healthz", "/readyz"} {
						if err := answers(ctx, "http://"+probeAddr+path); err != nil {
							return err
						}
					}
					return nil
				}},
			args: []string{"--health-probe-bind-address", probeAddr},
		},
		"NoSetup": {
			reason: "without Setup there is neither manager nor client",
			ex: Example{Run: func(_ context.Context, e Env) error {
				if e.Manager != nil || e.Client != nil || e.Cluster == nil {
					return fmt.Errorf("env %+v: want the cluster alone", e)
				}
				return nil
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			set := flag.NewFlagSet(name, flag.ContinueOnError)
			s, err := tc.ex.parseFlags(set, append([]string{"--kubeconfig", kubeconfig}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			var p phase
			err = tc.ex.run(ctx, s, &p)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%s\nrun: %v", tc.reason, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("%s\nrun: error %v, want one containing %q", tc.reason, err, tc.wantErr)
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
}

// writeKubeconfig writes a kubeconfig for env's API server.
func writeKubeconfig(t *testing.T, env *testenv.Env) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	kc.AuthInfos["test"] = &clientcmdapi.AuthInfo{ClientCertificateData: env.Config.CertData, ClientKeyData: env.Config.KeyData}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	kc.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// freeAddr returns a loopback address with a port free now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// answers waits until url answers 200 OK, for at most ten seconds.
func answers(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var last error
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s does not answer: %w", url, last)
}

// TestInterruptDuringStartUp: an interrupt while the API server does not
// answer stops the example at once, says so and exits 1; after start-up it
// exits 0.
func TestInterruptDuringStartUp(t *testing.T) {
	// The server never answers: a request the client gives up on is
	// aborted, not answered with an empty 200 that would pass for the
	// API server's version.
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["silent"] = &clientcmdapi.Cluster{Server: srv.URL, InsecureSkipTLSVerify: true}
	kc.Contexts["silent"] = &clientcmdapi.Context{Cluster: "silent", AuthInfo: "silent"}
	kc.AuthInfos["silent"] = &clientcmdapi.AuthInfo{Token: "t"}
	kc.CurrentContext = "silent"
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	ex := Example{Name: "x", Setup: func(manager.Manager) error { return nil },
		Run: func(context.Context, Env) error { return errors.New("Run ran") }}
	s, err := ex.parseFlags(flag.NewFlagSet("x", flag.ContinueOnError), []string{"--kubeconfig", kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	var p phase
	start := time.Now()
	err = ex.run(ctx, s, &p)
	if !errors.Is(err, context.Canceled) || p.startedUp() || time.Since(start) > 5*time.Second {
		t.Fatalf("run: %v after %s, started up %t; want context.Canceled at once, during start-up", err, time.Since(start), p.startedUp())
	}
	var out strings.Builder
	if code := ex.exit(&out, err, true, p.startedUp()); code != 1 || !strings.Contains(out.String(), "x: interrupted during start-up") {
		t.Errorf("exit: %d, %q; want 1 and a message saying start-up was interrupted", code, out.String())
	}
	out.Reset()
	if code := ex.exit(&out, context.Canceled, true, true); code != 0 || !strings.Contains(out.String(), "x: interrupted; stopped the controllers") {
		t.Errorf("exit after start-up: %d, %q; want 0 and what it stopped", code, out.String())
	}
}

// TestOnlyLeaderRunsSetUp runs two replicas of an example with
// --leader-elect and one Lease: only the leader runs the example's set-up
// (Run); the standby runs it once the leader stops and it is elected, which,
// since the leader releases its Lease when stopped, takes about one retry
// period (2 s), not the Lease's duration.
func TestOnlyLeaderRunsSetUp(t *testing.T) {
	env := testenv.Get(t)
	kubeconfig := writeKubeconfig(t, env)
	ran := make(chan string, 2)
	replica := func(name string) (stop func() error) {
		ex := Example{Name: name, Setup: func(manager.Manager) error { return nil },
			Run: func(ctx context.Context, _ Env) error {
				ran <- name
				<-ctx.Done()
				return nil
			}}
		s, err := ex.parseFlags(flag.NewFlagSet(name, flag.ContinueOnError),
			[]string{"--kubeconfig", kubeconfig, "--leader-elect", "--leader-election-id", "only-leader-runs-set-up"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { var p phase; done <- ex.run(ctx, s, &p) }()
		return func() error { cancel(); return <-done }
	}
	stopFirst := replica("first")
	select {
	case got := <-ran:
		if got != "first" {
			t.Fatalf("%s ran first", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the first replica did not run its set-up")
	}
	stopSecond := replica("second")
	defer func() { _ = stopSecond() }()
	select {
	case got := <-ran:
		t.Fatalf("%s ran its set-up while the first replica leads", got)
	case <-time.After(3 * time.Second):
	}
	stopped := time.Now()
	if err := stopFirst(); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("the leader's clean stop: %v", err)
	}
	select {
	case got := <-ran:
		if got != "second" {
			t.Fatalf("%s ran again", got)
		}
		t.Logf("the standby ran its set-up %s after the leader stopped", time.Since(stopped).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatal("the standby did not take over within 10 s of the leader's stop")
	}
}
