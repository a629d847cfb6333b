package response_test

import (
	"errors"

	v1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1" // was github.com/crossplane/function-sdk-go/proto/v1
	"github.com/ctrlkit/ctrlkit/results/response"               // was github.com/crossplane/function-sdk-go/response
)

func check(rsp *v1.RunFunctionResponse) {
	response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
	// Beyond the SDK: a result that carries its condition (the design's sketch).
	response.Fatal(rsp, errors.New("The image provided does not exist or you are not authorized to use it.")).
		ConditionFalse("ImageReady", "NotFound").
		TargetCompositeAndClaim()
}
