package rules

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
)

func ptr[T any](v T) *T { return &v }

// object is a resource with the given conditions, each type/status/reason/message.
func object(conds ...[4]string) map[string]any {
	list := []any{}
	for _, c := range conds {
		list = append(list, map[string]any{"type": c[0], "status": c[1], "reason": c[2], "message": c[3]})
	}
	return map[string]any{"apiVersion": "example.org/v1", "kind": "Thing", "status": map[string]any{"conditions": list}}
}

func cond(typ string, status crossplanev1.Status, reason string, msg *string, t crossplanev1.Target) *crossplanev1.Condition {
	return &crossplanev1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, Target: t.Enum()}
}

const (
	composite = crossplanev1.Target_TARGET_COMPOSITE
	both      = crossplanev1.Target_TARGET_COMPOSITE_AND_CLAIM
	sFalse    = crossplanev1.Status_STATUS_CONDITION_FALSE
	sTrue     = crossplanev1.Status_STATUS_CONDITION_TRUE
	sUnknown  = crossplanev1.Status_STATUS_CONDITION_UNKNOWN
)

func TestApply(t *testing.T) {
	failing := object([4]string{"Synced", "False", "ReconcileError", "cannot create the database: quota exceeded in region eu-1"}, [4]string{"Ready", "False", "Creating", ""})
	ready := object([4]string{"Synced", "True", "ReconcileSuccess", ""}, [4]string{"Ready", "True", "Available", ""})
	synced := object([4]string{"Synced", "True", "ReconcileSuccess", ""}, [4]string{"Ready", "False", "Creating", ""})
	dbDown := Hook{
		Matchers: []Matcher{{
			Resources:  []ResourceMatcher{{Name: "^database$"}},
			Conditions: []ConditionMatcher{{Type: "Synced", Status: ptr("False"), Reason: ptr("ReconcileError"), Message: ptr(`cannot create the database: (?P<Error>.+) in region (?P<Region>\S+)`)}},
		}},
		SetConditions: []SetCondition{{Target: TargetCompositeAndClaim, Condition: Condition{Type: "DatabaseReady", Status: "False", Reason: "FailedToCreate", Message: ptr("The database cannot be created in {{ .Region }}: {{.Error}}.")}}},
		CreateEvents:  []CreateEvent{{Target: TargetCompositeAndClaim, Event: Event{Type: EventTypeWarning, Reason: ptr("FailedToCreate"), Message: "database: {{ .Error }}"}}},
	}
	allReady := Hook{
		Matchers:      []Matcher{{Resources: []ResourceMatcher{{Name: "."}}, Conditions: []ConditionMatcher{{Type: "Ready", Status: ptr("True")}}}},
		SetConditions: []SetCondition{{Condition: Condition{Type: "AllReady", Status: "True", Reason: "Available"}}},
	}
	cases := map[string]struct {
		hooks     []Hook
		observed  Observed
		wantConds []*crossplanev1.Condition
		wantRes   []*crossplanev1.Result
		wantTypes []string
	}{
		"CapturesIntoMessages": {
			hooks:     []Hook{dbDown},
			observed:  Observed{Resources: map[string]map[string]any{"database": failing, "bucket": ready}},
			wantConds: []*crossplanev1.Condition{cond("DatabaseReady", sFalse, "FailedToCreate", ptr("The database cannot be created in eu-1: quota exceeded."), both)},
			wantRes:   []*crossplanev1.Result{{Severity: crossplanev1.Severity_SEVERITY_WARNING, Reason: ptr("FailedToCreate"), Message: "database: quota exceeded", Target: both.Enum()}},
			wantTypes: []string{"DatabaseReady"},
		},
		"NoMatchNoOutput": {
			hooks:    []Hook{dbDown},
			observed: Observed{Resources: map[string]map[string]any{"database": ready}},
		},
		"NameIsARegularExpressionUnanchored": {
			hooks: []Hook{{
				Matchers:      []Matcher{{Resources: []ResourceMatcher{{Name: `sql-\d+`}}, Conditions: []ConditionMatcher{{Type: "Synced", Status: ptr("False")}}}},
				SetConditions: []SetCondition{{Condition: Condition{Type: "SQL", Status: "False", Reason: "Failing"}}},
			}},
			observed:  Observed{Resources: map[string]map[string]any{"cloudsql-1": failing, "cloudsql-2": failing, "other": ready}},
			wantConds: []*crossplanev1.Condition{cond("SQL", sFalse, "Failing", nil, composite)},
			wantTypes: []string{"SQL"},
		},
		"AllResourcesMustMatchByDefault": {
			hooks:    []Hook{allReady},
			observed: Observed{Resources: map[string]map[string]any{"a": ready, "b": synced}},
		},
		"AllResourcesMatch": {
			hooks:     []Hook{allReady},
			observed:  Observed{Resources: map[string]map[string]any{"a": ready, "b": ready}},
			wantConds: []*crossplanev1.Condition{cond("AllReady", sTrue, "Available", nil, composite)},
			wantTypes: []string{"AllReady"},
		},
		"NothingSelectedNoMatch": {
			hooks:    []Hook{allReady},
			observed: Observed{},
		},
		"MissingConditionIsUnknown": {
			hooks: []Hook{{
				Matchers:      []Matcher{{Resources: []ResourceMatcher{{Name: "^a$"}}, Conditions: []ConditionMatcher{{Type: "Healthy", Status: ptr("Unknown"), Reason: ptr(""), Message: ptr("^$")}}}},
				SetConditions: []SetCondition{{Condition: Condition{Type: "Checked", Status: "Unknown", Reason: "NoHealth"}}},
			}},
			observed:  Observed{Resources: map[string]map[string]any{"a": ready}},
			wantConds: []*crossplanev1.Condition{cond("Checked", sUnknown, "NoHealth", nil, composite)},
			wantTypes: []string{"Checked"},
		},
		"HookWithoutMatchersNeverMatches": {
			hooks:    []Hook{{SetConditions: allReady.SetConditions}},
			observed: Observed{Resources: map[string]map[string]any{"a": ready}},
		},
		"MatcherWithoutConditionsNeverMatches": {
			hooks:    []Hook{{Matchers: []Matcher{{Resources: []ResourceMatcher{{Name: "a"}}}}, SetConditions: allReady.SetConditions}},
			observed: Observed{Resources: map[string]map[string]any{"a": ready}},
		},
		"MatchersAreANDed": {
			hooks: []Hook{{
				Matchers: []Matcher{
					{Resources: []ResourceMatcher{{Name: "^a$"}}, Conditions: []ConditionMatcher{{Type: "Ready", Status: ptr("True")}}},
					{Resources: []ResourceMatcher{{Name: "^b$"}}, Conditions: []ConditionMatcher{{Type: "Ready", Status: ptr("True")}}},
				},
				SetConditions: allReady.SetConditions,
			}},
			observed: Observed{Resources: map[string]map[string]any{"a": ready, "b": synced}},
		},
		"FirstSetWinsUnlessForced": {
			hooks: []Hook{
				{Matchers: allReady.Matchers, SetConditions: []SetCondition{{Condition: Condition{Type: "X", Status: "True", Reason: "First"}}}},
				{Matchers: allReady.Matchers, SetConditions: []SetCondition{{Condition: Condition{Type: "X", Status: "False", Reason: "Second"}}}},
				{Matchers: allReady.Matchers, SetConditions: []SetCondition{{Condition: Condition{Type: "Y", Status: "True", Reason: "Other"}}}},
				{Matchers: allReady.Matchers, SetConditions: []SetCondition{{Force: true, Condition: Condition{Type: "X", Status: "False", Reason: "Forced"}}}},
			},
			observed:  Observed{Resources: map[string]map[string]any{"a": ready}},
			wantConds: []*crossplanev1.Condition{cond("X", sFalse, "Forced", nil, composite), cond("Y", sTrue, "Other", nil, composite)},
			wantTypes: []string{"X", "Y"},
		},
		"CompositeAsResource": {
			hooks: []Hook{{
				Matchers:     []Matcher{{IncludeCompositeAsResource: true, Conditions: []ConditionMatcher{{Type: "Synced", Status: ptr("False"), Message: ptr("(?P<Why>.*)")}}}},
				CreateEvents: []CreateEvent{{Event: Event{Message: "composite: {{ .Why }}"}}},
			}},
			observed: Observed{Composite: object([4]string{"Synced", "False", "ReconcileError", "boom"})},
			wantRes:  []*crossplanev1.Result{{Severity: crossplanev1.Severity_SEVERITY_NORMAL, Message: "composite: boom", Target: composite.Enum()}},
		},
		"AnyResourceMatchesAnyCondition": {
			hooks: []Hook{{
				Matchers: []Matcher{{Type: AnyResourceMatchesAnyCondition, Resources: []ResourceMatcher{{Name: "."}},
					Conditions: []ConditionMatcher{{Type: "Synced", Status: ptr("False")}, {Type: "Ready", Status: ptr("False"), Reason: ptr("Broken")}}}},
				SetConditions: []SetCondition{{Condition: Condition{Type: "Degraded", Status: "True", Reason: "ResourceFailing"}}},
			}},
			observed:  Observed{Resources: map[string]map[string]any{"a": ready, "b": failing}},
			wantConds: []*crossplanev1.Condition{cond("Degraded", sTrue, "ResourceFailing", nil, composite)},
			wantTypes: []string{"Degraded"},
		},
		"AnyResourceMatchesAllConditions": {
			hooks: []Hook{{
				Matchers: []Matcher{{Type: AnyResourceMatchesAllConditions, Resources: []ResourceMatcher{{Name: "."}},
					Conditions: []ConditionMatcher{{Type: "Synced", Status: ptr("True")}, {Type: "Ready", Status: ptr("False")}}}},
				SetConditions: []SetCondition{{Condition: Condition{Type: "Waiting", Status: "True", Reason: "Creating"}}},
			}},
			observed:  Observed{Resources: map[string]map[string]any{"a": ready, "b": synced}},
			wantConds: []*crossplanev1.Condition{cond("Waiting", sTrue, "Creating", nil, composite)},
			wantTypes: []string{"Waiting"},
		},
		"AllResourcesMatchAnyCondition": {
			hooks: []Hook{{
				Matchers: []Matcher{{Type: AllResourcesMatchAnyCondition, Resources: []ResourceMatcher{{Name: "."}},
					Conditions: []ConditionMatcher{{Type: "Ready", Status: ptr("True")}, {Type: "Ready", Reason: ptr("Creating")}}}},
				SetConditions: []SetCondition{{Condition: Condition{Type: "Progressing", Status: "True", Reason: "OK"}}},
			}},
			observed:  Observed{Resources: map[string]map[string]any{"a": ready, "b": synced}},
			wantConds: []*crossplanev1.Condition{cond("Progressing", sTrue, "OK", nil, composite)},
			wantTypes: []string{"Progressing"},
		},
		"CapturesDeterministicByName": {
			// Both resources capture Error; the later name's capture wins, every time.
			hooks: []Hook{{
				Matchers:     []Matcher{{Resources: []ResourceMatcher{{Name: "."}}, Conditions: []ConditionMatcher{{Type: "Synced", Message: ptr("(?P<Error>.+)")}}}},
				CreateEvents: []CreateEvent{{Event: Event{Message: "{{ .Error }}"}}},
			}},
			observed: Observed{Resources: map[string]map[string]any{
				"z": object([4]string{"Synced", "False", "", "from z"}), "a": object([4]string{"Synced", "False", "", "from a"}),
				"m": object([4]string{"Synced", "False", "", "from m"}),
			}},
			wantRes: []*crossplanev1.Result{{Severity: crossplanev1.Severity_SEVERITY_NORMAL, Message: "from z", Target: composite.Enum()}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rs, err := Compile(tc.hooks)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 { // the same input gives the same output
				rsp := &crossplanev1.RunFunctionResponse{}
				types := rs.Apply(rsp, tc.observed)
				if diff := cmp.Diff(tc.wantConds, rsp.GetConditions(), protocmp.Transform()); diff != "" {
					t.Errorf("conditions (-want, +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantRes, rsp.GetResults(), protocmp.Transform()); diff != "" {
					t.Errorf("results (-want, +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantTypes, types); diff != "" {
					t.Errorf("types (-want, +got):\n%s", diff)
				}
			}
		})
	}
}

// TestApplyKeepsWhatTheFunctionSet: hooks add to a response; a condition the
// function set itself is not "set earlier" for Force.
func TestApplyKeepsWhatTheFunctionSet(t *testing.T) {
	rs, err := Compile([]Hook{{
		Matchers:      []Matcher{{Resources: []ResourceMatcher{{Name: "a"}}, Conditions: []ConditionMatcher{{Type: "Ready"}}}},
		SetConditions: []SetCondition{{Condition: Condition{Type: "X", Status: "True", Reason: "Rule"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rsp := &crossplanev1.RunFunctionResponse{Conditions: []*crossplanev1.Condition{cond("X", sFalse, "Function", nil, composite)}}
	rs.Apply(rsp, Observed{Resources: map[string]map[string]any{"a": object()}})
	want := []*crossplanev1.Condition{cond("X", sFalse, "Function", nil, composite), cond("X", sTrue, "Rule", nil, composite)}
	if diff := cmp.Diff(want, rsp.Conditions, protocmp.Transform()); diff != "" {
		t.Errorf("conditions (-want, +got):\n%s", diff)
	}
}

func TestApplyBoundsMessages(t *testing.T) {
	rs, err := Compile([]Hook{{
		Matchers:     []Matcher{{Resources: []ResourceMatcher{{Name: "a"}}, Conditions: []ConditionMatcher{{Type: "Synced", Message: ptr("(?P<All>.*)")}}}},
		CreateEvents: []CreateEvent{{Event: Event{Message: strings.Repeat("{{ .All }}", 400)}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rsp := &crossplanev1.RunFunctionResponse{}
	rs.Apply(rsp, Observed{Resources: map[string]map[string]any{"a": object([4]string{"Synced", "False", "", strings.Repeat("é", 1<<20)})}})
	if got := len(rsp.Results[0].Message); got > MaxMessageLength {
		t.Errorf("message of %d bytes, want at most %d", got, MaxMessageLength)
	}
	if !strings.HasSuffix(rsp.Results[0].Message, "...") {
		t.Errorf("a shortened message ends with ...: %q", rsp.Results[0].Message[len(rsp.Results[0].Message)-10:])
	}
}

func TestCompileErrors(t *testing.T) {
	ok := Matcher{Resources: []ResourceMatcher{{Name: "a"}}, Conditions: []ConditionMatcher{{Type: "Ready", Message: ptr("(?P<Error>.*)")}}}
	set := func(c Condition) []SetCondition { return []SetCondition{{Condition: c}} }
	cases := map[string]struct {
		hooks []Hook
		path  string
	}{
		"BadNamePattern":     {[]Hook{{Matchers: []Matcher{{Resources: []ResourceMatcher{{Name: "secret-(["}}, Conditions: ok.Conditions}}}}, "statusConditionHooks[0].matchers[0].resources[0].name"},
		"BadMessagePattern":  {[]Hook{{}, {Matchers: []Matcher{ok, {Resources: ok.Resources, Conditions: []ConditionMatcher{{Type: "X", Message: ptr("secret-(")}}}}}}, "statusConditionHooks[1].matchers[1].conditions[0].message"},
		"LongPattern":        {[]Hook{{Matchers: []Matcher{{Resources: []ResourceMatcher{{Name: strings.Repeat("a", MaxPatternLength+1)}}, Conditions: ok.Conditions}}}}, "statusConditionHooks[0].matchers[0].resources[0].name"},
		"NoConditionType":    {[]Hook{{Matchers: []Matcher{{Conditions: []ConditionMatcher{{}}}}}}, "statusConditionHooks[0].matchers[0].conditions[0].type"},
		"BadMatchType":       {[]Hook{{Matchers: []Matcher{{Type: "Some", Conditions: ok.Conditions}}}}, "statusConditionHooks[0].matchers[0].type"},
		"BadStatus":          {[]Hook{{Matchers: []Matcher{ok}, SetConditions: set(Condition{Type: "X", Status: "false", Reason: "R"})}}, "statusConditionHooks[0].setConditions[0].condition.status"},
		"NoReason":           {[]Hook{{Matchers: []Matcher{ok}, SetConditions: set(Condition{Type: "X", Status: "False"})}}, "statusConditionHooks[0].setConditions[0].condition.reason"},
		"BadTarget":          {[]Hook{{Matchers: []Matcher{ok}, SetConditions: []SetCondition{{Target: "Claim", Condition: Condition{Type: "X", Status: "True", Reason: "R"}}}}}, "statusConditionHooks[0].setConditions[0].target"},
		"UnknownGroup":       {[]Hook{{Matchers: []Matcher{ok}, SetConditions: set(Condition{Type: "X", Status: "True", Reason: "R", Message: ptr("{{ .Secret }}")})}}, "statusConditionHooks[0].setConditions[0].condition.message"},
		"TemplateAction":     {[]Hook{{Matchers: []Matcher{ok}, CreateEvents: []CreateEvent{{Event: Event{Message: "{{ range 100000000 }}x{{ end }}"}}}}}, "statusConditionHooks[0].createEvents[0].event.message"},
		"UnterminatedAction": {[]Hook{{Matchers: []Matcher{ok}, CreateEvents: []CreateEvent{{Event: Event{Message: "{{ .Error "}}}}}, "statusConditionHooks[0].createEvents[0].event.message"},
		"BadEventType":       {[]Hook{{Matchers: []Matcher{ok}, CreateEvents: []CreateEvent{{Event: Event{Type: "Fatal", Message: "m"}}}}}, "statusConditionHooks[0].createEvents[0].event.type"},
		"NoEventMessage":     {[]Hook{{Matchers: []Matcher{ok}, CreateEvents: []CreateEvent{{}}}}, "statusConditionHooks[0].createEvents[0].event.message"},
		"TooManyHooks":       {make([]Hook, MaxHooks+1), "statusConditionHooks"},
		"TooManyMatchers":    {[]Hook{{Matchers: make([]Matcher, MaxItems+1)}}, "statusConditionHooks[0].matchers"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Compile(tc.hooks)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Compile: %v, want an error wrapping ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tc.path+":") {
				t.Errorf("error %q does not name %s", err, tc.path)
			}
			if strings.Contains(err.Error(), "secret-") {
				t.Errorf("error %q quotes the pattern", err)
			}
		})
	}
}

// TestDecodesStatusTransformation: the input of function-status-transformer,
// written as its README documents it, decodes and compiles.
func TestDecodesStatusTransformation(t *testing.T) {
	const input = `{
	  "apiVersion": "function-status-transformer.fn.crossplane.io/v1beta1",
	  "kind": "StatusTransformation",
	  "statusConditionHooks": [{
	    "matchers": [{
	      "type": "AnyResourceMatchesAnyCondition",
	      "resources": [{"name": "cloudsql-\\d+"}],
	      "conditions": [{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "failed: (?P<Error>.+)"}]
	    }],
	    "setConditions": [{"target": "CompositeAndClaim", "force": true,
	      "condition": {"type": "DatabaseReady", "status": "False", "reason": "FailedToCreate", "message": "Cannot create: {{ .Error }}"}}],
	    "createEvents": [{"target": "CompositeAndClaim", "event": {"type": "Warning", "reason": "FailedToCreate", "message": "{{ .Error }}"}}]
	  }]
	}`
	var in StatusTransformation
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		t.Fatal(err)
	}
	rs, err := Compile(in.Hooks)
	if err != nil {
		t.Fatal(err)
	}
	rsp := &crossplanev1.RunFunctionResponse{}
	rs.Apply(rsp, Observed{Resources: map[string]map[string]any{"cloudsql-1": object([4]string{"Synced", "False", "ReconcileError", "failed: no quota"})}})
	if len(rsp.Conditions) != 1 || rsp.Conditions[0].GetMessage() != "Cannot create: no quota" || len(rsp.Results) != 1 {
		t.Errorf("got %v", rsp)
	}
}

func BenchmarkApply(b *testing.B) {
	rs, err := Compile([]Hook{
		{
			Matchers:      []Matcher{{Type: AnyResourceMatchesAnyCondition, Resources: []ResourceMatcher{{Name: "."}}, Conditions: []ConditionMatcher{{Type: "Synced", Status: ptr("False"), Message: ptr("(?P<Error>.+)")}}}},
			SetConditions: []SetCondition{{Target: TargetCompositeAndClaim, Condition: Condition{Type: "Healthy", Status: "False", Reason: "ResourceFailing", Message: ptr("{{ .Error }}")}}},
		},
		{
			Matchers:      []Matcher{{Resources: []ResourceMatcher{{Name: "."}}, Conditions: []ConditionMatcher{{Type: "Ready", Status: ptr("True")}}}},
			SetConditions: []SetCondition{{Target: TargetCompositeAndClaim, Condition: Condition{Type: "Healthy", Status: "True", Reason: "Available"}}},
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	o := Observed{Resources: map[string]map[string]any{}}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		o.Resources[n] = object([4]string{"Synced", "True", "ReconcileSuccess", ""}, [4]string{"Ready", "True", "Available", ""})
	}
	b.ReportAllocs()
	for b.Loop() {
		rs.Apply(&crossplanev1.RunFunctionResponse{}, o)
	}
}
