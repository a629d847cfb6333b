package core

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/conflict"
)

// Finalizer is put on claims so that their cluster-scoped XR, which cannot
// have a namespaced owner, is deleted with them.
const Finalizer = "example.ctrlkit.dev/composite"

// CompositeName is the name of the XApp that serves claim, as its
// status.compositeName records it; empty until the claim reconciler chose
// one. The name is the claim's name, cut to leave room, a '-' and five
// random characters, as Crossplane names a claim's composite resource: no
// claim can take another's name (claim team-db in N and db in N-team), and
// a long name still gives a valid one. It is recorded before the XApp is
// created, so that no XApp is left that no claim knows.
func CompositeName(claim client.Object) string {
	if u, ok := claim.(*unstructured.Unstructured); ok {
		name, _, _ := unstructured.NestedString(u.Object, "status", "compositeName")
		return name
	}
	if app, ok := claim.(*v1alpha1.App); ok {
		return app.Status.CompositeName
	}
	return ""
}

// newCompositeName returns a new name for the XApp of the claim named name.
func newCompositeName(name string) string {
	const suffix = 6 // '-' and five random characters
	return strings.TrimRight(name[:min(len(name), validation.DNS1123SubdomainMaxLength-suffix)], "-.") + "-" + utilrand.String(suffix-1)
}

// ClaimReconciler reconciles App claims: it creates and updates the XApp that
// serves each, and shows the XApp's conditions on the claim with
// conditions.Propagate.
type ClaimReconciler struct {
	client client.Client
	setter conditions.Setter
}

// NewClaimReconciler returns a claim reconciler that reads and writes with c.
func NewClaimReconciler(c client.Client, o Options) *ClaimReconciler {
	o = o.withDefaults()
	return &ClaimReconciler{client: c, setter: conditions.NewSetter(conditions.WithClock(o.Clock))}
}

