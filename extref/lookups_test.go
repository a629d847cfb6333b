package extref

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"
)

// countingMapper counts the lookups that reach the mapper; each stands for
// discovery requests.
type countingMapper struct {
	*meta.DefaultRESTMapper
	lookups int
}

func (m *countingMapper) KindFor(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	m.lookups++
	return m.DefaultRESTMapper.KindFor(gvr)
}

func (m *countingMapper) KindsFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	m.lookups++
	return m.DefaultRESTMapper.KindsFor(gvr)
}

// TestMapperLookupsBounded: referencers that name resources nobody serves
// cannot make the mapper look them up without bound. An unknown resource's
// answer is reused for a second, then asked again only while more than half
// of the lookup budget is left; a resource never looked up has the rest; a
// resource that becomes known is found once its last answer is a second old.
func TestMapperLookupsBounded(t *testing.T) {
	m := &countingMapper{DefaultRESTMapper: testMapper()}
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	r := NewResolver(newReader(configMap("team-a", "x", map[string]any{"region": "eu-west-1"})), m, SourcePolicy{}, WithClock(clk))
	resolve := func(group, resource string) error {
		t.Helper()
		ref := widget(t, "team-a", "w", fmt.Sprintf(`
externalValues:
- fromObject: {group: %q, version: v1, resource: %s, name: x, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`, group, resource))
		_, err := r.Resolve(context.Background(), ref)
		return err
	}
	unknown := func(i int) string { return fmt.Sprintf("g%d.example.org", i) }
	step := func(what string, wantLookups int, check func()) {
		t.Helper()
		before := m.lookups
		check()
		if got := m.lookups - before; got != wantLookups {
			t.Errorf("%s: mapper lookups: want %d, got %d", what, wantLookups, got)
		}
	}

	step("100 unknown groups at once", lookupBurst, func() {
		for i := range 100 {
			err := resolve(unknown(i), "things")
			switch {
			case i < lookupBurst && !errors.Is(err, ErrUnknownResource):
				t.Errorf("unknown group %d: want ErrUnknownResource, got %v", i, err)
			case i >= lookupBurst && (errors.Is(err, ErrUnknownResource) || err == nil || !strings.Contains(err.Error(), errLookupsLimited.Error())):
				t.Errorf("unknown group %d, past the budget: want the transient %q, got %v", i, errLookupsLimited, err)
			}
		}
	})
	step("an unknown group asked again at once", 0, func() {
		if err := resolve(unknown(0), "things"); !errors.Is(err, ErrUnknownResource) {
			t.Errorf("want the answer kept, ErrUnknownResource; got %v", err)
		}
	})

	clk.SetTime(clk.Now().Add(1500 * time.Millisecond)) // 3 tokens: not more than half the budget
	step("an unknown group a second and a half later", 0, func() {
		if err := resolve(unknown(1), "things"); !errors.Is(err, ErrUnknownResource) {
			t.Errorf("want the answer kept, ErrUnknownResource; got %v", err)
		}
	})
	step("a resource never looked up", 1, func() {
		if err := resolve("", "configmaps"); err != nil {
			t.Errorf("configmaps: %v", err)
		}
	})
	step("the same resource again", 0, func() {
		if err := resolve("", "configmaps"); err != nil {
			t.Errorf("configmaps: %v", err)
		}
	})

	clk.SetTime(clk.Now().Add(10 * time.Second)) // a full budget again
	m.Add(schema.GroupVersionKind{Group: unknown(2), Version: "v1", Kind: "Thing"}, meta.RESTScopeNamespace)
	step("an unknown group that is now served", 1, func() {
		if err := resolve(unknown(2), "things"); errors.Is(err, ErrUnknownResource) || errors.Is(err, errLookupsLimited) {
			t.Errorf("want the mapping found, got %v", err)
		}
	})
	step("the group again", 0, func() {
		if err := resolve(unknown(2), "things"); errors.Is(err, ErrUnknownResource) {
			t.Errorf("want the mapping kept, got %v", err)
		}
	})
}

// TestLookupBudget: take gives a limiter's tokens up to its burst, then at
// its rate, none for a clock that goes back, and keeps a reserve.
func TestLookupBudget(t *testing.T) {
	b := rate.NewLimiter(lookupRate, lookupBurst)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range lookupBurst {
		if !take(b, now, 0) {
			t.Fatalf("token %d of a full budget refused", i+1)
		}
	}
	if take(b, now, 0) {
		t.Fatal("a token past the burst was given")
	}
	if take(b, now.Add(-time.Hour), 0) {
		t.Fatal("a clock that went back gave tokens")
	}
	now = now.Add(time.Second)
	got := 0
	for take(b, now, 0) {
		got++
	}
	if got != lookupRate {
		t.Errorf("a second later: want %d, got %d tokens", lookupRate, got)
	}
	now = now.Add(time.Hour)
	if take(b, now, lookupBurst) {
		t.Error("a reserve as large as the burst must refuse")
	}
	got = 0
	for take(b, now, lookupBurst-1) {
		got++
	}
	if got != 1 {
		t.Errorf("a reserve one below the burst gave %d tokens, want 1", got)
	}
}
