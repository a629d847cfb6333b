package conditions_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/conditions"
)

func cond(t string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg}
}

func src(name string, conds ...metav1.Condition) conditions.Source {
	return conditions.Source{Name: name, Conditions: conds}
}

func TestAggregate(t *testing.T) {
	ready := func(s metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return cond("Ready", s, reason, msg)
	}
	cases := map[string]struct {
		reason  string
		sources []conditions.Source
		opts    []conditions.AggregateOption
		want    metav1.Condition
	}{
		"None": {
			reason: "nothing to aggregate is Unknown",
			want:   cond("WorkloadsReady", metav1.ConditionUnknown, conditions.ReasonNotReported, "no objects to aggregate"),
		},
		"AllGood": {
			reason:  "every source good is True, Available",
			sources: []conditions.Source{src("web", ready("True", "Ready", "")), src("db", ready("True", "Ready", ""))},
			opts:    []conditions.AggregateOption{conditions.ObservedGeneration(4)},
			want:    metav1.Condition{Type: "WorkloadsReady", Status: metav1.ConditionTrue, Reason: conditions.ReasonAvailable, ObservedGeneration: 4},
		},
		"OneBad": {
			reason: "one bad source gives its reason and message, named",
			sources: []conditions.Source{src("web", ready("True", "Ready", "")), src("db", ready("False", "NotEnoughReplicas", "0/3 ready")),
				src("cache")},
			want: cond("WorkloadsReady", metav1.ConditionFalse, "NotEnoughReplicas", "db: 0/3 ready; cache: not reported"),
		},
		"SameMessageGrouped": {
			reason: "sources with one message are named together, worst first; one shared reason is kept",
			sources: []conditions.Source{src("a", ready("Unknown", "Pending", "waiting")), src("b", ready("False", "Down", "gone")),
				src("c", ready("False", "Down", "gone")), src("d", ready("Unknown", "Pending", "waiting"))},
			want: cond("WorkloadsReady", metav1.ConditionFalse, "Down", "b, c: gone; a, d: waiting"),
		},
		"ManyNames": {
			reason: "a group names three sources and counts the rest",
			sources: []conditions.Source{src("a", ready("False", "Down", "gone")), src("b", ready("False", "Down", "gone")),
				src("c", ready("False", "Down", "gone")), src("d", ready("False", "Down", "gone")), src("e", ready("False", "Down", "gone"))},
			want: cond("WorkloadsReady", metav1.ConditionFalse, "Down", "a, b, c and 2 more: gone"),
		},
		"MultipleIssues": {
			reason:  "bad sources with different reasons give MultipleIssues",
			sources: []conditions.Source{src("a", ready("False", "Down", "gone")), src("b", ready("False", "Quota", "no quota"))},
			want:    cond("WorkloadsReady", metav1.ConditionFalse, conditions.ReasonMultipleIssues, "a: gone; b: no quota"),
		},
		"MultipleUnknown": {
			reason:  "unknown sources with different reasons and none bad give MultipleUnknown",
			sources: []conditions.Source{src("a", ready("Unknown", "Pending", "")), src("b")},
			want:    cond("WorkloadsReady", metav1.ConditionUnknown, conditions.ReasonMultipleUnknown, "a: Unknown, Pending; b: not reported"),
		},
		"NegativePolarity": {
			reason: "with NegativePolarity True is bad and False good",
			sources: []conditions.Source{src("a", cond("Stalled", "True", "QuotaExceeded", "no quota")),
				src("b", cond("Stalled", "False", "Fine", ""))},
			opts: []conditions.AggregateOption{conditions.NegativePolarity{"Stalled"}},
			want: cond("AnyStalled", metav1.ConditionFalse, "QuotaExceeded", "a: no quota"),
		},
		"InvalidReason": {
			reason:  "a source's invalid reason does not make the aggregate invalid",
			sources: []conditions.Source{src("a", ready("False", "not a reason!", "broken"))},
			want:    cond("WorkloadsReady", metav1.ConditionFalse, conditions.ReasonUnavailable, "a: broken"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			source, target := "Ready", tc.want.Type
			if name == "NegativePolarity" {
				source = "Stalled"
			}
			got := conditions.Aggregate(target, source, tc.sources, tc.opts...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nAggregate: -want, +got:\n%s", tc.reason, diff)
			}
			if err := conditions.Validate(got); err != nil {
				t.Errorf("the aggregate is not a valid condition: %v", err)
			}
		})
	}
}