// Reconcile makes one App's XApp match it and its status reflect the XApp.
// Each object is written only when it changes.
func (r *ClaimReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	claim := newObject(v1alpha1.AppKind)
	if err := r.client.Get(ctx, req.NamespacedName, claim); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	name := CompositeName(claim)

	if !claim.GetDeletionTimestamp().IsZero() {
		return reconcile.Result{}, r.delete(ctx, claim, name)
	}
	if controllerutil.AddFinalizer(claim, Finalizer) {
		if err := r.client.Update(ctx, claim); err != nil {
			return reconcile.Result{}, conflict.Ignore(fmt.Errorf("cannot add a finalizer to App %s/%s: %w", claim.GetNamespace(), claim.GetName(), err))
		}
	}
	if name == "" {
		// Recorded before the XApp is created: a crash in between leaves a
		// name and no XApp, never an XApp that no claim knows.
		name = newCompositeName(claim.GetName())
		_ = unstructured.SetNestedField(claim.Object, name, "status", "compositeName")
		if err := r.client.Status().Update(ctx, claim); err != nil {
			return reconcile.Result{}, conflict.Ignore(fmt.Errorf("cannot record the composite name of App %s/%s: %w", claim.GetNamespace(), claim.GetName(), err))
		}
	}
	before := claim.DeepCopy()
	_ = unstructured.SetNestedField(claim.Object, claim.GetGeneration(), "status", "observedGeneration")

	xr, err := r.ensureComposite(ctx, claim, name)
	switch {
	case err == errConflict:
		msg := fmt.Sprintf("XApp %s already exists and serves another claim; rename this claim", name)
		r.set(claim, conditions.TypeSynced, metav1.ConditionFalse, ReasonConflictingComposite, msg)
		r.set(claim, conditions.TypeReady, metav1.ConditionFalse, ReasonConflictingComposite, msg)
		if err := setProgress(r.setter, claim, conditions.Stalled, &metav1.Condition{Reason: ReasonConflictingComposite, Message: msg}); err != nil {
			return reconcile.Result{}, err
		}
		r.setHealthy(claim, name, nil)
		return reconcile.Result{}, r.writeStatus(ctx, before, claim)
	case err != nil && !kerrors.IsConflict(err):
		// Every other failure to get, create or update the XApp reaches the
		// claim, then is retried with back-off.
		r.set(claim, conditions.TypeSynced, metav1.ConditionFalse, ReasonReconcileError, err.Error())
		r.setHealthy(claim, name, nil)
		if werr := r.writeStatus(ctx, before, claim); werr != nil {
			return reconcile.Result{}, werr
		}
		return reconcile.Result{}, err
	case err != nil:
		return reconcile.Result{}, conflict.Ignore(err)
	}

	_, err = r.setter.Propagate(xr, claim)
	if err == nil {
		_, err = r.setter.PropagateSynced(xr, claim)
	}
	if err != nil {
		r.set(claim, conditions.TypeSynced, metav1.ConditionFalse, ReasonReconcileError, err.Error())
		r.setHealthy(claim, name, nil)
		return reconcile.Result{}, r.writeStatus(ctx, before, claim)
	}
	xrConds, _ := conditions.FromUnstructured(xr) // Propagate read them
	claimConds, _ := conditions.FromUnstructured(claim)
	ready := conditions.Get(xrConds, conditions.TypeReady)
	observed, _, _ := unstructured.NestedInt64(xr.Object, "status", "observedGeneration")
	var progress conditions.Progress
	switch failed := conditions.Get(claimConds, conditions.TypeCompositeSynced); {
	case failed != nil && failed.Status == metav1.ConditionFalse:
		// The XApp cannot be synced: the claim shows it as failed. Ready
		// says why with the conditions propagated to the claim, which the
		// function wrote for it, when one is False; else with the message
		// PropagateSynced wrote. Never with the XApp's own messages.
		ready = failed
		if s := conditions.Summarize(conditions.TypeReady, claimConds, conditions.Types(propagated(claimConds))); s.Status == metav1.ConditionFalse {
			ready = &s
		}
		progress = conditions.Stalled
	case ready == nil || observed < xr.GetGeneration() || ready.ObservedGeneration < xr.GetGeneration():
		// The XApp has not reconciled what this claim asks for yet: its
		// Ready, if any, describes an older spec.
		ready = &metav1.Condition{Status: metav1.ConditionUnknown, Reason: ReasonWaiting, Message: "Waiting for the composite resource to report Ready."}
		progress = conditions.Working
	case conditions.IsTrue(xrConds, conditions.TypeStalled):
		progress = conditions.Stalled
	case conditions.IsTrue(xrConds, conditions.TypeReconciling) || ready.Status == metav1.ConditionUnknown:
		progress = conditions.Working
	}
	r.set(claim, conditions.TypeReady, ready.Status, ready.Reason, ready.Message)
	r.set(claim, conditions.TypeSynced, metav1.ConditionTrue, ReasonReconcileSuccess, "")
	if err := setProgress(r.setter, claim, progress, ready); err != nil {
		return reconcile.Result{}, err
	}
	r.setHealthy(claim, name, xr)
	return reconcile.Result{}, r.writeStatus(ctx, before, claim)
}

// propagated are the types of conds that the claim's controller does not
// set itself: those Propagate copied from the XApp.
func propagated(conds []metav1.Condition) []string {
	var types []string
	for _, c := range conds {
		if !conditions.IsReserved(c.Type) && c.Type != conditions.TypeReconciling && c.Type != conditions.TypeStalled {
			types = append(types, c.Type)
		}
	}
	return types
}

// setHealthy summarizes the claim's health: its own Synced, its
// CompositeSynced, and its XApp
// (named name, nil when not read) as the one resource it is made of, judged
// by the XApp's Healthy, Unknown while the XApp has none for its current
// generation.
func (r *ClaimReconciler) setHealthy(claim *unstructured.Unstructured, name string, xr *unstructured.Unstructured) {
	conds, _ := conditions.FromUnstructured(claim) // read by the caller before
	var composed []conditions.Source
	if xr != nil {
		xrConds, _ := conditions.FromUnstructured(xr) // read by Propagate before
		h := conditions.Get(xrConds, conditions.TypeHealthy)
		if h == nil || h.ObservedGeneration < xr.GetGeneration() {
			h = &metav1.Condition{Type: conditions.TypeHealthy, Status: metav1.ConditionUnknown, Reason: conditions.ReasonNotReported}
		}
		composed = []conditions.Source{{Name: "XApp " + name, Conditions: []metav1.Condition{*h}}}
	}
	// CompositeSynced is the XApp's Synced, which an XR whose status another
	// controller writes (Crossplane's) may carry without a Healthy.
	healthy := conditions.Health(conds, composed, conditions.Types{conditions.TypeCompositeSynced}, conditions.ObservedGeneration(claim.GetGeneration()))
	// Valid by construction: Health's reasons are its own or valid ones.
	_, _ = r.setter.SetUnstructured(claim, healthy)
}

