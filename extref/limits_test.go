package extref

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// A referencer's schema may not bound its external values (a CRD written by
// hand, or one that preserves unknown fields), so the resolver holds them to
// the limits of ExternalValuesSchema itself, and to maxExternalValues: each
// extra source, variable, transform or byte of path costs every Resolve.
// Without these, a target path of a megabyte made half a million nested
// objects (270 MB), thousands of variables took a quadratic check on every
// Resolve, and half a million malformed values built 750 MB of messages.
func TestResolveHostileSizes(t *testing.T) {
	const cm = `{version: v1, resource: configmaps, name: settings, fieldPath: data.region}`
	list := func(n int, item string) string {
		var b strings.Builder
		b.WriteString("externalValues:\n")
		for i := range n {
			fmt.Fprintf(&b, "- "+item+"\n", i)
		}
		return b.String()
	}
	sources := func(field string, n int, item string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "externalValues:\n- toFieldPath: spec.a\n  %s:\n", field)
		for i := range n {
			fmt.Fprintf(&b, "  - "+item+"\n", i)
		}
		return b.String()
	}
	transforms := func(n int) string {
		return "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [" +
			strings.TrimSuffix(strings.Repeat("{type: Base64Encode},", n), ",") + "]"
	}
	entries := func(n int) string {
		e := make([]string, n)
		for i := range e {
			e[i] = fmt.Sprintf("k%d: v", i)
		}
		return strings.Join(e, ", ")
	}
	deep := func(n int) string { return "spec" + strings.Repeat(".a", (n-len("spec"))/2) }
	cases := map[string]struct {
		reason string
		spec   string
		want   string // the error; "" when it resolves
	}{
		"ManyExternalValues": {
			reason: "A referencer holds at most maxExternalValues external values; more fail as one error, before any is checked.",
			spec:   list(maxExternalValues+1, "{fromObject: "+cm+", toFieldPath: spec.a%d}"),
			want:   fmt.Sprintf("cannot resolve spec.externalValues: invalid external value: %d external values, more than %d", maxExternalValues+1, maxExternalValues),
		},
		"ManyMalformedValues": {
			reason: "Malformed values count too: each costs an error of its own.",
			spec:   "externalValues: [" + strings.TrimSuffix(strings.Repeat("1,", 500_000), ",") + "]",
			want:   fmt.Sprintf("cannot resolve spec.externalValues: invalid external value: 500000 external values, more than %d", maxExternalValues),
		},
		"ExternalValuesAtTheLimit": {
			reason: "maxExternalValues external values resolve.",
			spec:   list(maxExternalValues, "{fromObject: "+cm+", toFieldPath: spec.a%d}"),
		},
		"ManyCombineSources": {
			reason: "combine takes at most 32 sources, as the schema says.",
			spec:   sources("combine", 33, "{version: v1, resource: configmaps, name: s%d, fieldPath: data.x}") + "  fmt: '%[1]v'",
			want:   "cannot resolve spec.externalValues[0].combine: invalid external value: 33 items, more than 32",
		},
		"ManyVariables": {
			reason: "variables are at most 32, as the schema says: each name was checked against every other on every Resolve.",
			spec:   sources("variables", 20_000, "{name: v%d, fromRef: "+cm+"}") + "  template: x",
			want:   "cannot resolve spec.externalValues[0].variables: invalid external value: 20000 items, more than 32",
		},
		"VariablesAtTheLimit": {
			reason: "32 variables resolve.",
			spec:   sources("variables", 32, "{name: v%d, fromRef: "+cm+"}") + "  template: '{{ .v31 }}'",
		},
		"ManyTransforms": {
			reason: "transforms are at most 16, as the schema says.",
			spec:   transforms(17),
			want:   "cannot resolve spec.externalValues[0].transforms: invalid external value: 17 items, more than 16",
		},
		"LargeMap": {
			reason: "A Map transform holds at most 256 entries, as the schema says.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: spec.a\n  transforms: [{type: Map, map: {" + entries(257) + "}}]",
			want:   "cannot resolve spec.externalValues[0].transforms[0].map: invalid external value: 257 entries, more than 256",
		},
		"DeepTarget": {
			reason: "A target path of a megabyte would make half a million nested objects: toFieldPath takes 1024 bytes, as the schema says.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: " + deep(1<<20),
			want:   "cannot resolve spec.externalValues[0].toFieldPath: invalid external value: longer than 1024 bytes",
		},
		"TargetAtTheLimit": {
			reason: "A target of 1024 bytes is written.",
			spec:   "externalValues:\n- fromObject: " + cm + "\n  toFieldPath: " + deep(1024),
		},
		"LongSourcePath": {
			reason: "fieldPath takes 1024 bytes, as the schema says.",
			spec:   "externalValues:\n- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data" + strings.Repeat(".a", 600) + "}\n  toFieldPath: spec.a",
			want:   "cannot resolve spec.externalValues[0].fromObject.fieldPath: invalid external value: longer than 1024 bytes",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reader := newReader(configMap("team-a", "settings", map[string]any{"region": "eu-west-1"}))
			w := widget(t, "team-a", "w", tc.spec)
			before := w.DeepCopy()
			out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
			if tc.want == "" {
				require.NoError(t, err, tc.reason)
				require.True(t, out.Changed, tc.reason)
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%s\nResolve: want ErrInvalid, got %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("%s\nResolve error: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before.Object, w.Object); diff != "" {
				t.Errorf("%s\nthe referencer changed: -want, +got:\n%s", tc.reason, diff)
			}
			if got := reader.reads(); got != 0 {
				t.Errorf("%s\nreads of sources: want none, got %d", tc.reason, got)
			}
		})
	}
}

