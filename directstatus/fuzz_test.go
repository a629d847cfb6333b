package directstatus_test

import (
	"errors"
	"strconv"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
)

// FuzzOperationID records any ID in a condition whose error text is also
// chosen by the fuzzer, and checks that the condition is valid, its reason
// unchanged, and that the ID reads back exactly.
func FuzzOperationID(f *testing.F) {
	f.Add("operation-123456789", "boom", "spec.size")
	f.Add("projects/p/locations/l/operations/op-1.2", `x; operation: "y"`, "")
	f.Add(`"; operation: "`, "\xff", "spec.labels[a]")
	f.Add("; operation: ", "0", "0")
	f.Add(`a\\"; operation: "b`, "x", "")
	f.Fuzz(func(t *testing.T, id, errText, field string) {
		for _, c := range []metav1.Condition{
			directstatus.Updating(field, directstatus.OperationID(id)),
			directstatus.UpdateFailure(field, errors.New(errText), directstatus.OperationID(id)),
			directstatus.CreateFailure(errors.New(errText), directstatus.OperationID(id)),
		} {
			if err := conditions.Validate(c); err != nil && utf8.ValidString(field) && utf8.ValidString(errText) {
				t.Fatalf("invalid condition %+v: %v", c, err)
			}
			switch c.Reason {
			case directstatus.ReasonUpdating, directstatus.ReasonUpdateFailure, directstatus.ReasonCreateFailure:
			default:
				t.Fatalf("reason %q", c.Reason)
			}
			got, ok := directstatus.ParseOperationID(c.Message)
			recorded := id != "" && len(strconv.Quote(id)) <= directstatus.MaxOperationIDLength
			if recorded && (!ok || string(got) != id) {
				t.Fatalf("ParseOperationID(%q) = %q, %t; want %q", c.Message, got, ok, id)
			}
		}
	})
}
