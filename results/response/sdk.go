package response

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
)

// sdkResponses are the full names of the RunFunctionResponse messages whose
// results (field 3) and conditions (field 6) have the layout of ours:
// function-sdk-go's proto/v1 and proto/v1beta1, Crossplane's own.
var sdkResponses = map[string]bool{
	"apiextensions.fn.proto.v1.RunFunctionResponse":      true,
	"apiextensions.fn.proto.v1beta1.RunFunctionResponse": true,
	"ctrlkit.results.crossplane.v1.RunFunctionResponse":  true,
}

// AddTo appends the results and conditions of src, built with this package
// or with results.ToCrossplane, to dst, a function-sdk-go
// *fnv1.RunFunctionResponse (or *fnv1beta1's): a function keeps the SDK for
// its request, desired state and serving, and adds ctrlkit's results (a
// result that carries its condition, package results' builder and its claim
// messages) in one call:
//
//	rsp := response.To(req, response.DefaultTTL) // function-sdk-go
//	ours := &crossplanev1.RunFunctionResponse{}
//	ctrlresponse.Fatal(ours, err).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim()
//	if err := ctrlresponse.AddTo(rsp, ours); err != nil { ... }
//
// The messages share field numbers, so src is copied through its wire form
// and the SDK's types are not imported here. What dst already holds is kept;
// src's entries follow it. A dst of another message type is an error and
// is left unchanged.
func AddTo(dst proto.Message, src *crossplanev1.RunFunctionResponse) error {
	if dst == nil {
		return fmt.Errorf("cannot add results to a nil response")
	}
	name := string(dst.ProtoReflect().Descriptor().FullName())
	if !sdkResponses[name] {
		return fmt.Errorf("cannot add results to a %s: want a RunFunctionResponse of function-sdk-go (apiextensions.fn.proto.v1)", name)
	}
	if len(src.GetResults()) == 0 && len(src.GetConditions()) == 0 {
		return nil
	}
	// Only the results and conditions travel, not fields src kept unknown.
	b, err := proto.Marshal(&crossplanev1.RunFunctionResponse{Results: src.GetResults(), Conditions: src.GetConditions()})
	if err != nil {
		return fmt.Errorf("cannot add results to a %s: %w", name, err)
	}
	if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(b, dst); err != nil {
		return fmt.Errorf("cannot add results to a %s: %w", name, err)
	}
	return nil
}
