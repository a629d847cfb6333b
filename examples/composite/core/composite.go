package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/conflict"
	"github.com/ctrlkit/ctrlkit/results"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// Labels and annotations the XR controller puts on composed resources.
const (
	// LabelComposite holds the name of the XR a composed resource belongs to.
	LabelComposite = "example.ctrlkit.dev/composite"
	// AnnotationResourceName holds a composed resource's name in the
	// composition, the key of Request.Observed and Request.Desired.
	AnnotationResourceName = "example.ctrlkit.dev/composition-resource-name"
	// AnnotationDesiredHash holds a hash of what the pipeline last wanted of
	// a composed resource, so that an unchanged resource is not written.
	AnnotationDesiredHash = "example.ctrlkit.dev/desired-hash"
)

// Condition reasons of the controllers.
const (
	ReasonReconcileSuccess = "ReconcileSuccess"
	ReasonReconcileError   = results.ReasonReconcileError
	// ReasonWaiting: the claim's composite resource has not reported Ready.
	ReasonWaiting = "Waiting"
	// ReasonConflictingComposite: the claim's composite resource name is
	// taken by an XR of another claim.
	ReasonConflictingComposite = "ConflictingComposite"
)

// DeploymentKind is the default composed kind.
var DeploymentKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// CompositeReconciler reconciles XApps: it runs the function pipeline, applies
// its results to the XR and its claim (package results), and creates,
// updates and deletes the composed resources the pipeline wants.
type CompositeReconciler struct {
	client   client.Client
	pipeline Pipeline
	applier  *results.Applier
	setter   conditions.Setter
	composed []schema.GroupVersionKind
	poll     time.Duration
}

// NewCompositeReconciler returns an XR reconciler that reads and writes with
// c and records events with rec.
func NewCompositeReconciler(c client.Client, rec events.EventRecorder, o Options) *CompositeReconciler {
	o = o.withDefaults()
	return &CompositeReconciler{
		client:   c,
		pipeline: o.Pipeline,
		// XApp's schema has the design's status.claimConditions, not
		// Crossplane's status.claimConditionTypes.
		applier: results.NewApplier(rec, results.WithClock(o.Clock),
			results.ClaimConditionsField{"status", "claimConditions"}),
		setter:   conditions.NewSetter(conditions.WithClock(o.Clock)),
		composed: o.ComposedKinds,
		poll:     o.PollInterval,
	}
}

// Reconcile runs the pipeline for one XApp. It writes the XR's status, the
// claim's status and composed resources only when they change, and asks to
// run again after the poll interval: the pipeline consults systems outside
// the cluster (databases, an image registry) that cannot be watched.
func (r *CompositeReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	xr := newObject(v1alpha1.XAppKind)
	if err := r.client.Get(ctx, req.NamespacedName, xr); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !xr.GetDeletionTimestamp().IsZero() {
		return reconcile.Result{}, nil // composed resources go with it (owner references)
	}
	before := xr.DeepCopy()

	claim, err := r.claimOf(ctx, xr)
	if err != nil {
		return reconcile.Result{}, err
	}

	var applyErr error
	claimChanged := false
	var desired map[string]*unstructured.Unstructured
	var ready []string
	observed, err := r.observe(ctx, xr)
	if err != nil {
		r.setSynced(xr, metav1.ConditionFalse, ReasonReconcileError, err.Error())
	} else {
		var rsp *resultsv1.Response
		rsp, desired, ready = r.pipeline.Run(ctx, xr, observed)
		out, err := r.applier.Apply(rsp, xr, claim)
		switch {
		case err != nil && !out.CompositeChanged:
			return reconcile.Result{}, err // nothing could be applied
		case err != nil:
			applyErr = err // the claim could not be updated; the XR still is
		}
		claimChanged = out.ClaimChanged
		if out.Fatal == nil {
			if err := r.compose(ctx, xr, desired, observed); err != nil {
				r.setSynced(xr, metav1.ConditionFalse, ReasonReconcileError, err.Error())
			} else {
				r.setSynced(xr, metav1.ConditionTrue, ReasonReconcileSuccess, "")
			}
		}
	}
	if err := r.setReady(xr); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.setProgress(xr); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.setHealthy(xr, desired, ready); err != nil {
		return reconcile.Result{}, err
	}
	_ = unstructured.SetNestedField(xr.Object, xr.GetGeneration(), "status", "observedGeneration")
	if claim != nil {
		// The claim shows a failure in this reconcile already; the XR's
		// message stays on the XR.
		changed, err := r.setter.PropagateSynced(xr, claim)
		if err != nil && applyErr == nil {
			applyErr = fmt.Errorf("cannot show the Synced condition of XApp %s on its claim: %w", xr.GetName(), err)
		}
		claimChanged = claimChanged || changed
	}

	if !equality.Semantic.DeepEqual(before.Object["status"], xr.Object["status"]) {
		if err := r.client.Status().Update(ctx, xr); err != nil {
			return reconcile.Result{}, conflict.Ignore(fmt.Errorf("cannot update the status of XApp %s: %w", xr.GetName(), err))
		}
	}
	if claimChanged {
		if err := r.client.Status().Update(ctx, claim); err != nil {
			return reconcile.Result{}, conflict.Ignore(fmt.Errorf("cannot update the status of App %s/%s: %w", claim.GetNamespace(), claim.GetName(), err))
		}
	}
	return reconcile.Result{RequeueAfter: r.poll}, applyErr
}

