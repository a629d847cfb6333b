package extref

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// isDiscovery reports whether a request reads discovery (/api, /apis,
// /apis/<group>, /apis/<group>/<version>, /api/v1) rather than objects.
func isDiscovery(r *http.Request) bool {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch parts[0] {
	case "api":
		return r.Method == http.MethodGet && len(parts) <= 2
	case "apis":
		return r.Method == http.MethodGet && len(parts) <= 3
	}
	return false
}

// TestAPIServerUnknownResourcesBoundDiscovery: against the real API server
// and controller-runtime's mapper, which reads the whole of discovery for a
// group it does not know, referencers naming a hundred groups nobody serves
// make a bounded number of discovery requests, and the references past the
// lookup budget fail with a transient error rather than an unknown resource.
func TestAPIServerUnknownResourcesBoundDiscovery(t *testing.T) {
	env := testenv.Get(t)
	cfg, discovery := testenv.CountRequests(env.Config, func(r *http.Request) bool { return isDiscovery(r) })
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	r := NewResolver(env.Client, mapper, SourcePolicy{})

	const referencers = 100
	began := time.Now()
	before := discovery.Load()
	unknown, limited := 0, 0
	for i := range referencers {
		ref := widget(t, "team-a", "w", fmt.Sprintf(`
externalValues:
- fromObject: {group: g%d.unknown.example.org, version: v1, resource: things, name: x, fieldPath: spec.x}
  toFieldPath: spec.forProvider.region`, i))
		_, err := r.Resolve(t.Context(), ref)
		switch {
		case errors.Is(err, ErrUnknownResource):
			unknown++
		case err != nil && strings.Contains(err.Error(), errLookupsLimited.Error()):
			limited++
		default:
			t.Fatalf("referencer %d: want an unknown resource or a limited lookup, got %v", i, err)
		}
	}
	requests := discovery.Load() - before
	lookups := lookupBurst + lookupRate*int(time.Since(began)/time.Second+1)
	t.Logf("%d referencers: %d unknown, %d limited, %d discovery requests in %s", referencers, unknown, limited, requests, time.Since(began))
	if unknown > lookups || unknown+limited != referencers {
		t.Errorf("want at most %d lookups answered unknown and the rest limited, got %d unknown and %d limited", lookups, unknown, limited)
	}
	// controller-runtime's mapper reads discovery (one or two requests) for
	// each group it does not know.
	if max := int64(3 * lookups); requests > max {
		t.Errorf("discovery requests: want at most %d, got %d", max, requests)
	}
}
