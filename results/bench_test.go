package results

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// discard is an event recorder that drops events after formatting them, as
// a real recorder would.
type discard struct{}

func (discard) Eventf(_, _ runtime.Object, _, _, _, note string, args ...any) {
	_ = fmt.Sprintf(note, args...)
}

// benchResponse has 50 results: 20 set the conditions C00..C19 (every other
// one for the claim, status from status), 30 are events only.
func benchResponse(status resultsv1.Status) *resultsv1.Response {
	rsp := &resultsv1.Response{}
	for i := range 50 {
		var b *Builder
		switch {
		case i%5 == 4:
			b = Warning(fmt.Errorf("warning %d", i))
		default:
			b = Normalf("result %d", i)
		}
		if i < 20 {
			b = b.condition(fmt.Sprintf("C%02d", i), status, "Reason")
			if i%2 == 0 {
				b = b.TargetCompositeAndClaim()
			}
		}
		rsp.Results = append(rsp.Results, b.Build())
	}
	return rsp
}

// BenchmarkApply applies 50 results to an XR with 20 conditions, all set by
// those results. Settled: the XR already shows them (the steady state of a
// reconciler); Changing: every condition flips status on every run.
func BenchmarkApply(b *testing.B) {
	clk := clocktesting.NewFakePassiveClock(now)
	trueRsp, falseRsp := benchResponse(resultsv1.Status_STATUS_TRUE), benchResponse(resultsv1.Status_STATUS_FALSE)

	b.Run("Settled", func(b *testing.B) {
		xr, claim := composite(1, nil, nil, nil), claimOf(1, nil, nil)
		a := NewApplier(discard{}, WithClock(clk))
		if _, err := a.Apply(trueRsp, xr, claim); err != nil {
			b.Fatal(err)
		}
		if n := len(statusOfB(xr)); n != 20 {
			b.Fatalf("want 20 conditions, got %d", n)
		}
		b.ReportAllocs()
		for b.Loop() {
			out, err := a.Apply(trueRsp, xr, claim)
			if err != nil || out.CompositeChanged || out.ClaimChanged {
				b.Fatalf("settled Apply(): %+v, %v", out, err)
			}
		}
	})
	b.Run("SettledNoClaim", func(b *testing.B) {
		xr := composite(1, nil, nil, nil)
		a := NewApplier(discard{}, WithClock(clk))
		if _, err := a.Apply(trueRsp, xr, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if out, err := a.Apply(trueRsp, xr, nil); err != nil || out.CompositeChanged {
				b.Fatalf("settled Apply(): %+v, %v", out, err)
			}
		}
	})
	b.Run("Changing", func(b *testing.B) {
		xr, claim := composite(1, nil, nil, nil), claimOf(1, nil, nil)
		a := NewApplier(discard{}, WithClock(clk))
		rsps := [2]*resultsv1.Response{trueRsp, falseRsp}
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			i++
			out, err := a.Apply(rsps[i%2], xr, claim)
			if err != nil || (i > 1 && !out.CompositeChanged) {
				b.Fatalf("Apply(): %+v, %v", out, err)
			}
		}
	})
}

func statusOfB(xr interface{ UnstructuredContent() map[string]any }) []any {
	st, _ := xr.UnstructuredContent()["status"].(map[string]any)
	l, _ := st["conditions"].([]any)
	return l
}
