package nop

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func ca(t, typ, status string) v1alpha1.ConditionAfter {
	return v1alpha1.ConditionAfter{Time: t, ConditionType: typ, ConditionStatus: metav1.ConditionStatus(status)}
}

// seed is the sample of the provider-nop design.
var seed = []v1alpha1.ConditionAfter{
	ca("5s", "Ready", "False"),
	ca("10s", "Ready", "True"),
	ca("15s", "Synced", "False"),
	ca("20s", "Synced", "True"),
}

func TestScheduleAt(t *testing.T) {
	// due is what at returns, reduced to what matters: "index:type=status".
	type want struct {
		due  []string
		next time.Duration
		ok   bool
	}
	cases := map[string]struct {
		reason  string
		entries []v1alpha1.ConditionAfter
		elapsed time.Duration
		want    want
	}{
		"NoEntries": {
			reason: "An empty schedule has nothing due and no deadline.",
			want:   want{},
		},
		"AllFuture": {
			reason:  "Before the first deadline nothing is due; the next deadline is the earliest.",
			entries: seed,
			elapsed: 4999 * time.Millisecond,
			want:    want{next: 5 * time.Second, ok: true},
		},
		"ExactlyAtDeadline": {
			reason:  "An entry is due at its time, not after it.",
			entries: seed,
			elapsed: 5 * time.Second,
			want:    want{due: []string{"0:Ready=False"}, next: 10 * time.Second, ok: true},
		},
		"LatestDueWinsPerType": {
			reason:  "For each type the due entry with the greatest time wins.",
			entries: seed,
			elapsed: 17 * time.Second,
			want:    want{due: []string{"1:Ready=True", "2:Synced=False"}, next: 20 * time.Second, ok: true},
		},
		"AllDue": {
			reason:  "Once everything is due there is no next deadline.",
			entries: seed,
			elapsed: time.Hour,
			want:    want{due: []string{"1:Ready=True", "3:Synced=True"}},
		},
		"EqualTimesEarlierEntryWins": {
			reason: "On equal times the earlier entry in the list wins, as provider-nop's stable sort decides.",
			entries: []v1alpha1.ConditionAfter{
				ca("1s", "Ready", "True"),
				ca("1s", "Ready", "False"),
				ca("1000ms", "Ready", "Unknown"),
			},
			elapsed: time.Second,
			want:    want{due: []string{"0:Ready=True"}},
		},
		"EqualTimesNotYetDue": {
			reason: "Entries with equal times fall due together.",
			entries: []v1alpha1.ConditionAfter{
				ca("2s", "Ready", "True"),
				ca("2s", "Synced", "True"),
			},
			elapsed: time.Second,
			want:    want{next: 2 * time.Second, ok: true},
		},
		"UnorderedEntries": {
			reason: "The list need not be sorted: time decides, not position.",
			entries: []v1alpha1.ConditionAfter{
				ca("20s", "Ready", "True"),
				ca("1m", "Healthy", "False"),
				ca("0s", "Ready", "False"),
				ca("10s", "Ready", "Unknown"),
				ca("5s", "Healthy", "True"),
			},
			elapsed: 15 * time.Second,
			want:    want{due: []string{"3:Ready=Unknown", "4:Healthy=True"}, next: 20 * time.Second, ok: true},
		},
		"TypesInOrderOfFirstAppearance": {
			reason: "Due conditions come in the order their types first appear in the spec, whatever their times.",
			entries: []v1alpha1.ConditionAfter{
				ca("9s", "A", "True"),
				ca("1s", "B", "True"),
				ca("2s", "A", "False"),
			},
			elapsed: 3 * time.Second,
			want:    want{due: []string{"2:A=False", "1:B=True"}, next: 9 * time.Second, ok: true},
		},
		"ZeroDuration": {
			reason:  "\"0\" and \"0s\" are due at creation.",
			entries: []v1alpha1.ConditionAfter{ca("0", "Ready", "False"), ca("0s", "Synced", "True")},
			elapsed: 0,
			want:    want{due: []string{"0:Ready=False", "1:Synced=True"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := parseSchedule(tc.entries)
			require.NoError(t, err)
			due, next, ok := s.at(tc.elapsed)
			got := want{next: next, ok: ok}
			for _, e := range due {
				got.due = append(got.due, fmt.Sprintf("%d:%s=%s", e.index, e.cond.Type, e.cond.Status))
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nat(%s): -want, +got:\n%s", tc.reason, tc.elapsed, diff)
			}
		})
	}
}

// TestScheduleAtAsProviderNop runs an unsorted schedule with several entries
// per type through the ages at which provider-nop's own tests observe it, and
// checks that each type takes the status provider-nop's controller gives it:
// the latest due entry, the earliest in the list among equal times.
func TestScheduleAtAsProviderNop(t *testing.T) {
	entries := []v1alpha1.ConditionAfter{
		ca("10s", "Ready", "False"),
		ca("5s", "Ready", "False"),
		ca("7s", "Ready", "True"),
		ca("5s", "Synced", "False"),
		ca("10s", "Synced", "True"),
		ca("2s", "Ready", "False"),
		ca("7s", "Ready", "Unknown"),
		ca("10s", "Synced", "False"),
	}
	cases := map[string]struct {
		reason  string
		elapsed time.Duration
		want    map[string]string // type -> "index:status"
	}{
		"NothingDueYet": {
			reason:  "Before the earliest entry no condition is scheduled.",
			elapsed: time.Second,
			want:    map[string]string{},
		},
		"OneDue": {
			reason:  "At 2s only the earliest entry is due.",
			elapsed: 2 * time.Second,
			want:    map[string]string{"Ready": "5:False"},
		},
		"LatestDuePerType": {
			reason:  "At 8s the 7s Ready entry supersedes the 2s and 5s ones; the first of the two 7s entries wins.",
			elapsed: 8 * time.Second,
			want:    map[string]string{"Ready": "2:True", "Synced": "3:False"},
		},
		"LongAfter": {
			reason:  "Long after the last deadline each type keeps its last entry; the first of the two 10s Synced entries wins.",
			elapsed: 50 * time.Second,
			want:    map[string]string{"Ready": "0:False", "Synced": "4:True"},
		},
	}
	s, err := parseSchedule(entries)
	require.NoError(t, err)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			due, _, _ := s.at(tc.elapsed)
			got := map[string]string{}
			for _, e := range due {
				got[e.cond.Type] = fmt.Sprintf("%d:%s", e.index, e.cond.Status)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nat(%s): -want, +got:\n%s", tc.reason, tc.elapsed, diff)
			}
		})
	}
}

