package response_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

// TestAddTo checks AddTo on a message of the same layout; oracle/ checks it
// on function-sdk-go's own RunFunctionResponse.
func TestAddTo(t *testing.T) {
	src := &crossplanev1.RunFunctionResponse{}
	response.Fatal(src, errors.New("cannot find image")).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim()
	response.ConditionTrue(src, "DatabaseReady", "Available")
	// A field src kept from decoding (desired state, say) does not travel.
	src.ProtoReflect().SetUnknown([]byte{0x12, 0x01, 'x'})

	dst := &crossplanev1.RunFunctionResponse{}
	response.Normal(dst, "already there")
	want := proto.Clone(dst).(*crossplanev1.RunFunctionResponse)
	want.Results = append(want.Results, src.Results...)
	want.Conditions = append(want.Conditions, src.Conditions...)

	if err := response.AddTo(dst, src); err != nil {
		t.Fatalf("AddTo: %v", err)
	}
	if diff := cmp.Diff(want, dst, protocmp.Transform()); diff != "" {
		t.Errorf("AddTo: -want, +got:\n%s", diff)
	}
	if len(dst.ProtoReflect().GetUnknown()) != 0 {
		t.Errorf("AddTo copied src's unknown fields: %x", dst.ProtoReflect().GetUnknown())
	}

	other := &resultsv1.Response{}
	if err := response.AddTo(other, src); err == nil || len(other.GetResults()) != 0 {
		t.Errorf("AddTo(%T) = %v with %d results, want an error and nothing added", other, err, len(other.GetResults()))
	}
	if err := response.AddTo(nil, src); err == nil {
		t.Error("AddTo(nil) = nil, want an error")
	}
}
