package extref

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

const notLabel = "its value is not a label value (letters, digits, '-', '_' and '.', beginning and ending with a letter or digit)"

const withheldNote = "; the API server's own message is not repeated, since it may quote a value read from a Secret"

// TestRejectedConditionWithholdsValues: the API server's message for a
// rejected write quotes the value; the condition names the external value,
// its target and the kind of problem only, each once.
func TestRejectedConditionWithholdsValues(t *testing.T) {
	const secret = "hunter2-a"
	gk := schema.GroupKind{Group: "example.org", Kind: "Widget"}
	invalid := func(errs ...*field.Error) error { return apierrors.NewInvalid(gk, "w", errs) }
	wrote := func(index int, target, text string) writtenValue {
		p := fieldpath.MustCompile(target)
		segs := p.Segments()
		return writtenValue{list: "spec.externalValues", index: index, target: p, metadata: segs[0].Field == "metadata", text: text}
	}
	labels := field.NewPath("metadata", "labels")
	cases := map[string]struct {
		reason  string
		written []writtenValue
		err     error
		want    string
	}{
		"Invalid": {
			reason: "A 422 for a field no external value wrote names the field and the problem.",
			err:    invalid(field.Invalid(field.NewPath("spec", "port"), secret, "must be an integer")),
			want:   "the API server rejected the resolved values (422 Invalid): spec.port: an invalid value" + withheldNote,
		},
		"BadRequest": {
			reason: "A 400 without causes says only that.",
			err:    apierrors.NewBadRequest(`cannot decode "` + secret + `"`),
			want:   "the API server rejected the resolved values (400 BadRequest)" + withheldNote,
		},
		"Wrapped": {
			reason:  "A wrapped status error is found.",
			written: []writtenValue{wrote(1, "spec.port", "")},
			err:     errors.Join(errors.New("cannot update"), invalid(field.Invalid(field.NewPath("spec", "port"), secret, "must be an integer"))),
			want:    "the API server rejected the resolved values (422 Invalid): spec.externalValues[1] (to spec.port): an invalid value" + withheldNote,
		},
		"SchemaValidation": {
			reason: "Each cause is mapped to the external value whose target it names, or lies under, with its problem; a limit the API server names is kept.",
			written: []writtenValue{
				wrote(0, "spec.tier", ""), wrote(1, "spec.short", ""), wrote(2, "spec.list", ""),
				wrote(3, "spec.tags[team.example.org/x]", ""), wrote(4, "spec.fine", ""),
			},
			err: invalid(
				field.NotSupported(field.NewPath("spec", "tier"), secret, []string{"gold", "silver"}),
				field.TooLong(field.NewPath("spec", "short"), secret, 5),
				field.Invalid(field.NewPath("spec", "list").Index(1), secret, "should match '^[a-z]+$'"),
				field.Invalid(field.NewPath("spec", "tags").Child("team.example.org/x"), secret, "got "+secret),
			),
			want: "the API server rejected the resolved values (422 Invalid): " +
				"spec.externalValues[0] (to spec.tier): not one of the supported values; " +
				"spec.externalValues[1] (to spec.short): longer than 5 bytes; " +
				"spec.externalValues[2] (to spec.list): an invalid value; " +
				"spec.externalValues[3] (to spec.tags[team.example.org/x]): an invalid value" + withheldNote,
		},
		"Labels": {
			reason: "The API server names the labels, not the label: the labels written that break its rules are named, each problem once, whatever the number of causes.",
			written: []writtenValue{
				wrote(0, "metadata.labels[ok]", "fine"),
				wrote(1, "metadata.labels[app]", "bad value "+secret),
				wrote(2, "metadata[labels][tier]", strings.Repeat("x", 64)),
				wrote(3, "spec.x", ""),
				wrote(4, "metadata.labels[x]", strings.Repeat("x", 64)+"-"),
			},
			err: invalid(
				field.Invalid(labels, "bad value "+secret, "a valid label must ..."),
				field.Invalid(labels, strings.Repeat("x", 64), "must be no more than 63 bytes"),
				field.Invalid(labels, "bad value "+secret, "a valid label must ..."),
			),
			want: "the API server rejected the resolved values (422 Invalid): " +
				"spec.externalValues[1] (to metadata.labels[app]): " + notLabel + "; " +
				"spec.externalValues[2] (to metadata[labels][tier]): its value is longer than 63 bytes; " +
				"spec.externalValues[4] (to metadata.labels[x]): its value is longer than 63 bytes, " + notLabel + withheldNote,
		},
		"LabelsOtherRule": {
			reason:  "Labels refused by a rule of the API server's that they pass here are all named.",
			written: []writtenValue{wrote(0, "metadata.labels[a]", "x"), wrote(1, "spec.x", ""), wrote(2, "metadata.labels[b]", "y")},
			err:     invalid(field.Forbidden(labels, "a policy says no to "+secret)),
			want: "the API server rejected the resolved values (422 Invalid): " +
				"spec.externalValues[0] (to metadata.labels[a]): forbidden; spec.externalValues[2] (to metadata.labels[b]): forbidden" + withheldNote,
		},
		"WholeObject": {
			reason:  "A rule of the object as a whole (<nil>) names every value written.",
			written: []writtenValue{wrote(0, "spec.a", ""), wrote(1, "metadata.annotations[x]", "z")},
			err:     invalid(&field.Error{Type: field.ErrorTypeInvalid, Field: "<nil>", BadValue: secret, Detail: "root says " + secret}),
			want: "the API server rejected the resolved values (422 Invalid): " +
				"spec.externalValues[0] (to spec.a): an invalid value; spec.externalValues[1] (to metadata.annotations[x]): an invalid value" + withheldNote,
		},
		"Spec": {
			reason:  "A rule of spec names every value written under it.",
			written: []writtenValue{wrote(0, "spec.a", ""), wrote(1, "metadata.annotations[x]", "z"), wrote(2, "spec.b[0]", "")},
			err:     invalid(field.Invalid(field.NewPath("spec"), secret, "failed rule")),
			want: "the API server rejected the resolved values (422 Invalid): " +
				"spec.externalValues[0] (to spec.a): an invalid value; spec.externalValues[2] (to spec.b[0]): an invalid value" + withheldNote,
		},
		"RulesNotChecked": {
			reason:  "The API server's note that it did not check the object's own rules, since fields were invalid, blames no value.",
			written: []writtenValue{wrote(0, "spec.a", ""), wrote(1, "spec.b", "")},
			err: invalid(
				field.NotSupported(field.NewPath("spec", "b"), secret, []string{"gold"}),
				&field.Error{Type: field.ErrorTypeInvalid, Field: "<nil>", BadValue: nil, Detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"},
			),
			want: "the API server rejected the resolved values (422 Invalid): spec.externalValues[1] (to spec.b): not one of the supported values" + withheldNote,
		},
		"WholeObjectNothingWritten": {
			reason: "A rule of the whole object with no value written names the referencer.",
			err:    invalid(&field.Error{Type: field.ErrorTypeInvalid, Field: "<nil>", BadValue: secret, Detail: secret}),
			want:   "the API server rejected the resolved values (422 Invalid): the referencer: an invalid value" + withheldNote,
		},
		"Within": {
			reason:  "A cause under a target written as a whole, and one holding a target, are the value's.",
			written: []writtenValue{wrote(0, "spec.forProvider", ""), wrote(1, "spec.list[2].name", "")},
			err: invalid(
				field.TypeInvalid(field.NewPath("spec", "forProvider", "size"), secret, "must be of type integer: "+secret),
				field.TooMany(field.NewPath("spec", "list"), 9, 3),
			),
			want: "the API server rejected the resolved values (422 Invalid): " +
				"spec.externalValues[0] (to spec.forProvider): a value of the wrong type; spec.externalValues[1] (to spec.list[2].name): more than 3 items" + withheldNote,
		},
		"PrefixOnly": {
			reason:  "A field that only begins like a target is another field.",
			written: []writtenValue{wrote(0, "spec.port", "")},
			err:     invalid(field.Required(field.NewPath("spec", "portName"), "")),
			want:    "the API server rejected the resolved values (422 Invalid): spec.portName: required" + withheldNote,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := RejectedCondition(Outcome{written: tc.written}, tc.err, 3)
			if strings.Contains(got.Message, secret) || strings.Contains(got.Message, "xxxxxxxx") {
				t.Fatalf("%s\nthe message quotes the value: %q", tc.reason, got.Message)
			}
			if diff := cmp.Diff(tc.want, got.Message); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if got.Reason != ReasonWriteRejected || got.Status != metav1.ConditionFalse || got.ObservedGeneration != 3 {
				t.Errorf("%s\nwant False/%s for 3, got %s/%s for generation %d", tc.reason, ReasonWriteRejected, got.Status, got.Reason, got.ObservedGeneration)
			}
		})
	}
}
