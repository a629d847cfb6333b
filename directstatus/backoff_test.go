package directstatus_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
)

// conflictingWriter returns a Writer, with opts, whose every status write
// meets a conflict, and the count of those writes.
func conflictingWriter(t *testing.T, opts ...directstatus.WriterOption) (*directstatus.Writer, *v1alpha1.Widget, *atomic.Int32) {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, v1alpha1.AddToScheme(scheme))
	gr := v1alpha1.GroupVersion.WithResource("widgets").GroupResource()
	obj := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "backoff", Namespace: "default", Generation: 1}}
	var writes atomic.Int32
	c := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme).WithObjects(obj.DeepCopy()).Build(), interceptor.Funcs{
		SubResourceUpdate: func(_ context.Context, _ client.Client, _ string, obj client.Object, _ ...client.SubResourceUpdateOption) error {
			writes.Add(1)
			return apierrors.NewConflict(gr, obj.GetName(), errors.New("the object has been modified"))
		},
	})
	return directstatus.NewWriter(c, opts...), obj, &writes
}

// TestBackoffAttempts: a write that keeps meeting conflicts makes Backoff's
// Attempts, DefaultBackoff's when zero, and returns the last conflict.
func TestBackoffAttempts(t *testing.T) {
	cases := map[string]struct {
		reason string
		opts   []directstatus.WriterOption
		want   int32
	}{
		"Default":  {reason: "Without the option, DefaultBackoff's attempts.", want: int32(directstatus.DefaultBackoff.Attempts)},
		"Zero":     {reason: "A zero Backoff is DefaultBackoff.", opts: []directstatus.WriterOption{directstatus.Backoff{}}, want: 5},
		"Attempts": {reason: "Attempts bound the attempts.", opts: []directstatus.WriterOption{directstatus.Backoff{Initial: time.Millisecond, Attempts: 3}}, want: 3},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, obj, writes := conflictingWriter(t, tc.opts...)
			_, err := w.SetReady(t.Context(), obj, directstatus.Updating("spec.size"))
			if !apierrors.IsConflict(err) {
				t.Errorf("%s\nSetReady: want the last conflict, got %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, writes.Load()); diff != "" {
				t.Errorf("%s\nwrites: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestBackoffGivesUpWithContext: the waits between attempts end when the
// call's context is done, and the error says so and carries the last
// conflict.
func TestBackoffGivesUpWithContext(t *testing.T) {
	w, obj, writes := conflictingWriter(t, directstatus.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond, Attempts: 1 << 30})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := w.SetReady(ctx, obj, directstatus.Updating("spec.size"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("SetReady: want an error wrapping %v, got %v", context.DeadlineExceeded, err)
	}
	if !apierrors.IsConflict(err) {
		t.Errorf("SetReady: want the last conflict wrapped, got %v", err)
	}
	if n := writes.Load(); n <= 5 {
		t.Errorf("retried until the deadline: want more than 5 writes, got %d", n)
	}
}
