package response_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

var (
	composite = crossplanev1.Target_TARGET_COMPOSITE
	claim     = crossplanev1.Target_TARGET_COMPOSITE_AND_CLAIM
)

func TestResponse(t *testing.T) {
	errImage := errors.New("The image provided does not exist or you are not authorized to use it.")
	cases := map[string]struct {
		reason string
		add    func(rsp *crossplanev1.RunFunctionResponse)
		want   *crossplanev1.RunFunctionResponse
	}{
		"ResultCondition": {
			reason: "A result's condition is added to the conditions list with the result's message and target; a later target changes both.",
			add: func(rsp *crossplanev1.RunFunctionResponse) {
				response.Fatal(rsp, errImage).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim()
			},
			want: &crossplanev1.RunFunctionResponse{
				Results:    []*crossplanev1.Result{{Severity: crossplanev1.Severity_SEVERITY_FATAL, Message: errImage.Error(), Target: &claim}},
				Conditions: []*crossplanev1.Condition{{Type: "ImageReady", Status: crossplanev1.Status_STATUS_CONDITION_FALSE, Reason: "NotFound", Message: proto.String(errImage.Error()), Target: &claim}},
			},
		},
		"ConditionAfterTarget": {
			reason: "A condition added after the target takes the result's target; one without a message has none; a second condition call replaces the first's type, status and reason.",
			add: func(rsp *crossplanev1.RunFunctionResponse) {
				response.Normal(rsp, "").TargetCompositeAndClaim().ConditionTrue("AppReady", "Available").ConditionUnknown("AppReady", "Checking").WithReason("Checked")
			},
			want: &crossplanev1.RunFunctionResponse{
				Results:    []*crossplanev1.Result{{Severity: crossplanev1.Severity_SEVERITY_NORMAL, Target: &claim, Reason: proto.String("Checked")}},
				Conditions: []*crossplanev1.Condition{{Type: "AppReady", Status: crossplanev1.Status_STATUS_CONDITION_UNKNOWN, Reason: "Checking", Target: &claim}},
			},
		},
		"NilError": {
			reason: "A nil error gives an empty message, not a panic.",
			add: func(rsp *crossplanev1.RunFunctionResponse) {
				response.Warning(rsp, nil)
				response.Fatal(rsp, nil)
			},
			want: &crossplanev1.RunFunctionResponse{Results: []*crossplanev1.Result{
				{Severity: crossplanev1.Severity_SEVERITY_WARNING, Target: &composite},
				{Severity: crossplanev1.Severity_SEVERITY_FATAL, Target: &composite},
			}},
		},
		"AddResult": {
			reason: "AddResult splits a result of package results into a result and a condition; the claim message is the condition's; a normal result with a condition and no message adds the condition alone; nil adds nothing.",
			add: func(rsp *crossplanev1.RunFunctionResponse) {
				response.AddResult(rsp, &resultsv1.Result{
					Severity: resultsv1.Severity_SEVERITY_FATAL, Message: "x509: bad certificate", Target: resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM,
					Reason:       proto.String("VaultDown"),
					Condition:    &resultsv1.Condition{Type: "DatabaseReady", Status: resultsv1.Status_STATUS_FALSE, Reason: "InternalError"},
					ClaimMessage: proto.String("Internal error."),
				})
				response.AddResult(rsp, &resultsv1.Result{
					Severity:  resultsv1.Severity_SEVERITY_NORMAL,
					Condition: &resultsv1.Condition{Type: "AppReady", Status: resultsv1.Status_STATUS_TRUE, Reason: "Available"},
				})
				response.AddResult(rsp, nil)
			},
			want: &crossplanev1.RunFunctionResponse{
				Results: []*crossplanev1.Result{{Severity: crossplanev1.Severity_SEVERITY_FATAL, Message: "x509: bad certificate", Reason: proto.String("VaultDown"), Target: &claim}},
				Conditions: []*crossplanev1.Condition{
					{Type: "DatabaseReady", Status: crossplanev1.Status_STATUS_CONDITION_FALSE, Reason: "InternalError", Message: proto.String("Internal error."), Target: &claim},
					{Type: "AppReady", Status: crossplanev1.Status_STATUS_CONDITION_TRUE, Reason: "Available"},
				},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := &crossplanev1.RunFunctionResponse{}
			tc.add(got)
			if diff := cmp.Diff(tc.want, got, protocmp.Transform()); diff != "" {
				t.Errorf("%s\nresponse: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestNilResponse(t *testing.T) {
	// A nil response gets nothing, and the chains still work.
	r := response.Fatal(nil, nil).ConditionFalse("A", "B").TargetCompositeAndClaim().WithReason("C")
	c := response.ConditionTrue(nil, "A", "B").WithMessage("m").TargetCompositeAndClaim()
	response.AddResult(nil, &resultsv1.Result{})
	if r == nil || c == nil {
		t.Fatal("want usable options on a nil response, got nil")
	}
}

func Example() {
	rsp := &crossplanev1.RunFunctionResponse{}
	response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
	response.Fatal(rsp, errors.New("The image provided does not exist or you are not authorized to use it.")).
		ConditionFalse("ImageReady", "NotFound").
		TargetCompositeAndClaim()

	for _, r := range rsp.GetResults() {
		fmt.Println(r.GetSeverity(), r.GetTarget())
	}
	for _, c := range rsp.GetConditions() {
		fmt.Println(c.GetType(), c.GetStatus(), c.GetReason(), c.GetTarget())
	}
	// Output:
	// SEVERITY_FATAL TARGET_COMPOSITE_AND_CLAIM
	// DatabaseReady STATUS_CONDITION_TRUE Available TARGET_COMPOSITE_AND_CLAIM
	// ImageReady STATUS_CONDITION_FALSE NotFound TARGET_COMPOSITE_AND_CLAIM
}
