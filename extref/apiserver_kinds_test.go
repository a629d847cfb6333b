package extref

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// countingReader counts the reads of each kind that reach the API server.
type countingReader struct {
	client.Reader
	kinds map[string]int
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.kinds[obj.GetObjectKind().GroupVersionKind().Kind]++
	return r.Reader.Get(ctx, key, obj, opts...)
}

// TestAPIServerResourceSpellings names a Secret of the referencer's own
// namespace and a ConfigMap of another, which the default policy denies, in
// every way a tenant might hope the API server's RESTMapper reads
// differently from the policy: singular, kind, upper case, a subresource,
// wildcards, "core" for the empty group, padding. None is read: each is
// denied (the policy sees the resource the mapper maps to) or unknown.
func TestAPIServerResourceSpellings(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	for _, ns := range []string{"spell-a", "spell-b"} {
		n := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		if err := env.Client.Create(ctx, n); err != nil && !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	sec := secret("spell-a", "s", map[string]string{"x": "hunter2"})
	cm := configMap("spell-b", "c", map[string]any{"x": "other-team"})
	for _, o := range []*unstructured.Unstructured{sec, cm} {
		if err := env.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}

	secrets := []string{
		`{version: v1, resource: secret, name: s, fieldPath: data.x}`,
		`{version: v1, resource: Secret, name: s, fieldPath: data.x}`,
		`{version: v1, resource: SECRETS, name: s, fieldPath: data.x}`,
		`{version: v1, resource: secrets/status, name: s, fieldPath: data.x}`,
		`{version: v1, resource: "secrets ", name: s, fieldPath: data.x}`,
		`{version: v1, resource: "*", name: s, fieldPath: data.x}`,
		`{group: "*", version: v1, resource: secrets, name: s, fieldPath: data.x}`,
		`{version: "*", resource: secrets, name: s, fieldPath: data.x}`,
		`{group: core, version: v1, resource: secrets, name: s, fieldPath: data.x}`,
		`{group: "", version: V1, resource: secrets, name: s, fieldPath: data.x}`,
		`{version: v1, resource: secrets, namespace: spell-a, name: s, fieldPath: data.x}`,
	}
	configMaps := []string{
		`{version: v1, resource: configmap, namespace: spell-b, name: c, fieldPath: data.x}`,
		`{version: v1, resource: ConfigMap, namespace: spell-b, name: c, fieldPath: data.x}`,
		`{version: v1, resource: configmaps, namespace: "*", name: c, fieldPath: data.x}`,
		`{version: v1, resource: configmaps, namespace: SPELL-B, name: c, fieldPath: data.x}`,
		`{version: v1, resource: configmaps, namespace: "spell-b ", name: c, fieldPath: data.x}`,
		`{version: v1, resource: configmaps, namespace: spell-b, name: c, fieldPath: data.x}`,
	}
	for i, src := range append(secrets, configMaps...) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			reader := &countingReader{Reader: env.Client, kinds: map[string]int{}}
			w := widget(t, "spell-a", "w", "externalValues:\n- fromObject: "+src+"\n  toFieldPath: spec.forProvider.region")
			out, err := NewResolver(reader, env.Mapper, SourcePolicy{}).Resolve(ctx, w)
			t.Logf("%s: %v", src, err)
			if err == nil || out.Changed {
				t.Fatalf("%s: resolved (changed=%t), want it denied or unknown", src, out.Changed)
			}
			if !errors.Is(err, ErrDenied) && !errors.Is(err, ErrUnknownResource) && !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: want ErrDenied, ErrUnknownResource or ErrInvalid, got %v", src, err)
			}
			if reader.kinds["Secret"] > 0 || reader.kinds["ConfigMap"] > 0 {
				t.Errorf("%s: reads %v, want none", src, reader.kinds)
			}
		})
	}
}

// TestAPIServerUnlistableKind names thirty objects of a kind nobody can
// list (bindings: create only), which the default policy lets a namespaced
// referencer read. The informer of such a kind never syncs, so each read
// waits for ReadTimeout: the first read of the kind does, the others fail
// at once, and the referencer reports the failure after about one timeout
// rather than thirty.
func TestAPIServerUnlistableKind(t *testing.T) {
	const timeout = 2 * time.Second
	h := start(t, testapi.WidgetKind, Options{Resolver: []ResolverOption{ReadTimeout(timeout)}})
	var b strings.Builder
	b.WriteString("externalValues:\n")
	for i := range 30 {
		fmt.Fprintf(&b, "- {fromObject: {version: v1, resource: bindings, name: b%d, fieldPath: target.name}, toFieldPath: spec.b%d}\n", i, i)
	}
	w := widget(t, "unlistable", "w", b.String())
	began := time.Now()
	h.create(t, w)
	got := h.resolved(t, w, metav1.ConditionFalse, ReasonResolutionFailed)
	took := time.Since(began)
	t.Logf("ReferencesResolved=False after %s: %s", took.Round(time.Millisecond), condition(t, got).Message[:200])
	if took > 5*timeout {
		t.Errorf("the failure was reported %s after the referencer was created: want about one read timeout (%s)", took, timeout)
	}
	// The reconciler retries with backoff; the condition, which says the
	// same on every retry, is not written again.
	writes := h.writes.writes.Load()
	time.Sleep(3 * timeout)
	if got := h.writes.writes.Load() - writes; got != 0 {
		t.Errorf("writes to the referencer while it retried: want none, got %d", got)
	}
}
