package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/conflict"
	"github.com/ctrlkit/ctrlkit/scopes"
)

// Finalizer lets an Application remove its workload references from the
// scopes it wrote them into before it goes.
const Finalizer = "healthscope.example.ctrlkit.dev/scopes"

// Reasons of an Application's Ready condition.
const (
	ReasonAvailable      = "Available"
	ReasonWorkloadFailed = "WorkloadFailed"
	ReasonScopeFailed    = "ScopeFailed"
	ReasonDeleting       = "Deleting"
)

// An ApplicationReconciler creates an Application's workloads and places them
// into the scopes its components name, knowing nothing of the scopes'
// schemas: the path comes from each scope kind's ScopeDefinition.
type ApplicationReconciler struct {
	client    client.Client
	apiReader client.Reader // uncached reads of scopes and definitions, for PatchWorkloadRefs
	mapper    meta.RESTMapper
	scheme    *runtime.Scheme
	events    events.EventRecorder
	setter    conditions.Setter
	defs      scopes.Definitions
}

// NewApplicationReconciler returns an Application reconciler. apiReader
// should read from the API server (a manager's GetAPIReader), so that a
// write that lost a conflict rereads the current scope.
func NewApplicationReconciler(c client.Client, apiReader client.Reader, mapper meta.RESTMapper, scheme *runtime.Scheme, rec events.EventRecorder, o Options) *ApplicationReconciler {
	o = o.withDefaults()
	return &ApplicationReconciler{client: c, apiReader: apiReader, mapper: mapper, scheme: scheme, events: rec, setter: conditions.NewSetter(conditions.WithClock(o.Clock)), defs: o.Definitions}
}

// A placement is one workload reference in one scope.
type placement struct {
	component string
	ref       scopes.WorkloadRef
	scope     v1alpha1.ScopeReference
	path      string // where it was written; for records only
}

// A problem is why an Application is not Ready.
type problem struct {
	reason string
	err    error
}

