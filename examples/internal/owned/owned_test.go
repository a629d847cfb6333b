package tour

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestClean deletes what the tour labelled as its own, and only that, and
// says which objects a finalizer holds past the timeout.
func TestClean(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	labelling := labelCreated(c)

	const hold = "tour.ctrlkit.dev/test-hold"
	ours, theirs := object("ConfigMap", "clean-ours"), object("ConfigMap", "clean-theirs")
	held := object("Secret", "clean-held")
	held.SetFinalizers([]string{hold})
	require.NoError(t, labelling.Create(ctx, ours))
	require.NoError(t, labelling.Create(ctx, held))
	require.NoError(t, c.Create(ctx, theirs))
	t.Cleanup(func() { _ = c.Delete(context.Background(), theirs) })
	if got := ours.GetLabels()[LabelCreatedBy]; got != CreatedBy {
		t.Errorf("label %s after Create: want %q (the tour's), got %q", LabelCreatedBy, CreatedBy, got)
	}

	n, err := clean(ctx, labelling, time.Second)
	require.Error(t, err, "a finalizer holds a Secret past the timeout")
	if want := "Secret default/clean-held (finalizers " + hold + ")"; !strings.Contains(err.Error(), want) {
		t.Errorf("cleanup error: want it to name %q, got %v", want, err)
	}
	if n != 2 {
		t.Errorf("objects deleted: want 2, got %d", n)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ours), object("ConfigMap", "")); !apierrors.IsNotFound(err) {
		t.Errorf("the tour's ConfigMap: want it gone, got %v", err)
	}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(theirs), object("ConfigMap", "")), "a ConfigMap without the label stays")

	// Without its finalizer the Secret goes, and nothing is left.
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(held), held))
	held.SetFinalizers(nil)
	require.NoError(t, c.Update(ctx, held))
	n, err = clean(ctx, labelling, 10*time.Second)
	require.NoError(t, err)
	if n != 0 {
		t.Errorf("objects deleted: want 0, got %d", n)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(held), object("Secret", "")); !apierrors.IsNotFound(err) {
		t.Errorf("the tour's Secret: want it gone, got %v", err)
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
