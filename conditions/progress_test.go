package conditions_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