// When every external value fails, the error names them until its message
// passes 16 KiB and then counts the rest, so that the count still fits in
// the condition, which holds 32 KiB; errors.Is and Outcome.Failed still see
// every failure.
func TestResolveManyFailuresMessage(t *testing.T) {
	var b strings.Builder
	b.WriteString("externalValues:\n")
	for i := range maxExternalValues {
		fmt.Fprintf(&b, "- {fromObject: {version: v1, resource: configmaps, name: missing-%03d-%s, fieldPath: data.x}, toFieldPath: spec.a%d}\n", i, strings.Repeat("x", 200), i)
	}
	w := widget(t, "team-a", "w", b.String())
	out, err := NewResolver(newReader(), testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
	require.Error(t, err)
	require.Len(t, out.Failed, maxExternalValues)
	msg := err.Error()
	if len(msg) > maxListMessage+1024 {
		t.Errorf("message: %d bytes, want at most %d", len(msg), maxListMessage+1024)
	}
	named := strings.Count(msg, "cannot resolve ")
	if want := fmt.Sprintf("; and %d more", maxExternalValues-named); !strings.HasSuffix(msg, want) {
		t.Errorf("message: want it to end with %q, got ...%q", want, msg[max(0, len(msg)-100):])
	}
	c := Condition(out, err, 1)
	if !strings.HasSuffix(c.Message, "more") {
		t.Errorf("condition message: want the count of failures not named, got ...%q", c.Message[max(0, len(c.Message)-100):])
	}
	var n int
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		if errors.Is(e, ErrSourceNotFound) {
			n++
		}
	}
	if n != maxExternalValues {
		t.Errorf("failures that unwrap to ErrSourceNotFound: want %d, got %d", maxExternalValues, n)
	}
}

// A referencer with the most sources it may have (maxExternalValues of
// maxSources each) costs time in proportion to them: reads, watches and
// mappings are looked up by key, not by searching every earlier one (which
// took 12 s for 1024 values of 32 sources). Measured as a ratio of CPU
// times, 4 times the sources taking less than 8 times as long.
func TestResolveManySourcesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time")
	}
	spec := func(n int) string {
		var b strings.Builder
		b.WriteString("externalValues:\n")
		for i := range n {
			fmt.Fprintf(&b, "- fmt: '%%[1]v'\n  makeAvailableAs: k%d\n  combine:\n", i)
			for j := range maxSources {
				fmt.Fprintf(&b, "  - {version: v1, resource: configmaps, name: c%d-%d, fieldPath: data.x}\n", i, j)
			}
		}
		return b.String()
	}
	cost := func(n int) time.Duration {
		w := widget(t, "team-a", "w", spec(n))
		r := NewResolver(newReader(), testMapper(), SourcePolicy{}, WithWatcher(NewWatcher(nil)))
		best := time.Duration(1 << 62)
		for range 3 {
			start := cpuTime()
			out, err := r.Resolve(context.Background(), w)
			best = min(best, cpuTime()-start)
			require.Error(t, err)
			require.Len(t, out.Failed, n)
		}
		return best
	}
	small, large := cost(maxExternalValues/4), cost(maxExternalValues)
	t.Logf("CPU time of a Resolve: %d sources %v, %d sources %v", maxExternalValues/4*maxSources, small, maxExternalValues*maxSources, large)
	if small > 0 && large > 8*small {
		t.Errorf("4 times the sources took %.1f times the CPU time, want less than 8", float64(large)/float64(small))
	}
}

