package directstatus_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
)

func TestConditions(t *testing.T) {
	cases := map[string]struct {
		reason string
		got    metav1.Condition
		want   metav1.Condition
	}{
		"Updating": {
			reason: "The design's table: Updating names the first field path.",
			got:    directstatus.Updating("spec.foo"),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating", Message: "Updating resource (first field path: spec.foo)"},
		},
		"UpdatingDescription": {
			reason: "The design's example message.",
			got:    directstatus.Updating("spec.description"),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating", Message: "Updating resource (first field path: spec.description)"},
		},
		"UpdatingPeriodicSync": {
			reason: "No field triggered the update: the design's generic message.",
			got:    directstatus.Updating(""),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating", Message: "Updating resource (triggered by periodic sync)"},
		},
		"UpToDate": {
			reason: "The design's table: successful completion.",
			got:    directstatus.UpToDate(),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "UpToDate", Message: "Resource is up to date"},
		},
		"UpdateFailure": {
			reason: "The design's table: the first field path and the error message.",
			got:    directstatus.UpdateFailure("spec.foo", errors.New("googleapi: Error 400: invalid label")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "UpdateFailure", Message: "Failed to update resource (first field path: spec.foo): googleapi: Error 400: invalid label"},
		},
		"UpdateFailurePeriodicSync": {
			reason: "A failed periodic sync says so instead of naming a field.",
			got:    directstatus.UpdateFailure("", errors.New("boom")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "UpdateFailure", Message: "Failed to update resource (triggered by periodic sync): boom"},
		},
		"UpdateFailureNilError": {
			reason: "A nil error still gives a readable message.",
			got:    directstatus.UpdateFailure("spec.foo", nil),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "UpdateFailure", Message: "Failed to update resource (first field path: spec.foo): unknown error"},
		},
		"Creating": {
			reason: "Creating has no field to name.",
			got:    directstatus.Creating(),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Creating", Message: "Creating resource"},
		},
		"CreateFailure": {
			reason: "CreateFailure carries the error.",
			got:    directstatus.CreateFailure(errors.New("quota exceeded")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "CreateFailure", Message: "Failed to create resource: quota exceeded"},
		},
		"UpdatingWithOperation": {
			reason: "The design's LRO reason, with the characters a reason cannot hold replaced, and the ID verbatim in the message.",
			got:    directstatus.Updating("spec.foo", directstatus.OperationID("operation-123456789")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating:operation_123456789", Message: "Updating resource (first field path: spec.foo); operation: operation-123456789"},
		},
		"OperationIDAlreadyValid": {
			reason: "An ID made of reason characters is kept as it is.",
			got:    directstatus.Creating(directstatus.OperationID("op_42")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Creating:op_42", Message: "Creating resource; operation: op_42"},
		},
		"OperationIDTrailingColon": {
			reason: "A reason must not end with ':' or ','.",
			got:    directstatus.Updating("", directstatus.OperationID("projects/p/operations/x:")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating:projects_p_operations_x_", Message: "Updating resource (triggered by periodic sync); operation: projects/p/operations/x:"},
		},
		"EmptyOperationID": {
			reason: "An empty operation ID changes nothing.",
			got:    directstatus.UpToDate(directstatus.OperationID("")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "UpToDate", Message: "Resource is up to date"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if err := conditions.Validate(tc.got); err != nil {
				t.Errorf("%s\nthe API server would reject the condition: %v", tc.reason, err)
			}
		})
	}
}

func TestConditionLimits(t *testing.T) {
	cases := map[string]struct {
		reason string
		got    metav1.Condition
	}{
		"HugeError": {
			reason: "An error longer than a message may be is cut on a rune boundary.",
			got:    directstatus.UpdateFailure("spec.foo", errors.New(strings.Repeat("é", conditions.MaxMessageLength))),
		},
		"HugeOperationID": {
			reason: "An operation ID longer than a reason may be is cut.",
			got:    directstatus.Updating("spec.foo", directstatus.OperationID(strings.Repeat("x-", conditions.MaxReasonLength))),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := conditions.Validate(tc.got); err != nil {
				t.Errorf("%s\nthe API server would reject the condition: %v", tc.reason, err)
			}
			if !utf8.ValidString(tc.got.Message) {
				t.Errorf("%s\nthe message is not valid UTF-8", tc.reason)
			}
		})
	}
}
