package extref

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// BenchmarkResolveSelectedWarmCache resolves 200 settled referencers, each
// with a selection of three ConfigMaps by a label whose value is the
// referencer's own, and a source named by a field of the referencer,
// through a controller-runtime cache of a real API server: no API request,
// and the allocations of a settled Resolve of such sources.
func BenchmarkResolveSelectedWarmCache(b *testing.B) {
	const n, ns = 200, "bench-selected"
	env := testenv.Get(b)
	h := &harness{env: env}
	for i := range 3 {
		h.create(b, labelled(ns, fmt.Sprintf("zone-%d", i), map[string]string{"tier": "gold"}, map[string]any{"zone": fmt.Sprintf("z%d", i), "rank": fmt.Sprint(3 - i)}))
	}
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
	c, err := cache.New(cfg, cache.Options{HTTPClient: httpClient, Scheme: env.Scheme, Mapper: mapper, DefaultTransform: cache.TransformStripManagedFields()})
	require.NoError(b, err)
	go func() { _ = c.Start(ctx) }()
	require.True(b, c.WaitForCacheSync(ctx))

	r := NewResolver(c, mapper, SourcePolicy{})
	refs := make([]*unstructured.Unstructured, n)
	for i := range refs {
		refs[i] = widget(b, ns, fmt.Sprintf("w%d", i), `
externalValues:
- fromObject:
    version: v1
    resource: configmaps
    selector: {mode: Multiple, sortByFieldPath: data.rank, matchLabels: [{key: tier, valueFromFieldPath: "metadata.labels[tier]"}]}
    fieldPath: data.zone
  toFieldPath: spec.forProvider.tags.zones
  transforms: [{type: String, string: {type: Join, join: {separator: ","}}}]
  policy: {resolve: Always}
- fromObject: {version: v1, resource: configmaps, nameFromFieldPath: "metadata.labels[zone]", fieldPath: data.zone}
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`)
		refs[i].SetLabels(map[string]string{"tier": "gold", "zone": "zone-1"})
	}
	if got := resolveAll(b, r, refs); got != n {
		b.Fatalf("first pass: want %d referencers changed, got %d", n, got)
	}
	if zones, _, _ := unstructured.NestedString(refs[0].Object, "spec", "forProvider", "tags", "zones"); zones != "z2,z1,z0" {
		b.Fatalf("zones: want z2,z1,z0, got %q", zones)
	}
	before := requests.Load()
	b.ReportAllocs()
	loops := 0
	for b.Loop() {
		if got := resolveAll(b, r, refs); got != 0 {
			b.Fatalf("settled referencers changed: %d", got)
		}
		loops++
	}
	reads := requests.Load() - before
	b.ReportMetric(float64(reads), "api-requests")
	if reads != 0 {
		b.Errorf("API requests while resolving from a warm cache: want 0, got %d", reads)
	}
}
