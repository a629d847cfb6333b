package rules

import (
	"encoding/json"
	"errors"
	"testing"

	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
)

// FuzzRules compiles any input and applies what compiles to any observed
// resource: Compile either succeeds or wraps ErrInvalid, and Apply never
// panics and keeps every message within MaxMessageLength.
func FuzzRules(f *testing.F) {
	f.Add([]byte(`{"statusConditionHooks":[{"matchers":[{"resources":[{"name":"."}],"conditions":[{"type":"Synced","message":"(?P<E>.*)"}]}],"setConditions":[{"condition":{"type":"X","status":"False","reason":"R","message":"{{ .E }}"}}],"createEvents":[{"event":{"message":"{{.E}}{{.E}}"}}]}]}`),
		[]byte(`{"status":{"conditions":[{"type":"Synced","status":"False","message":"boom"}]}}`))
	f.Add([]byte(`{"statusConditionHooks":[{"matchers":[{"type":"AllResourcesMatchAnyCondition","includeCompositeAsResource":true,"conditions":[{"type":"Ready","status":"Unknown"}]}],"setConditions":[{"force":true,"condition":{"type":"X","status":"True","reason":"R"}}]}]}`),
		[]byte(`{"status":{"conditions":"not a list"}}`))
	f.Fuzz(func(t *testing.T, input, object []byte) {
		var in StatusTransformation
		if json.Unmarshal(input, &in) != nil {
			return
		}
		rs, err := Compile(in.Hooks)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Compile: %v does not wrap ErrInvalid", err)
			}
			return
		}
		var obj map[string]any
		_ = json.Unmarshal(object, &obj)
		rsp := &crossplanev1.RunFunctionResponse{}
		rs.Apply(rsp, Observed{Composite: obj, Resources: map[string]map[string]any{"a": obj, "b": obj}})
		for _, c := range rsp.Conditions {
			if len(c.GetMessage()) > MaxMessageLength {
				t.Fatalf("condition message of %d bytes", len(c.GetMessage()))
			}
		}
		for _, r := range rsp.Results {
			if len(r.GetMessage()) > MaxMessageLength {
				t.Fatalf("event message of %d bytes", len(r.GetMessage()))
			}
		}
	})
}
