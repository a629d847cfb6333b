package response_test

import (
	"fmt"

	v1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
)

// Example_port runs the README's ported function body, check, and prints the
// response it built.
func Example_port() {
	rsp := &v1.RunFunctionResponse{}
	check(rsp)
	for _, c := range rsp.GetConditions() {
		fmt.Println("condition:", c.GetType(), c.GetStatus(), c.GetReason(), c.GetTarget())
	}
	for _, r := range rsp.GetResults() {
		fmt.Println("result:", r.GetSeverity(), r.GetTarget(), r.GetMessage())
	}
	// Output:
	// condition: DatabaseReady STATUS_CONDITION_TRUE Available TARGET_COMPOSITE_AND_CLAIM
	// condition: ImageReady STATUS_CONDITION_FALSE NotFound TARGET_COMPOSITE_AND_CLAIM
	// result: SEVERITY_FATAL TARGET_COMPOSITE_AND_CLAIM The image provided does not exist or you are not authorized to use it.
}
