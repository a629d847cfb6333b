package rules

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"

	"github.com/ctrlkit/ctrlkit/internal/message"
	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
)

// Limits of what Compile accepts.
const (
	// MaxHooks is the most hooks Compile accepts.
	MaxHooks = 100
	// MaxItems is the most matchers, set conditions and events of a hook,
	// and the most resources and conditions of a matcher, each.
	MaxItems = 32
	// MaxPatternLength is the longest regular expression, in bytes.
	MaxPatternLength = 1024
	// MaxTemplateLength is the longest message template, in bytes.
	MaxTemplateLength = 4096
	// MaxMessageLength is the longest message Apply writes, in bytes; a
	// longer one is shortened on a rune boundary and ends with "...".
	MaxMessageLength = 4096
)

// ErrInvalid is wrapped by every error of Compile.
var ErrInvalid = errors.New("invalid status rules")

// Rules are compiled hooks. They are immutable and safe for concurrent use.
type Rules struct {
	hooks []hook
}

type hook struct {
	matchers   []matcher
	conditions []setCondition
	events     []event
}

type matcher struct {
	mode       MatchType
	resources  []*regexp.Regexp
	composite  bool
	conditions []conditionMatcher
}

type conditionMatcher struct {
	typ, status, reason  string
	anyStatus, anyReason bool
	message              *regexp.Regexp // nil: any
	groups               []string       // the message's group names, by index; "" for unnamed
}

type setCondition struct {
	target  crossplanev1.Target
	force   bool
	typ     string
	status  crossplanev1.Status
	reason  string
	message *template // nil: no message
}

type event struct {
	target   crossplanev1.Target
	severity crossplanev1.Severity
	reason   *string
	message  *template
}

// Compile checks hooks and compiles their regular expressions and
// templates. Its errors name the field by its path in a
// StatusTransformation (statusConditionHooks[1].matchers[0]...) and wrap
// ErrInvalid; they quote no pattern or template.
func Compile(hooks []Hook) (*Rules, error) {
	if len(hooks) > MaxHooks {
		return nil, fmt.Errorf("%w: statusConditionHooks: %d hooks, more than %d", ErrInvalid, len(hooks), MaxHooks)
	}
	r := &Rules{hooks: make([]hook, 0, len(hooks))}
	for i, h := range hooks {
		c, err := compileHook(h, fmt.Sprintf("statusConditionHooks[%d]", i))
		if err != nil {
			return nil, err
		}
		r.hooks = append(r.hooks, c)
	}
	return r, nil
}

func invalid(path, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, path, fmt.Sprintf(format, a...))
}

func checkCount(path string, n int) error {
	if n > MaxItems {
		return invalid(path, "%d entries, more than %d", n, MaxItems)
	}
	return nil
}

func compileHook(h Hook, path string) (hook, error) {
	var c hook
	for _, n := range []struct {
		field string
		n     int
	}{{"matchers", len(h.Matchers)}, {"setConditions", len(h.SetConditions)}, {"createEvents", len(h.CreateEvents)}} {
		if err := checkCount(path+"."+n.field, n.n); err != nil {
			return c, err
		}
	}
	groups := map[string]bool{} // the names the hook's templates may use
	for i, m := range h.Matchers {
		cm, err := compileMatcher(m, fmt.Sprintf("%s.matchers[%d]", path, i))
		if err != nil {
			return c, err
		}
		for _, cond := range cm.conditions {
			for _, g := range cond.groups {
				if g != "" {
					groups[g] = true
				}
			}
		}
		c.matchers = append(c.matchers, cm)
	}
	for i, s := range h.SetConditions {
		p := fmt.Sprintf("%s.setConditions[%d]", path, i)
		sc := setCondition{force: s.Force, typ: s.Condition.Type, reason: s.Condition.Reason}
		var err error
		if sc.target, err = target(s.Target, p+".target"); err != nil {
			return c, err
		}
		if s.Condition.Type == "" {
			return c, invalid(p+".condition.type", "required")
		}
		if s.Condition.Reason == "" {
			return c, invalid(p+".condition.reason", "required")
		}
		switch s.Condition.Status {
		case "True":
			sc.status = crossplanev1.Status_STATUS_CONDITION_TRUE
		case "False":
			sc.status = crossplanev1.Status_STATUS_CONDITION_FALSE
		case "Unknown":
			sc.status = crossplanev1.Status_STATUS_CONDITION_UNKNOWN
		default:
			return c, invalid(p+".condition.status", "must be True, False or Unknown")
		}
		if s.Condition.Message != nil {
			if sc.message, err = parseTemplate(*s.Condition.Message, groups, p+".condition.message"); err != nil {
				return c, err
			}
		}
		c.conditions = append(c.conditions, sc)
	}
	for i, e := range h.CreateEvents {
		p := fmt.Sprintf("%s.createEvents[%d]", path, i)
		ev := event{reason: e.Event.Reason}
		var err error
		if ev.target, err = target(e.Target, p+".target"); err != nil {
			return c, err
		}
		switch e.Event.Type {
		case "", EventTypeNormal:
			ev.severity = crossplanev1.Severity_SEVERITY_NORMAL
		case EventTypeWarning:
			ev.severity = crossplanev1.Severity_SEVERITY_WARNING
		default:
			return c, invalid(p+".event.type", "must be Normal or Warning")
		}
		if e.Event.Message == "" {
			return c, invalid(p+".event.message", "required")
		}
		if ev.message, err = parseTemplate(e.Event.Message, groups, p+".event.message"); err != nil {
			return c, err
		}
		c.events = append(c.events, ev)
	}
	return c, nil
}

