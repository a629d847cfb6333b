package conditions

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
	"github.com/ctrlkit/ctrlkit/internal/message"
)

// Keys of a condition in unstructured content, as metav1.Condition's JSON
// tags spell them.
const (
	keyType               = "type"
	keyStatus             = "status"
	keyReason             = "reason"
	keyMessage            = "message"
	keyLastTransitionTime = "lastTransitionTime"
	keyObservedGeneration = "observedGeneration"
)

// FromUnstructured returns the conditions in u's status.conditions, in their
// order. A missing or null status or list gives no conditions and no error.
//
// An entry is read leniently, as a Crossplane or Kubernetes condition may be
// written: type and status are required strings, reason and message optional
// strings, lastTransitionTime an optional RFC 3339 string, observedGeneration
// an optional integer (a whole float64 or json.Number is accepted), and other
// keys are ignored. An entry that breaks these rules, or repeats an earlier
// entry's type, is malformed: the error names its index and wraps
// ErrMalformed. FromUnstructured does not apply Validate's rules to what it
// reads.
func FromUnstructured(u *unstructured.Unstructured) ([]metav1.Condition, error) {
	if u == nil {
		return nil, ErrNilObject
	}
	_, list, err := conditionList(u.Object)
	var conds []metav1.Condition
	if err == nil && len(list) > 0 {
		conds, err = parseEntries(list, make([]metav1.Condition, 0, len(list)))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read conditions of %s: %w", describe(u), err)
	}
	return conds, nil
}

// SetUnstructured is Setter.SetUnstructured with the real clock.
func SetUnstructured(u *unstructured.Unstructured, c metav1.Condition) (changed bool, err error) {
	return Setter{}.SetUnstructured(u, c)
}

// SetUnstructured is Set for u's status.conditions: it records c with Set's
// semantics (one condition per type, stable order, lastTransitionTime only on
// a change of status) and reports whether u changed.
//
// A missing status or list is created; other status fields, and keys of the
// entry that a metav1.Condition does not know, are kept as they are. An entry
// that is not a condition (see FromUnstructured), or a c that fails Validate
// once normalized (see Normalize), gives an error, and u is left unchanged.
func (s Setter) SetUnstructured(u *unstructured.Unstructured, c metav1.Condition) (changed bool, err error) {
	if u == nil {
		return false, ErrNilObject
	}
	normalize(&c)
	if err := Validate(c); err != nil {
		return false, fmt.Errorf("cannot set a condition on %s: %w", describe(u), err)
	}
	var buf [16]metav1.Condition
	status, list, conds, err := readConditions(u.Object, buf[:0])
	if err != nil {
		return false, fmt.Errorf("cannot set a condition on %s: %w", describe(u), err)
	}

	i := index(conds, c.Type)
	if i < 0 {
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = s.now()
		}
		writeConditions(u, status, appendEntry(list, toEntry(c)))
		return true, nil
	}
	merged := conds[i]
	if !s.update(&merged, &c) {
		return false, nil
	}
	writeConditions(u, status, replaceEntry(list, i, updateEntry(list[i].(map[string]any), &conds[i], &merged)))
	return true, nil
}

// RemoveUnstructured is Remove for u's status.conditions: it deletes the
// condition of conditionType and reports whether there was one. Malformed
// conditions give an error, as in FromUnstructured, and leave u unchanged.
func RemoveUnstructured(u *unstructured.Unstructured, conditionType string) (removed bool, err error) {
	if u == nil {
		return false, ErrNilObject
	}
	var buf [16]metav1.Condition
	status, list, conds, err := readConditions(u.Object, buf[:0])
	if err != nil {
		return false, fmt.Errorf("cannot remove a condition from %s: %w", describe(u), err)
	}
	i := index(conds, conditionType)
	if i < 0 {
		return false, nil
	}
	out := make([]any, 0, len(list)-1)
	out = append(out, list[:i]...)
	out = append(out, list[i+1:]...)
	writeConditions(u, status, out)
	return true, nil
}

// conditionList returns obj's status map and its conditions list. Either is
// nil when missing or null; a status that is not an object or conditions that
// are not a list are malformed.
func conditionList(obj map[string]any) (status map[string]any, list []any, err error) {
	switch v := obj["status"].(type) {
	case nil:
		return nil, nil, nil
	case map[string]any:
		status = v
	default:
		return nil, nil, malformed("status: must be an object, not %s", jsonKind(v))
	}
	switch v := status["conditions"].(type) {
	case nil:
		return status, nil, nil
	case []any:
		return status, v, nil
	default:
		return nil, nil, malformed("status.conditions: must be a list, not %s", jsonKind(v))
	}
}

