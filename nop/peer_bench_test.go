package nop

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// The peer that BenchmarkAPIServer runs beside nop: provider-nop itself, the
// release tools/providernop pins, built from the Go module proxy into the
// user cache dir the first time (minutes), with its own CRDs from the
// module's directory.
const (
	peerModule  = "github.com/crossplane-contrib/provider-nop"
	peerVersion = "v0.5.0"
	peerDir     = "../tools/providernop"
)

var peerGVK = schema.GroupVersionKind{Group: "nop.crossplane.io", Version: "v1alpha1", Kind: "NopResource"}

// peerBinary returns provider-nop's binary and CRD directory, building the
// binary once; NOP_BENCH_PEER=off, or a build that fails, skips the mode.
func peerBinary(b *testing.B) (bin, crds string) {
	if os.Getenv("NOP_BENCH_PEER") == "off" {
		b.Skip("NOP_BENCH_PEER=off")
	}
	dir, err := filepath.Abs(peerDir)
	require.NoError(b, err)
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", peerModule)
	list.Dir = dir
	out, err := list.Output()
	if err != nil {
		b.Skipf("cannot find %s@%s in the module cache: %v", peerModule, peerVersion, err)
	}
	crds = filepath.Join(strings.TrimSpace(string(out)), "package", "crds")

	cacheDir, err := os.UserCacheDir()
	require.NoError(b, err)
	bin = filepath.Join(cacheDir, "ctrlkit", "provider-nop", peerVersion, "provider")
	if _, err := os.Stat(bin); err == nil {
		return bin, crds
	}
	require.NoError(b, os.MkdirAll(filepath.Dir(bin), 0o755))
	b.Logf("building %s@%s (the first time: minutes)", peerModule, peerVersion)
	build := exec.Command("go", "build", "-o", bin+".tmp", peerModule+"/cmd/provider")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		b.Skipf("cannot build %s@%s: %v\n%s", peerModule, peerVersion, err, out)
	}
	require.NoError(b, os.Rename(bin+".tmp", bin))
	return bin, crds
}

