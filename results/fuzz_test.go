package results

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/conditions"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// FuzzApply applies random results (a protobuf Response, mutated on the wire)
// to a random XR status (JSON) and a claim, and checks that Apply never
// panics, never lets a result set Ready or Synced (Synced only ever becomes
// False with ReconcileError), only writes valid conditions, and is settled:
// a second Apply of the same results changes nothing.
func FuzzApply(f *testing.F) {
	seed := func(rsp *resultsv1.Response, status string) {
		b, err := proto.Marshal(rsp)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, []byte(status))
	}
	seed(rspOf(
		Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
		Fatal(errors.New("image not found")).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().WithClaimMessage("Not found.").Build(),
	), `{}`)
	seed(rspOf(
		Normal("ready").ConditionTrue("Ready", "Available").Build(),
		Warning(errors.New("w")).WithReason("Slow").Build(),
	), `{"conditions":[{"type":"Ready","status":"False","reason":"Creating"}],"resultConditions":["AppReady"]}`)
	seed(rspOf(
		Normal("").ConditionFalse("Synced", "Broken").TargetCompositeAndClaim().Build(),
	), `{"conditions":[{"type":"AppReady","status":"True","reason":"Available"}],"claimConditions":["AppReady","Ready"],"resultConditions":["AppReady","Synced"]}`)
	seed(&resultsv1.Response{Results: []*resultsv1.Result{{Severity: 7, Target: 9, Condition: &resultsv1.Condition{Status: 5}}}}, `{"claimConditions":null}`)

	f.Fuzz(func(t *testing.T, wire, statusJSON []byte) {
		rsp := &resultsv1.Response{}
		if err := proto.Unmarshal(wire, rsp); err != nil {
			return
		}
		var st map[string]any
		if err := json.Unmarshal(statusJSON, &st); err != nil || st == nil {
			return
		}
		xr := composite(3, nil, nil, nil)
		xr.Object["status"] = st
		if _, err := conditions.FromUnstructured(xr); err != nil {
			return // malformed input is TestApplyBadInput's business
		}
		claim := claimOf(2, []metav1.Condition{
			cond("Ready", metav1.ConditionFalse, "Waiting", "", 2, earlier),
			cond("Synced", metav1.ConditionTrue, "ReconcileSuccess", "", 2, earlier),
		}, nil)
		xrBefore, _ := conditions.FromUnstructured(xr)
		claimBefore, _ := conditions.FromUnstructured(claim)

		a := NewApplier(&sink{}, WithClock(clocktesting.NewFakePassiveClock(now)))
		out, err := a.Apply(rsp, xr, claim)
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, conditions.ErrInvalid) {
			t.Fatalf("Apply(): unexpected error %v", err)
		}
		xrAfter, ferr := conditions.FromUnstructured(xr)
		if ferr != nil {
			t.Fatalf("Apply() left malformed XR conditions: %v", ferr)
		}
		claimAfter, ferr := conditions.FromUnstructured(claim)
		if ferr != nil {
			t.Fatalf("Apply() left malformed claim conditions: %v", ferr)
		}

		// Ready never changes; Synced only becomes False/ReconcileError.
		if diff := cmp.Diff(conditions.Get(xrBefore, "Ready"), conditions.Get(xrAfter, "Ready"), timeComparer); diff != "" {
			t.Errorf("Apply() changed the XR's Ready: -before, +after:\n%s", diff)
		}
		if s := conditions.Get(xrAfter, "Synced"); s != nil {
			if old := conditions.Get(xrBefore, "Synced"); old == nil || !sameCondition(old, s) {
				if s.Status != metav1.ConditionFalse || s.Reason != ReasonReconcileError || out.Fatal == nil {
					t.Errorf("Apply() set Synced to %s/%s (fatal: %v); only a fatal run may set it, to False/ReconcileError", s.Status, s.Reason, out.Fatal)
				}
			}
		}
		for _, typ := range []string{"Ready", "Synced"} {
			if diff := cmp.Diff(conditions.Get(claimBefore, typ), conditions.Get(claimAfter, typ), timeComparer); diff != "" {
				t.Errorf("Apply() changed the claim's %s: -before, +after:\n%s", typ, diff)
			}
		}
		// Every condition Apply wrote is valid.
		for i := range xrAfter {
			if old := conditions.Get(xrBefore, xrAfter[i].Type); old != nil && sameCondition(old, &xrAfter[i]) {
				continue
			}
			if err := conditions.Validate(xrAfter[i]); err != nil {
				t.Errorf("Apply() wrote an invalid condition: %v", err)
			}
		}
		if err != nil {
			return
		}

		// Settled: the same results again change nothing.
		xrSettled, claimSettled := xr.DeepCopy(), claim.DeepCopy()
		again, err := NewApplier(nil, WithClock(clocktesting.NewFakePassiveClock(now.Add(1e9)))).Apply(rsp, xr, claim)
		if err != nil {
			t.Fatalf("second Apply(): %v", err)
		}
		if again.CompositeChanged || again.ClaimChanged {
			t.Errorf("second Apply() of the same results reports a change: %+v", again)
		}
		if diff := cmp.Diff(xrSettled.Object, xr.Object); diff != "" {
			t.Errorf("second Apply() changed the XR: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(claimSettled.Object, claim.Object); diff != "" {
			t.Errorf("second Apply() changed the claim: -want, +got:\n%s", diff)
		}
	})
}
