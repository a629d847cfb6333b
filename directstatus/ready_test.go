package directstatus_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
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
			reason: "The operation ID goes at the end of the message, quoted; the reason stays Updating.",
			got:    directstatus.Updating("spec.foo", directstatus.OperationID("operation-123456789")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating", Message: `Updating resource (first field path: spec.foo); operation: "operation-123456789"`},
		},
		"CreatingWithOperation": {
			reason: "The reason stays Creating.",
			got:    directstatus.Creating(directstatus.OperationID("op_42")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Creating", Message: `Creating resource; operation: "op_42"`},
		},
		"UpdateFailureWithOperation": {
			reason: "The reason stays UpdateFailure, so that reason checks hold.",
			got:    directstatus.UpdateFailure("", errors.New("boom"), directstatus.OperationID("projects/p/operations/x:1.2")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "UpdateFailure", Message: `Failed to update resource (triggered by periodic sync): boom; operation: "projects/p/operations/x:1.2"`},
		},
		"CreateFailureWithOperation": {
			reason: "The reason stays CreateFailure.",
			got:    directstatus.CreateFailure(errors.New("quota"), directstatus.OperationID("op-1")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "CreateFailure", Message: `Failed to create resource: quota; operation: "op-1"`},
		},
		"EmptyOperationID": {
			reason: "An empty operation ID changes nothing.",
			got:    directstatus.UpToDate(directstatus.OperationID("")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "UpToDate", Message: "Resource is up to date"},
		},
		"Deleting": {
			reason: "Config Connector's reason before the delete call.",
			got:    directstatus.Deleting(),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Deleting", Message: "Deleting resource"},
		},
		"DeleteFailed": {
			reason: "A failed delete names the error, like UpdateFailure.",
			got:    directstatus.DeleteFailed(errors.New("googleapi: Error 403: forbidden")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "DeleteFailed", Message: "Failed to delete resource: googleapi: Error 403: forbidden"},
		},
		"DeleteFailedNilError": {
			reason: "A nil error still gives a readable message.",
			got:    directstatus.DeleteFailed(nil),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "DeleteFailed", Message: "Failed to delete resource: unknown error"},
		},
		"DependencyNotReady": {
			reason: "The dependency's error is the message, as Config Connector writes it.",
			got:    directstatus.DependencyNotReady(errors.New("reference ComputeNetwork default/net is not ready")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "DependencyNotReady", Message: "reference ComputeNetwork default/net is not ready"},
		},
		"DependencyNotFound": {
			reason: "The dependency's error is the message.",
			got:    directstatus.DependencyNotFound(errors.New("reference ComputeNetwork default/net is not found")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "DependencyNotFound", Message: "reference ComputeNetwork default/net is not found"},
		},
		"DependencyInvalid": {
			reason: "The dependency's error is the message.",
			got:    directstatus.DependencyInvalid(errors.New("key password not found in Secret default/db")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "DependencyInvalid", Message: "key password not found in Secret default/db"},
		},
		"DependencyNilError": {
			reason: "A nil error still gives a message the API server accepts (it requires none, but an empty one says nothing).",
			got:    directstatus.DependencyNotReady(nil),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "DependencyNotReady", Message: "unknown error"},
		},
		"ManagementConflict": {
			reason: "The conflict's error is the message.",
			got:    directstatus.ManagementConflict(errors.New("resource is managed by another Config Connector installation")),
			want:   metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "ManagementConflict", Message: "resource is managed by another Config Connector installation"},
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
			reason: "An operation ID too long to record is left out.",
			got:    directstatus.Updating("spec.foo", directstatus.OperationID(strings.Repeat("x-", directstatus.MaxOperationIDLength))),
		},
		"HugeErrorAndOperationID": {
			reason: "A long error is cut before the operation ID, which stays whole.",
			got:    directstatus.UpdateFailure("spec.foo", errors.New(strings.Repeat("é", conditions.MaxMessageLength)), directstatus.OperationID("op-1")),
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

// TestOperationIDRoundTrip records IDs of every shape a cloud API may return
// in every condition that takes one, and reads them back exactly, from the
// message and from an object, typed and unstructured.
func TestOperationIDRoundTrip(t *testing.T) {
	ids := []string{
		"operation-123456789",
		"projects/my-project/locations/us-central1/operations/operation-1700000000000-abc.def",
		"op.1/2-3_4:5,6",
		`quote " and backslash \ and "; operation: "fake"`,
		"; operation: \"",
		"ünïcödé-ид-操作",
		"\x00\xff invalid UTF-8 \xc3",
		" spaces ",
		strings.Repeat("a", directstatus.MaxOperationIDLength-2),
	}
	long := errors.New(strings.Repeat("é", conditions.MaxMessageLength) + `; operation: "spoof"`)
	for _, id := range ids {
		for name, c := range map[string]metav1.Condition{
			"Updating":      directstatus.Updating("spec.labels[a]", directstatus.OperationID(id)),
			"Sync":          directstatus.Updating("", directstatus.OperationID(id)),
			"UpdateFailure": directstatus.UpdateFailure("spec.x", errors.New(`boom; operation: "other"`), directstatus.OperationID(id)),
			"LongFailure":   directstatus.UpdateFailure("spec.x", long, directstatus.OperationID(id)),
			"Creating":      directstatus.Creating(directstatus.OperationID(id)),
			"CreateFailure": directstatus.CreateFailure(errors.New("x"), directstatus.OperationID(id)),
		} {
			if err := conditions.Validate(c); err != nil {
				t.Fatalf("%s with ID %q: the API server would reject the condition: %v", name, id, err)
			}
			if strings.Contains(c.Reason, ":") {
				t.Errorf("%s with ID %q: reason %q holds the ID", name, id, c.Reason)
			}
			got, ok := directstatus.ParseOperationID(c.Message)
			if !ok || string(got) != id {
				t.Errorf("%s: ParseOperationID = %q, %t; want %q", name, got, ok, id)
			}

			w := &v1alpha1.Widget{}
			w.Status.Conditions = []metav1.Condition{c}
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w)
			if err != nil {
				t.Fatal(err)
			}
			for _, obj := range []client.Object{w, &unstructured.Unstructured{Object: content}} {
				got, reason, ok, err := directstatus.OperationIDOf(obj)
				if err != nil || !ok || string(got) != id || reason != c.Reason {
					t.Errorf("%s: OperationIDOf(%T) = %q, %q, %t, %v; want %q, %q", name, obj, got, reason, ok, err, id, c.Reason)
				}
			}
		}
	}

	// No ID recorded: none is read, even from an error that looks like one
	// but is followed by more text.
	for _, c := range []metav1.Condition{
		directstatus.UpToDate(),
		directstatus.Updating("spec.x"),
		directstatus.Updating("spec.labels['; operation: \"x\"']"),
	} {
		if got, ok := directstatus.ParseOperationID(c.Message); ok {
			t.Errorf("ParseOperationID(%q) = %q, want none", c.Message, got)
		}
	}
	if _, _, ok, err := directstatus.OperationIDOf(&v1alpha1.Widget{}); ok || err != nil {
		t.Errorf("OperationIDOf of an object without conditions = %t, %v; want false, nil", ok, err)
	}
}