// runPeer runs provider-nop on a control plane of its own, with as many
// concurrent reconciles as nop's workers and the 1 s poll the provider-nop
// design suggests, over n of its NopResources on benchSchedule created at
// rate per second. provider-nop's managed-resource reconciler sets Synced
// itself on every reconcile, so the schedule's Synced step cannot be told
// apart: its result has the two Ready steps of each object (Scheduled is
// given as each entry's reason, so that a step is visible by it).
func runPeer(b *testing.B, label string, n, rate, workers int) benchResult {
	bin, crds := peerBinary(b)
	env := testenv.Fresh(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	files, err := filepath.Glob(filepath.Join(crds, "*.yaml"))
	require.NoError(b, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(b, err)
		env.ApplyStrict(b, "", strings.TrimPrefix(string(data), "---\n"))
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(peerGVK.GroupVersion().WithKind(peerGVK.Kind + "List"))
	testenv.Eventually(b, time.Minute, "provider-nop's CRDs served", func() error { return env.Client.List(ctx, list) })

	kubeconfig := filepath.Join(b.TempDir(), "kubeconfig")
	require.NoError(b, env.WriteKubeconfig(kubeconfig))
	logs, err := os.Create(filepath.Join(b.TempDir(), "provider-nop.log"))
	require.NoError(b, err)
	defer logs.Close()
	// --max-reconcile-rate is both provider-nop's concurrency and its
	// global rate limit (reconciles per second); NOP_BENCH_PEER_RATE sets
	// it apart from nop's workers.
	maxRate := envInt(b, "NOP_BENCH_PEER_RATE", workers)
	cmd := exec.CommandContext(ctx, bin, "--poll=1s", "--sync=1h", fmt.Sprintf("--max-reconcile-rate=%d", maxRate))
	// provider-nop serves validating webhooks (on :9443, metrics on :8080)
	// and stops without a serving certificate; nothing calls them here.
	certs := b.TempDir()
	require.NoError(b, writeSelfSigned(certs))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "TLS_SERVER_CERTS_DIR="+certs)
	cmd.Stdout, cmd.Stderr = logs, logs
	require.NoError(b, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	type steps [2]time.Time
	var mu sync.Mutex
	seen := make(map[string]*steps, n)
	updates := 0
	remaining := 2 * n
	done := make(chan struct{})
	var late []time.Duration
	observe := func(obj any) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		conds, err := conditions.FromUnstructured(u)
		if err != nil {
			return
		}
		now := time.Now()
		ready := conditions.Get(conds, "Ready")
		visible := [2]bool{
			ready != nil && ready.Reason == ReasonScheduled,
			ready != nil && ready.Reason == ReasonScheduled && ready.Status == "True",
		}
		mu.Lock()
		defer mu.Unlock()
		updates++
		s := seen[u.GetName()]
		if s == nil {
			s = &steps{}
			seen[u.GetName()] = s
		}
		for i, v := range visible {
			if v && s[i].IsZero() {
				s[i] = now
				late = append(late, now.Sub(u.GetCreationTimestamp().Add(time.Duration(i+1)*time.Second)))
				if remaining--; remaining == 0 {
					close(done)
				}
			}
		}
	}
	watcher, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme, Mapper: env.Mapper, DefaultLabelSelector: labels.SelectorFromSet(labels.Set{testLabel: label})})
	require.NoError(b, err)
	probe := &unstructured.Unstructured{}
	probe.SetGroupVersionKind(peerGVK)
	inf, err := watcher.GetInformer(ctx, probe)
	require.NoError(b, err)
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: observe, UpdateFunc: func(_, o any) { observe(o) }})
	require.NoError(b, err)
	go func() { _ = watcher.Start(ctx) }()
	require.True(b, watcher.WaitForCacheSync(ctx))

	newPeer := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(peerGVK)
		u.SetNamespace("default")
		u.SetName(name)
		u.SetLabels(map[string]string{testLabel: label})
		var entries []any
		for _, e := range benchSchedule {
			entries = append(entries, map[string]any{"time": e.Time, "conditionType": e.ConditionType,
				"conditionStatus": string(e.ConditionStatus), "conditionReason": ReasonScheduled})
		}
		u.Object["spec"] = map[string]any{"forProvider": map[string]any{"conditionAfter": entries}}
		return u
	}
	// Wait until provider-nop runs, with an object whose schedule is due at once.
	warmup := newPeer(label + "-warmup")
	warmup.Object["spec"] = map[string]any{"forProvider": map[string]any{"conditionAfter": []any{
		map[string]any{"time": "0s", "conditionType": "Warm", "conditionStatus": "True", "conditionReason": "Up"}}}}
	warmup.SetLabels(nil)
	require.NoError(b, env.Client.Create(ctx, warmup))
	testenv.Eventually(b, 2*time.Minute, "provider-nop reconciling", func() error {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(peerGVK)
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(warmup), got); err != nil {
			return err
		}
		if conds, _ := conditions.FromUnstructured(got); conditions.IsTrue(conds, "Warm") {
			return nil
		}
		return errors.New("the warm-up object has no Warm condition yet")
	})

	start := time.Now()
	interval := time.Duration(0)
	if rate > 0 {
		interval = time.Second / time.Duration(rate)
	}
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range n {
		if interval > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := env.Client.Create(ctx, newPeer(fmt.Sprintf("%s-%04d", label, i))); err != nil {
				b.Errorf("cannot create %s-%04d: %v", label, i, err)
			}
		})
	}
	wg.Wait()
	select {
	case <-done:
	case <-time.After(peerWait):
		// Falling behind is a result, not a failure: report what was seen.
	}
	mu.Lock()
	defer mu.Unlock()
	return benchResult{late: slices.Clone(late), transitions: len(late), window: time.Since(start), events: int64(updates), unseen: remaining}
}

// writeSelfSigned writes a self-signed serving certificate for localhost as
// tls.crt and tls.key in dir.
func writeSelfSigned(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}