// readConditions returns obj's status map, its conditions list and the
// conditions parsed from it, appended to dst.
func readConditions(obj map[string]any, dst []metav1.Condition) (status map[string]any, list []any, conds []metav1.Condition, err error) {
	if status, list, err = conditionList(obj); err != nil {
		return nil, nil, nil, err
	}
	conds, err = parseEntries(list, dst)
	return status, list, conds, err
}

// parseEntries appends the conditions of list to dst. It reports the first
// entry that is not a condition, or repeats the type of an earlier one.
func parseEntries(list []any, dst []metav1.Condition) ([]metav1.Condition, error) {
	start := len(dst)
	var seen map[string]int // type -> index, for a long list
	if len(list) > longList {
		seen = make(map[string]int, len(list))
	}
	for i, e := range list {
		c, err := parseEntry(i, e)
		if err != nil {
			return dst, err
		}
		j := -1
		if seen == nil {
			j = index(dst[start:], c.Type)
		} else if k, ok := seen[c.Type]; ok {
			j = k
		} else {
			seen[c.Type] = i
		}
		if j >= 0 {
			return dst, malformed("status.conditions[%d]: its type repeats that of status.conditions[%d]", i, j)
		}
		dst = append(dst, c)
	}
	return dst, nil
}

// longList is the length of a conditions list above which parseEntries finds
// repeated types with a map: scanning the entries before each one costs the
// square of the length.
const longList = 32

// index returns the index of the condition of type t in conds, or -1.
//
// It is not inlined: in a loop of its own, few values stay live across each
// string comparison (a call), where inlined into Setter.Set every value of the
// caller is reloaded after each one, which made Set slower than
// meta.SetStatusCondition.
//
//go:noinline
func index(conds []metav1.Condition, t string) int {
	for i := range conds {
		if conds[i].Type == t {
			return i
		}
	}
	return -1
}

// parseEntry reads entry i of status.conditions.
func parseEntry(i int, e any) (metav1.Condition, error) {
	var c metav1.Condition
	m, ok := e.(map[string]any)
	if !ok {
		return c, malformed("status.conditions[%d]: must be an object, not %s", i, jsonKind(e))
	}
	var err error
	if c.Type, err = requiredString(i, keyType, m[keyType]); err != nil {
		return c, err
	}
	var st string
	if st, err = requiredString(i, keyStatus, m[keyStatus]); err != nil {
		return c, err
	}
	c.Status = metav1.ConditionStatus(st)
	if c.Reason, err = optionalString(i, keyReason, m[keyReason]); err != nil {
		return c, err
	}
	if c.Message, err = optionalString(i, keyMessage, m[keyMessage]); err != nil {
		return c, err
	}
	switch v := m[keyLastTransitionTime].(type) {
	case nil:
	case string:
		if v != "" {
			t, err := parseTime(v)
			if err != nil {
				return c, malformed("status.conditions[%d].lastTransitionTime (%s): must be an RFC 3339 time (e.g. \"2006-01-02T15:04:05Z\")", i, size(v))
			}
			c.LastTransitionTime = metav1.NewTime(t)
		}
	default:
		return c, malformed("status.conditions[%d].lastTransitionTime: must be a string, not %s", i, jsonKind(v))
	}
	if gen := m[keyObservedGeneration]; gen != nil {
		g, ok := jsonvalue.WholeInt64(gen)
		switch {
		case ok:
		case jsonKind(gen) == "a number":
			return c, malformed("status.conditions[%d].observedGeneration: must be an integer, not a fraction or a number out of range", i)
		default:
			return c, malformed("status.conditions[%d].observedGeneration: must be an integer, not %s", i, jsonKind(gen))
		}
		c.ObservedGeneration = g
	}
	return c, nil
}

// parseTime is time.Parse(time.RFC3339, v), quicker for the form the API
// server writes, "2006-01-02T15:04:05Z": any other form, or a field out of
// range, goes to time.Parse.
func parseTime(v string) (time.Time, error) {
	f, ok := canonicalTime(v)
	if !ok {
		return time.Parse(time.RFC3339, v)
	}
	return time.Unix(unixDays(f.year, f.month, f.day)*86400+int64(f.hour*3600+f.minute*60+f.second), 0).UTC(), nil
}

// timeFields are the fields of a time in the API server's form.
type timeFields struct{ year, month, day, hour, minute, second int }

