// Package rules turns the conditions of a composition's observed resources
// into conditions and events on the composite resource and its claim, by
// hooks a platform team writes: the job of function-status-transformer, as a
// library a function calls.
//
// A hook's matchers select composed resources by name (regular
// expressions), and match their conditions by type, status, reason and a
// message regular expression whose named groups are captured; when all of
// a hook's matchers match, its conditions are set and its events recorded,
// with the captures in their messages:
//
//	rs, err := rules.Compile([]rules.Hook{{
//		Matchers: []rules.Matcher{{
//			Resources:  []rules.ResourceMatcher{{Name: "^database$"}},
//			Conditions: []rules.ConditionMatcher{{Type: "Synced", Status: ptr("False"), Message: ptr("cannot create: (?P<Error>.+)")}},
//		}},
//		SetConditions: []rules.SetCondition{{
//			Target:    rules.TargetCompositeAndClaim,
//			Condition: rules.Condition{Type: "DatabaseReady", Status: "False", Reason: "FailedToCreate", Message: ptr("The database cannot be created: {{ .Error }}.")},
//		}},
//	}})
//
// and, in each run of the function, with the observed resources as decoded
// JSON objects:
//
//	rs.Apply(rsp, rules.Observed{Resources: map[string]map[string]any{"database": database}})
//
// The types decode a function-status-transformer StatusTransformation, whose
// field names and match types they keep. Beyond it: Compile checks
// everything up front (statuses, event types, templates, and that a
// placeholder names a group a matcher of the hook captures) and its errors
// name the field without quoting a pattern; resources are considered in name
// order, so the same observed state gives the same response; a forced
// condition replaces the earlier one instead of being added beside it; and
// templates have one action, {{ .Name }}, so a template cannot run without
// bound. Extra resources (function-extra-resources' context) are not
// matched. docs/design/results.md has the comparison.
//
// Limits: MaxHooks (100) hooks; MaxItems (32) matchers, conditions and events
// per hook and resources and conditions per matcher; regular expressions of
// MaxPatternLength (1024) bytes, templates of MaxTemplateLength (4096) and
// messages of MaxMessageLength (4096), longer ones shortened.
//
// Imports: the standard library, internal/message and the results proto
// package, as results/response (no client-go, no apimachinery).
package rules