func TestAggregateMessageBounded(t *testing.T) {
	var sources []conditions.Source
	for i := range 10000 {
		sources = append(sources, src(strings.Repeat("n", 60)+string(rune('a'+i%26)), cond("Ready", "False", "Down", strings.Repeat("m", 100)+string(rune('a'+i%26))+strings.Repeat("x", i%7))))
	}
	got := conditions.Aggregate("WorkloadsReady", "Ready", sources)
	if len(got.Message) > conditions.MaxMessageLength {
		t.Errorf("message of %d bytes, want at most %d", len(got.Message), conditions.MaxMessageLength)
	}
	if err := conditions.Validate(got); err != nil {
		t.Error(err)
	}
}

func TestMirror(t *testing.T) {
	kcp := src("KubeadmControlPlane kcp", cond("Ready", "False", "ScalingUp", "1 of 3 machines ready"), cond("Odd", "Maybe", "", ""))
	cases := map[string]struct {
		reason string
		source conditions.Source
		from   string
		opts   []conditions.MirrorOption
		want   metav1.Condition
	}{
		"Copied": {
			reason: "status and reason copied, the message prefixed with the source's name, the mirroring object's generation",
			source: kcp, from: "Ready", opts: []conditions.MirrorOption{conditions.ObservedGeneration(7)},
			want: metav1.Condition{Type: "ControlPlaneReady", Status: metav1.ConditionFalse, Reason: "ScalingUp",
				Message: "KubeadmControlPlane kcp: 1 of 3 machines ready", ObservedGeneration: 7},
		},
		"Missing": {
			reason: "a missing condition is Unknown, NotReported",
			source: kcp, from: "Available",
			want: cond("ControlPlaneReady", metav1.ConditionUnknown, conditions.ReasonNotReported, "KubeadmControlPlane kcp: Available not reported"),
		},
		"Fallback": {
			reason: "a missing condition gives the fallback under the target type",
			source: kcp, from: "Available",
			opts: []conditions.MirrorOption{conditions.Fallback(cond("Whatever", metav1.ConditionFalse, "NoControlPlane", "no control plane yet")), conditions.ObservedGeneration(2)},
			want: metav1.Condition{Type: "ControlPlaneReady", Status: metav1.ConditionFalse, Reason: "NoControlPlane", Message: "no control plane yet", ObservedGeneration: 2},
		},
		"InvalidStatus": {
			reason: "an invalid status becomes Unknown, NotReported",
			source: kcp, from: "Odd",
			want: cond("ControlPlaneReady", metav1.ConditionUnknown, conditions.ReasonNotReported, ""),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := conditions.Mirror("ControlPlaneReady", tc.from, tc.source, tc.opts...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nMirror: -want, +got:\n%s", tc.reason, diff)
			}
			if err := conditions.Validate(got); err != nil {
				t.Errorf("the mirror is not a valid condition: %v", err)
			}
		})
	}
}

