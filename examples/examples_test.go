package examples_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// commands are the examples that play a script and stop, with the flags the
// test gives them, the tour last.
var commands = []struct {
	name string
	args []string
}{
	{"nop", nil},
	{"composite", nil},
	{"healthscope", nil},
	{"extref", nil},
	{"direct", []string{"--latency", "200ms"}},
	{"tour", nil},
}

// runBound is how long one example may take; each takes seconds to tens of
// seconds (nop's sample runs for 20 s).
const runBound = 3 * time.Minute

// TestExamplesShareACluster runs every example and the tour one after the
// other against one API server (which runs no kube-controller-manager, like
// make cluster's), twice, in opposite orders: each exits 0 within runBound,
// logs no error, and leaves none of the objects it labelled as its own. An
// example interrupted while it keeps running (--keep-running) leaves its
// objects, without finalizers, and its next run deletes them before its
// script. It takes about
// four minutes (nop's sample and the tour take 20 s each run), so it runs
// with make test-examples (CTRLKIT_EXAMPLES=1).
func TestExamplesShareACluster(t *testing.T) {
	if os.Getenv("CTRLKIT_EXAMPLES") == "" {
		t.Skip("runs every example twice, about four minutes: make test-examples (CTRLKIT_EXAMPLES=1)")
	}
	env := testenv.Get(t)
	kubeconfig := writeKubeconfig(t, env.Config)
	bin := build(t)

	for round, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}} {
		for _, i := range order {
			c := commands[i]
			start := time.Now()
			out, err := play(t, filepath.Join(bin, c.name), append([]string{"--kubeconfig", kubeconfig}, c.args...), nil)
			t.Logf("round %d: %s exited (%v) after %s", round+1, c.name, err, time.Since(start).Round(100*time.Millisecond))
			if err != nil {
				t.Fatalf("round %d: %s: %v\n%s", round+1, c.name, err, out)
			}
			if strings.Contains(out, "level=ERROR") {
				t.Errorf("round %d: %s logged an error:\n%s", round+1, c.name, out)
			}
			if n := labelled(t, env.Config, owned.CreatedBy(c.name)); n != 0 {
				t.Errorf("round %d: %s left %d of its objects", round+1, c.name, n)
			}
		}
	}

	// Interrupted while it keeps running: the objects stay, and the next
	// run deletes them first.
	hs := filepath.Join(bin, "healthscope")
	out, err := play(t, hs, []string{"--kubeconfig", kubeconfig, "--keep-running"}, func(out string) bool {
		return strings.Contains(out, "Press Ctrl-C")
	})
	if err != nil {
		t.Fatalf("healthscope --keep-running, interrupted: %v\n%s", err, out)
	}
	n, held := labelledHeld(t, env.Config, owned.CreatedBy("healthscope"))
	if n == 0 {
		t.Fatalf("healthscope --keep-running left none of its objects after an interrupt")
	}
	if held != 0 {
		t.Errorf("healthscope --keep-running, interrupted, left %d objects with finalizers that no controller removes", held)
	}
	out, err = play(t, hs, []string{"--kubeconfig", kubeconfig}, nil)
	if err != nil {
		t.Fatalf("healthscope after an interrupted run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "an earlier run left") {
		t.Errorf("healthscope does not say that it deleted what the interrupted run left:\n%s", out)
	}
	if n := labelled(t, env.Config, owned.CreatedBy("healthscope")); n != 0 {
		t.Errorf("healthscope left %d of its objects", n)
	}
}

// build builds the example commands into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, c := range commands {
		args = append(args, "./"+c.name)
	}
	cmd := exec.Command("go", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return dir
}

// play runs bin with args and returns its output. With interrupt, it sends
// SIGINT once interrupt reports true for the output so far.
func play(t *testing.T, bin string, args []string, interrupt func(string) bool) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return out.String(), err
		case <-tick.C:
			if interrupt != nil && interrupt(out.String()) {
				_ = cmd.Process.Signal(syscall.SIGINT)
				interrupt = nil
			}
		}
	}
}

// labelled counts the objects of any kind labelled as created by by, except
// namespaces, which the examples keep; the examples delete only the kinds
// they know they create, so this finds a kind one forgot.
func labelled(t *testing.T, cfg *rest.Config, by string) int {
	n, _ := labelledHeld(t, cfg, by)
	return n
}

// labelledHeld counts as labelled does, and how many of those objects have
// finalizers.
func labelledHeld(t *testing.T, cfg *rest.Config, by string) (n, held int) {
	t.Helper()
	ctx := context.Background()
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{} // listing deprecated kinds warns
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatalf("cannot discover the API: %v", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || r.Kind == "Namespace" {
				continue
			}
			got, err := dyn.Resource(gv.WithResource(r.Name)).List(ctx, metav1.ListOptions{LabelSelector: owned.LabelCreatedBy + "=" + by})
			if err != nil {
				t.Fatalf("cannot list %s: %v", r.Name, err)
			}
			for _, o := range got.Items {
				t.Logf("labelled %s: %s %s/%s, finalizers %v", by, o.GetKind(), o.GetNamespace(), o.GetName(), o.GetFinalizers())
				if len(o.GetFinalizers()) > 0 {
					held++
				}
			}
			n += len(got.Items)
		}
	}
	return n, held
}

// writeKubeconfig writes a kubeconfig file for cfg.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["test"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	kc.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// syncBuffer is a bytes.Buffer that a command's output and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
