package conformance

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestArgoCDHealthCases runs docs/health/ctrlkit.lua on objects written by
// hand, one per case the check distinguishes; TestHealth runs it on what the
// controllers write.
func TestArgoCDHealthCases(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    string
		want   string
	}{
		"NoStatus": {
			reason: "An object not reconciled yet (and without the CRD's default) is Progressing.",
			obj:    `{"metadata": {"generation": 1}}`,
			want:   "Progressing",
		},
		"DefaultedStatus": {
			reason: "The CRD's default observedGeneration 0 is a generation not yet observed.",
			obj:    `{"metadata": {"generation": 1}, "status": {"observedGeneration": 0}}`,
			want:   "Progressing",
		},
		"OlderGeneration": {
			reason: "A status that describes an older spec is not trusted.",
			obj: `{"metadata": {"generation": 2}, "status": {"observedGeneration": 1,
				"conditions": [{"type": "Ready", "status": "True", "reason": "Scheduled", "observedGeneration": 1}]}}`,
			want: "Progressing",
		},
		"NoReady": {
			reason: "A status without Ready is Progressing.",
			obj:    `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1}}`,
			want:   "Progressing",
		},
		"Reconciling": {
			reason: "Ready=Unknown with Reconciling=True is Progressing.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1, "conditions": [
				{"type": "Ready", "status": "Unknown", "reason": "AwaitingSchedule", "observedGeneration": 1},
				{"type": "Reconciling", "status": "True", "reason": "AwaitingSchedule", "observedGeneration": 1}]}}`,
			want: "Progressing",
		},
		"ReadyFalse": {
			reason: "Ready=False is on its way, not a failure.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1, "conditions": [
				{"type": "Ready", "status": "False", "reason": "Scheduled", "observedGeneration": 1}]}}`,
			want: "Progressing",
		},
		"Ready": {
			reason: "Ready=True at the current generation is Healthy.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1, "conditions": [
				{"type": "Ready", "status": "True", "reason": "Scheduled", "observedGeneration": 1}]}}`,
			want: "Healthy",
		},
		"ReadyOlderCondition": {
			reason: "A Ready condition observed at an older generation is not Healthy.",
			obj: `{"metadata": {"generation": 2}, "status": {"observedGeneration": 2, "conditions": [
				{"type": "Ready", "status": "True", "reason": "Scheduled", "observedGeneration": 1}]}}`,
			want: "Progressing",
		},
		"Stalled": {
			reason: "Stalled=True is Degraded.",
			obj: `{"metadata": {"generation": 3}, "status": {"observedGeneration": 3, "conditions": [
				{"type": "Ready", "status": "False", "reason": "InvalidSpec", "observedGeneration": 3},
				{"type": "Stalled", "status": "True", "reason": "InvalidSpec", "observedGeneration": 3}]}}`,
			want: "Degraded",
		},
		"SyncedFalse": {
			reason: "Synced=False is Degraded whatever Ready says, as Argo CD's check for Crossplane's kinds.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1, "conditions": [
				{"type": "Ready", "status": "True", "reason": "Scheduled", "observedGeneration": 1},
				{"type": "Synced", "status": "False", "reason": "ConnectionSecretFailed", "observedGeneration": 1}]}}`,
			want: "Degraded",
		},
		"Deleting": {
			reason: "An object being deleted is Progressing.",
			obj: `{"metadata": {"generation": 1, "deletionTimestamp": "2026-01-01T00:00:00Z"}, "status": {"observedGeneration": 1, "conditions": [
				{"type": "Ready", "status": "False", "reason": "Deleting", "observedGeneration": 1}]}}`,
			want: "Progressing",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := &unstructured.Unstructured{}
			if err := json.Unmarshal([]byte(tc.obj), &u.Object); err != nil {
				t.Fatal(err)
			}
			got, err := argoHealth(u, "ctrlkit.lua")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
