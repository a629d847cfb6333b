package extref

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// benchReferencers returns n referencers in namespace ns, each with three
// Always references (so every one is read on every Resolve): a ConfigMap
// field, a cluster-scoped VPC field, and a template over two ConfigMap
// fields, spread over ten ConfigMaps and ten VPCs.
func benchReferencers(b *testing.B, ns string, n int) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, n)
	for i := range out {
		out[i] = widget(b, ns, fmt.Sprintf("w%d", i), fmt.Sprintf(`
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings-%[1]d, fieldPath: data.region}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}
- fromObject: {group: extref.test.ctrlkit.dev, version: v1alpha1, resource: vpcs, name: bench-vpc-%[1]d, fieldPath: spec.forProvider.cidrBlock}
  toFieldPath: spec.cidrBlock
  policy: {resolve: Always}
- variables:
  - {name: region, fromRef: {version: v1, resource: configmaps, name: settings-%[1]d, fieldPath: data.region}}
  - {name: account, fromRef: {version: v1, resource: configmaps, name: settings-%[1]d, fieldPath: data.account}}
  template: "arn:aws:clouddirectory:{{ .region }}:{{ .account }}:schema/published/cognito/1.0"
  toFieldPath: spec.forProvider.directoryArn
  policy: {resolve: Always}`, i%10))
	}
	return out
}

func benchSources(ns string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for i := range 10 {
		out = append(out,
			configMap(ns, fmt.Sprintf("settings-%d", i), map[string]any{"region": fmt.Sprintf("region-%d", i), "account": "123456789012"}),
			vpc(fmt.Sprintf("bench-vpc-%d", i), fmt.Sprintf("10.%d.0.0/16", i)))
	}
	return out
}

var benchPolicy = SourcePolicy{Allow: []SourceRule{{Name: "vpcs", Group: "extref.test.ctrlkit.dev", Resource: "vpcs"}}}

// resolveAll resolves every referencer and fails on any error.
func resolveAll(b *testing.B, r *Resolver, refs []*unstructured.Unstructured) (changed int) {
	for _, ref := range refs {
		out, err := r.Resolve(context.Background(), ref)
		if err != nil {
			b.Fatalf("Resolve(%s): %v", ref.GetName(), err)
		}
		if out.Changed {
			changed++
		}
	}
	return changed
}

// BenchmarkResolveWarmCache resolves 1,000 referencers with three references
// each through a controller-runtime cache of a real API server, after the
// cache is warm, and counts the requests the API server sees meanwhile
// (there must be none).
func BenchmarkResolveWarmCache(b *testing.B) {
	env := testenv.Get(b)
	h := &harness{env: env}
	for _, o := range benchSources("bench") {
		h.create(b, o)
	}
	b.Run("managedFields", func(b *testing.B) { benchmarkWarmCache(b, env, nil) })
	b.Run("stripped", func(b *testing.B) { benchmarkWarmCache(b, env, cache.TransformStripManagedFields()) })
}

func benchmarkWarmCache(b *testing.B, env *testenv.Env, transform toolscache.TransformFunc) {
	const n = 1000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var requests atomic.Int64
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS, cfg.Burst = 1000, 1000
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if req.URL.Query().Get("watch") != "true" {
				requests.Add(1)
			}
			return rt.RoundTrip(req)
		})
	})
	httpClient, err := rest.HTTPClientFor(cfg)
	require.NoError(b, err)
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	require.NoError(b, err)
	c, err := cache.New(cfg, cache.Options{HTTPClient: httpClient, Scheme: env.Scheme, Mapper: mapper, DefaultTransform: transform})
	require.NoError(b, err)
	go func() { _ = c.Start(ctx) }()
	require.True(b, c.WaitForCacheSync(ctx))

	r := NewResolver(c, mapper, benchPolicy)
	refs := benchReferencers(b, "bench", n)
	if got := resolveAll(b, r, refs); got != n { // warms the cache: one informer per kind
		b.Fatalf("first pass: want %d referencers changed, got %d", n, got)
	}
	before := requests.Load()
	start, cpu := time.Now(), cpuTime()
	b.ReportAllocs()
	loops := 0
	for b.Loop() {
		if got := resolveAll(b, r, refs); got != 0 {
			b.Fatalf("settled referencers changed: %d", got)
		}
		loops++
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpu
	reads := requests.Load() - before
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(loops*n), "ns/referencer")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(loops*n), "cpu-ns/referencer")
	b.ReportMetric(float64(reads), "api-requests")
	if reads != 0 {
		b.Errorf("API requests while resolving from a warm cache: want 0, got %d", reads)
	}
}

// BenchmarkResolve is BenchmarkResolveWarmCache's work with an in-memory
// reader, to separate the resolver's cost from the cache's. Both report
// CPU time per referencer too, steadier than wall-clock time on a busy
// machine.
func BenchmarkResolve(b *testing.B) {
	const n = 1000
	reader := newReader(benchSources("bench")...)
	r := NewResolver(reader, testMapper(), benchPolicy)
	refs := benchReferencers(b, "bench", n)
	resolveAll(b, r, refs)
	b.ReportAllocs()
	start, cpu, loops := time.Now(), cpuTime(), 0
	for b.Loop() {
		resolveAll(b, r, refs)
		loops++
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(loops*n), "ns/referencer")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(loops*n), "cpu-ns/referencer")
}

// BenchmarkResolveWatched is BenchmarkResolve with a Watcher: a settled
// Resolve tells it the same sources again, which must cost nothing more
// than finding them unchanged.
func BenchmarkResolveWatched(b *testing.B) {
	const n = 1000
	reader := newReader(benchSources("bench")...)
	r := NewResolver(reader, testMapper(), benchPolicy, WithWatcher(NewWatcher(nil)))
	refs := benchReferencers(b, "bench", n)
	resolveAll(b, r, refs)
	b.ReportAllocs()
	start, cpu, loops := time.Now(), cpuTime(), 0
	for b.Loop() {
		resolveAll(b, r, refs)
		loops++
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(loops*n), "ns/referencer")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(loops*n), "cpu-ns/referencer")
}
