package conditions_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
)

func TestHealth(t *testing.T) {
	c := func(typ string, s metav1.ConditionStatus, reason string, gen int64) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: "detail " + secretDetail, ObservedGeneration: gen}
	}
	synced := c("Synced", "True", "ReconcileSuccess", 3)
	src := func(name string, conds ...metav1.Condition) conditions.Source {
		return conditions.Source{Name: name, Conditions: conds}
	}
	cases := map[string]struct {
		reason   string
		conds    []metav1.Condition
		composed []conditions.Source
		opts     []conditions.SummaryOption
		want     metav1.Condition
	}{
		"Healthy": {
			reason:   "Synced, every reported condition good, every composed resource good.",
			conds:    []metav1.Condition{synced, c("ImageReady", "True", "Available", 3), c("Ready", "False", "Creating", 3)},
			composed: []conditions.Source{src("Deployment web", c("Ready", "True", "Available", 1))},
			want:     metav1.Condition{Type: "Healthy", Status: "True", Reason: "Healthy"},
		},
		"NotSyncedTrumps": {
			reason:   "Synced False wins over bad conditions and resources for the reason; the message names every bad part.",
			conds:    []metav1.Condition{c("Synced", "False", "ReconcileError", 3), c("ImageReady", "False", "NotFound", 3)},
			composed: []conditions.Source{src("Deployment web", c("Ready", "False", "Creating", 1))},
			want:     metav1.Condition{Type: "Healthy", Status: "False", Reason: "NotSynced", Message: "Synced False (ReconcileError); conditions: ImageReady False (NotFound); resources: Deployment web (Ready False, Creating)"},
		},
		"BadCondition": {
			reason: "A False reported condition: its type, status and reason, never its message.",
			conds:  []metav1.Condition{synced, c("ImageReady", "False", "NotFound", 3), c("AppReady", "Unknown", "Pending", 3)},
			want:   metav1.Condition{Type: "Healthy", Status: "False", Reason: "UnhealthyConditions", Message: "conditions: ImageReady False (NotFound)"},
		},
		"ControlPlaneTypesNotReported": {
			reason: "Without Types, the control plane's own types are not the composition's: Ready False, Reconciling True and Stalled True do not count here.",
			conds: []metav1.Condition{synced, c("Ready", "False", "Creating", 3), c("Reconciling", "True", "Working", 3),
				c("Stalled", "True", "X", 3), c("CompositeSynced", "False", "ReconcileError", 3), c("ImageReady", "True", "Available", 3)},
			want: metav1.Condition{Type: "Healthy", Status: "True", Reason: "Healthy"},
		},
		"MissingType": {
			reason: "A type the composition should report and does not is unknown, as in Summarize.",
			conds:  []metav1.Condition{synced},
			opts:   []conditions.SummaryOption{conditions.Types{"ImageReady"}},
			want:   metav1.Condition{Type: "Healthy", Status: "Unknown", Reason: "HealthUnknown", Message: "conditions: ImageReady not reported"},
		},
		"Stale": {
			reason: "A condition of an older generation is unknown, as in Summarize.",
			conds:  []metav1.Condition{synced, c("ImageReady", "True", "Available", 2)},
			opts:   []conditions.SummaryOption{conditions.ObservedGeneration(3)},
			want:   metav1.Condition{Type: "Healthy", Status: "Unknown", Reason: "HealthUnknown", Message: "conditions: ImageReady observed generation 2, not 3", ObservedGeneration: 3},
		},
		"NegativePolarity": {
			reason: "A NegativePolarity type is bad when True.",
			conds:  []metav1.Condition{synced, c("Degraded", "True", "QuotaExceeded", 3)},
			opts:   []conditions.SummaryOption{conditions.NegativePolarity{"Degraded"}},
			want:   metav1.Condition{Type: "Healthy", Status: "False", Reason: "UnhealthyConditions", Message: "conditions: Degraded True (QuotaExceeded)"},
		},
		"BadResources": {
			reason: "Composed resources: Healthy alone when present; otherwise Synced, Ready and Stalled; three names and a count.",
			conds:  []metav1.Condition{synced},
			composed: []conditions.Source{
				src("XDatabase a", c("Healthy", "False", "NotSynced", 1), c("Ready", "True", "Available", 1)),
				src("Bucket b", c("Synced", "False", "ReconcileError", 1), c("Ready", "False", "Creating", 1)),
				src("Deployment c", c("Stalled", "True", "InvalidSpec", 1)),
				src("Deployment d", c("Ready", "False", "", 1)),
				src("ConfigMap e"),
				src("Deployment f", c("Ready", "True", "Available", 1)),
			},
			want: metav1.Condition{Type: "Healthy", Status: "False", Reason: "UnhealthyResources",
				Message: "resources: XDatabase a (Healthy False, NotSynced), Bucket b (Synced False, ReconcileError, Ready False, Creating), Deployment c (Stalled True, InvalidSpec) and 1 more"},
		},
		"UnknownResource": {
			reason:   "A composed resource whose Ready is Unknown makes Healthy Unknown.",
			conds:    []metav1.Condition{synced},
			composed: []conditions.Source{src("Deployment web", c("Ready", "Unknown", "Pending", 1))},
			want:     metav1.Condition{Type: "Healthy", Status: "Unknown", Reason: "HealthUnknown", Message: "resources: Deployment web (Ready Unknown, Pending)"},
		},
		"NothingToJudge": {
			reason: "No Synced, no conditions, no resources: Unknown, never a vacuous True.",
			want:   metav1.Condition{Type: "Healthy", Status: "Unknown", Reason: "NotReported", Message: "nothing reports health"},
		},
		"InvalidReasonNotShown": {
			reason: "A reason that is not a plain word is not quoted.",
			conds:  []metav1.Condition{synced, c("ImageReady", "False", "token=abc", 3)},
			want:   metav1.Condition{Type: "Healthy", Status: "False", Reason: "UnhealthyConditions", Message: "conditions: ImageReady False"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := conditions.Health(tc.conds, tc.composed, tc.opts...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if strings.Contains(got.Message, "10.0.0.7") {
				t.Errorf("%s\nHealthy quotes a condition's message: %q", tc.reason, got.Message)
			}
			if err := conditions.Validate(got); err != nil {
				t.Errorf("%s\nHealthy is not a valid condition: %v", tc.reason, err)
			}
		})
	}
}
