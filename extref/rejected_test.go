package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestRejectedConditionWithholdsValues: the API server's message for a
// rejected write quotes the value; the condition names the field and the
// kind of problem only.
func TestRejectedConditionWithholdsValues(t *testing.T) {
	const secret = "hunter2-a"
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "example.org", Kind: "Widget"}, "w", field.ErrorList{
		field.Invalid(field.NewPath("spec", "port"), secret, "must be an integer"),
	})
	cases := map[string]struct {
		reason string
		err    error
		want   string
	}{
		"Invalid": {
			reason: "A 422 names each field and its cause type.",
			err:    invalid,
			want:   "the API server rejected the resolved values (422 Invalid): spec.port (FieldValueInvalid); the API server's own message is not repeated, since it may quote a value read from a Secret",
		},
		"BadRequest": {
			reason: "A 400 without causes says only that.",
			err:    apierrors.NewBadRequest(`cannot decode "` + secret + `"`),
			want:   "the API server rejected the resolved values (400 BadRequest); the API server's own message is not repeated, since it may quote a value read from a Secret",
		},
		"Wrapped": {
			reason: "A wrapped status error is found.",
			err:    errors.Join(errors.New("cannot update"), invalid),
			want:   "the API server rejected the resolved values (422 Invalid): spec.port (FieldValueInvalid); the API server's own message is not repeated, since it may quote a value read from a Secret",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := RejectedCondition(tc.err, 3)
			if strings.Contains(got.Message, secret) {
				t.Fatalf("%s\nthe message quotes the value: %q", tc.reason, got.Message)
			}
			if diff := cmp.Diff(tc.want, got.Message); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