// An AccessReview creates at most reviewBurst reviews at once and
// reviewRate a second after that, for all referencers together: a
// referencer naming hundreds of sources cannot make one Resolve create
// hundreds of SubjectAccessReviews (nor wait for them in the client's rate
// limiter). The reads past the budget fail with a transient error, not a
// denial, and are reviewed on a later Resolve.
func TestResolveAccessReviewsBounded(t *testing.T) {
	const n = 200
	var b strings.Builder
	b.WriteString("externalValues:\n")
	objs := make([]*unstructured.Unstructured, 0, n)
	for i := range n {
		fmt.Fprintf(&b, "- {fromObject: {version: v1, resource: configmaps, name: c%d, fieldPath: data.x}, toFieldPath: spec.c%d}\n", i, i)
		objs = append(objs, configMap("team-a", fmt.Sprintf("c%d", i), map[string]any{"x": "y"}))
	}
	w := &reviewWriter{allow: func(string, *authorizationv1.ResourceAttributes) bool { return true }}
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_000_000, 0))
	review := &AccessReview{Client: w, ServiceAccount: "reader", Clock: clk, TTL: time.Hour}
	r := NewResolver(newReader(objs...), testMapper(), SourcePolicy{}, WithAccessReview(review))

	ref := widget(t, "team-a", "w", b.String())
	out, err := r.Resolve(t.Context(), ref)
	if got := len(w.reviews); got != reviewBurst {
		t.Errorf("reviews created by the first Resolve: want %d, got %d", reviewBurst, got)
	}
	require.Error(t, err)
	if errors.Is(err, ErrDenied) || !errors.Is(err, errReviewsLimited) || !transient(out.Failed) {
		t.Errorf("Resolve past the review budget: want a transient error wrapping errReviewsLimited and not ErrDenied, got %v", err)
	}
	if got := len(out.Failed); got != n-reviewBurst {
		t.Errorf("failed external values: want %d, got %d", n-reviewBurst, got)
	}
	if out.Changed {
		t.Error("Resolve past the review budget changed the referencer")
	}

	clk.SetTime(clk.Now().Add(time.Second))
	_, _ = r.Resolve(t.Context(), ref)
	if got, want := len(w.reviews), reviewBurst+reviewRate; got != want {
		t.Errorf("reviews a second later: want %d, got %d (the decisions made are reused)", want, got)
	}

	// Later Resolves review the rest, reviewBurst at a time.
	for range n / reviewBurst {
		clk.SetTime(clk.Now().Add(reviewBurst / reviewRate * time.Second))
		if out, err = r.Resolve(t.Context(), ref); err == nil {
			break
		}
	}
	require.NoError(t, err, "once every source has been reviewed")
	if !out.Changed || out.Resolved != n {
		t.Errorf("Resolve after the reviews: want %d values written, got changed=%t, resolved=%d", n, out.Changed, out.Resolved)
	}
	if got := len(w.reviews); got != n {
		t.Errorf("reviews in all: want one per source, %d, got %d", n, got)
	}
}

// syncingReader is a cache whose one informer has not synced until synced
// is set: reads wait until their context is done, as a cache's do, and
// then read from memReader.
type syncingReader struct {
	memReader
	synced atomic.Bool
	waits  atomic.Int32
}

func (r *syncingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if !r.synced.Load() {
		r.waits.Add(1)
		<-ctx.Done()
		return apierrors.NewTimeoutError("failed waiting for *unstructured.Unstructured Informer to sync", 0)
	}
	return r.memReader.Get(ctx, key, obj, opts...)
}

func (r *syncingReader) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return syncState{r: r}, nil
}

// syncState is an informer that only tells whether it has synced. The
// embedded interface, nil, stands for the methods newer controller-runtime
// versions add, which the resolver does not call.
type syncState struct {
	cache.Informer
	r *syncingReader
}

func (s syncState) HasSynced() bool { return s.r.synced.Load() }

func (syncState) AddEventHandler(toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return nil, errors.New("not implemented")
}

func (syncState) AddEventHandlerWithResyncPeriod(toolscache.ResourceEventHandler, time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return nil, errors.New("not implemented")
}

func (syncState) AddEventHandlerWithOptions(toolscache.ResourceEventHandler, toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return nil, errors.New("not implemented")
}

func (syncState) RemoveEventHandler(toolscache.ResourceEventHandlerRegistration) error { return nil }
func (syncState) AddIndexers(toolscache.Indexers) error                                { return nil }
func (syncState) IsStopped() bool                                                      { return false }