var errConflict = fmt.Errorf("the composite resource serves another claim")

// ensureComposite gets, creates or updates the claim's XApp.
func (r *ClaimReconciler) ensureComposite(ctx context.Context, claim *unstructured.Unstructured, name string) (*unstructured.Unstructured, error) {
	params, _, _ := unstructured.NestedMap(claim.Object, "spec")
	want := map[string]any{
		"database": params["database"],
		"image":    params["image"],
		"claimRef": map[string]any{"namespace": claim.GetNamespace(), "name": claim.GetName()},
	}

	xr := newObject(v1alpha1.XAppKind)
	err := r.client.Get(ctx, client.ObjectKey{Name: name}, xr)
	if kerrors.IsNotFound(err) {
		xr = newObject(v1alpha1.XAppKind)
		xr.SetName(name)
		// Labels for kubectl's selectors, where the names fit a label value;
		// the controller finds the claim by spec.claimRef.
		labels := map[string]string{}
		for k, v := range map[string]string{"example.ctrlkit.dev/claim-namespace": claim.GetNamespace(), "example.ctrlkit.dev/claim-name": claim.GetName()} {
			if len(validation.IsValidLabelValue(v)) == 0 {
				labels[k] = v
			}
		}
		xr.SetLabels(labels)
		xr.Object["spec"] = want
		if err := r.client.Create(ctx, xr); err != nil {
			return nil, fmt.Errorf("cannot create XApp %s: %w", name, err)
		}
		return xr, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot get XApp %s: %w", name, err)
	}
	spec, _, _ := unstructured.NestedMap(xr.Object, "spec")
	if !equality.Semantic.DeepEqual(spec["claimRef"], want["claimRef"]) {
		return nil, errConflict
	}
	if equality.Semantic.DeepEqual(spec, want) {
		return xr, nil
	}
	xr.Object["spec"] = want
	if err := r.client.Update(ctx, xr); err != nil {
		return nil, fmt.Errorf("cannot update XApp %s: %w", name, err)
	}
	return xr, nil
}

// delete deletes the claim's XApp and then lets the claim go.
func (r *ClaimReconciler) delete(ctx context.Context, claim *unstructured.Unstructured, name string) error {
	if !controllerutil.ContainsFinalizer(claim, Finalizer) {
		return nil
	}
	xr := newObject(v1alpha1.XAppKind)
	var err error = kerrors.NewNotFound(v1alpha1.GroupVersion.WithResource("xapps").GroupResource(), name)
	if name != "" {
		err = r.client.Get(ctx, client.ObjectKey{Name: name}, xr)
	}
	switch {
	case kerrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("cannot get XApp %s: %w", name, err)
	default:
		ref, _, _ := unstructured.NestedMap(xr.Object, "spec", "claimRef")
		if ref["namespace"] == claim.GetNamespace() && ref["name"] == claim.GetName() {
			if err := r.client.Delete(ctx, xr); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("cannot delete XApp %s: %w", name, err)
			}
		}
	}
	controllerutil.RemoveFinalizer(claim, Finalizer)
	if err := r.client.Update(ctx, claim); client.IgnoreNotFound(err) != nil {
		return conflict.Ignore(fmt.Errorf("cannot remove the finalizer of App %s/%s: %w", claim.GetNamespace(), claim.GetName(), err))
	}
	return nil
}

func (r *ClaimReconciler) set(claim *unstructured.Unstructured, typ string, s metav1.ConditionStatus, reason, msg string) {
	// Valid by construction, and the list was read by Propagate or is new.
	_, _ = r.setter.SetUnstructured(claim, metav1.Condition{
		Type: typ, Status: s, Reason: reason, Message: msg, ObservedGeneration: claim.GetGeneration(),
	})
}

func (r *ClaimReconciler) writeStatus(ctx context.Context, before, claim *unstructured.Unstructured) error {
	if equality.Semantic.DeepEqual(before.Object["status"], claim.Object["status"]) {
		return nil
	}
	if err := r.client.Status().Update(ctx, claim); err != nil {
		return conflict.Ignore(fmt.Errorf("cannot update the status of App %s/%s: %w", claim.GetNamespace(), claim.GetName(), err))
	}
	return nil
}
