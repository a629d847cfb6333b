package nop

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// SecretTypeConnection is the type of the connection Secrets the reconciler
// writes, the one Crossplane uses.
const SecretTypeConnection = "connection.crossplane.io/v1alpha1"

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
			return fmt.Errorf("cannot create connection secret %s: %w", ref, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("cannot read connection secret %s: %w", ref, err)
	}
	if !metav1.IsControlledBy(s, obj) {
		return fmt.Errorf("cannot write connection secret %s: it exists and is not controlled by this %s", ref, r.kind.name)
	}
	if old, _, _ := unstructured.NestedMap(s.Object, "data"); maps.Equal(old, data) {
		return nil
	}
	s.Object["data"] = data
	if err := r.client.Update(ctx, s); err != nil {
		if apierrors.IsConflict(err) {
			return err
		}
		return fmt.Errorf("cannot update connection secret %s: %w", ref, err)
	}
	return nil
}

func newSecret() *unstructured.Unstructured {
	s := &unstructured.Unstructured{}
	s.SetAPIVersion("v1")
	s.SetKind("Secret")
	return s
}