// Reconcile creates missing workloads, patches each scope the application's
// components name or named once, and records what it wrote.
func (r *ApplicationReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	app := &v1alpha1.Application{}
	if err := r.client.Get(ctx, req.NamespacedName, app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, r.finalize(ctx, app)
	}
	if !controllerutil.ContainsFinalizer(app, Finalizer) {
		patch := client.MergeFrom(app.DeepCopy())
		controllerutil.AddFinalizer(app, Finalizer)
		if err := r.client.Patch(ctx, app, patch); err != nil {
			return reconcile.Result{}, err
		}
	}

	var problems []problem
	recorded := placementsOf(app.Status.Workloads)
	var desired []placement
	failed := map[string]bool{}
	for _, comp := range app.Spec.Components {
		w, err := r.ensureWorkload(ctx, app, comp)
		if err != nil {
			problems = append(problems, problem{ReasonWorkloadFailed, err})
			failed[comp.Name] = true
			continue
		}
		for _, s := range comp.Scopes {
			desired = append(desired, placement{component: comp.Name, ref: scopes.RefOf(w), scope: s.ScopeRef})
		}
	}

	// What each scope needs: the desired references, and the removal of
	// recorded ones no longer desired. A component whose workload failed
	// keeps its records untouched.
	type work struct {
		change scopes.Change
		path   string // recorded, for removals
	}
	var order []v1alpha1.ScopeReference
	works := map[v1alpha1.ScopeReference]*work{}
	workOf := func(s v1alpha1.ScopeReference) *work {
		if works[s] == nil {
			works[s] = &work{}
			order = append(order, s)
		}
		return works[s]
	}
	for _, p := range desired {
		w := workOf(p.scope)
		if !containsRef(w.change.Add, p.ref) {
			w.change.Add = append(w.change.Add, p.ref)
		}
	}
	var kept []placement
	for _, p := range recorded {
		if failed[p.component] {
			kept = append(kept, p)
			continue
		}
		w := workOf(p.scope)
		if !containsRef(w.change.Add, p.ref) && !containsRef(w.change.Remove, p.ref) {
			w.change.Remove = append(w.change.Remove, p.ref)
		}
		w.path = p.path
	}

	// One patch per scope.
	type result struct {
		path string
		err  error
	}
	results := map[v1alpha1.ScopeReference]result{}
	for _, s := range order {
		w := works[s]
		opts := []scopes.PatchOption{scopes.ReadFrom(r.apiReader), r.defs}
		if len(w.change.Add) == 0 && w.path != "" {
			opts = append(opts, scopes.AtPath(w.path))
		}
		scope := scopes.ScopeRef{APIVersion: s.APIVersion, Kind: s.Kind, Namespace: app.Namespace, Name: s.Name}
		p, err := scopes.PatchWorkloadRefs(ctx, r.client, r.mapper, scope, w.change, opts...)
		results[s] = result{p.Path, err}
		if err != nil {
			problems = append(problems, problem{ReasonScopeFailed, err})
		}
	}

	// Record what the scopes hold now: what was written, and what may still
	// be there because a patch failed.
	next := kept
	for _, p := range desired {
		switch res := results[p.scope]; {
		case res.err == nil && res.path != "":
			p.path = res.path
			next = appendPlacement(next, p)
		case res.err != nil:
			if i := indexPlacement(recorded, p); i >= 0 {
				next = appendPlacement(next, recorded[i])
			}
		}
	}
	for _, p := range recorded {
		if !failed[p.component] && results[p.scope].err != nil {
			next = appendPlacement(next, p)
		}
	}

	status := v1alpha1.ApplicationStatus{
		ObservedGeneration: app.Generation,
		Conditions:         slices.Clone(app.Status.Conditions),
		Workloads:          workloadStatuses(app.Spec.Components, next),
	}
	ready := metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionTrue, Reason: ReasonAvailable,
		Message: fmt.Sprintf("%d workloads exist and are in the scopes their components name", len(app.Spec.Components)), ObservedGeneration: app.Generation}
	progress := conditions.Done
	if len(problems) > 0 {
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, problems[0].reason, joinProblems(problems)
		r.events.Eventf(app, nil, "Warning", problems[0].reason, "Reconcile", "%s", ready.Message)
		progress = conditions.Working
		if stuck(problems) {
			progress = conditions.Stalled
		}
	}
	r.setter.Set(&status.Conditions, ready)
	r.setter.SetProgress(&status.Conditions, app.Generation, progress, ready.Reason, ready.Message)
	if err := r.writeStatus(ctx, app, status); err != nil {
		return reconcile.Result{}, err
	}
	if len(problems) > 0 {
		return reconcile.Result{}, problems[0].err
	}
	return reconcile.Result{}, nil
}

