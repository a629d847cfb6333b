// Package owned labels what an example creates, by itself or through its
// controllers, and deletes it again: the objects of every example and of the
// tour carry app.kubernetes.io/created-by=ctrlkit-<name>, so that they share
// a cluster, each finds its own objects, and a run deletes what an earlier
// run of itself left.
package owned

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// LabelCreatedBy is the label whose value, CreatedBy, names the example
// that created an object.
const LabelCreatedBy = "app.kubernetes.io/created-by"

// CreatedBy is the value of LabelCreatedBy on the objects of the example
// named name: ctrlkit-<name>.
func CreatedBy(name string) string { return "ctrlkit-" + name }

// A Set is what one example creates.
type Set struct {
	// By is the value of LabelCreatedBy on the objects, e.g. CreatedBy("nop").
	By string

	// Kinds are the kinds of the objects, in the order in which Clean
	// deletes them: first those whose finalizers clean up after them (a
	// claim deletes its composite resource, an Application takes its
	// workloads out of their scopes), then the rest; Clean deletes the
	// objects of a kind once those of every kind before it are gone. A kind the
	// cluster does not serve is skipped. Namespaces do not belong here:
	// without kube-controller-manager a deleted namespace never goes away,
	// and nothing could be created in it again.
	Kinds []schema.GroupVersionKind
}

// Label returns c, whose Create labels the object as the Set's.
func (s Set) Label(c client.WithWatch) client.WithWatch {
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			labels := obj.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels[LabelCreatedBy] = s.By
			obj.SetLabels(labels)
			return c.Create(ctx, obj, opts...)
		},
	})
}

// NewClient is a manager's Options.NewClient whose clients label what they
// create as the Set's, so that what the controllers create is found again.
func (s Set) NewClient(cfg *rest.Config, o client.Options) (client.Client, error) {
	c, err := client.NewWithWatch(cfg, o)
	if err != nil {
		return nil, err
	}
	return s.Label(c), nil
}

// Clean deletes every object of s.Kinds labelled as the Set's, kind after
// kind, and waits until they are gone. Finalizers run meanwhile, so the controllers that
// remove them must run; objects they create again before their owner goes
// are deleted again. There may be no garbage collector (no
// kube-controller-manager), so Clean deletes owned objects itself, which
// carry the label too when the controllers' client is the Set's NewClient.
// It returns how many objects it found, all of which are gone when it
// returns nil.
func (s Set) Clean(ctx context.Context, c client.Client, timeout time.Duration) (int, error) {
	deadline := time.After(timeout)
	found := map[types.UID]bool{}
	for {
		// List every kind before deleting anything: a finalizer may
		// delete objects of a later kind. Only the objects of the first
		// kind with any left are deleted: a later kind's objects may be
		// what a finalizer of an earlier kind's objects needs.
		var left, first []*metav1.PartialObjectMetadata
		for _, gvk := range s.Kinds {
			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := c.List(ctx, list, client.MatchingLabels{LabelCreatedBy: s.By}); err != nil {
				if meta.IsNoMatchError(err) {
					continue // not installed, so nothing to delete
				}
				return len(found), fmt.Errorf("cannot list the %s objects labelled %s=%s: %w", gvk.Kind, LabelCreatedBy, s.By, err)
			}
			for i := range list.Items {
				o := &list.Items[i]
				o.SetGroupVersionKind(gvk)
				found[o.UID] = true
				left = append(left, o)
			}
			if first == nil && len(list.Items) > 0 {
				first = left[len(left)-len(list.Items):]
			}
		}
		if len(left) == 0 {
			return len(found), nil
		}
		for _, o := range first {
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
			return len(found), fmt.Errorf("cannot delete the objects labelled %s=%s within %s; there when last listed: %s", LabelCreatedBy, s.By, timeout, strings.Join(names, ", "))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ReleaseFinalizers removes the finalizers of every object of s.Kinds
// labelled as the Set's, and returns how many objects had any. An example
// that keeps its objects for kubectl calls it once its controllers have
// stopped: no controller would remove them, and a deletion would hang. The
// controllers add them again when they next run.
func (s Set) ReleaseFinalizers(ctx context.Context, c client.Client) (int, error) {
	n := 0
	for _, gvk := range s.Kinds {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, list, client.MatchingLabels{LabelCreatedBy: s.By}); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return n, fmt.Errorf("cannot list the %s objects labelled %s=%s: %w", gvk.Kind, LabelCreatedBy, s.By, err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			if len(o.Finalizers) == 0 {
				continue
			}
			o.SetGroupVersionKind(gvk)
			// The resourceVersion makes the patch fail on an object
			// changed meanwhile instead of dropping a finalizer added since.
			patch := fmt.Sprintf(`{"metadata":{"finalizers":null,"resourceVersion":%q}}`, o.ResourceVersion)
			err := c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(patch)))
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				continue // changed meanwhile, by a controller that still runs, or gone
			}
			if err != nil {
				return n, fmt.Errorf("cannot remove the finalizers of %s: %w", describe(o), err)
			}
			n++
		}
	}
	return n, nil
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
