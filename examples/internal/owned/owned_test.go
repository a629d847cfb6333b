package owned_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestClean deletes what a Set labelled as its own, and only that, and says
// which objects a finalizer holds past the timeout.
func TestClean(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	set := owned.Set{By: owned.CreatedBy("test"), Kinds: []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}}}
	labelling := set.Label(c)

	const hold = "examples.ctrlkit.dev/test-hold"
	ours, theirs := object("ConfigMap", "clean-ours"), object("ConfigMap", "clean-theirs")
	held := object("Secret", "clean-held")
	held.SetFinalizers([]string{hold})
	require.NoError(t, labelling.Create(ctx, ours))
	require.NoError(t, labelling.Create(ctx, held))
	require.NoError(t, c.Create(ctx, theirs))
	t.Cleanup(func() { _ = c.Delete(context.Background(), theirs) })
	if got := ours.GetLabels()[owned.LabelCreatedBy]; got != set.By {
		t.Errorf("label %s after Create: want %q (the Set's), got %q", owned.LabelCreatedBy, set.By, got)
	}

	n, err := set.Clean(ctx, labelling, time.Second)
	require.Error(t, err, "a finalizer holds a Secret past the timeout")
	if want := "Secret default/clean-held (finalizers " + hold + ")"; !strings.Contains(err.Error(), want) {
		t.Errorf("cleanup error: want it to name %q, got %v", want, err)
	}
	if n != 2 {
		t.Errorf("objects deleted: want 2, got %d", n)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ours), object("ConfigMap", "")); !apierrors.IsNotFound(err) {
		t.Errorf("the Set's ConfigMap: want it gone, got %v", err)
	}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(theirs), object("ConfigMap", "")), "a ConfigMap without the label stays")

	// Without its finalizer the Secret goes, and nothing is left.
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(held), held))
	held.SetFinalizers(nil)
	require.NoError(t, c.Update(ctx, held))
	n, err = set.Clean(ctx, labelling, 10*time.Second)
	require.NoError(t, err)
	if n != 0 {
		t.Errorf("objects deleted: want 0, got %d", n)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(held), object("Secret", "")); !apierrors.IsNotFound(err) {
		t.Errorf("the Set's Secret: want it gone, got %v", err)
	}
}

// TestCleanInOrder deletes the objects of a kind only once those of the
// kinds before it are gone: a finalizer of an earlier kind's object may need
// them (an Application's takes its workloads out of their HealthScope).
func TestCleanInOrder(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	set := owned.Set{By: owned.CreatedBy("order"), Kinds: []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}}}
	labelling := set.Label(c)

	const hold = "examples.ctrlkit.dev/test-hold"
	first, later := object("ConfigMap", "order-first"), object("Secret", "order-later")
	first.SetFinalizers([]string{hold})
	require.NoError(t, labelling.Create(ctx, first))
	require.NoError(t, labelling.Create(ctx, later))

	_, err = set.Clean(ctx, labelling, time.Second)
	require.Error(t, err, "a finalizer holds the ConfigMap past the timeout")
	got := object("Secret", "")
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(later), got), "the Secret stays while the ConfigMap is held")
	if got.GetDeletionTimestamp() != nil {
		t.Errorf("the Secret was deleted while an object of an earlier kind was held")
	}

	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(first), first))
	first.SetFinalizers(nil)
	require.NoError(t, c.Update(ctx, first))
	n, err := set.Clean(ctx, labelling, 10*time.Second)
	require.NoError(t, err)
	if n != 1 {
		t.Errorf("objects deleted: want 1 (the Secret), got %d", n)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(later), object("Secret", "")); !apierrors.IsNotFound(err) {
		t.Errorf("the Secret: want it gone, got %v", err)
	}
}

// TestReleaseFinalizers removes the finalizers of the Set's objects, and
// only theirs, and keeps the objects.
func TestReleaseFinalizers(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	set := owned.Set{By: owned.CreatedBy("release"), Kinds: []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}}}

	const hold = "examples.ctrlkit.dev/test-hold"
	ours, theirs, bare := object("ConfigMap", "release-ours"), object("ConfigMap", "release-theirs"), object("ConfigMap", "release-bare")
	ours.SetFinalizers([]string{hold})
	theirs.SetFinalizers([]string{hold})
	require.NoError(t, set.Label(c).Create(ctx, ours))
	require.NoError(t, set.Label(c).Create(ctx, bare))
	require.NoError(t, c.Create(ctx, theirs))
	t.Cleanup(func() {
		_ = c.Get(context.Background(), client.ObjectKeyFromObject(theirs), theirs)
		theirs.SetFinalizers(nil)
		_ = c.Update(context.Background(), theirs)
		_ = c.Delete(context.Background(), theirs)
		_, _ = set.Clean(context.Background(), c, 10*time.Second)
	})

	n, err := set.ReleaseFinalizers(ctx, c)
	require.NoError(t, err)
	if n != 1 {
		t.Errorf("objects released: want 1, got %d", n)
	}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(ours), ours), "the Set's ConfigMap stays")
	if f := ours.GetFinalizers(); len(f) != 0 {
		t.Errorf("the Set's ConfigMap keeps the finalizers %v", f)
	}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(theirs), theirs))
	if f := theirs.GetFinalizers(); len(f) != 1 {
		t.Errorf("a ConfigMap without the label: want its finalizer kept, got %v", f)
	}
}

// object returns an empty core object of kind in namespace default.
func object(kind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind(kind)
	u.SetNamespace("default")
	u.SetName(name)
	return u
}
