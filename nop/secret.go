package nop

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// SecretTypeConnection is the type of the connection Secrets the reconciler
// writes, the one Crossplane uses.
const SecretTypeConnection = "connection.crossplane.io/v1alpha1"

// Connection Secrets: publish reads, creates and updates them; the watch of
// their metadata lists and watches them (RBAC cannot tell a metadata-only
// list from a full one).
//
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update

// publish writes the connection Secret, if it changed. A Secret that exists
// and is not controlled by obj is left alone. The Secret is handled as
// unstructured content, so that the library needs no k8s.io/api types.
func (r *reconciler) publish(ctx context.Context, obj client.Object, ref types.NamespacedName, details []v1alpha1.ConnectionDetail) error {
	data := make(map[string]any, len(details))
	for _, d := range details {
		data[d.Name] = base64.StdEncoding.EncodeToString([]byte(d.Value))
	}
	s := newSecret()
	err := r.reader.Get(ctx, ref, s)
	switch {
	case apierrors.IsNotFound(err):
		s = newSecret()
		s.SetNamespace(ref.Namespace)
		s.SetName(ref.Name)
		s.Object["type"] = SecretTypeConnection
		s.Object["data"] = data
		if err := controllerutil.SetControllerReference(obj, s, r.scheme); err != nil {
			return fmt.Errorf("cannot write connection secret %s: %w", ref, err)
		}
		if err := r.client.Create(ctx, s); err != nil {
			return refused(fmt.Errorf("cannot create connection secret %s: %w", ref, err), "")
		}
		return nil
	case err != nil:
		return fmt.Errorf("cannot read connection secret %s: %w", ref, err)
	}
	if !metav1.IsControlledBy(s, obj) {
		return &permanentError{version: s.GetResourceVersion(),
			err: fmt.Errorf("cannot write connection secret %s: it exists and is not controlled by this %s", ref, r.kind.name)}
	}
	if old, _, _ := unstructured.NestedMap(s.Object, "data"); maps.Equal(old, data) {
		return nil
	}
	s.Object["data"] = data
	if err := r.client.Update(ctx, s); err != nil {
		if apierrors.IsConflict(err) {
			return err
		}
		return refused(fmt.Errorf("cannot update connection secret %s: %w", ref, err), s.GetResourceVersion())
	}
	return nil
}

// A permanentError is a failure to write the connection Secret that another
// attempt with the same spec and the same Secret cannot fix: the Secret is
// someone else's, or the API server refused what the spec asks for. version
// is the Secret's resourceVersion when it failed ("" when there was none).
type permanentError struct {
	err     error
	version string
}

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// refused makes err permanent when the API server refused the Secret itself
// (invalid, or too large), which the same request would be again.
func refused(err error, version string) error {
	if apierrors.IsInvalid(err) || apierrors.ReasonForError(err) == metav1.StatusReasonRequestEntityTooLarge || apierrors.IsBadRequest(err) {
		return &permanentError{err: err, version: version}
	}
	return err
}

// A secretGate remembers, per resource, the connection Secret failures that
// only a change can fix, so that the resource is not retried until its spec
// (its generation) or the Secret (a watch event) changes, and counts the
// other failures for an exponential back-off.
type secretGate struct {
	mu       sync.Mutex
	blocked  map[types.NamespacedName]blockedSecret
	failures map[types.NamespacedName]int
}

// A blockedSecret is a permanent failure of one resource's Secret.
type blockedSecret struct {
	uid        types.UID
	generation int64
	secret     types.NamespacedName
	err        error
}

// blockedOn returns the permanent failure recorded for obj with its current
// generation and Secret ref, if any.
func (g *secretGate) blockedOn(obj client.Object, ref types.NamespacedName) (error, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.blocked[client.ObjectKeyFromObject(obj)]
	if !ok || b.uid != obj.GetUID() || b.generation != obj.GetGeneration() || b.secret != ref {
		return nil, false
	}
	return b.err, true
}

// block records a permanent failure of obj's Secret ref.
func (g *secretGate) block(obj client.Object, ref types.NamespacedName, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.blocked == nil {
		g.blocked = map[types.NamespacedName]blockedSecret{}
	}
	g.blocked[client.ObjectKeyFromObject(obj)] = blockedSecret{uid: obj.GetUID(), generation: obj.GetGeneration(), secret: ref, err: err}
}

// unblock forgets the permanent failures of the Secret ref, returning the
// resources that had one.
func (g *secretGate) unblock(ref types.NamespacedName) []types.NamespacedName {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []types.NamespacedName
	for k, b := range g.blocked {
		if b.secret == ref {
			out = append(out, k)
			delete(g.blocked, k)
		}
	}
	return out
}

// failed counts one more transient failure of key and returns how long to
// wait before the next attempt: retryAfterError, doubled with each failure
// in a row, at most maxRetryAfterError.
func (g *secretGate) failed(key types.NamespacedName) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failures == nil {
		g.failures = map[types.NamespacedName]int{}
	}
	n := g.failures[key]
	g.failures[key] = n + 1
	d := retryAfterError
	for range n {
		if d *= 2; d >= maxRetryAfterError {
			return maxRetryAfterError
		}
	}
	return d
}

// succeeded ends key's run of transient failures.
func (g *secretGate) succeeded(key types.NamespacedName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.failures, key)
}

// forget drops all that is known of key, a resource that is gone.
func (g *secretGate) forget(key types.NamespacedName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.failures, key)
	delete(g.blocked, key)
}

// secretChanged maps a watch event of a Secret to the resources whose
// permanent failure it may have fixed.
func (r *reconciler) secretChanged(_ context.Context, o client.Object) []reconcile.Request {
	keys := r.secrets.unblock(client.ObjectKeyFromObject(o))
	reqs := make([]reconcile.Request, len(keys))
	for i, k := range keys {
		reqs[i] = reconcile.Request{NamespacedName: k}
	}
	return reqs
}

// secretMetadata is the object a metadata-only watch of Secrets lists: names
// and versions, never data.
func secretMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Secret"})
	return m
}

// settledSince reports whether the watch of Secrets has seen ref at version
// ("" for absent), so that any later change of it comes as an event. A
// failure is blocked only then: otherwise the event of a change made in the
// meantime may have come and gone.
func (r *reconciler) settledSince(ctx context.Context, ref types.NamespacedName, version string) bool {
	if r.cache == nil {
		return false
	}
	m := secretMetadata()
	err := r.cache.Get(ctx, ref, m)
	switch {
	case apierrors.IsNotFound(err):
		return version == ""
	case err != nil:
		return false
	}
	return m.GetResourceVersion() == version
}

func newSecret() *unstructured.Unstructured {
	s := &unstructured.Unstructured{}
	s.SetAPIVersion("v1")
	s.SetKind("Secret")
	return s
}