func target(t Target, path string) (crossplanev1.Target, error) {
	switch t {
	case "", TargetComposite:
		return crossplanev1.Target_TARGET_COMPOSITE, nil
	case TargetCompositeAndClaim:
		return crossplanev1.Target_TARGET_COMPOSITE_AND_CLAIM, nil
	}
	return 0, invalid(path, "must be Composite or CompositeAndClaim")
}

func compileMatcher(m Matcher, path string) (matcher, error) {
	c := matcher{mode: m.Type, composite: m.IncludeCompositeAsResource}
	switch m.Type {
	case "":
		c.mode = AllResourcesMatchAllConditions
	case AnyResourceMatchesAnyCondition, AnyResourceMatchesAllConditions, AllResourcesMatchAnyCondition, AllResourcesMatchAllConditions:
	default:
		return c, invalid(path+".type", "must be one of %s, %s, %s or %s", AnyResourceMatchesAnyCondition,
			AnyResourceMatchesAllConditions, AllResourcesMatchAnyCondition, AllResourcesMatchAllConditions)
	}
	if err := checkCount(path+".resources", len(m.Resources)); err != nil {
		return c, err
	}
	if err := checkCount(path+".conditions", len(m.Conditions)); err != nil {
		return c, err
	}
	for i, r := range m.Resources {
		re, err := compileRegexp(r.Name, fmt.Sprintf("%s.resources[%d].name", path, i))
		if err != nil {
			return c, err
		}
		c.resources = append(c.resources, re)
	}
	for i, cm := range m.Conditions {
		p := fmt.Sprintf("%s.conditions[%d]", path, i)
		if cm.Type == "" {
			return c, invalid(p+".type", "required")
		}
		cc := conditionMatcher{typ: cm.Type, anyStatus: cm.Status == nil, anyReason: cm.Reason == nil}
		if cm.Status != nil {
			cc.status = *cm.Status
		}
		if cm.Reason != nil {
			cc.reason = *cm.Reason
		}
		if cm.Message != nil {
			re, err := compileRegexp(*cm.Message, p+".message")
			if err != nil {
				return c, err
			}
			cc.message, cc.groups = re, re.SubexpNames()
		}
		c.conditions = append(c.conditions, cc)
	}
	return c, nil
}

func compileRegexp(pattern, path string) (*regexp.Regexp, error) {
	if len(pattern) > MaxPatternLength {
		return nil, invalid(path, "regular expression of %d bytes, longer than %d", len(pattern), MaxPatternLength)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		// The code says what is wrong without quoting the pattern.
		var se *syntax.Error
		if errors.As(err, &se) {
			return nil, invalid(path, "invalid regular expression: %s", se.Code)
		}
		return nil, invalid(path, "invalid regular expression")
	}
	return re, nil
}

// Observed is what a function observes: the composite resource and the
// composed resources by their name in the composition, each as the object
// decoded from JSON (function-sdk-go's Resource.AsMap, or an
// unstructured.Unstructured's Object).
type Observed struct {
	Composite map[string]any
	Resources map[string]map[string]any
}

