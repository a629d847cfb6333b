package oracle

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	sdkresponse "github.com/crossplane/function-sdk-go/response"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/ctrlkit/ctrlkit/results"
	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

// call is one call of the response helpers, made the same way on
// function-sdk-go's response package and on ctrlkit's.
type call struct {
	name string
	sdk  func(*fnv1.RunFunctionResponse)
	ours func(*crossplanev1.RunFunctionResponse)
}

// drawCall draws one helper call with its chained options.
func drawCall(r *rand.Rand) call {
	words := []string{"", "ready", "cannot find image", "Das Bild wurde nicht gefunden ✗"}
	msg := words[r.IntN(len(words))]
	typ := []string{"Ready", "ImageReady", "DatabaseReady"}[r.IntN(3)]
	reason := []string{"Available", "NotFound", "Creating"}[r.IntN(3)]
	claim := r.IntN(2) == 0
	withReason := r.IntN(2) == 0
	withMessage := r.IntN(2) == 0
	name := fmt.Sprintf("%q %s %s claim=%v reason=%v message=%v", msg, typ, reason, claim, withReason, withMessage)
	switch k := r.IntN(7); k {
	case 0:
		return call{"Fatal " + name,
			func(rsp *fnv1.RunFunctionResponse) { sdkresponse.Fatal(rsp, errors.New(msg)) },
			func(rsp *crossplanev1.RunFunctionResponse) { response.Fatal(rsp, errors.New(msg)) }}
	case 1, 2, 3:
		sdkAdd := func(rsp *fnv1.RunFunctionResponse) *sdkresponse.ResultOption {
			switch k {
			case 1:
				return sdkresponse.Warning(rsp, errors.New(msg))
			case 2:
				return sdkresponse.Normal(rsp, msg)
			}
			return sdkresponse.Normalf(rsp, "%s (%d)", msg, 7)
		}
		oursAdd := func(rsp *crossplanev1.RunFunctionResponse) *response.ResultOption {
			switch k {
			case 1:
				return response.Warning(rsp, errors.New(msg))
			case 2:
				return response.Normal(rsp, msg)
			}
			return response.Normalf(rsp, "%s (%d)", msg, 7)
		}
		return call{"Result " + name,
			func(rsp *fnv1.RunFunctionResponse) {
				o := sdkAdd(rsp)
				if withReason {
					o = o.WithReason(reason)
				}
				if claim {
					o.TargetCompositeAndClaim()
				} else {
					o.TargetComposite()
				}
			},
			func(rsp *crossplanev1.RunFunctionResponse) {
				o := oursAdd(rsp)
				if withReason {
					o = o.WithReason(reason)
				}
				if claim {
					o.TargetCompositeAndClaim()
				} else {
					o.TargetComposite()
				}
			}}
	default:
		status := k - 4
		return call{"Condition " + name,
			func(rsp *fnv1.RunFunctionResponse) {
				o := []func(*fnv1.RunFunctionResponse, string, string) *sdkresponse.ConditionOption{sdkresponse.ConditionTrue, sdkresponse.ConditionFalse, sdkresponse.ConditionUnknown}[status](rsp, typ, reason)
				if withMessage {
					o = o.WithMessage(msg)
				}
				if claim {
					o.TargetCompositeAndClaim()
				}
			},
			func(rsp *crossplanev1.RunFunctionResponse) {
				o := []func(*crossplanev1.RunFunctionResponse, string, string) *response.ConditionOption{response.ConditionTrue, response.ConditionFalse, response.ConditionUnknown}[status](rsp, typ, reason)
				if withMessage {
					o = o.WithMessage(msg)
				}
				if claim {
					o.TargetCompositeAndClaim()
				}
			}}
	}
}

// TestResponseAgainstFunctionSDK makes the same sequences of calls on
// function-sdk-go's response package and on ctrlkit's (function bodies that
// port by changing two imports): the two responses must encode to the same
// bytes, and ctrlkit's, added to an empty SDK response with AddTo, must
// equal the SDK's.
func TestResponseAgainstFunctionSDK(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	deterministic := proto.MarshalOptions{Deterministic: true}
	for i := range 2000 {
		sdk, ours := &fnv1.RunFunctionResponse{}, &crossplanev1.RunFunctionResponse{}
		var names []string
		for range r.IntN(6) {
			c := drawCall(r)
			names = append(names, c.name)
			c.sdk(sdk)
			c.ours(ours)
		}
		want, err := deterministic.Marshal(sdk)
		if err != nil {
			t.Fatal(err)
		}
		got, err := deterministic.Marshal(ours)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != string(got) {
			t.Fatalf("case %d %q: function-sdk-go encodes %x, ctrlkit %x", i, names, want, got)
		}
		added := &fnv1.RunFunctionResponse{}
		if err := response.AddTo(added, ours); err != nil {
			t.Fatalf("case %d: AddTo: %v", i, err)
		}
		if diff := cmp.Diff(sdk, added, protocmp.Transform()); diff != "" {
			t.Fatalf("case %d %q: AddTo: -function-sdk-go, +ctrlkit:\n%s", i, names, diff)
		}
	}
}

// runFunction is a function's RunFunction written the supported way: the
// SDK builds the response from the request (desired state, TTL, context),
// and ctrlkit's builder adds a result that carries its condition, with a
// message for the claim's audience, in one call.
func runFunction(req *fnv1.RunFunctionRequest, pull error) (*fnv1.RunFunctionResponse, error) {
	rsp := sdkresponse.To(req, sdkresponse.DefaultTTL)
	sdkresponse.Normal(rsp, "composed")
	if pull != nil {
		ours := &crossplanev1.RunFunctionResponse{}
		response.AddResult(ours, results.Fatal(pull).
			WithClaimMessage("The image provided does not exist or you are not authorized to use it.").
			ConditionFalse("ImageReady", "NotFound").
			TargetCompositeAndClaim().
			Build())
		if err := response.AddTo(rsp, ours); err != nil {
			return nil, err
		}
	}
	return rsp, nil
}

// TestAddToSDKResponse: runFunction's response keeps what the SDK put there
// and holds ctrlkit's result and condition as the SDK's own helpers would
// write them.
func TestAddToSDKResponse(t *testing.T) {
	desired, err := structpb.NewStruct(map[string]any{"apiVersion": "example.org/v1", "kind": "XApp"})
	if err != nil {
		t.Fatal(err)
	}
	req := &fnv1.RunFunctionRequest{
		Meta:    &fnv1.RequestMeta{Tag: "t1"},
		Desired: &fnv1.State{Composite: &fnv1.Resource{Resource: desired}},
	}
	pull := errors.New("cannot pull registry.internal/app:1.2: 401 from registry.internal")
	rsp, err := runFunction(req, pull)
	if err != nil {
		t.Fatalf("runFunction: %v", err)
	}

	want := sdkresponse.To(req, sdkresponse.DefaultTTL)
	sdkresponse.Normal(want, "composed")
	sdkresponse.Fatal(want, pull)
	want.Results[1].Target = fnv1.Target_TARGET_COMPOSITE_AND_CLAIM.Enum()
	sdkresponse.ConditionFalse(want, "ImageReady", "NotFound").
		WithMessage("The image provided does not exist or you are not authorized to use it.").
		TargetCompositeAndClaim()
	if diff := cmp.Diff(want, rsp, protocmp.Transform()); diff != "" {
		t.Errorf("runFunction: -want, +got:\n%s", diff)
	}
}