func TestParseSchedule(t *testing.T) {
	cases := map[string]struct {
		reason  string
		entries []v1alpha1.ConditionAfter
		want    string // the error; empty for none
		cond    metav1.Condition
	}{
		"Defaults": {
			reason:  "A missing reason and message get defaults naming the entry.",
			entries: []v1alpha1.ConditionAfter{ca("5s", "Ready", "False")},
			cond:    metav1.Condition{Type: "Ready", Status: "False", Reason: ReasonScheduled, Message: "Ready=False 5s after creation (spec.forProvider.conditionAfter[0])"},
		},
		"Given": {
			reason: "A given reason and message are kept.",
			entries: []v1alpha1.ConditionAfter{{
				Time: "1m30s", ConditionType: "example.org/Healthy", ConditionStatus: "True",
				ConditionReason: "AllGood", ConditionMessage: "all good",
			}},
			cond: metav1.Condition{Type: "example.org/Healthy", Status: "True", Reason: "AllGood", Message: "all good"},
		},
		"TooManyEntries": {
			reason: "More entries than the CRD admits are refused, as the CRD would.",
			entries: func() []v1alpha1.ConditionAfter {
				var l []v1alpha1.ConditionAfter
				for i := range maxEntries + 1 {
					l = append(l, ca("1s", fmt.Sprintf("C%d", i), "True"))
				}
				return l
			}(),
			want: "spec.forProvider.conditionAfter: cannot use 101 entries: must be at most 100",
		},
		"BadTime": {
			reason:  "An unparsable time names the entry, the field and the value.",
			entries: []v1alpha1.ConditionAfter{ca("5s", "Ready", "True"), ca("5x", "Ready", "True")},
			want:    `spec.forProvider.conditionAfter[1].time: cannot parse "5x" as a Go duration such as "5s" or "1m30s": unknown unit "x"`,
		},
		"MissingUnit": {
			reason:  "A number without a unit is not a duration.",
			entries: []v1alpha1.ConditionAfter{ca("5", "Ready", "True")},
			want:    `spec.forProvider.conditionAfter[0].time: cannot parse "5" as a Go duration such as "5s" or "1m30s": missing unit`,
		},
		"EmptyTime": {
			reason:  "An empty time is not a duration.",
			entries: []v1alpha1.ConditionAfter{ca("", "Ready", "True")},
			want:    `spec.forProvider.conditionAfter[0].time: cannot parse "" as a Go duration such as "5s" or "1m30s": invalid duration`,
		},
		"NegativeTime": {
			reason:  "A negative time is refused.",
			entries: []v1alpha1.ConditionAfter{ca("-5s", "Ready", "True")},
			want:    `spec.forProvider.conditionAfter[0].time: cannot use "-5s": a duration must not be negative`,
		},
		"SignedTime": {
			reason:  "A sign is refused, as the CRD refuses it.",
			entries: []v1alpha1.ConditionAfter{ca("+5s", "Ready", "True")},
			want:    `spec.forProvider.conditionAfter[0].time: cannot use "+5s": write a duration as numbers with units and no sign, such as "5s" or "1m30s"`,
		},
		"Overflow": {
			reason:  "A duration too long for Go is refused.",
			entries: []v1alpha1.ConditionAfter{ca("9999999999h", "Ready", "True")},
			want:    `spec.forProvider.conditionAfter[0].time: cannot parse "9999999999h" as a Go duration such as "5s" or "1m30s": invalid duration`,
		},
		"BadStatus": {
			reason:  "A status other than True, False and Unknown is refused.",
			entries: []v1alpha1.ConditionAfter{ca("5s", "Ready", "true")},
			want:    `spec.forProvider.conditionAfter[0].conditionStatus: cannot use "true": must be True, False or Unknown`,
		},
		"BadType": {
			reason:  "A condition type the API server would refuse is refused.",
			entries: []v1alpha1.ConditionAfter{ca("5s", "Ready", "True"), ca("6s", "Ready", "True"), ca("1s", "not ready", "True")},
			want:    `spec.forProvider.conditionAfter[2]: cannot set the condition: invalid condition: type: name part (a string of 9 bytes) must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. "Ready", "example.com/DatabaseReady")`,
		},
		"LongMessageInCharacters": {
			reason: "A message within the CRD's limit in characters is kept, though longer in bytes.",
			entries: []v1alpha1.ConditionAfter{{
				Time: "1s", ConditionType: "Ready", ConditionStatus: "True", ConditionMessage: strings.Repeat("é", conditions.MaxMessageLength),
			}},
			cond: metav1.Condition{Type: "Ready", Status: "True", Reason: ReasonScheduled, Message: strings.Repeat("é", conditions.MaxMessageLength)},
		},
		"MessageTooLong": {
			reason:  "A message over the CRD's limit in characters is refused.",
			entries: []v1alpha1.ConditionAfter{{Time: "1s", ConditionType: "Ready", ConditionStatus: "True", ConditionMessage: strings.Repeat("m", conditions.MaxMessageLength+1)}},
			want:    `spec.forProvider.conditionAfter[0].conditionMessage: cannot use a message of 32769 characters: must be at most 32768`,
		},
		"BadReason": {
			reason:  "A reason the API server would refuse is refused.",
			entries: []v1alpha1.ConditionAfter{{Time: "1s", ConditionType: "Ready", ConditionStatus: "True", ConditionReason: "all good"}},
			want:    `spec.forProvider.conditionAfter[0]: cannot set the condition: invalid condition: reason (a string of 8 bytes): must start with a letter, contain only letters, digits, '_', ',' and ':', and end with a letter, digit or '_' (e.g. "NotFound")`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := parseSchedule(tc.entries)
			if tc.want != "" {
				require.Error(t, err, tc.reason)
				if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
					t.Errorf("%s\nerror: -want, +got:\n%s", tc.reason, diff)
				}
				if !errors.Is(err, ErrInvalidSpec) {
					t.Errorf("%s\nerrors.Is(%v, ErrInvalidSpec) = false", tc.reason, err)
				}
				return
			}
			require.NoError(t, err, tc.reason)
			require.Len(t, s, len(tc.entries))
			if diff := cmp.Diff(tc.cond, s[len(s)-1].cond); diff != "" {
				t.Errorf("%s\ncondition: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestParseSpec(t *testing.T) {
	cases := map[string]struct {
		reason    string
		namespace string
		spec      v1alpha1.NopResourceSpec
		secret    string // namespace/name of the Secret, "" for none
		want      string // the error; empty for none
	}{
		"NamespacedDefaultsToOwnNamespace": {
			reason:    "A NopResource writes its Secret in its own namespace.",
			namespace: "team",
			spec:      v1alpha1.NopResourceSpec{WriteConnectionSecretToRef: &v1alpha1.SecretReference{Name: "conn"}},
			secret:    "team/conn",
		},
		"NamespacedOwnNamespace": {
			reason:    "A NopResource may name its own namespace.",
			namespace: "team",
			spec:      v1alpha1.NopResourceSpec{WriteConnectionSecretToRef: &v1alpha1.SecretReference{Name: "conn", Namespace: "team"}},
			secret:    "team/conn",
		},
		"NamespacedOtherNamespace": {
			reason:    "A NopResource may not write a Secret in another namespace.",
			namespace: "team",
			spec:      v1alpha1.NopResourceSpec{WriteConnectionSecretToRef: &v1alpha1.SecretReference{Name: "conn", Namespace: "kube-system"}},
			want:      `spec.writeConnectionSecretToRef.namespace: cannot use "kube-system": a namespaced resource writes its Secret in its own namespace "team"`,
		},
		"ClusterNeedsNamespace": {
			reason: "A ClusterNopResource must say where its Secret goes.",
			spec:   v1alpha1.NopResourceSpec{WriteConnectionSecretToRef: &v1alpha1.SecretReference{Name: "conn"}},
			want:   `spec.writeConnectionSecretToRef.namespace: cannot be empty for a cluster-scoped resource`,
		},
		"ClusterNamespace": {
			reason: "A ClusterNopResource writes its Secret where it is told.",
			spec:   v1alpha1.NopResourceSpec{WriteConnectionSecretToRef: &v1alpha1.SecretReference{Name: "conn", Namespace: "ns"}},
			secret: "ns/conn",
		},
		"BadDeleteAfter": {
			reason: "deleteAfter must be a duration.",
			spec:   v1alpha1.NopResourceSpec{ForProvider: v1alpha1.NopResourceParameters{DeleteAfter: "soon"}},
			want:   `spec.forProvider.deleteAfter: cannot parse "soon" as a Go duration such as "5s" or "1m30s": invalid duration`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := parseSpec(tc.namespace, &tc.spec)
			if tc.want != "" {
				require.Error(t, err, tc.reason)
				if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
					t.Errorf("%s\nerror: -want, +got:\n%s", tc.reason, diff)
				}
				if !errors.Is(err, ErrInvalidSpec) {
					t.Errorf("err = %v, want %v", err, ErrInvalidSpec)
				}
				return
			}
			require.NoError(t, err, tc.reason)
			got := ""
			if p.secret != nil {
				got = p.secret.String()
			}
			if diff := cmp.Diff(tc.secret, got); diff != "" {
				t.Errorf("%s\nsecret: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDurationPatternMatchesCRD guards against drift between the controller's
// check and the CRD's CEL rule.
func TestDurationPatternMatchesCRD(t *testing.T) {
	for _, f := range []string{"crds/nop.ctrlkit.dev_nopresources.yaml", "crds/nop.ctrlkit.dev_clusternopresources.yaml"} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		if n := strings.Count(string(b), "self.matches('"+durationPattern+"')"); n != 2 {
			t.Errorf("%s: want the duration pattern %s in 2 rules (time, deleteAfter), found %d", f, durationPattern, n)
		}
	}
}
