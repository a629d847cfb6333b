package conditions_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/conditions"
)

func TestSetProgress(t *testing.T) {
	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Waiting", ObservedGeneration: 2}
	reconciling := metav1.Condition{Type: "Reconciling", Status: metav1.ConditionTrue, Reason: "Creating", Message: "m", ObservedGeneration: 2}
	stalled := metav1.Condition{Type: "Stalled", Status: metav1.ConditionTrue, Reason: "InvalidSpec", Message: "m", ObservedGeneration: 2}
	cases := map[string]struct {
		reason      string
		in          []metav1.Condition
		p           conditions.Progress
		r           string
		want        []metav1.Condition
		wantChanged bool
	}{
		"WorkingAdds": {
			reason: "Working sets Reconciling=True and keeps other types.",
			in:     []metav1.Condition{ready}, p: conditions.Working, r: "Creating",
			want: []metav1.Condition{ready, reconciling}, wantChanged: true,
		},
		"WorkingReplacesStalled": {
			reason: "Reconciling and Stalled are never both present.",
			in:     []metav1.Condition{ready, stalled}, p: conditions.Working, r: "Creating",
			want: []metav1.Condition{ready, reconciling}, wantChanged: true,
		},
		"StalledReplacesReconciling": {
			reason: "Stalled removes Reconciling.",
			in:     []metav1.Condition{ready, reconciling}, p: conditions.Stalled, r: "InvalidSpec",
			want: []metav1.Condition{ready, stalled}, wantChanged: true,
		},
		"DoneRemovesBoth": {
			reason: "Done leaves neither, rather than False.",
			in:     []metav1.Condition{reconciling, ready, stalled}, p: conditions.Done,
			want: []metav1.Condition{ready}, wantChanged: true,
		},
		"DoneSettled": {
			reason: "Nothing to do reports no change.",
			in:     []metav1.Condition{ready}, p: conditions.Done,
			want: []metav1.Condition{ready},
		},
		"WorkingSettled": {
			reason: "The same Reconciling again is no change.",
			in:     []metav1.Condition{ready, reconciling}, p: conditions.Working, r: "Creating",
			want: []metav1.Condition{ready, reconciling},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := append([]metav1.Condition(nil), tc.in...)
			changed := conditions.SetProgress(&got, 2, tc.p, tc.r, "m")
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if changed != tc.wantChanged {
				t.Errorf("%s\nchanged: want %v, got %v", tc.reason, tc.wantChanged, changed)
			}
		})
	}
}

func TestSetProgressUnstructured(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"status": map[string]any{
			"observedGeneration": int64(2),
			"conditions": []any{
				map[string]any{"type": "Ready", "status": "False", "reason": "Waiting", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": int64(2)},
			},
		},
	}}
	changed, err := conditions.SetProgressUnstructured(u, 2, conditions.Working, "Creating", "m")
	if err != nil || !changed {
		t.Fatalf("Working: changed %v, err %v", changed, err)
	}
	got, err := conditions.FromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	want := []metav1.Condition{
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Waiting", ObservedGeneration: 2},
		{Type: "Reconciling", Status: metav1.ConditionTrue, Reason: "Creating", Message: "m", ObservedGeneration: 2},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
		t.Errorf("after Working: -want, +got:\n%s", diff)
	}
	if changed, err := conditions.SetProgressUnstructured(u, 2, conditions.Working, "Creating", "m"); err != nil || changed {
		t.Errorf("Working again: changed %v, err %v; want no change", changed, err)
	}
	if changed, err := conditions.SetProgressUnstructured(u, 2, conditions.Done, "", ""); err != nil || !changed {
		t.Errorf("Done: changed %v, err %v", changed, err)
	}
	got, _ = conditions.FromUnstructured(u)
	if diff := cmp.Diff(want[:1], got, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
		t.Errorf("after Done: -want, +got:\n%s", diff)
	}
	if og, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration"); og != 2 {
		t.Errorf("status.observedGeneration: want 2, got %d", og)
	}
}
