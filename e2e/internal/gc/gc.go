// Package gc is a small garbage collector for a control plane that runs no
// kube-controller-manager: it deletes an object of the kinds it is given
// once none of its ownerReferences names an existing object (same UID), as
// Kubernetes' garbage collector does with background propagation.
//
// It polls instead of watching every kind and does not implement foreground
// deletion (blockOwnerDeletion, the foregroundDeletion finalizer) or orphan
// propagation: Crossplane removes its finalizer from a composite resource
// and leaves the composed resources to the garbage collector, which is what
// this covers.
package gc

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A Collector deletes the dependents of Kinds whose owners are all gone.
type Collector struct {
	// Client reads and deletes objects; it should read from the API server,
	// not a cache.
	Client client.Client
	// Mapper tells whether an owner's kind is namespaced.
	Mapper meta.RESTMapper
	// Kinds are the dependent kinds to collect.
	Kinds []schema.GroupVersionKind
	// Interval between two passes. Defaults to 500ms.
	Interval time.Duration
	// Errorf reports a pass that failed; it may be nil.
	Errorf func(format string, args ...any)
}

// Run collects until ctx ends.
func (c *Collector) Run(ctx context.Context) {
	every := c.Interval
	if every <= 0 {
		every = 500 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := c.Collect(ctx); err != nil && ctx.Err() == nil && c.Errorf != nil {
			c.Errorf("gc: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Collect makes one pass: it deletes, with background propagation, every
// object of Kinds that has ownerReferences none of which names an existing
// object. A kind the API server does not serve (yet) has nothing to collect.
func (c *Collector) Collect(ctx context.Context) error {
	for _, gvk := range c.Kinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.Client.List(ctx, l); meta.IsNoMatchError(err) {
			continue
		} else if err != nil {
			return fmt.Errorf("cannot list %s: %w", gvk, err)
		}
		for i := range l.Items {
			o := &l.Items[i]
			refs := o.GetOwnerReferences()
			if len(refs) == 0 || o.GetDeletionTimestamp() != nil {
				continue
			}
			orphan := true
			for _, ref := range refs {
				exists, err := c.ownerExists(ctx, o.GetNamespace(), ref)
				if err != nil {
					return err
				}
				if exists {
					orphan = false
					break
				}
			}
			if !orphan {
				continue
			}
			uid := o.GetUID()
			err := c.Client.Delete(ctx, o, client.PropagationPolicy(metav1.DeletePropagationBackground),
				client.Preconditions{UID: &uid})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return fmt.Errorf("cannot delete %s %s/%s, whose owners are gone: %w", gvk.Kind, o.GetNamespace(), o.GetName(), err)
			}
		}
	}
	return nil
}

// ownerExists reports whether ref names an existing object with its UID. A
// namespaced owner is looked for in the dependent's namespace.
func (c *Collector) ownerExists(ctx context.Context, namespace string, ref metav1.OwnerReference) (bool, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return false, fmt.Errorf("cannot parse owner apiVersion %q: %w", ref.APIVersion, err)
	}
	gvk := gv.WithKind(ref.Kind)
	m, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		return false, nil // a kind the API server does not serve has no objects
	}
	if err != nil {
		return false, fmt.Errorf("cannot map owner kind %s: %w", gvk, err)
	}
	key := client.ObjectKey{Name: ref.Name}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		key.Namespace = namespace
	}
	owner := &metav1.PartialObjectMetadata{}
	owner.SetGroupVersionKind(gvk)
	switch err := c.Client.Get(ctx, key, owner); {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("cannot read owner %s %s: %w", gvk.Kind, key, err)
	}
	return owner.GetUID() == ref.UID, nil
}
