package conditions

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate(t *testing.T) {
	valid := metav1.Condition{Type: "DatabaseReady", Status: metav1.ConditionTrue, Reason: "Available"}
	cases := map[string]struct {
		reason string
		c      metav1.Condition
		want   string // the error message; "" for none
	}{
		"Valid": {
			reason: "A plain condition is valid; lastTransitionTime is not required.",
			c:      valid,
		},
		"PrefixedType": {
			reason: "A type may have a DNS subdomain prefix.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = "db.example.com/Ready-2_x.y" }),
		},
		"LongestType": {
			reason: "A type of 316 characters is valid.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = strings.Repeat("a", 252) + "/" + strings.Repeat("B", 63) }),
		},
		"ReasonWithPunctuation": {
			reason: "A reason may contain '_', ',' and ':', and end with '_'.",
			c:      with(valid, func(c *metav1.Condition) { c.Reason = "Reason_A,ReasonB:C_" }),
		},
		"LongestReasonAndMessage": {
			reason: "A reason of 1024 and a message of 32768 bytes are valid.",
			c: with(valid, func(c *metav1.Condition) {
				c.Reason, c.Message = "R"+strings.Repeat("r", 1023), strings.Repeat("m", 32768)
			}),
		},
		"EmptyType": {
			reason: "The type is required.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = "" }),
			want:   `invalid condition: type: must not be empty`,
		},
		"TypeWithSpace": {
			reason: "A type is a qualified name.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = "Database Ready" }),
			want:   `invalid condition: type: name part (a string of 14 bytes) must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. "Ready", "example.com/DatabaseReady")`,
		},
		"TypeEndsWithDash": {
			reason: "The name part ends with a letter or digit.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = "Ready-" }),
			want:   `invalid condition: type: name part (a string of 6 bytes) must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. "Ready", "example.com/DatabaseReady")`,
		},
		"TypeNameTooLong": {
			reason: "The name part has at most 63 characters.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = strings.Repeat("a", 64) }),
			want:   `invalid condition: type: name part (a string of 64 bytes) must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. "Ready", "example.com/DatabaseReady")`,
		},
		"TypeUpperCasePrefix": {
			reason: "The prefix is a lower-case DNS subdomain.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = "Example.com/Ready" }),
			want:   `invalid condition: type: prefix (a string of 11 bytes): must be a lower-case DNS subdomain (e.g. "example.com")`,
		},
		"TypeEmptyLabel": {
			reason: "The prefix has no empty labels.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = "example..com/Ready" }),
			want:   `invalid condition: type: prefix (a string of 12 bytes): must be a lower-case DNS subdomain (e.g. "example.com")`,
		},
		"TypeTwoSlashes": {
			reason: "A type has at most one '/'.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = "a/b/Ready" }),
			want:   `invalid condition: type: name part (a string of 7 bytes) must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. "Ready", "example.com/DatabaseReady")`,
		},
		"TypeEmptyPrefix": {
			reason: "A '/' needs a prefix before it.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = "/Ready" }),
			want:   `invalid condition: type: prefix (a string of 0 bytes): must be a lower-case DNS subdomain (e.g. "example.com") of 1-253 characters`,
		},
		"TypeTooLong": {
			reason: "A type has at most 316 characters, though prefix and name limits would allow 317.",
			c:      with(valid, func(c *metav1.Condition) { c.Type = strings.Repeat("a", 253) + "/" + strings.Repeat("B", 63) }),
			want:   `invalid condition: type: must be at most 316 characters, not 317`,
		},
		"StatusEmpty": {
			reason: "The status is required.",
			c:      with(valid, func(c *metav1.Condition) { c.Status = "" }),
			want:   `invalid condition: status: must be True, False or Unknown, not empty`,
		},
		"StatusLowerCase": {
			reason: "Statuses are case-sensitive.",
			c:      with(valid, func(c *metav1.Condition) { c.Status = "true" }),
			want:   `invalid condition: status (a string of 4 bytes): must be True, False or Unknown`,
		},
		"ReasonEmpty": {
			reason: "The reason is required.",
			c:      with(valid, func(c *metav1.Condition) { c.Reason = "" }),
			want:   `invalid condition: reason: must not be empty`,
		},
		"ReasonStartsWithDigit": {
			reason: "A reason starts with a letter.",
			c:      with(valid, func(c *metav1.Condition) { c.Reason = "1Reason" }),
			want:   `invalid condition: reason (a string of 7 bytes): must start with a letter, contain only letters, digits, '_', ',' and ':', and end with a letter, digit or '_' (e.g. "NotFound")`,
		},
		"ReasonEndsWithColon": {
			reason: "A reason does not end with ':' or ','.",
			c:      with(valid, func(c *metav1.Condition) { c.Reason = "Updating:" }),
			want:   `invalid condition: reason (a string of 9 bytes): must start with a letter, contain only letters, digits, '_', ',' and ':', and end with a letter, digit or '_' (e.g. "NotFound")`,
		},
		"ReasonWithDash": {
			reason: "A reason has no '-' (an LRO id must be written without one).",
			c:      with(valid, func(c *metav1.Condition) { c.Reason = "Updating:operation-1" }),
			want:   `invalid condition: reason (a string of 20 bytes): must start with a letter, contain only letters, digits, '_', ',' and ':', and end with a letter, digit or '_' (e.g. "NotFound")`,
		},
		"ReasonTooLong": {
			reason: "A reason has at most 1024 characters.",
			c:      with(valid, func(c *metav1.Condition) { c.Reason = strings.Repeat("R", 1025) }),
			want:   `invalid condition: reason: must be at most 1024 characters, not 1025`,
		},
		"MessageTooLong": {
			reason: "A message has at most 32768 bytes.",
			c:      with(valid, func(c *metav1.Condition) { c.Message = strings.Repeat("é", 16385) }),
			want:   `invalid condition: message: must be at most 32768 bytes, not 32770`,
		},
		"NegativeGeneration": {
			reason: "observedGeneration is not negative.",
			c:      with(valid, func(c *metav1.Condition) { c.ObservedGeneration = -1 }),
			want:   `invalid condition: observedGeneration: must not be negative`,
		},
		"Everything": {
			reason: "Every broken rule is named, in one error.",
			c:      metav1.Condition{Type: "a b", Status: "Maybe", ObservedGeneration: -2},
			want: `invalid condition: type: name part (a string of 3 bytes) must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. "Ready", "example.com/DatabaseReady"); ` +
				`status (a string of 5 bytes): must be True, False or Unknown; reason: must not be empty; observedGeneration: must not be negative`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := Validate(tc.c)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("%s\nValidate(...): the error should wrap ErrInvalid", tc.reason)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			// apimachinery agrees, except on the 317-character type that
			// the CRD schema of metav1.Condition rejects.
			c := tc.c
			c.LastTransitionTime = t0
			apiErrs := metav1validation.ValidateCondition(c, field.NewPath("c"))
			if (len(apiErrs) == 0) != (err == nil) && name != "TypeTooLong" {
				t.Errorf("%s\nValidate(...) = %v, but apimachinery says %v", tc.reason, err, apiErrs)
			}
		})
	}
}

// FuzzValidate checks that Validate agrees with apimachinery's
// ValidateCondition, and never panics.
func FuzzValidate(f *testing.F) {
	f.Add("Ready", "True", "Available", "ok", int64(1))
	f.Add("example.com/DatabaseReady", "False", "Not_Found:x,y", "", int64(0))
	f.Add("a.b-c/D_e.f", "Unknown", "R_", "m", int64(-1))
	f.Add("/x", "Maybe", "1", "", int64(3))
	f.Add("Ex.com/x", "", "a-b", "", int64(3))
	f.Fuzz(func(t *testing.T, typ, status, reason, message string, gen int64) {
		c := metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: message, ObservedGeneration: gen, LastTransitionTime: t0}
		err := Validate(c)
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("Validate(%+v): %v does not wrap ErrInvalid", c, err)
		}
		if len(typ) > MaxTypeLength {
			return // apimachinery leaves this to the CRD schema.
		}
		apiErrs := metav1validation.ValidateCondition(c, field.NewPath("c"))
		if (len(apiErrs) == 0) != (err == nil) {
			t.Fatalf("Validate(%+v) = %v, but apimachinery says %v", c, err, apiErrs)
		}
	})
}