// ensureWorkload creates a component's workload when it does not exist, and
// returns it as the API server has it.
func (r *ApplicationReconciler) ensureWorkload(ctx context.Context, app *v1alpha1.Application, comp v1alpha1.Component) (*unstructured.Unstructured, error) {
	w, err := workloadOf(app, comp)
	if err != nil {
		return nil, err
	}
	if err := controllerutil.SetControllerReference(app, w, r.scheme); err != nil {
		return nil, err
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(w.GroupVersionKind())
	err = r.client.Get(ctx, client.ObjectKeyFromObject(w), cur)
	switch {
	case err == nil:
		if !metav1.IsControlledBy(cur, app) {
			return nil, fmt.Errorf("component %s: %s %s exists and belongs to another controller", comp.Name, w.GetKind(), w.GetName())
		}
		return cur, nil
	case apierrors.IsNotFound(err):
		if err := r.client.Create(ctx, w); err != nil {
			return nil, fmt.Errorf("component %s: cannot create %s %s: %w", comp.Name, w.GetKind(), w.GetName(), err)
		}
		return w, nil
	default:
		return nil, fmt.Errorf("component %s: cannot get %s %s: %w", comp.Name, w.GetKind(), w.GetName(), err)
	}
}

// workloadOf decodes a component's workload, in the application's namespace
// and named after the component unless it has a name.
func workloadOf(app *v1alpha1.Application, comp v1alpha1.Component) (*unstructured.Unstructured, error) {
	w := &unstructured.Unstructured{}
	if err := w.UnmarshalJSON(comp.Workload.Raw); err != nil {
		return nil, fmt.Errorf("component %s: cannot read its workload: %w", comp.Name, err)
	}
	if w.GetName() == "" {
		w.SetName(comp.Name)
	}
	w.SetNamespace(app.Namespace)
	return w, nil
}

// finalize removes the application's references from every scope it wrote
// them into, deletes its workloads, and lets the application go. The
// recorded path makes removal independent of the ScopeDefinition, so a
// deleted definition never blocks deletion.
func (r *ApplicationReconciler) finalize(ctx context.Context, app *v1alpha1.Application) error {
	if !controllerutil.ContainsFinalizer(app, Finalizer) {
		return nil
	}
	var order []v1alpha1.ScopeReference
	removals := map[v1alpha1.ScopeReference]*placement{}
	refs := map[v1alpha1.ScopeReference][]scopes.WorkloadRef{}
	add := func(p placement) {
		if removals[p.scope] == nil {
			removals[p.scope] = &p
			order = append(order, p.scope)
		}
		if removals[p.scope].path == "" {
			removals[p.scope].path = p.path
		}
		if !containsRef(refs[p.scope], p.ref) {
			refs[p.scope] = append(refs[p.scope], p.ref)
		}
	}
	for _, p := range placementsOf(app.Status.Workloads) {
		add(p)
	}
	// A reference written just before a status update failed is not
	// recorded; the spec says where it may be.
	for _, comp := range app.Spec.Components {
		w, err := workloadOf(app, comp)
		if err != nil {
			continue
		}
		for _, s := range comp.Scopes {
			add(placement{component: comp.Name, ref: scopes.RefOf(w), scope: s.ScopeRef})
		}
	}

	var errs []error
	for _, s := range order {
		opts := []scopes.PatchOption{scopes.ReadFrom(r.apiReader), r.defs}
		if path := removals[s].path; path != "" {
			opts = append(opts, scopes.AtPath(path))
		}
		scope := scopes.ScopeRef{APIVersion: s.APIVersion, Kind: s.Kind, Namespace: app.Namespace, Name: s.Name}
		_, err := scopes.PatchWorkloadRefs(ctx, r.client, r.mapper, scope, scopes.Change{Remove: refs[s]}, opts...)
		if err != nil && !errors.Is(err, scopes.ErrDefinitionNotFound) {
			// Without a definition or a recorded path nothing was written.
			errs = append(errs, err)
		}
	}
	// There is no garbage collector in a local control plane; on a cluster
	// this only does its work a little earlier.
	for _, comp := range app.Spec.Components {
		if err := r.deleteWorkload(ctx, app, comp); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		status := app.Status.DeepCopy()
		r.setter.Set(&status.Conditions, metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionFalse, Reason: ReasonDeleting,
			Message: "cannot clean up: " + err.Error(), ObservedGeneration: app.Generation})
		r.events.Eventf(app, nil, "Warning", ReasonDeleting, "Finalize", "%s", err.Error())
		return errors.Join(err, r.writeStatus(ctx, app, *status))
	}
	patch := client.MergeFrom(app.DeepCopy())
	controllerutil.RemoveFinalizer(app, Finalizer)
	return client.IgnoreNotFound(r.client.Patch(ctx, app, patch))
}

