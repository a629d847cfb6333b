package extref

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

func TestDigestEqual(t *testing.T) {
	values := []any{
		nil, "", "a", true, false, int64(1), float64(1), 1.5,
		map[string]any{}, map[string]any(nil), map[string]any{"a": "b"}, map[string]any{"a": "c"},
		map[string]any{"b": "b"}, map[string]any{"a": "b", "c": nil}, map[string]any{"a": map[string]any{"x": []any{"y"}}},
		map[string]any{"a": map[string]any{"x": []any{"z"}}},
		[]any{}, []any(nil), []any{"a"}, []any{"a", "b"}, []any{"b", "a"}, []any{map[string]any{"a": int64(2)}},
		[]any{map[string]any{"a": float64(2)}},
	}
	seed := maphash.MakeSeed()
	for _, a := range values {
		da, ok := digest(seed, a)
		require.True(t, ok, "digest(%#v)", a)
		for _, b := range values {
			db, _ := digest(seed, b)
			if got, want := da == db, jsonvalue.Equal(a, b); got != want {
				t.Errorf("digest(%#v) == digest(%#v): want %v (as jsonvalue.Equal), got %v", a, b, want, got)
			}
		}
	}
	if _, ok := digest(seed, map[string]any{"a": struct{}{}}); ok {
		t.Errorf("digest of a value that is not JSON: want not, got ok (it is compiled every time)")
	}
}

// A Resolver keeps each referencer's checked external values between
// calls: a change to them, even made in place to the same object, is seen
// on the next Resolve, and so is a change to a template's variables.
func TestResolveSeesChangedExternalValues(t *testing.T) {
	reader := newReader(configMap("team-a", "settings", map[string]any{"region": "eu-west-1", "zone": "a"}))
	r := NewResolver(reader, testMapper(), SourcePolicy{})
	w := widget(t, "team-a", "w", `
externalValues:
- variables:
  - {name: region, fromRef: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}}
  template: "{{ .region }}-1"
  toFieldPath: spec.forProvider.region
  policy: {resolve: Always}`)
	resolve := func(want map[string]any) {
		t.Helper()
		_, err := r.Resolve(context.Background(), w)
		require.NoError(t, err)
		got, _, _ := unstructured.NestedMap(w.Object, "spec", "forProvider")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("spec.forProvider: -want, +got:\n%s", diff)
		}
	}
	resolve(map[string]any{"region": "eu-west-1-1"})
	resolve(map[string]any{"region": "eu-west-1-1"})

	reader.put(configMap("team-a", "settings", map[string]any{"region": "us-east-1", "zone": "a"}))
	resolve(map[string]any{"region": "us-east-1-1"})

	// Resolve replaces the content it changes: edit the referencer's own.
	ev := func() map[string]any {
		return w.Object["spec"].(map[string]any)["externalValues"].([]any)[0].(map[string]any)
	}
	ev()["template"] = "{{ .region }}-2"
	resolve(map[string]any{"region": "us-east-1-2"})

	ev()["variables"].([]any)[0].(map[string]any)["fromRef"].(map[string]any)["fieldPath"] = "data.zone"
	resolve(map[string]any{"region": "a-2"})

	ev()["toFieldPath"] = "spec.forProvider.zone"
	resolve(map[string]any{"region": "a-2", "zone": "a-2"})

	// A value that no longer compiles fails, and compiles again once fixed.
	ev()["toFieldPath"] = "status.zone"
	_, err := r.Resolve(t.Context(), w)
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("Resolve with toFieldPath status.zone: want ErrInvalid, got error %v", err)
	}
	ev()["toFieldPath"] = "spec.forProvider.zone"
	reader.put(configMap("team-a", "settings", map[string]any{"region": "us-east-1", "zone": "b"}))
	resolve(map[string]any{"region": "a-2", "zone": "b-2"})
}

// blockingReader's reads wait until their context is done, and record how
// long they waited.
type blockingReader struct {
	memReader
	waited []time.Duration
	// expired records, for each read, whether its context had already run
	// out when the read began.
	expired []bool
}

func (r *blockingReader) Get(ctx context.Context, _ client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	start := time.Now()
	r.expired = append(r.expired, ctx.Err() != nil)
	<-ctx.Done()
	r.waited = append(r.waited, time.Since(start))
	return ctx.Err()
}

// The reads of one Resolve share one ReadTimeout: the first that blocks
// waits for it, and the others, of other kinds, fail once it has run out,
// so a referencer holds a worker for one read timeout, not one per kind.
func TestResolveReadTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	reader := &blockingReader{}
	w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: a, fieldPath: data.x}
  toFieldPath: spec.forProvider.a
- fromObject: {version: v1, resource: secrets, name: b, fieldPath: data.x}
  toFieldPath: spec.forProvider.b`)
	_, err := NewResolver(reader, testMapper(), SourcePolicy{OwnNamespaceSecrets: true}, ReadTimeout(timeout)).Resolve(t.Context(), w)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Resolve with blocking reads: want context.DeadlineExceeded, got error %v", err)
	}
	if got := len(reader.waited); got != 2 {
		t.Errorf("reads waited on: want 2, got %d", got)
	}
	if first := reader.waited[0]; first < timeout/2 {
		t.Errorf("the first read waited %v: want at least %v", first, timeout/2)
	}
	// The second read shares the first's budget, spent by then: it begins
	// with its context done. (Whether it did, not how long it took: on a
	// loaded machine a timer may fire late, and a duration proves little.)
	if diff := cmp.Diff([]bool{false, true}, reader.expired); diff != "" {
		t.Errorf("reads that began with their time run out (-want, +got):\n%s", diff)
	}
}

// A kind whose reads run out of time (its informer cannot sync, as when the
// controller may not list it) holds a worker for one read timeout per
// Resolve, not one per object a referencer names: the other reads of the
// kind fail at once, with an error that says why.
func TestResolveReadTimeoutPerKind(t *testing.T) {
	const timeout = 50 * time.Millisecond
	reader := &blockingReader{}
	var b strings.Builder
	b.WriteString("externalValues:\n")
	for i := range 40 {
		fmt.Fprintf(&b, "- {fromObject: {version: v1, resource: configmaps, name: c%d, fieldPath: data.x}, toFieldPath: spec.c%d}\n", i, i)
	}
	w := widget(t, "team-a", "w", b.String())
	start := time.Now()
	out, err := NewResolver(reader, testMapper(), SourcePolicy{}, ReadTimeout(timeout)).Resolve(t.Context(), w)
	took := time.Since(start)
	require.Error(t, err)
	if got := len(reader.waited); got != 1 {
		t.Errorf("reads waited on: want 1, got %d", got)
	}
	if took > 10*timeout {
		t.Errorf("Resolve of 40 sources of a kind that never syncs took %v: want about one read timeout (%v)", took, timeout)
	}
	require.Len(t, out.Failed, 40)
	for _, f := range out.Failed {
		if !errors.Is(f, context.DeadlineExceeded) || !transientErr(f) {
			t.Errorf("failure %s: want a transient error wrapping context.DeadlineExceeded", f)
		}
	}
	want := "cannot resolve spec.externalValues[1].fromObject (configmaps team-a/c1, data.x): cannot read the source: the cache of ConfigMap has not synced within the read timeout (the controller may not be able to list it)"
	if diff := cmp.Diff(want, out.Failed[1].Error()); diff != "" {
		t.Errorf("second failure: -want, +got:\n%s", diff)
	}
}
