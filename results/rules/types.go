package rules

// StatusTransformation is a set of hooks as a function takes it in its input.
// Its JSON field names are function-status-transformer's, so that a
// StatusTransformation written for that function decodes into it.
type StatusTransformation struct {
	// Hooks, evaluated in order.
	Hooks []Hook `json:"statusConditionHooks"`
}

// A Hook sets conditions and records events when all of its matchers match.
// A hook without matchers never matches.
type Hook struct {
	// Matchers, all of which must match (their captures are merged in
	// order, a later capture of the same name replacing an earlier one).
	Matchers []Matcher `json:"matchers,omitempty"`
	// SetConditions are the conditions the hook sets when it matches.
	SetConditions []SetCondition `json:"setConditions,omitempty"`
	// CreateEvents are the events (function results) the hook records when
	// it matches.
	CreateEvents []CreateEvent `json:"createEvents,omitempty"`
}

// MatchType says how a matcher's resources and conditions combine.
type MatchType string

// The match types. AllResourcesMatchAllConditions is the default.
const (
	// AnyResourceMatchesAnyCondition matches when one of the resources
	// matches one of the conditions.
	AnyResourceMatchesAnyCondition MatchType = "AnyResourceMatchesAnyCondition"
	// AnyResourceMatchesAllConditions matches when one of the resources
	// matches every condition.
	AnyResourceMatchesAllConditions MatchType = "AnyResourceMatchesAllConditions"
	// AllResourcesMatchAnyCondition matches when every resource matches at
	// least one of the conditions.
	AllResourcesMatchAnyCondition MatchType = "AllResourcesMatchAnyCondition"
	// AllResourcesMatchAllConditions matches when every resource matches
	// every condition.
	AllResourcesMatchAllConditions MatchType = "AllResourcesMatchAllConditions"
)

// A Matcher selects resources and matches their conditions.
type Matcher struct {
	// Name of the matcher, for the author's benefit.
	Name string `json:"name,omitempty"`
	// Type of the match; AllResourcesMatchAllConditions when empty.
	Type MatchType `json:"type,omitempty"`
	// Resources select observed composed resources by their name in the
	// composition.
	Resources []ResourceMatcher `json:"resources,omitempty"`
	// Conditions the selected resources are matched against. A matcher
	// without conditions, or whose resources select nothing, does not
	// match.
	Conditions []ConditionMatcher `json:"conditions,omitempty"`
	// IncludeCompositeAsResource adds the observed composite resource to
	// the selected resources.
	IncludeCompositeAsResource bool `json:"includeCompositeAsResource,omitempty"`
}

// A ResourceMatcher selects composed resources by name.
type ResourceMatcher struct {
	// Name is a regular expression (RE2 syntax, unanchored: write ^ and $
	// to match a whole name) matched against the names of the observed
	// composed resources.
	Name string `json:"name"`
}

// A ConditionMatcher matches one condition of a resource. A resource without
// a condition of the type has it with status Unknown, an empty reason and an
// empty message, so a missing condition can be matched too.
type ConditionMatcher struct {
	// Type of the condition. Required.
	Type string `json:"type"`
	// Status of the condition (True, False or Unknown); any when nil.
	Status *string `json:"status,omitempty"`
	// Reason of the condition; any when nil.
	Reason *string `json:"reason,omitempty"`
	// Message is a regular expression (RE2, unanchored) the condition's
	// message must match; any when nil. Its named groups, such as
	// (?P<Error>.+), are captured for the hook's messages.
	Message *string `json:"message,omitempty"`
}

// Target is where a condition or event goes.
type Target string

// The targets. TargetComposite is the default.
const (
	TargetComposite         Target = "Composite"
	TargetCompositeAndClaim Target = "CompositeAndClaim"
)

// SetCondition is a condition a hook sets.
type SetCondition struct {
	// Target of the condition; Composite when empty.
	Target Target `json:"target,omitempty"`
	// Force replaces a condition of the same type that an earlier hook set;
	// without it, the first hook that sets a type wins.
	Force bool `json:"force,omitempty"`
	// Condition to set.
	Condition Condition `json:"condition"`
}

// Condition is a condition to set.
type Condition struct {
	// Type of the condition. Required.
	Type string `json:"type"`
	// Status of the condition: True, False or Unknown. Required.
	Status string `json:"status"`
	// Reason of the condition. Required.
	Reason string `json:"reason"`
	// Message of the condition, a template: {{ .Name }} is replaced by the
	// text the group Name of a message matcher captured.
	Message *string `json:"message,omitempty"`
}

// EventType is the type of an event: Normal or Warning.
type EventType string

// The event types. EventTypeNormal is the default.
const (
	EventTypeNormal  EventType = "Normal"
	EventTypeWarning EventType = "Warning"
)

// CreateEvent is an event a hook records.
type CreateEvent struct {
	// Target of the event; Composite when empty.
	Target Target `json:"target,omitempty"`
	// Event to record.
	Event Event `json:"event"`
}

// Event is an event to record, as a function result.
type Event struct {
	// Type of the event; Normal when empty.
	Type EventType `json:"type,omitempty"`
	// Reason of the event; the control plane's default when nil.
	Reason *string `json:"reason,omitempty"`
	// Message of the event, a template as Condition's. Required.
	Message string `json:"message"`
}
