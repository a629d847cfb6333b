package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ctrlkit/ctrlkit/e2e/internal/crossplane"
	"github.com/ctrlkit/ctrlkit/e2e/internal/gc"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	nopv1alpha1 "github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	// nop's CRDs are not installed here: Crossplane's package manager
	// installs them from nop's package (testProviderPackage).
	testenv.Main(m, testenv.WithScheme(nopv1alpha1.AddToScheme))
}

// A suite is Crossplane running against the package's control plane, with
// a garbage collector beside it; testProviderPackage adds nop, installed as
// a Crossplane package.
type suite struct {
	env *testenv.Env
	xp  *crossplane.Crossplane
	// providerMetrics is the metrics endpoint of nop's provider, once
	// testProviderPackage runs it.
	providerMetrics string
}

// startSuite builds (or finds) Crossplane, starts it and the garbage
// collector, all stopped when t ends.
func startSuite(t *testing.T) *suite {
	t.Helper()
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()

	start := time.Now()
	// CROSSPLANE_VERSION tests another Crossplane core than the pinned one.
	in, err := crossplane.Build(ctx, crossplane.BuildOptions{Version: os.Getenv("CROSSPLANE_VERSION")})
	if err != nil {
		t.Fatalf("cannot build crossplane: %v", err)
	}
	t.Logf("crossplane %s %s in %s", in.Version, map[bool]string{true: "built", false: "found in the cache"}[in.Built], time.Since(start).Round(time.Millisecond))

	start = time.Now()
	xp, err := crossplane.Start(ctx, in, env.Config, env.Client, t.TempDir())
	if err != nil {
		t.Fatalf("cannot start crossplane: %v", err)
	}
	t.Cleanup(func() {
		_ = xp.Stop()
		if t.Failed() {
			logTail(t, xp.Log, 60)
			logTail(t, xp.RBACLog, 20)
		}
	})
	t.Logf("crossplane initialised and healthy in %s", time.Since(start).Round(time.Millisecond))

	gcCtx, stopGC := context.WithCancel(context.Background())
	collector := &gc.Collector{
		Client: env.Client,
		Mapper: env.Mapper,
		Kinds: []schema.GroupVersionKind{
			nopv1alpha1.GroupVersion.WithKind("NopResource"),
			{Group: "apps", Version: "v1", Kind: "Deployment"},
		},
		Errorf: t.Logf,
	}
	done := make(chan struct{})
	go func() { collector.Run(gcCtx); close(done) }()
	t.Cleanup(func() { stopGC(); <-done })
	return &suite{env: env, xp: xp}
}

// logTail logs the last n lines of a file.
func logTail(t *testing.T, path string, n int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Logf("cannot read %s: %v", path, err)
		return
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	t.Logf("last %d lines of %s:\n%s", len(lines), path, strings.Join(lines, "\n"))
}

// condition returns the condition of type typ of o, or nil.
func condition(o *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// conditionSummary lists o's conditions as type=status/reason: message.
func conditionSummary(o *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	var b strings.Builder
	for _, c := range conds {
		m, _ := c.(map[string]any)
		fmt.Fprintf(&b, "\n  %v=%v/%v: %v", m["type"], m["status"], m["reason"], m["message"])
	}
	return b.String()
}