// canonicalTime reads v in the form the API server writes,
// "2006-01-02T15:04:05Z", and reports false for any other form or a field
// out of range.
func canonicalTime(v string) (f timeFields, ok bool) {
	if len(v) != len("2006-01-02T15:04:05Z") || v[4] != '-' || v[7] != '-' || v[10] != 'T' || v[13] != ':' || v[16] != ':' || v[19] != 'Z' {
		return f, false
	}
	var ok1, ok2, ok3, ok4, ok5, ok6 bool
	f.year, ok1 = digits(v[0:4])
	f.month, ok2 = digits(v[5:7])
	f.day, ok3 = digits(v[8:10])
	f.hour, ok4 = digits(v[11:13])
	f.minute, ok5 = digits(v[14:16])
	f.second, ok6 = digits(v[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		f.year < 1 || f.month < 1 || f.month > 12 || f.day < 1 || f.day > daysIn(f.month, f.year) ||
		f.hour > 23 || f.minute > 59 || f.second > 59 {
		return f, false
	}
	return f, true
}

// unixDays is the number of days from 1970-01-01 to the date in the
// proleptic Gregorian calendar (the days-from-civil algorithm).
func unixDays(year, month, day int) int64 {
	y := int64(year)
	if month <= 2 {
		y--
	}
	era := y / 400 // year >= 1, so y >= 0
	yoe := y - era*400
	mp := int64(month+9) % 12 // March is 0
	doy := (153*mp+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// digits reads a run of ASCII digits as a number.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int(d)
	}
	return n, true
}

// daysIn is the number of days in month of year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func requiredString(i int, key string, v any) (string, error) {
	switch v := v.(type) {
	case string:
		if v == "" {
			return "", malformed("status.conditions[%d].%s: must not be empty", i, key)
		}
		return v, nil
	case nil:
		return "", malformed("status.conditions[%d].%s: missing", i, key)
	default:
		return "", malformed("status.conditions[%d].%s: must be a string, not %s", i, key, jsonKind(v))
	}
}

func optionalString(i int, key string, v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case nil:
		return "", nil
	default:
		return "", malformed("status.conditions[%d].%s: must be a string, not %s", i, key, jsonKind(v))
	}
}

// jsonKind names the JSON kind of a value of unstructured content.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case int64, float64, int, int8, int16, int32, uint, uint8, uint16, uint32, uint64, float32, json.Number:
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}

// toEntry returns c as unstructured content.
func toEntry(c metav1.Condition) map[string]any {
	e := make(map[string]any, 6)
	e[keyType] = c.Type
	e[keyStatus] = string(c.Status)
	e[keyReason] = c.Reason
	e[keyMessage] = c.Message
	if !c.LastTransitionTime.IsZero() {
		e[keyLastTransitionTime] = formatTime(c.LastTransitionTime)
	}
	if c.ObservedGeneration != 0 {
		e[keyObservedGeneration] = c.ObservedGeneration
	}
	return e
}

// updateEntry returns a copy of entry, which holds old, changed to hold c. Keys
// a metav1.Condition does not know are kept, and so is the written form of
// lastTransitionTime when its instant did not change.
func updateEntry(entry map[string]any, old, c *metav1.Condition) map[string]any {
	e := make(map[string]any, len(entry)+2)
	for k, v := range entry {
		e[k] = v
	}
	e[keyStatus] = string(c.Status)
	e[keyReason] = c.Reason
	e[keyMessage] = c.Message
	if !c.LastTransitionTime.Equal(&old.LastTransitionTime) {
		if c.LastTransitionTime.IsZero() {
			delete(e, keyLastTransitionTime)
		} else {
			e[keyLastTransitionTime] = formatTime(c.LastTransitionTime)
		}
	}
	if c.ObservedGeneration != 0 {
		e[keyObservedGeneration] = c.ObservedGeneration
	} else {
		delete(e, keyObservedGeneration)
	}
	return e
}

// formatTime writes t as metav1.Time's JSON does.
func formatTime(t metav1.Time) string {
	return t.UTC().Format(time.RFC3339)
}

// appendEntry returns a new list: list and e. The caller's list is not
// changed, so content shared with other objects stays as it was.
func appendEntry(list []any, e map[string]any) []any {
	out := make([]any, len(list), len(list)+1)
	copy(out, list)
	return append(out, e)
}

// replaceEntry returns a new list: list with entry i replaced by e.
func replaceEntry(list []any, i int, e map[string]any) []any {
	out := make([]any, len(list))
	copy(out, list)
	out[i] = e
	return out
}

// writeConditions stores list as u's status.conditions, in a copy of status
// (u's status map, nil when it has none): a shallow copy of u shares that map,
// and must not see the write.
func writeConditions(u *unstructured.Unstructured, status map[string]any, list []any) {
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	s := make(map[string]any, len(status)+1)
	maps.Copy(s, status)
	s["conditions"] = list
	u.Object["status"] = s
}

// describe names u in error messages: its kind and namespace/name.
func describe(u *unstructured.Unstructured) string {
	return message.Object(u.GetKind(), u.GetNamespace(), u.GetName())
}
