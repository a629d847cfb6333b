package rules_test

import (
	"fmt"

	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	"github.com/ctrlkit/ctrlkit/results/rules"
)

func ptr(s string) *string { return &s }

// A function tells the claim why its database is not ready, in the words of
// the managed resource's own error.
func Example() {
	rs, err := rules.Compile([]rules.Hook{{
		Matchers: []rules.Matcher{{
			Resources:  []rules.ResourceMatcher{{Name: "^database$"}},
			Conditions: []rules.ConditionMatcher{{Type: "Synced", Status: ptr("False"), Message: ptr("cannot create: (?P<Error>.+)")}},
		}},
		SetConditions: []rules.SetCondition{{
			Target:    rules.TargetCompositeAndClaim,
			Condition: rules.Condition{Type: "DatabaseReady", Status: "False", Reason: "FailedToCreate", Message: ptr("The database cannot be created: {{ .Error }}.")},
		}},
	}})
	if err != nil {
		panic(err)
	}
	database := map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "cannot create: quota exceeded"},
	}}}
	rsp := &crossplanev1.RunFunctionResponse{}
	rs.Apply(rsp, rules.Observed{Resources: map[string]map[string]any{"database": database}})
	c := rsp.Conditions[0]
	fmt.Println(c.Type, c.Status, c.Reason, c.GetMessage(), c.GetTarget())
	// Output: DatabaseReady STATUS_CONDITION_FALSE FailedToCreate The database cannot be created: quota exceeded. TARGET_COMPOSITE_AND_CLAIM
}
