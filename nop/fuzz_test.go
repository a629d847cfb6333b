package nop

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// FuzzParseSpec feeds user input to the spec's validation and the schedule's
// evaluation: they never panic, a refusal names a spec field and wraps
// ErrInvalidSpec, durations are accepted exactly when the CRD accepts them,
// and the evaluation follows its rules (latest due entry per type, the earlier
// one on equal times, the next deadline strictly in the future).
func FuzzParseSpec(f *testing.F) {
	f.Add("5s", "Ready", "False", "10s", "Ready", "True", "", "", "2s", "", int64(7*time.Second))
	f.Add("1s", "Ready", "True", "1000ms", "Ready", "False", "Reason", "msg", "", "kube-system", int64(time.Second))
	f.Add("0", "example.org/Healthy", "Unknown", "1h2m3.5s", "Synced", "True", "A:b,c_", "", "0s", "default", int64(0))
	f.Add("-5s", "Ready", "True", "+5s", "not ready", "Maybe", "bad reason", "", "soon", "", int64(-1))
	f.Add("9999999999h", "", "", "1.5µs", "Ready", "True", "", "", "1.s", "", int64(1<<62))
	f.Add("2562047h47m16.854775807s", "Ready", "True", "2562047h47m16.854775808s", "Ready", "False", "", "", "2562047h", "", int64(math.MaxInt64))
	f.Add(".5s", "a/b", "True", "5", "Ready", "true", "", strings.Repeat("x", 40000), "-0s", "", int64(500*time.Millisecond))

	f.Fuzz(func(t *testing.T, t1, type1, status1, t2, type2, status2, reason, message, deleteAfter, secretNS string, elapsed int64) {
		spec := &v1alpha1.NopResourceSpec{ForProvider: v1alpha1.NopResourceParameters{
			ConditionAfter: []v1alpha1.ConditionAfter{
				{Time: t1, ConditionType: type1, ConditionStatus: metav1.ConditionStatus(status1), ConditionReason: reason, ConditionMessage: message},
				{Time: t2, ConditionType: type2, ConditionStatus: metav1.ConditionStatus(status2)},
				{Time: t1, ConditionType: type2, ConditionStatus: metav1.ConditionStatus(status1)},
			},
			DeleteAfter: deleteAfter,
		}}
		if secretNS != "" {
			spec.WriteConnectionSecretToRef = &v1alpha1.SecretReference{Name: "conn", Namespace: secretNS}
		}

		for _, s := range []string{t1, t2, deleteAfter} {
			d, err := parseDuration("spec.x", s)
			std, stdErr := time.ParseDuration(s)
			crd := durationRE.MatchString(s) && stdErr == nil && std >= 0
			if (err == nil) != crd {
				t.Fatalf("parseDuration(%q): error %v, but the CRD would accept it: %t", s, err, crd)
			}
			if err == nil && d != std {
				t.Fatalf("parseDuration(%q) = %s, want %s", s, d, std)
			}
		}

		for _, ns := range []string{"", "default"} {
			p, err := parseSpec(ns, spec)
			if err != nil {
				if !errors.Is(err, ErrInvalidSpec) {
					t.Fatalf("parseSpec: %v does not wrap ErrInvalidSpec", err)
				}
				if !strings.HasPrefix(err.Error(), "spec.") {
					t.Fatalf("parseSpec: %q does not start with the field", err)
				}
				continue
			}
			for _, e := range p.schedule {
				if err := conditions.Validate(e.cond); err != nil {
					t.Fatalf("entry %d passed validation but its condition is invalid: %v", e.index, err)
				}
			}
			checkAt(t, p.schedule, time.Duration(elapsed))
		}
	})
}

// checkAt compares schedule.at with a direct reading of its rules.
func checkAt(t *testing.T, s schedule, elapsed time.Duration) {
	t.Helper()
	due, next, ok := s.at(elapsed)
	want := map[string]entry{}
	for _, e := range s {
		if e.after > elapsed {
			continue
		}
		if w, seen := want[e.cond.Type]; !seen || e.after > w.after || (e.after == w.after && e.index < w.index) {
			want[e.cond.Type] = e
		}
	}
	if len(due) != len(want) {
		t.Fatalf("at(%s): %d due entries, want %d", elapsed, len(due), len(want))
	}
	for _, e := range due {
		if w := want[e.cond.Type]; w.index != e.index {
			t.Fatalf("at(%s): type %q takes entry %d, want %d", elapsed, e.cond.Type, e.index, w.index)
		}
	}
	var wantNext time.Duration
	wantOK := false
	for _, e := range s {
		if e.after > elapsed && (!wantOK || e.after < wantNext) {
			wantNext, wantOK = e.after, true
		}
	}
	if ok != wantOK || next != wantNext {
		t.Fatalf("at(%s): next deadline %s (%t), want %s (%t)", elapsed, next, ok, wantNext, wantOK)
	}
}