// Apply evaluates the hooks, in order, against o and adds what the hooks
// that match set to rsp: their conditions to rsp.Conditions and their events
// to rsp.Results, as Normal or Warning results. A condition type that an
// earlier hook set is set again only by a SetCondition with Force, which
// replaces it in place. Apply returns the types of the conditions it set, in
// the order they are in rsp.
//
// Resources are considered in the order of their names, then the composite
// resource, so that the same observed state always gives the same response.
func (r *Rules) Apply(rsp *crossplanev1.RunFunctionResponse, o Observed) []string {
	if r == nil || rsp == nil || len(r.hooks) == 0 {
		return nil
	}
	names := make([]string, 0, len(o.Resources))
	for n := range o.Resources {
		names = append(names, n)
	}
	sort.Strings(names)
	set := map[string]int{} // a set type's index in rsp.Conditions
	var types []string
	for _, h := range r.hooks {
		captures, ok := h.match(names, o)
		if !ok {
			continue
		}
		for _, sc := range h.conditions {
			at, seen := set[sc.typ]
			if seen && !sc.force {
				continue
			}
			c := &crossplanev1.Condition{Type: sc.typ, Status: sc.status, Reason: sc.reason, Target: sc.target.Enum()}
			if sc.message != nil {
				m := sc.message.render(captures)
				c.Message = &m
			}
			if seen {
				rsp.Conditions[at] = c
				continue
			}
			set[sc.typ] = len(rsp.Conditions)
			rsp.Conditions = append(rsp.Conditions, c)
			types = append(types, sc.typ)
		}
		for _, e := range h.events {
			rsp.Results = append(rsp.Results, &crossplanev1.Result{
				Severity: e.severity,
				Message:  e.message.render(captures),
				Reason:   e.reason,
				Target:   e.target.Enum(),
			})
		}
	}
	return types
}

// match reports whether every matcher of h matches, and what they captured.
func (h *hook) match(names []string, o Observed) (map[string]string, bool) {
	if len(h.matchers) == 0 {
		return nil, false
	}
	captures := map[string]string{}
	for i := range h.matchers {
		if !h.matchers[i].match(names, o, captures) {
			return nil, false
		}
	}
	return captures, true
}

// match reports whether m matches, adding its captures to captures when it
// does.
func (m *matcher) match(names []string, o Observed, captures map[string]string) bool {
	var selected []map[string]any
	for _, n := range names {
		for _, re := range m.resources {
			if re.MatchString(n) {
				selected = append(selected, o.Resources[n])
				break
			}
		}
	}
	if m.composite && o.Composite != nil {
		selected = append(selected, o.Composite)
	}
	if len(selected) == 0 || len(m.conditions) == 0 {
		return false
	}
	got := map[string]string{}
	switch m.mode {
	case AnyResourceMatchesAnyCondition:
		for _, obj := range selected {
			for i := range m.conditions {
				if m.conditions[i].match(obj, got) {
					copyInto(captures, got)
					return true
				}
			}
		}
		return false
	case AnyResourceMatchesAllConditions:
		for _, obj := range selected {
			clear(got)
			all := true
			for i := range m.conditions {
				if !m.conditions[i].match(obj, got) {
					all = false
					break
				}
			}
			if all {
				copyInto(captures, got)
				return true
			}
		}
		return false
	case AllResourcesMatchAnyCondition:
		for _, obj := range selected {
			matched := false
			for i := range m.conditions {
				if m.conditions[i].match(obj, got) {
					matched = true
				}
			}
			if !matched {
				return false
			}
		}
	default: // AllResourcesMatchAllConditions
		for _, obj := range selected {
			for i := range m.conditions {
				if !m.conditions[i].match(obj, got) {
					return false
				}
			}
		}
	}
	copyInto(captures, got)
	return true
}

func copyInto(dst, src map[string]string) {
	for k, v := range src {
		dst[k] = v
	}
}

// match reports whether obj's condition of c's type matches c, adding the
// message's named groups to captures when it does.
func (c *conditionMatcher) match(obj map[string]any, captures map[string]string) bool {
	status, reason, msg := condition(obj, c.typ)
	if !c.anyStatus && status != c.status {
		return false
	}
	if !c.anyReason && reason != c.reason {
		return false
	}
	if c.message == nil {
		return true
	}
	sub := c.message.FindStringSubmatch(msg)
	if sub == nil {
		return false
	}
	for i := 1; i < len(sub); i++ {
		if c.groups[i] != "" {
			captures[c.groups[i]] = sub[i]
		}
	}
	return true
}

// condition returns the status, reason and message of obj's first condition
// of type typ in status.conditions: Unknown and empty strings when it has
// none, or when what it has is not a list of objects.
func condition(obj map[string]any, typ string) (status, reason, msg string) {
	st, _ := obj["status"].(map[string]any)
	list, _ := st["conditions"].([]any)
	for _, e := range list {
		c, _ := e.(map[string]any)
		if t, _ := c["type"].(string); t != typ {
			continue
		}
		status, _ = c["status"].(string)
		reason, _ = c["reason"].(string)
		msg, _ = c["message"].(string)
		if status == "" {
			status = "Unknown"
		}
		return status, reason, msg
	}
	return "Unknown", "", ""
}

// truncate bounds a message Apply writes.
func truncate(s string) string {
	return message.Truncate(message.ValidUTF8(s), MaxMessageLength)
}
