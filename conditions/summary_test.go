package conditions

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSummarize(t *testing.T) {
	c := func(t string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: t0, ObservedGeneration: 4}
	}
	dbTrue := c("DatabaseReady", metav1.ConditionTrue, "Available", "")
	dbFalse := c("DatabaseReady", metav1.ConditionFalse, "Unauthorized", "not authorized")
	imgTrue := c("ImageReady", metav1.ConditionTrue, "Available", "")
	imgFalse := c("ImageReady", metav1.ConditionFalse, "NotFound", "image not found")
	imgUnknown := c("ImageReady", metav1.ConditionUnknown, "Pulling", "pulling the image")
	stalled := c("Stalled", metav1.ConditionTrue, "QuotaExceeded", "quota exceeded")
	notStalled := c("Stalled", metav1.ConditionFalse, "Progressing", "")
	stalledUnknown := c("Stalled", metav1.ConditionUnknown, "Checking", "")
	oldReady := c("Ready", metav1.ConditionFalse, "Creating", "")

	summaryOf := func(s metav1.ConditionStatus, reason, msg string, gen int64) metav1.Condition {
		return metav1.Condition{Type: "Ready", Status: s, Reason: reason, Message: msg, ObservedGeneration: gen}
	}

	cases := map[string]struct {
		reason string
		conds  []metav1.Condition
		opts   []SummaryOption
		want   metav1.Condition
	}{
		"AllTrue": {
			reason: "Every condition True (the old summary aside) gives True.",
			conds:  []metav1.Condition{oldReady, dbTrue, imgTrue},
			want:   summaryOf(metav1.ConditionTrue, ReasonAvailable, "", 0),
		},
		"OneFalse": {
			reason: "A False condition gives False with its reason, and its type in the message.",
			conds:  []metav1.Condition{dbTrue, imgFalse},
			want:   summaryOf(metav1.ConditionFalse, "NotFound", "ImageReady: image not found", 0),
		},
		"TwoFalse": {
			reason: "Every False condition is named; the first in order gives the reason.",
			conds:  []metav1.Condition{imgFalse, dbFalse},
			opts:   []SummaryOption{Types{"DatabaseReady", "ImageReady"}},
			want:   summaryOf(metav1.ConditionFalse, "Unauthorized", "DatabaseReady: not authorized; ImageReady: image not found", 0),
		},
		"FalseBeatsUnknown": {
			reason: "False wins over Unknown.",
			conds:  []metav1.Condition{imgUnknown, dbFalse},
			want:   summaryOf(metav1.ConditionFalse, "Unauthorized", "DatabaseReady: not authorized", 0),
		},
		"Unknown": {
			reason: "An Unknown condition and no bad one gives Unknown with its reason.",
			conds:  []metav1.Condition{dbTrue, imgUnknown},
			want:   summaryOf(metav1.ConditionUnknown, "Pulling", "ImageReady: pulling the image", 0),
		},
		"Missing": {
			reason: "A missing type named in Types gives Unknown.",
			conds:  []metav1.Condition{dbTrue},
			opts:   []SummaryOption{Types{"DatabaseReady", "ImageReady"}},
			want:   summaryOf(metav1.ConditionUnknown, ReasonNotReported, "ImageReady: not reported", 0),
		},
		"TypesLimitTheSummary": {
			reason: "Conditions not named in Types do not count.",
			conds:  []metav1.Condition{dbTrue, imgFalse},
			opts:   []SummaryOption{Types{"DatabaseReady"}},
			want:   summaryOf(metav1.ConditionTrue, ReasonAvailable, "", 0),
		},
		"NegativeTrue": {
			reason: "A True negative-polarity condition gives False, ahead of positive ones.",
			conds:  []metav1.Condition{dbFalse, stalled},
			opts:   []SummaryOption{NegativePolarity{"Stalled"}},
			want:   summaryOf(metav1.ConditionFalse, "QuotaExceeded", "Stalled: quota exceeded; DatabaseReady: not authorized", 0),
		},
		"NegativeFalse": {
			reason: "A False negative-polarity condition is good.",
			conds:  []metav1.Condition{dbTrue, notStalled},
			opts:   []SummaryOption{NegativePolarity{"Stalled", "Degraded"}},
			want:   summaryOf(metav1.ConditionTrue, ReasonAvailable, "", 0),
		},
		"NegativeMissing": {
			reason: "A missing negative-polarity condition is good.",
			conds:  []metav1.Condition{dbTrue},
			opts:   []SummaryOption{NegativePolarity{"Stalled"}, Types{"DatabaseReady"}},
			want:   summaryOf(metav1.ConditionTrue, ReasonAvailable, "", 0),
		},
		"NegativeUnknown": {
			reason: "An Unknown negative-polarity condition gives Unknown.",
			conds:  []metav1.Condition{dbTrue, stalledUnknown},
			opts:   []SummaryOption{NegativePolarity{"Stalled"}},
			want:   summaryOf(metav1.ConditionUnknown, "Checking", "Stalled: Unknown, Checking", 0),
		},
		"NegativeAlsoInTypes": {
			reason: "A type in both Types and NegativePolarity is negative.",
			conds:  []metav1.Condition{dbTrue, notStalled},
			opts:   []SummaryOption{Types{"DatabaseReady", "Stalled"}, NegativePolarity{"Stalled"}},
			want:   summaryOf(metav1.ConditionTrue, ReasonAvailable, "", 0),
		},
		"Generation": {
			reason: "ObservedGeneration becomes the summary's, and current conditions count.",
			conds:  []metav1.Condition{dbTrue, imgTrue},
			opts:   []SummaryOption{ObservedGeneration(4)},
			want:   summaryOf(metav1.ConditionTrue, ReasonAvailable, "", 4),
		},
		"Stale": {
			reason: "A condition observed at an older generation counts as Unknown.",
			conds:  []metav1.Condition{dbTrue, imgTrue},
			opts:   []SummaryOption{ObservedGeneration(5)},
			want:   summaryOf(metav1.ConditionUnknown, ReasonStale, "DatabaseReady: observed generation 4, not 5; ImageReady: observed generation 4, not 5", 5),
		},
		"NoGenerationIsNotStale": {
			reason: "A condition without observedGeneration is not stale.",
			conds:  []metav1.Condition{with(dbTrue, func(c *metav1.Condition) { c.ObservedGeneration = 0 })},
			opts:   []SummaryOption{ObservedGeneration(5)},
			want:   summaryOf(metav1.ConditionTrue, ReasonAvailable, "", 5),
		},
		"Empty": {
			reason: "Nothing to summarize gives Unknown, never a vacuous True.",
			want:   summaryOf(metav1.ConditionUnknown, ReasonNotReported, "no conditions to summarize", 0),
		},
		"OnlyAbsentNegative": {
			reason: "An absent negative-polarity condition alone is nothing to summarize.",
			conds:  []metav1.Condition{oldReady},
			opts:   []SummaryOption{NegativePolarity{"Stalled"}},
			want:   summaryOf(metav1.ConditionUnknown, ReasonNotReported, "no conditions to summarize", 0),
		},
		"SummaryTypeIgnored": {
			reason: "The summary's own type is never summarized, even when named.",
			conds:  []metav1.Condition{oldReady, dbTrue},
			opts:   []SummaryOption{Types{"Ready", "DatabaseReady"}},
			want:   summaryOf(metav1.ConditionTrue, ReasonAvailable, "", 0),
		},
		"RepeatedTypes": {
			reason: "A type named twice counts once.",
			conds:  []metav1.Condition{imgFalse},
			opts:   []SummaryOption{Types{"ImageReady", "ImageReady"}},
			want:   summaryOf(metav1.ConditionFalse, "NotFound", "ImageReady: image not found", 0),
		},
		"BadReasonFalse": {
			reason: "A False condition without a valid reason gives reason Unavailable, so the summary stays valid.",
			conds:  []metav1.Condition{c("ImageReady", metav1.ConditionFalse, "not found", "")},
			want:   summaryOf(metav1.ConditionFalse, ReasonUnavailable, "ImageReady: False, not found", 0),
		},
		"BadReasonUnknown": {
			reason: "An Unknown condition without a reason gives reason NotReported.",
			conds:  []metav1.Condition{c("ImageReady", metav1.ConditionUnknown, "", "")},
			want:   summaryOf(metav1.ConditionUnknown, ReasonNotReported, "ImageReady: Unknown", 0),
		},
		"InvalidStatus": {
			reason: "A condition with an invalid status counts as Unknown.",
			conds:  []metav1.Condition{c("ImageReady", "", "", "")},
			want:   summaryOf(metav1.ConditionUnknown, ReasonNotReported, "ImageReady: no status", 0),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Summarize("Ready", tc.conds, tc.opts...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nSummarize(...): -want, +got:\n%s", tc.reason, diff)
			}
			got.LastTransitionTime = t0
			if err := Validate(got); err != nil {
				t.Errorf("%s\nSummarize(...) is invalid: %v", tc.reason, err)
			}
		})
	}
}

func TestSummarizeLongMessage(t *testing.T) {
	long := strings.Repeat("é", MaxMessageLength/2)
	conds := []metav1.Condition{
		{Type: "A", Status: metav1.ConditionFalse, Reason: "Broken", Message: long},
		{Type: "B", Status: metav1.ConditionFalse, Reason: "Broken", Message: long},
	}
	got := Summarize("Ready", conds)
	if len(got.Message) > MaxMessageLength {
		t.Errorf("Summarize(...): message of %d bytes, want at most %d", len(got.Message), MaxMessageLength)
	}
	if !strings.HasSuffix(got.Message, "é...") {
		t.Errorf("Summarize(...): a cut message should end with a whole rune and \"...\", got %q", got.Message[len(got.Message)-10:])
	}
}
