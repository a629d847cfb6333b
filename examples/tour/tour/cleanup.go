package tour

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	compositev1alpha1 "github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	directv1alpha1 "github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	extrefv1alpha1 "github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	healthv1alpha1 "github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	nopv1alpha1 "github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// Every object the tour creates, by itself or through its controllers,
// carries the label LabelCreatedBy=CreatedBy, so that the tour can find it
// again and delete it.
const (
	LabelCreatedBy = "app.kubernetes.io/created-by"
	CreatedBy      = "ctrlkit-tour"
)

// ownedKinds are the kinds of the objects the tour creates, in the order in
// which clean deletes them: first those whose finalizers clean up after them
// (a claim deletes its XApp, an Application its workloads), then the rest.
// Namespaces are labelled but never deleted: without kube-controller-manager
// a deleted namespace never goes away, and nothing could be created in it.
var ownedKinds = []schema.GroupVersionKind{
	compositev1alpha1.AppKind,
	healthv1alpha1.GroupVersion.WithKind("Application"),
	directv1alpha1.GroupVersion.WithKind("Dataset"),
	compositev1alpha1.XAppKind,
	nopv1alpha1.GroupVersion.WithKind(nopv1alpha1.NopResourceKind),
	healthv1alpha1.GroupVersion.WithKind("HealthScope"),
	healthv1alpha1.GroupVersion.WithKind("ScopeDefinition"),
	healthv1alpha1.GroupVersion.WithKind("WorkloadDefinition"),
	extrefv1alpha1.GroupVersion.WithKind("Subnet"),
	extrefv1alpha1.GroupVersion.WithKind("VPC"),
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"},
	{Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
}

// labelCreated returns c, whose Create labels the object as the tour's.
func labelCreated(c client.WithWatch) client.WithWatch {
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			labels := obj.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels[LabelCreatedBy] = CreatedBy
			obj.SetLabels(labels)
			return c.Create(ctx, obj, opts...)
		},
	})
}

// clean deletes every object of ownedKinds labelled as the tour's, and waits
// until they are gone. Finalizers run meanwhile, so the tour's controllers
// must run; objects they create again before their owner goes are deleted
// again. There may be no garbage collector (no kube-controller-manager), so
// clean deletes owned objects itself, which carry the label too. It returns
// how many objects it found, all of which are gone when it returns nil.
func clean(ctx context.Context, c client.Client, timeout time.Duration) (int, error) {
	deadline := time.After(timeout)
	found := map[types.UID]bool{}
	for {
		// List every kind before deleting anything: a finalizer may
		// delete objects of a later kind.
		var left []*metav1.PartialObjectMetadata
		for _, gvk := range ownedKinds {
			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := c.List(ctx, list, client.MatchingLabels{LabelCreatedBy: CreatedBy}); err != nil {
				if meta.IsNoMatchError(err) {
					continue // not installed, so nothing to delete
				}
				return len(found), fmt.Errorf("cannot list the tour's %s objects: %w", gvk.Kind, err)
			}
			for i := range list.Items {
				o := &list.Items[i]
				o.SetGroupVersionKind(gvk)
				found[o.UID] = true
				left = append(left, o)
			}
		}
		if len(left) == 0 {
			return len(found), nil
		}
		for _, o := range left {
			if o.DeletionTimestamp != nil {
				continue // a finalizer holds it
			}
			// Background: no finalizer that only a garbage collector removes.
			err := c.Delete(ctx, o, client.PropagationPolicy(metav1.DeletePropagationBackground))
			if client.IgnoreNotFound(err) != nil {
				return len(found), fmt.Errorf("cannot delete %s: %w", describe(o), err)
			}
		}
		select {
		case <-ctx.Done():
			return len(found), ctx.Err()
		case <-deadline:
			names := make([]string, len(left))
			for i, o := range left {
				names[i] = describe(o)
			}
			return len(found), fmt.Errorf("cannot delete the tour's objects within %s; there when last listed: %s", timeout, strings.Join(names, ", "))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// describe names an object, and its finalizers if it has any.
func describe(o *metav1.PartialObjectMetadata) string {
	name := o.Name
	if o.Namespace != "" {
		name = o.Namespace + "/" + o.Name
	}
	s := o.Kind + " " + name
	if len(o.Finalizers) > 0 {
		s += " (finalizers " + strings.Join(o.Finalizers, ", ") + ")"
	}
	return s
}
