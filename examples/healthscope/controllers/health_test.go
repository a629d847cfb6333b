package controllers

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/scopes"
)

func resource(apiVersion, kind, name string, replicas, ready any) unstructured.Unstructured {
	u := unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}}
	if replicas != nil {
		u.Object["spec"] = map[string]any{"replicas": replicas}
	}
	if ready != nil {
		u.Object["status"] = map[string]any{"readyReplicas": ready}
	}
	return u
}

func ptr(u unstructured.Unstructured) *unstructured.Unstructured { return &u }

var rsDefinition = &unstructured.Unstructured{Object: map[string]any{
	"kind": "WorkloadDefinition", "metadata": map[string]any{"name": "deployments.apps"},
	"spec": map[string]any{"childResourceKinds": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet"}}},
}}

func TestAssessWorkload(t *testing.T) {
	web := scopes.WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	target := v1alpha1.WorkloadReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	cases := map[string]struct {
		reason  string
		located scopes.Located
		want    v1alpha1.WorkloadHealthCondition
	}{
		"NotFound": {
			located: scopes.Located{Ref: web, Err: errors.Join(scopes.ErrWorkloadNotFound, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web"))},
			want:    v1alpha1.WorkloadHealthCondition{TargetWorkload: target, HealthStatus: v1alpha1.StatusUnhealthy, Diagnosis: "the workload does not exist or may not be read"},
		},
		"Forbidden": {
			reason:  "A workload the controller may not read reads as one that does not exist.",
			located: scopes.Located{Ref: web, Err: errors.Join(scopes.ErrWorkloadNotFound, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("no rights")))},
			want:    v1alpha1.WorkloadHealthCondition{TargetWorkload: target, HealthStatus: v1alpha1.StatusUnhealthy, Diagnosis: "the workload does not exist or may not be read"},
		},
		"OtherError": {
			reason:  "The diagnosis is the cause, without the prefix that names the reference and the scope.",
			located: scopes.Located{Ref: web, Err: errorsWrap("cannot locate workload web of HealthScope ns/hs", errors.New("no matches for kind"))},
			want:    v1alpha1.WorkloadHealthCondition{TargetWorkload: target, HealthStatus: v1alpha1.StatusUnknown, Diagnosis: "no matches for kind"},
		},
		"ItselfHealthy": {
			reason:  "Without a WorkloadDefinition the workload itself is judged.",
			located: scopes.Located{Ref: web, Workload: ptr(resource("apps/v1", "Deployment", "web", int64(2), int64(2)))},
			want: v1alpha1.WorkloadHealthCondition{TargetWorkload: target, HealthStatus: v1alpha1.StatusHealthy,
				Resources: []v1alpha1.ResourceHealth{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Replicas: 2, ReadyReplicas: 2}}},
		},
		"ItselfNoStatus": {
			located: scopes.Located{Ref: web, Workload: ptr(resource("apps/v1", "Deployment", "web", int64(1), nil))},
			want: v1alpha1.WorkloadHealthCondition{TargetWorkload: target, HealthStatus: v1alpha1.StatusUnhealthy, Diagnosis: "Deployment web has 0/1 replicas ready",
				Resources: []v1alpha1.ResourceHealth{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Replicas: 1}}},
		},
		"NoReplicas": {
			reason:  "A kind without spec.replicas cannot be judged.",
			located: scopes.Located{Ref: web, Workload: ptr(resource("v1", "ConfigMap", "web", nil, nil))},
			want:    v1alpha1.WorkloadHealthCondition{TargetWorkload: target, HealthStatus: v1alpha1.StatusUnknown, Diagnosis: "no resource with spec.replicas to judge"},
		},
		"NoChildrenYet": {
			located: scopes.Located{Ref: web, Workload: ptr(resource("apps/v1", "Deployment", "web", int64(2), int64(2))), Definition: rsDefinition},
			want:    v1alpha1.WorkloadHealthCondition{TargetWorkload: target, HealthStatus: v1alpha1.StatusUnknown, Diagnosis: "no child resources of kind ReplicaSet yet"},
		},
		"Children": {
			reason: "Children are judged instead of the workload; any kind with the two fields counts, floats too.",
			located: scopes.Located{Ref: web, Workload: ptr(resource("apps/v1", "Deployment", "web", int64(2), int64(0))), Definition: rsDefinition,
				Children: []unstructured.Unstructured{
					resource("apps/v1", "ReplicaSet", "web-1", int64(0), nil),
					resource("apps/v1", "ReplicaSet", "web-2", int64(3), int64(1)),
					resource("example.org/v1", "Pool", "web-3", float64(2), float64(2)),
					resource("v1", "Service", "web", nil, nil),
				}},
			want: v1alpha1.WorkloadHealthCondition{TargetWorkload: target, HealthStatus: v1alpha1.StatusUnhealthy, Diagnosis: "ReplicaSet web-2 has 1/3 replicas ready",
				Resources: []v1alpha1.ResourceHealth{
					{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1"},
					{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-2", Replicas: 3, ReadyReplicas: 1},
					{APIVersion: "example.org/v1", Kind: "Pool", Name: "web-3", Replicas: 2, ReadyReplicas: 2},
				}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, got := Assess([]scopes.Located{tc.located})
			if diff := cmp.Diff([]v1alpha1.WorkloadHealthCondition{tc.want}, got); diff != "" {
				t.Errorf("%s\nAssess(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg + ": " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

func errorsWrap(msg string, err error) error { return &wrapped{msg, err} }

func TestAssessScope(t *testing.T) {
	located := func(apiVersion, kind, name string, want, ready any) scopes.Located {
		return scopes.Located{Ref: scopes.WorkloadRef{APIVersion: apiVersion, Kind: kind, Name: name},
			Workload: ptr(resource(apiVersion, kind, name, want, ready))}
	}
	healthy := located("apps/v1", "Deployment", "a", int64(1), int64(1))
	unhealthy := located("apps/v1", "Deployment", "b", int64(1), int64(0))
	unknown := located("v1", "ConfigMap", "c", nil, nil)
	cases := map[string]struct {
		located   []scopes.Located
		want      v1alpha1.ScopeHealthCondition
		wantReady metav1.Condition
	}{
		"Empty": {
			want:      v1alpha1.ScopeHealthCondition{HealthStatus: v1alpha1.StatusUnknown},
			wantReady: metav1.Condition{Type: "Ready", Status: metav1.ConditionUnknown, Reason: ReasonNoWorkloads, Message: "the scope holds no workloads", ObservedGeneration: 3},
		},
		"Healthy": {
			located:   []scopes.Located{healthy, healthy},
			want:      v1alpha1.ScopeHealthCondition{HealthStatus: v1alpha1.StatusHealthy, Total: 2, HealthyWorkloads: 2},
			wantReady: metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: ReasonHealthy, Message: "2 of 2 workloads are healthy", ObservedGeneration: 3},
		},
		"UnhealthyWins": {
			located:   []scopes.Located{healthy, unknown, unhealthy},
			want:      v1alpha1.ScopeHealthCondition{HealthStatus: v1alpha1.StatusUnhealthy, Total: 3, HealthyWorkloads: 1, UnhealthyWorkloads: 1, UnknownWorkloads: 1},
			wantReady: metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: ReasonUnhealthy, Message: "1 of 3 workloads are healthy; Deployment b: Deployment b has 0/1 replicas ready; ConfigMap c: no resource with spec.replicas to judge", ObservedGeneration: 3},
		},
		"Unknown": {
			located:   []scopes.Located{healthy, unknown},
			want:      v1alpha1.ScopeHealthCondition{HealthStatus: v1alpha1.StatusUnknown, Total: 2, HealthyWorkloads: 1, UnknownWorkloads: 1},
			wantReady: metav1.Condition{Type: "Ready", Status: metav1.ConditionUnknown, Reason: ReasonHealthUnknown, Message: "1 of 2 workloads are healthy; ConfigMap c: no resource with spec.replicas to judge", ObservedGeneration: 3},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, workloads := Assess(tc.located)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Assess(...): -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantReady, readyCondition(got, workloads, 3), cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
				t.Errorf("readyCondition(...): -want, +got:\n%s", diff)
			}
		})
	}
}