func (r *ApplicationReconciler) deleteWorkload(ctx context.Context, app *v1alpha1.Application, comp v1alpha1.Component) error {
	w, err := workloadOf(app, comp)
	if err != nil {
		return nil
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(w.GroupVersionKind())
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(w), cur); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return nil
		}
		return err
	}
	if !metav1.IsControlledBy(cur, app) {
		return nil
	}
	return client.IgnoreNotFound(r.client.Delete(ctx, cur))
}

// writeStatus writes status when it differs from the application's.
func (r *ApplicationReconciler) writeStatus(ctx context.Context, app *v1alpha1.Application, status v1alpha1.ApplicationStatus) error {
	if equality.Semantic.DeepEqual(app.Status, status) {
		return nil
	}
	app.Status = status
	return conflict.Ignore(r.client.Status().Update(ctx, app))
}

// placementsOf flattens recorded workload statuses.
func placementsOf(ws []v1alpha1.WorkloadStatus) []placement {
	var out []placement
	for _, w := range ws {
		ref := scopes.WorkloadRef{APIVersion: w.Reference.APIVersion, Kind: w.Reference.Kind, Name: w.Reference.Name, UID: w.Reference.UID}
		for _, s := range w.Scopes {
			out = append(out, placement{component: w.ComponentName, ref: ref, scope: s.ScopeRef, path: s.Path})
		}
	}
	return out
}

// workloadStatuses groups placements by component and workload, components
// in the spec's order and then those no longer in it.
func workloadStatuses(components []v1alpha1.Component, ps []placement) []v1alpha1.WorkloadStatus {
	var out []v1alpha1.WorkloadStatus
	rank := func(component string) int {
		i := slices.IndexFunc(components, func(c v1alpha1.Component) bool { return c.Name == component })
		if i < 0 {
			return len(components)
		}
		return i
	}
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b placement) int { return rank(a.component) - rank(b.component) })
	for _, p := range sorted {
		i := slices.IndexFunc(out, func(w v1alpha1.WorkloadStatus) bool {
			return w.ComponentName == p.component && w.Reference.APIVersion == p.ref.APIVersion && w.Reference.Kind == p.ref.Kind && w.Reference.Name == p.ref.Name
		})
		if i < 0 {
			out = append(out, v1alpha1.WorkloadStatus{
				ComponentName: p.component,
				Reference:     v1alpha1.WorkloadReference{APIVersion: p.ref.APIVersion, Kind: p.ref.Kind, Name: p.ref.Name, UID: p.ref.UID},
			})
			i = len(out) - 1
		}
		out[i].Scopes = append(out[i].Scopes, v1alpha1.ScopeStatus{ScopeRef: p.scope, Path: p.path})
	}
	return out
}

func containsRef(refs []scopes.WorkloadRef, r scopes.WorkloadRef) bool {
	return slices.ContainsFunc(refs, r.Same)
}

func indexPlacement(ps []placement, p placement) int {
	return slices.IndexFunc(ps, func(q placement) bool { return q.scope == p.scope && q.ref.Same(p.ref) })
}

func appendPlacement(ps []placement, p placement) []placement {
	if indexPlacement(ps, p) >= 0 {
		return ps
	}
	return append(ps, p)
}

func joinProblems(ps []problem) string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.err.Error()
	}
	return strings.Join(msgs, "; ")
}

// stuck reports whether any problem needs a change of the Application (or of
// a scope it names) before it can pass: the API server refused a workload,
// a scope's references are malformed, its definition declares no path, or a
// workload is already in another exclusive scope. The others (a scope or
// definition not there yet, an API error) are retried.
func stuck(problems []problem) bool {
	for _, p := range problems {
		if apierrors.IsInvalid(p.err) || apierrors.IsBadRequest(p.err) ||
			errors.Is(p.err, scopes.ErrMalformed) || errors.Is(p.err, scopes.ErrInvalidRef) ||
			errors.Is(p.err, scopes.ErrNoRefPath) || errors.Is(p.err, scopes.ErrOverlap) {
			return true
		}
	}
	return false
}