// A kind whose informer does not sync (the controller may not list it, or
// nobody can, as bindings) holds a worker for one read timeout, not one per
// retry: while the cache says it has not synced, later Resolves fail its
// reads at once, with a transient error; once it has, they read again.
func TestResolveUnsyncedKindAcrossResolves(t *testing.T) {
	const timeout = 50 * time.Millisecond
	reader := &syncingReader{memReader: *newReader(configMap("team-a", "c", map[string]any{"x": "y"}))}
	r := NewResolver(reader, testMapper(), SourcePolicy{}, ReadTimeout(timeout))
	w := widget(t, "team-a", "w", `
externalValues:
- {fromObject: {version: v1, resource: configmaps, name: c, fieldPath: data.x}, toFieldPath: spec.c}`)

	var first string
	for i := range 3 {
		start := time.Now()
		out, err := r.Resolve(t.Context(), w)
		if i == 0 && err != nil {
			first = err.Error()
		} else if err != nil && err.Error() != first {
			t.Errorf("Resolve %d: the message changed, so its condition would be written again on every retry: -first, +now:\n%s", i, cmp.Diff(first, err.Error()))
		}
		took := time.Since(start)
		if err == nil || !transient(out.Failed) {
			t.Fatalf("Resolve %d while the informer has not synced: want a transient error, got %v", i, err)
		}
		if i == 0 {
			continue
		}
		if took > timeout/2 {
			t.Errorf("Resolve %d took %v: want it to fail at once", i, took)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Resolve %d: want an error wrapping context.DeadlineExceeded, got %v", i, err)
		}
	}
	if got := reader.waits.Load(); got != 1 {
		t.Errorf("reads that waited for the informer: want 1, got %d", got)
	}

	reader.synced.Store(true)
	out, err := r.Resolve(t.Context(), w)
	require.NoError(t, err, "once the informer has synced")
	require.True(t, out.Changed)
}

// External values whose targets are the same field, or one inside the
// other, write it in turn, and the last puts back what was there: once
// settled, Resolve reports no change (a reconciler would otherwise write
// the referencer on every reconcile, and trip its write budget though
// nothing changes). Typed referencers alike.
func TestResolveOverlappingTargetsSettle(t *testing.T) {
	reader := newReader(configMap("team-a", "c", map[string]any{"x": "one", "y": "two"}))
	cases := map[string]struct {
		reason string
		spec   string
	}{
		"SameTarget": {
			reason: "Two values for one field: the last wins, every time.",
			spec: `
externalValues:
- {fromObject: {version: v1, resource: configmaps, name: c, fieldPath: data.x}, toFieldPath: spec.forProvider.region, policy: {resolve: Always}}
- {fromObject: {version: v1, resource: configmaps, name: c, fieldPath: data.y}, toFieldPath: spec.forProvider.region, policy: {resolve: Always}}`,
		},
		"InnerThenOuter": {
			reason: "A field written, then the object that holds it replaced without it.",
			spec: `
externalValues:
- {fromObject: {version: v1, resource: configmaps, name: c, fieldPath: data.y}, toFieldPath: spec.forProvider.region, policy: {resolve: Always}}
- {fromObject: {version: v1, resource: configmaps, name: c, fieldPath: data}, toFieldPath: spec.forProvider, policy: {resolve: Always}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := NewResolver(reader, testMapper(), SourcePolicy{})
			w := widget(t, "team-a", "w", tc.spec)
			out, err := r.Resolve(t.Context(), w)
			require.NoError(t, err)
			require.True(t, out.Changed, "the first Resolve writes")
			settled := w.DeepCopy()
			for i := range 2 {
				out, err := r.Resolve(t.Context(), w)
				require.NoError(t, err)
				if out.Changed {
					t.Errorf("%s\nResolve %d of a settled referencer: changed, want no change", tc.reason, i+2)
				}
				if diff := cmp.Diff(settled.Object, w.Object); diff != "" {
					t.Errorf("%s\nResolve %d: -settled, +now:\n%s", tc.reason, i+2, diff)
				}
			}
		})
	}
}

func TestResolveOverlappingTargetsSettleTyped(t *testing.T) {
	reader := newReader(configMap("team-a", "c", map[string]any{"x": "one", "y": "two"}))
	always := &v1alpha1.Policy{Resolve: v1alpha1.ResolveAlways}
	cm := func(field string) *v1alpha1.ObjectFieldRef {
		return &v1alpha1.ObjectFieldRef{Version: "v1", Resource: "configmaps", Name: "c", FieldPath: field}
	}
	w := &testapi.Widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "w"},
		Spec: testapi.WidgetSpec{ExternalValues: []v1alpha1.ExternalValue{
			{FromObject: cm("data.x"), ToFieldPath: "spec.forProvider.region", Policy: always},
			{FromObject: cm("data.y"), ToFieldPath: "spec.forProvider.region", Policy: always},
		}},
	}
	r := NewResolver(reader, testMapper(), SourcePolicy{})
	out, err := r.Resolve(t.Context(), w)
	require.NoError(t, err)
	require.True(t, out.Changed)
	require.Equal(t, "two", w.Spec.ForProvider.Region)
	out, err = r.Resolve(t.Context(), w)
	require.NoError(t, err)
	if out.Changed {
		t.Error("Resolve of a settled typed referencer whose values write one field in turn: changed, want no change")
	}
}
