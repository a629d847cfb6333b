package controllers

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/scopes"
)

// Reasons of a HealthScope's Ready condition.
const (
	ReasonHealthy       = "Healthy"
	ReasonUnhealthy     = "Unhealthy"
	ReasonHealthUnknown = "HealthUnknown"
	ReasonNoWorkloads   = "NoWorkloads"
	ReasonLocateFailed  = "LocateFailed"
)

// Assess judges the health of located workloads and sums it up for their
// scope. A workload is judged by the resources its WorkloadDefinition's
// childResourceKinds name or, without such kinds, by itself: each resource
// with spec.replicas is healthy when its status.readyReplicas (missing is 0)
// reaches spec.replicas, whatever its kind; resources without spec.replicas
// are not judged. The result depends only on its input, so a settled scope
// gets the same status on every reconcile.
func Assess(located []scopes.Located) (v1alpha1.ScopeHealthCondition, []v1alpha1.WorkloadHealthCondition) {
	sum := v1alpha1.ScopeHealthCondition{Total: int32(len(located))}
	var workloads []v1alpha1.WorkloadHealthCondition
	for _, l := range located {
		w := assessWorkload(l)
		switch w.HealthStatus {
		case v1alpha1.StatusHealthy:
			sum.HealthyWorkloads++
		case v1alpha1.StatusUnhealthy:
			sum.UnhealthyWorkloads++
		default:
			sum.UnknownWorkloads++
		}
		workloads = append(workloads, w)
	}
	switch {
	case sum.UnhealthyWorkloads > 0:
		sum.HealthStatus = v1alpha1.StatusUnhealthy
	case sum.UnknownWorkloads > 0 || sum.Total == 0:
		sum.HealthStatus = v1alpha1.StatusUnknown
	default:
		sum.HealthStatus = v1alpha1.StatusHealthy
	}
	return sum, workloads
}

func assessWorkload(l scopes.Located) v1alpha1.WorkloadHealthCondition {
	w := v1alpha1.WorkloadHealthCondition{
		TargetWorkload: v1alpha1.WorkloadReference{APIVersion: l.Ref.APIVersion, Kind: l.Ref.Kind, Name: l.Ref.Name, Namespace: l.Ref.Namespace},
		HealthStatus:   v1alpha1.StatusUnknown,
	}
	if l.Err != nil {
		if l.Workload == nil && errors.Is(l.Err, scopes.ErrWorkloadNotFound) {
			// The same words whether it is missing or may not be read, so
			// that a scope does not tell its tenants which objects exist.
			w.HealthStatus, w.Diagnosis = v1alpha1.StatusUnhealthy, scopes.ErrWorkloadNotFound.Error()
			return w
		}
		// Located errors start with the reference and the scope; the cause
		// is what the status needs.
		cause := errors.Unwrap(l.Err)
		if cause == nil {
			cause = l.Err
		}
		w.Diagnosis = cause.Error()
		return w
	}

	targets := []unstructured.Unstructured{*l.Workload}
	kinds, _ := scopes.ChildResourceKinds(l.Definition) // Locate read them already
	if len(kinds) > 0 {
		if len(l.Children) == 0 {
			w.Diagnosis = "no child resources of kind " + kindNames(kinds) + " yet"
			return w
		}
		targets = l.Children
	}
	var unready []string
	for i := range targets {
		r, ok := replicas(&targets[i])
		if !ok {
			continue
		}
		w.Resources = append(w.Resources, r)
		if r.ReadyReplicas < r.Replicas {
			unready = append(unready, fmt.Sprintf("%s %s has %d/%d replicas ready", r.Kind, r.Name, r.ReadyReplicas, r.Replicas))
		}
	}
	switch {
	case len(w.Resources) == 0:
		w.Diagnosis = "no resource with spec.replicas to judge"
	case len(unready) > 0:
		w.HealthStatus, w.Diagnosis = v1alpha1.StatusUnhealthy, strings.Join(unready, "; ")
	default:
		w.HealthStatus = v1alpha1.StatusHealthy
	}
	return w
}

// replicas reads spec.replicas and status.readyReplicas of any kind.
func replicas(u *unstructured.Unstructured) (v1alpha1.ResourceHealth, bool) {
	p := fieldpath.Pave(u.Object)
	want, err := p.GetInteger("spec.replicas")
	if err != nil {
		return v1alpha1.ResourceHealth{}, false
	}
	ready, _ := p.GetInteger("status.readyReplicas") // missing: none ready
	return v1alpha1.ResourceHealth{
		APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Name: u.GetName(),
		Replicas: want, ReadyReplicas: ready,
	}, true
}

func kindNames(kinds []scopes.ChildResourceKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Kind
	}
	return strings.Join(names, " or ")
}

// readyCondition turns a scope's health into its Ready condition.
// Its message counts the healthy workloads and, when not all are, names the
// others with their diagnoses, worst first (conditions.Aggregate).
func readyCondition(sum v1alpha1.ScopeHealthCondition, workloads []v1alpha1.WorkloadHealthCondition, generation int64) metav1.Condition {
	c := metav1.Condition{Type: conditions.TypeReady, ObservedGeneration: generation}
	msg := fmt.Sprintf("%d of %d workloads are healthy", sum.HealthyWorkloads, sum.Total)
	if sum.HealthStatus != v1alpha1.StatusHealthy && len(workloads) > 0 {
		// Set cuts the message to conditions.MaxMessageLength.
		msg += "; " + conditions.Aggregate(conditions.TypeReady, typeHealthy, healthSources(workloads)).Message
	}
	switch {
	case sum.Total == 0:
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonNoWorkloads, "the scope holds no workloads"
	case sum.HealthStatus == v1alpha1.StatusHealthy:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonHealthy, msg
	case sum.HealthStatus == v1alpha1.StatusUnhealthy:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonUnhealthy, msg
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonHealthUnknown, msg
	}
	return c
}

// typeHealthy is the condition type a workload's health takes as an
// aggregate's source.
const typeHealthy = "Healthy"

// healthSources are the workloads as sources of conditions.Aggregate: each
// with a Healthy condition from its health status and diagnosis.
func healthSources(workloads []v1alpha1.WorkloadHealthCondition) []conditions.Source {
	out := make([]conditions.Source, len(workloads))
	for i, w := range workloads {
		status := metav1.ConditionUnknown
		switch w.HealthStatus {
		case v1alpha1.StatusHealthy:
			status = metav1.ConditionTrue
		case v1alpha1.StatusUnhealthy:
			status = metav1.ConditionFalse
		}
		out[i] = conditions.Source{
			Name:       w.TargetWorkload.Kind + " " + w.TargetWorkload.Name,
			Conditions: []metav1.Condition{{Type: typeHealthy, Status: status, Reason: string(w.HealthStatus), Message: w.Diagnosis}},
		}
	}
	return out
}
