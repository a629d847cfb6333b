package tour

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func withConditions(kind, namespace, name string, conds ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("example.ctrlkit.dev/v1alpha1")
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	list := make([]any, len(conds))
	for i, c := range conds {
		list[i] = c
	}
	_ = unstructured.SetNestedSlice(u.Object, list, "status", "conditions")
	return u
}

func cond(typ, status, reason, message string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": "2026-01-02T03:04:05Z"}
}

func TestTimelineObserve(t *testing.T) {
	type seen struct{ Kind, Object, Type, Status, Reason string }
	cases := map[string]struct {
		reason  string
		objects []*unstructured.Unstructured
		want    []seen
	}{
		"FirstSight": {
			reason:  "Every condition of an object seen for the first time is a transition.",
			objects: []*unstructured.Unstructured{withConditions("App", "default", "shop", cond("Ready", "False", "Waiting", "w"), cond("Synced", "True", "ReconcileSuccess", ""))},
			want:    []seen{{"App", "default/shop", "Ready", "False", "Waiting"}, {"App", "default/shop", "Synced", "True", "ReconcileSuccess"}},
		},
		"Unchanged": {
			reason: "An event that changes no condition records nothing.",
			objects: []*unstructured.Unstructured{
				withConditions("XApp", "", "x", cond("Ready", "False", "Creating", "m")),
				withConditions("XApp", "", "x", cond("Ready", "False", "Creating", "m")),
			},
			want: []seen{{"XApp", "x", "Ready", "False", "Creating"}},
		},
		"MessageOnly": {
			reason: "A new message is a transition, even with the same status and reason.",
			objects: []*unstructured.Unstructured{
				withConditions("HealthScope", "default", "s", cond("Ready", "False", "Unhealthy", "0 of 2")),
				withConditions("HealthScope", "default", "s", cond("Ready", "False", "Unhealthy", "1 of 2")),
			},
			want: []seen{{"HealthScope", "default/s", "Ready", "False", "Unhealthy"}, {"HealthScope", "default/s", "Ready", "False", "Unhealthy"}},
		},
		"Malformed": {
			reason:  "An object whose conditions cannot be read is skipped, not a panic.",
			objects: []*unstructured.Unstructured{{Object: map[string]any{"kind": "App", "metadata": map[string]any{"name": "a"}, "status": map[string]any{"conditions": "nope"}}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			tl := NewTimeline(nil, &out)
			for _, o := range tc.objects {
				tl.observe(o)
			}
			var got []seen
			for _, tr := range tl.history {
				got = append(got, seen{tr.Kind, tr.Object, tr.Condition.Type, string(tr.Condition.Status), tr.Condition.Reason})
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if lines := strings.Count(out.String(), "\n"); lines != len(tc.want) {
				t.Errorf("%s\nprinted %d lines, want %d:\n%s", tc.reason, lines, len(tc.want), out.String())
			}
		})
	}
}

func TestFind(t *testing.T) {
	h := []Transition{
		{Condition: metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Updating"}},
		{Condition: metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "UpToDate"}},
		{Condition: metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "UpdateFailure"}},
	}
	cases := map[string]struct {
		reason string
		from   int
		typ    string
		status metav1.ConditionStatus
		cause  string
		want   int
	}{
		"First":       {reason: "The first match is returned.", typ: "Ready", status: metav1.ConditionFalse, want: 0},
		"ByReason":    {reason: "A reason narrows the match.", typ: "Ready", status: metav1.ConditionFalse, cause: "UpdateFailure", want: 2},
		"After":       {reason: "Matches before from are ignored.", from: 1, typ: "Ready", status: metav1.ConditionFalse, want: 2},
		"NotFoundAt1": {reason: "A negative from (a previous miss) searches from the start.", from: -1, typ: "Ready", status: metav1.ConditionTrue, want: 1},
		"Missing":     {reason: "No match is -1.", typ: "Synced", status: metav1.ConditionTrue, want: -1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, got := find(h, tc.from, tc.typ, tc.status, tc.cause)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	all := make([]Result, len(scenarios))
	for i, s := range scenarios {
		all[i] = Result{Scenario: s.name, Expected: s.expected, Observed: "ok", Passed: true}
	}
	failed := append([]Result(nil), all...)
	failed[2].Passed = false
	cases := map[string]struct {
		reason  string
		results []Result
		want    bool
		wantOut string
	}{
		"AllPassed": {reason: "Every scenario passed.", results: all, want: true, wantOut: "PASS"},
		"OneFailed": {reason: "One failure fails the tour.", results: failed, want: false, wantOut: "FAIL"},
		"Missing":   {reason: "A scenario left out fails the tour.", results: all[:4], want: false, wantOut: "PASS"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Passed(tc.results)); diff != "" {
				t.Errorf("%s\nPassed: -want, +got:\n%s", tc.reason, diff)
			}
			var out bytes.Buffer
			PrintSummary(&out, tc.results)
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("%s\nthe summary does not say %s:\n%s", tc.reason, tc.wantOut, out.String())
			}
		})
	}
}
