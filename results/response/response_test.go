package response_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/ctrlkit/ctrlkit/results"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

func TestResponse(t *testing.T) {
	errImage := errors.New("The image provided does not exist or you are not authorized to use it.")
	cases := map[string]struct {
		reason string
		add    func(rsp *resultsv1.Response)
		want   *resultsv1.Response
	}{
		"SeedFatal": {
			reason: "The seed's sketch: the result is added at once and the chain changes it in place.",
			add: func(rsp *resultsv1.Response) {
				response.Fatal(rsp, errImage).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim()
			},
			want: &resultsv1.Response{Results: []*resultsv1.Result{
				results.Fatal(errImage).WithConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().Build(),
			}},
		},
		"SeveralInOrder": {
			reason: "Each call appends one result, in call order; every option is available.",
			add: func(rsp *resultsv1.Response) {
				response.Normalf(rsp, "found database %s", "orders").ConditionTrue("DatabaseReady", "Available").TargetCompositeOnly()
				response.Warning(rsp, errors.New("slow registry")).ConditionUnknown("ImageReady", "Checking").WithReason("RegistrySlow")
				response.Normal(rsp, "").ConditionFalse("AppReady", "Creating").TargetCompositeAndClaim().WithClaimMessage("Starting.")
			},
			want: &resultsv1.Response{Results: []*resultsv1.Result{
				{
					Severity:  resultsv1.Severity_SEVERITY_NORMAL,
					Message:   "found database orders",
					Target:    resultsv1.Target_TARGET_COMPOSITE_ONLY,
					Condition: &resultsv1.Condition{Type: "DatabaseReady", Status: resultsv1.Status_STATUS_TRUE, Reason: "Available"},
				},
				{
					Severity:  resultsv1.Severity_SEVERITY_WARNING,
					Message:   "slow registry",
					Condition: &resultsv1.Condition{Type: "ImageReady", Status: resultsv1.Status_STATUS_UNKNOWN, Reason: "Checking"},
					Reason:    proto.String("RegistrySlow"),
				},
				{
					Severity:     resultsv1.Severity_SEVERITY_NORMAL,
					Target:       resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM,
					Condition:    &resultsv1.Condition{Type: "AppReady", Status: resultsv1.Status_STATUS_FALSE, Reason: "Creating"},
					ClaimMessage: proto.String("Starting."),
				},
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := &resultsv1.Response{}
			tc.add(got)
			if diff := cmp.Diff(tc.want, got, protocmp.Transform()); diff != "" {
				t.Errorf("%s\nresponse: -want, +got:\n%s", tc.reason, diff)
			}
			for i, r := range got.GetResults() {
				if err := results.Validate(r); err != nil {
					t.Errorf("%s\nresult %d: %v", tc.reason, i, err)
				}
			}
		})
	}
}

func TestNilResponse(t *testing.T) {
	// A nil response gets nothing, and the chain still works.
	r := response.Fatal(nil, nil).ConditionFalse("A", "B").TargetCompositeAndClaim().WithReason("C").WithClaimMessage("d")
	if r == nil {
		t.Fatal("Fatal(nil, nil): want a usable *Result, got nil")
	}
}

func Example() {
	rsp := &resultsv1.Response{}
	response.Normal(rsp, "").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim()
	response.Fatal(rsp, errors.New("The image provided does not exist or you are not authorized to use it.")).
		ConditionFalse("ImageReady", "NotFound").
		TargetCompositeAndClaim()

	for _, r := range rsp.GetResults() {
		c := r.GetCondition()
		fmt.Println(r.GetSeverity(), c.GetType(), c.GetStatus(), c.GetReason(), r.GetTarget())
	}
	// Output:
	// SEVERITY_NORMAL DatabaseReady STATUS_TRUE Available TARGET_COMPOSITE_AND_CLAIM
	// SEVERITY_FATAL ImageReady STATUS_FALSE NotFound TARGET_COMPOSITE_AND_CLAIM
}