// claimOf returns the claim xr serves, or nil.
func (r *CompositeReconciler) claimOf(ctx context.Context, xr *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ns, _, _ := unstructured.NestedString(xr.Object, "spec", "claimRef", "namespace")
	name, _, _ := unstructured.NestedString(xr.Object, "spec", "claimRef", "name")
	if name == "" {
		return nil, nil
	}
	claim := newObject(v1alpha1.AppKind)
	err := r.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, claim)
	if kerrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot get the claim of XApp %s: %w", xr.GetName(), err)
	}
	return claim, nil
}

// observe lists the composed resources of xr, by their name in the
// composition.
func (r *CompositeReconciler) observe(ctx context.Context, xr *unstructured.Unstructured) (map[string]*unstructured.Unstructured, error) {
	observed := map[string]*unstructured.Unstructured{}
	for _, gvk := range r.composed {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := r.client.List(ctx, list, client.MatchingLabels{LabelComposite: xr.GetName()}); err != nil {
			return nil, fmt.Errorf("cannot list the composed %s of XApp %s: %w", gvk.Kind, xr.GetName(), err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			if name := o.GetAnnotations()[AnnotationResourceName]; name != "" && metav1.IsControlledBy(o, xr) {
				observed[name] = o
			}
		}
	}
	return observed, nil
}

// compose makes the composed resources what the pipeline wants: it creates
// the missing ones, updates those whose desired state changed, and deletes
// those no longer wanted.
func (r *CompositeReconciler) compose(ctx context.Context, xr *unstructured.Unstructured, desired, observed map[string]*unstructured.Unstructured) error {
	var errs []error
	for name, d := range desired {
		obj := d.DeepCopy()
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[LabelComposite] = xr.GetName()
		obj.SetLabels(labels)
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[AnnotationResourceName] = name
		obj.SetAnnotations(annotations)
		obj.SetOwnerReferences([]metav1.OwnerReference{{
			APIVersion: xr.GetAPIVersion(), Kind: xr.GetKind(), Name: xr.GetName(), UID: xr.GetUID(),
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}})
		hash, err := hashOf(obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot compose %q: %w", name, err))
			continue
		}
		annotations[AnnotationDesiredHash] = hash
		obj.SetAnnotations(annotations)

		switch o := observed[name]; {
		case o == nil:
			if err := r.client.Create(ctx, obj); err != nil {
				errs = append(errs, fmt.Errorf("cannot create composed resource %q: %w", name, err))
			}
		case o.GetAnnotations()[AnnotationDesiredHash] != hash:
			if err := r.client.Patch(ctx, obj, client.Merge); err != nil {
				errs = append(errs, fmt.Errorf("cannot update composed resource %q: %w", name, err))
			}
		}
	}
	for name, o := range observed {
		if _, ok := desired[name]; ok {
			continue
		}
		if err := r.client.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("cannot delete composed resource %q: %w", name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cannot compose resources: %w", err)
	}
	return nil
}

func hashOf(obj *unstructured.Unstructured) (string, error) {
	b, err := json.Marshal(obj.Object) // map keys are sorted
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

func (r *CompositeReconciler) setSynced(xr *unstructured.Unstructured, s metav1.ConditionStatus, reason, msg string) {
	// The condition is valid by construction; a malformed list was caught
	// by Apply or observe's caller before.
	_, _ = r.setter.SetUnstructured(xr, metav1.Condition{
		Type: conditions.TypeSynced, Status: s, Reason: reason, Message: msg, ObservedGeneration: xr.GetGeneration(),
	})
}

// setReady summarizes the conditions the pipeline's results set into Ready:
// True when all are True, False when one is False (with its reason and
// message), Unknown otherwise; but False, with Synced's reason and message,
// whenever Synced is False.
func (r *CompositeReconciler) setReady(xr *unstructured.Unstructured) error {
	conds, err := conditions.FromUnstructured(xr)
	if err != nil {
		return fmt.Errorf("cannot read the conditions of XApp %s: %w", xr.GetName(), err)
	}
	owned, _, _ := unstructured.NestedStringSlice(xr.Object, "status", "resultConditions")
	var summarized []metav1.Condition
	for _, t := range owned {
		if c := conditions.Get(conds, t); c != nil {
			summarized = append(summarized, *c)
		}
	}
	ready := conditions.Summarize(conditions.TypeReady, summarized,
		conditions.Types(owned), conditions.ObservedGeneration(xr.GetGeneration()))
	if synced := conditions.Get(conds, conditions.TypeSynced); synced != nil && synced.Status == metav1.ConditionFalse && ready.Status != metav1.ConditionFalse {
		// Stalled (see setProgress) goes with Ready=False; a False summary
		// (the failing result's reason) is kept. Set once, so that its
		// lastTransitionTime holds while it stays False.
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, synced.Reason, synced.Message
	}
	if _, err := r.setter.SetUnstructured(xr, ready); err != nil {
		return fmt.Errorf("cannot set Ready on XApp %s: %w", xr.GetName(), err)
	}
	return nil
}

// setProgress records how far the XApp got, as kstatus and Flux read it: a
// Synced=False (a fatal result, or resources that could not be composed) is
// Stalled (the next run clears it once it succeeds), with Ready False and
// Synced's reason and message; a Ready the results leave Unknown is
// Reconciling; otherwise neither.
func (r *CompositeReconciler) setProgress(xr *unstructured.Unstructured) error {
	conds, err := conditions.FromUnstructured(xr)
	if err != nil {
		return fmt.Errorf("cannot read the conditions of XApp %s: %w", xr.GetName(), err)
	}
	ready := conditions.Get(conds, conditions.TypeReady)
	progress, why := conditions.Done, ready
	switch {
	case conditions.IsFalse(conds, conditions.TypeSynced):
		// setReady made Ready False.
		progress, why = conditions.Stalled, conditions.Get(conds, conditions.TypeSynced)
	case ready != nil && ready.Status == metav1.ConditionUnknown:
		progress = conditions.Working
	}
	return setProgress(r.setter, xr, progress, why)
}

// setHealthy summarizes the XApp's health (conditions.Health): its Synced,
// the conditions the pipeline's results set, and the composed resources it
// wants, each Ready once a function marked it ready and Unknown until then.
func (r *CompositeReconciler) setHealthy(xr *unstructured.Unstructured, desired map[string]*unstructured.Unstructured, ready []string) error {
	conds, err := conditions.FromUnstructured(xr)
	if err != nil {
		return fmt.Errorf("cannot read the conditions of XApp %s: %w", xr.GetName(), err)
	}
	owned, _, _ := unstructured.NestedStringSlice(xr.Object, "status", "resultConditions")
	names := slices.Sorted(maps.Keys(desired))
	composed := make([]conditions.Source, 0, len(names))
	for _, name := range names {
		c := metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionUnknown, Reason: "NotMarkedReady"}
		if slices.Contains(ready, name) {
			c.Status, c.Reason = metav1.ConditionTrue, "MarkedReady"
		}
		composed = append(composed, conditions.Source{Name: desired[name].GetKind() + " " + name, Conditions: []metav1.Condition{c}})
	}
	healthy := conditions.Health(conds, composed, conditions.Types(owned), conditions.ObservedGeneration(xr.GetGeneration()))
	if _, err := r.setter.SetUnstructured(xr, healthy); err != nil {
		return fmt.Errorf("cannot set Healthy on XApp %s: %w", xr.GetName(), err)
	}
	return nil
}

// setProgress writes p on u with conditions.SetProgress's rules, explained
// by c's reason and message.
func setProgress(s conditions.Setter, u *unstructured.Unstructured, p conditions.Progress, c *metav1.Condition) error {
	reason, msg := "", ""
	if c != nil {
		reason, msg = c.Reason, c.Message
	}
	_, err := s.SetProgressUnstructured(u, u.GetGeneration(), p, reason, msg)
	return err
}

func newObject(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}