func TestPatch(t *testing.T) {
	a1, a2 := cond("A", "False", "Working", ""), cond("A", "True", "Done", "")
	b1, b2 := cond("B", "False", "Working", ""), cond("B", "True", "Done", "")
	c1 := cond("C", "True", "Here", "")
	cases := map[string]struct {
		reason                string
		before, after, latest []metav1.Condition
		opts                  []conditions.PatchOption
		want                  []metav1.Condition
		wantChanged           bool
		wantErr               error
	}{
		"OtherWriterKept": {
			reason: "a writer's change to A keeps another's change to B",
			before: []metav1.Condition{a1, b1}, after: []metav1.Condition{a2, b1}, latest: []metav1.Condition{a1, b2},
			want: []metav1.Condition{a2, b2}, wantChanged: true,
		},
		"AddAndRemove": {
			reason: "a type added and one removed by the patch, beside another writer's",
			before: []metav1.Condition{a1}, after: []metav1.Condition{c1}, latest: []metav1.Condition{a1, b1},
			want: []metav1.Condition{b1, c1}, wantChanged: true,
		},
		"AlreadyThere": {
			reason: "a change already in latest is no change",
			before: []metav1.Condition{a1}, after: []metav1.Condition{a2}, latest: []metav1.Condition{a2, b1},
			want: []metav1.Condition{a2, b1},
		},
		"Conflict": {
			reason: "both writers changed A: a conflict, nothing changed",
			before: []metav1.Condition{a1, b1}, after: []metav1.Condition{a2, b2}, latest: []metav1.Condition{cond("A", "Unknown", "Other", ""), b1},
			want: []metav1.Condition{cond("A", "Unknown", "Other", ""), b1}, wantErr: conditions.ErrConflict,
		},
		"Owned": {
			reason: "an Owned type is written over another writer's change",
			before: []metav1.Condition{a1}, after: []metav1.Condition{a2}, latest: []metav1.Condition{cond("A", "Unknown", "Other", "")},
			opts: []conditions.PatchOption{conditions.Owned{"A"}},
			want: []metav1.Condition{a2}, wantChanged: true,
		},
		"RemovedMeanwhile": {
			reason: "a type the patch changes that another writer removed is a conflict",
			before: []metav1.Condition{a1}, after: []metav1.Condition{a2}, latest: nil,
			wantErr: conditions.ErrConflict,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := conditions.NewPatch(tc.before, tc.after)
			got := append([]metav1.Condition(nil), tc.latest...)
			changed, err := p.Apply(&got, tc.opts...)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s\nApply: error %v, want %v", tc.reason, err, tc.wantErr)
			}
			if changed != tc.wantChanged {
				t.Errorf("%s\nApply: changed %t, want %t", tc.reason, changed, tc.wantChanged)
			}
			if !conditions.Equal(got, tc.want) {
				t.Errorf("%s\nApply: want %v, got %v", tc.reason, tc.want, got)
			}
		})
	}
	if !conditions.NewPatch([]metav1.Condition{a1}, []metav1.Condition{a1}).IsZero() {
		t.Error("a patch between equal lists is not zero")
	}
}

func TestPatchUnstructured(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "A", "status": "False", "reason": "Working", "lastTransitionTime": "2024-01-02T03:04:05Z", "extra": "kept"},
		map[string]any{"type": "B", "status": "True", "reason": "Done", "lastTransitionTime": "2024-01-02T03:04:05Z", "extra": "kept"},
	}}}}
	before, _ := conditions.FromUnstructured(u)
	after := append([]metav1.Condition(nil), before...)
	conditions.Set(&after, cond("A", "True", "Done", ""))
	changed, err := conditions.NewPatch(before, after).ApplyUnstructured(u)
	if err != nil || !changed {
		t.Fatalf("ApplyUnstructured: %t, %v", changed, err)
	}
	got, _ := conditions.FromUnstructured(u)
	if !conditions.IsTrue(got, "A") || !conditions.IsTrue(got, "B") {
		t.Errorf("got %v", got)
	}
	entries := u.Object["status"].(map[string]any)["conditions"].([]any)
	if entries[1].(map[string]any)["extra"] != "kept" {
		t.Error("an unknown key of a condition the patch does not change was lost")
	}

	// A conflict leaves u as it was.
	conflicting := conditions.NewPatch(before, []metav1.Condition{cond("A", "Unknown", "X", ""), before[1]})
	snapshot := u.DeepCopy()
	if _, err := conflicting.ApplyUnstructured(u); !errors.Is(err, conditions.ErrConflict) {
		t.Errorf("ApplyUnstructured of a conflicting patch: %v", err)
	}
	if diff := cmp.Diff(snapshot.Object, u.Object); diff != "" {
		t.Errorf("a conflict changed u:\n%s", diff)
	}
}
