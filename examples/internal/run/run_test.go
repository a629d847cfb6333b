package run

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
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
		InstallsDirs, InstallsEmbedded  bool
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
			reason: "the embedded CRDs, metrics off, no leader election",
			ex:     Example{CRDs: embedded},
			want:   got{MetricsBindAddress: "0", InstallsEmbedded: true},
		},
		"KubeconfigAndCRDs": {
			reason: "--crds replaces the embedded CRDs",
			ex:     Example{CRDs: embedded},
			args:   []string{"--kubeconfig", "kc", "--crds", "dir"},
			want:   got{Kubeconfig: "kc", CRDs: "dir", MetricsBindAddress: "0", InstallsDirs: true},
		},
		"KubeconfigRegisteredAlready": {
			reason:     "a --kubeconfig flag that controller-runtime registered is the one read",
			ex:         Example{CRDs: embedded},
			args:       []string{"--kubeconfig", "kc"},
			registered: true,
			want:       got{Kubeconfig: "kc", MetricsBindAddress: "0", InstallsEmbedded: true},
		},
		"Provider": {
			reason: "LeaderElectionID adds the flags of a controller that runs in replicas",
			ex:     Example{CRDs: embedded, LeaderElectionID: "x.example.com"},
			args:   []string{"--leader-elect", "--leader-election-namespace", "ns", "--metrics-bind-address", ":8080"},
			want: got{LeaderElection: true, ReleaseOnCancel: true, LeaderElectionID: "x.example.com", LeaderElectNS: "ns",
				MetricsBindAddress: ":8080", InstallsEmbedded: true},
		},
		"ProviderDefaults": {
			reason: "a provider does not elect a leader unless asked, in namespace default, with metrics off",
			ex:     Example{CRDs: embedded, LeaderElectionID: "x.example.com"},
			want:   got{ReleaseOnCancel: true, LeaderElectionID: "x.example.com", LeaderElectNS: "default", MetricsBindAddress: "0", InstallsEmbedded: true},
		},
		"NoLeaderElectionFlags": {
			reason:  "an example without LeaderElectionID has no --leader-elect",
			ex:      Example{CRDs: embedded},
			args:    []string{"--leader-elect"},
			wantErr: "flag provided but not defined: -leader-elect",
		},
		"CRDDirs": {
			reason: "CRDDirs replaces --crds, and its directories the embedded CRDs",
			ex:     Example{CRDs: embedded, CRDDirs: func() []string { return []string{"a", "b"} }},
			want:   got{MetricsBindAddress: "0", InstallsDirs: true},
		},
		"CRDDirsNone": {
			reason: "the embedded CRDs when CRDDirs returns none",
			ex:     Example{CRDs: embedded, CRDDirs: func() []string { return nil }},
			want:   got{MetricsBindAddress: "0", InstallsEmbedded: true},
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
			co, mo := tc.ex.clusterOptions(s), tc.ex.managerOptions(s, nil)
			g := got{
				Kubeconfig: co.Kubeconfig, CRDs: s.crds,
				LeaderElection: mo.LeaderElection, ReleaseOnCancel: mo.LeaderElectionReleaseOnCancel,
				LeaderElectionID: mo.LeaderElectionID, LeaderElectNS: mo.LeaderElectionNamespace,
				MetricsBindAddress: mo.Metrics.BindAddress,
				InstallsDirs:       len(co.CRDDirs) > 0, InstallsEmbedded: len(co.CRDs) > 0,
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
	runnableStarted, managerStopped := make(chan struct{}), false
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
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			set := flag.NewFlagSet(name, flag.ContinueOnError)
			s, err := tc.ex.parseFlags(set, append([]string{"--kubeconfig", kubeconfig}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			err = tc.ex.run(ctx, s)
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
	kc.AuthInfos["test"] = &clientcmdapi.AuthInfo{Token: env.Config.BearerToken}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	kc.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
