// Package sdkport_test holds function bodies written against function-sdk-go's
// response package, ported by changing two imports, and checks that they
// return what the SDK returns.
package sdkport_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	// The only two lines that change when a function moves from
	// function-sdk-go to ctrlkit:
	//   v1 "github.com/crossplane/function-sdk-go/proto/v1"
	//   "github.com/crossplane/function-sdk-go/response"
	v1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	"github.com/ctrlkit/ctrlkit/results/response"

	rb "github.com/ctrlkit/ctrlkit/results"
)

// checkImage is a function body as written for function-sdk-go: the SDK's
// result and condition helpers, used as its documentation shows.
func checkImage(rsp *v1.RunFunctionResponse, image string, found bool) *v1.RunFunctionResponse {
	response.Normalf(rsp, "found database %s", "orders")
	response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
	if !found {
		response.ConditionFalse(rsp, "ImageReady", "NotFound").
			WithMessage("The image provided does not exist or you are not authorized to use it.").
			TargetCompositeAndClaim()
		response.Fatal(rsp, errors.New("cannot find image "+image))
		return rsp
	}
	response.ConditionTrue(rsp, "ImageReady", "Available").TargetComposite()
	response.Warning(rsp, errors.New("the registry is slow")).WithReason("RegistrySlow").TargetCompositeAndClaim()
	response.Normal(rsp, "composed the deployment").TargetComposite()
	response.ConditionUnknown(rsp, "AppReady", "Creating").WithMessage("Waiting for the deployment to be available.")
	return rsp
}

// The SDK's documented output: every result and condition targets the
// composite resource explicitly unless told otherwise.
func sdkWant(found bool) *v1.RunFunctionResponse {
	composite, claim := v1.Target_TARGET_COMPOSITE, v1.Target_TARGET_COMPOSITE_AND_CLAIM
	want := &v1.RunFunctionResponse{
		Results: []*v1.Result{
			{Severity: v1.Severity_SEVERITY_NORMAL, Message: "found database orders", Target: &composite},
		},
		Conditions: []*v1.Condition{
			{Type: "DatabaseReady", Status: v1.Status_STATUS_CONDITION_TRUE, Reason: "Available", Target: &claim},
		},
	}
	if !found {
		want.Conditions = append(want.Conditions, &v1.Condition{
			Type: "ImageReady", Status: v1.Status_STATUS_CONDITION_FALSE, Reason: "NotFound",
			Message: proto.String("The image provided does not exist or you are not authorized to use it."), Target: &claim,
		})
		want.Results = append(want.Results, &v1.Result{Severity: v1.Severity_SEVERITY_FATAL, Message: "cannot find image shop:1.0", Target: &composite})
		return want
	}
	want.Conditions = append(want.Conditions,
		&v1.Condition{Type: "ImageReady", Status: v1.Status_STATUS_CONDITION_TRUE, Reason: "Available", Target: &composite},
		&v1.Condition{Type: "AppReady", Status: v1.Status_STATUS_CONDITION_UNKNOWN, Reason: "Creating",
			Message: proto.String("Waiting for the deployment to be available."), Target: &composite},
	)
	want.Results = append(want.Results,
		&v1.Result{Severity: v1.Severity_SEVERITY_WARNING, Message: "the registry is slow", Reason: proto.String("RegistrySlow"), Target: &claim},
		&v1.Result{Severity: v1.Severity_SEVERITY_NORMAL, Message: "composed the deployment", Target: &composite},
	)
	return want
}

// requireSameBytes fails t unless got and want marshal to the same bytes, and
// decode to equal messages.
func requireSameBytes(t *testing.T, want, got *v1.RunFunctionResponse) {
	t.Helper()
	opts := proto.MarshalOptions{Deterministic: true}
	wb, err := opts.Marshal(want)
	require.NoError(t, err)
	gb, err := opts.Marshal(got)
	require.NoError(t, err)
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("response: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(wb, gb); diff != "" {
		t.Errorf("marshalled response: -want, +got:\n%s", diff)
	}
	back := &v1.RunFunctionResponse{}
	require.NoError(t, proto.Unmarshal(gb, back))
	if diff := cmp.Diff(want, back, protocmp.Transform()); diff != "" {
		t.Errorf("marshalled response decoded: -want (SDK), +got:\n%s", diff)
	}
}

func TestSDKBody(t *testing.T) {
	for name, found := range map[string]bool{"ImageFound": true, "ImageNotFound": false} {
		t.Run(name, func(t *testing.T) {
			requireSameBytes(t, sdkWant(found), checkImage(&v1.RunFunctionResponse{}, "shop:1.0", found))
		})
	}
}

// TestSeedSketches: both sketches of the fn-claim-conditions design compile
// and add a result and a condition in Crossplane's layout. The builder
// sketch's WithConditionFalse is spelled ConditionFalse, the name
// function-sdk-go and the response package use.
func TestSeedSketches(t *testing.T) {
	claim := v1.Target_TARGET_COMPOSITE_AND_CLAIM
	cases := map[string]struct {
		body func(rsp *v1.RunFunctionResponse)
		want *v1.RunFunctionResponse
	}{
		"ChainedFatal": {
			body: func(rsp *v1.RunFunctionResponse) {
				err := errors.New("The image provided does not exist or you are not authorized to use it.")
				response.Fatal(rsp, err).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim()
			},
			want: &v1.RunFunctionResponse{
				Results: []*v1.Result{{Severity: v1.Severity_SEVERITY_FATAL,
					Message: "The image provided does not exist or you are not authorized to use it.", Target: &claim}},
				Conditions: []*v1.Condition{{Type: "ImageReady", Status: v1.Status_STATUS_CONDITION_FALSE, Reason: "NotFound",
					Message: proto.String("The image provided does not exist or you are not authorized to use it."), Target: &claim}},
			},
		},
		"BuilderAndAddResult": {
			body: func(rsp *v1.RunFunctionResponse) {
				const databaseReady = "DatabaseReady"
				const reasonUnauthorized = "Unauthorized"
				var messageUnauthorized = errors.New("You are unauthorized to access this resource.")
				result := rb.Fatal(messageUnauthorized).
					TargetCompositeAndClaim().
					ConditionFalse(databaseReady, reasonUnauthorized).
					Build()
				response.AddResult(rsp, result)
			},
			want: &v1.RunFunctionResponse{
				Results: []*v1.Result{{Severity: v1.Severity_SEVERITY_FATAL,
					Message: "You are unauthorized to access this resource.", Target: &claim}},
				Conditions: []*v1.Condition{{Type: "DatabaseReady", Status: v1.Status_STATUS_CONDITION_FALSE, Reason: "Unauthorized",
					Message: proto.String("You are unauthorized to access this resource."), Target: &claim}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := &v1.RunFunctionResponse{}
			tc.body(rsp)
			requireSameBytes(t, tc.want, rsp)
		})
	}
}
