package fieldpath

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// maxValueDepth bounds how deeply toJSON follows nested maps and slices, so a
// map that contains itself is an error rather than a stack overflow. It is
// the depth Kubernetes' JSON decoder accepts.
const maxValueDepth = 10000

// toJSON returns v in the form a Kubernetes JSON decoder gives unstructured
// content: nil, bool, string, int64, float64, []any and map[string]any, all
// freshly allocated containers. Whole numbers become int64; other numbers
// float64. Common types are converted directly; anything else (structs,
// typed maps and slices, types with a MarshalJSON method) is marshalled with
// encoding/json and decoded with k8s.io/apimachinery/pkg/util/json, exactly as
// the API machinery would.
func toJSON(v any) (any, error) {
	return toJSONAt(v, 0)
}

func toJSONAt(v any, depth int) (any, error) {
	switch x := v.(type) {
	case nil, string, bool, int64:
		return v, nil
	case float64:
		return fromFloat(x)
	case uint:
		return fromUint(uint64(x)), nil
	case uint64:
		return fromUint(x), nil
	case uintptr:
		return fromUint(uint64(x)), nil
	case float32:
		// encoding/json writes a float32 with the fewest digits that read
		// back as the same float32, so 0.1 stays 0.1 rather than
		// 0.10000000149011612.
		var buf [32]byte
		f, _ := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], float64(x), 'g', -1, 32)), 64)
		return fromFloat(f)
	case json.Number:
		return fromNumber(x)
	case map[string]any:
		if x == nil {
			return nil, nil // encoding/json writes a nil map or slice as null
		}
		if depth >= maxValueDepth {
			return nil, &valueError{reason: fmt.Sprintf("it is nested more than %d levels deep", maxValueDepth)}
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			c, err := toJSONAt(e, depth+1)
			if err != nil {
				return nil, within(err, Segment{Type: SegmentField, Field: k})
			}
			m[k] = c
		}
		return m, nil
	case []any:
		if x == nil {
			return nil, nil // encoding/json writes a nil map or slice as null
		}
		if depth >= maxValueDepth {
			return nil, &valueError{reason: fmt.Sprintf("it is nested more than %d levels deep", maxValueDepth)}
		}
		a := make([]any, len(x))
		for i, e := range x {
			c, err := toJSONAt(e, depth+1)
			if err != nil {
				return nil, within(err, Segment{Type: SegmentIndex, Index: uint(i)})
			}
			a[i] = c
		}
		return a, nil
	case []string:
		if x == nil {
			return nil, nil // encoding/json writes a nil map or slice as null
		}
		a := make([]any, len(x))
		for i, s := range x {
			a[i] = s
		}
		return a, nil
	case map[string]string:
		if x == nil {
			return nil, nil // encoding/json writes a nil map or slice as null
		}
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return m, nil
	}
	if i, ok := jsonvalue.Int64(v); ok { // the other Go integers
		return i, nil
	}
	return viaJSON(v)
}

// fromFloat keeps a fraction as float64 and makes a whole number int64, as
// the decoder does with the digits encoding/json writes for it. A whole
// number too large for int64 stays float64; NaN and the infinities are
// errors, as they are for encoding/json.
func fromFloat(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, &valueError{reason: "it is not a finite number (NaN or an infinity)"}
	}
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return int64(f), nil
	}
	return f, nil
}

// fromUint keeps an unsigned integer exact when int64 holds it; otherwise it
// becomes float64, as the decoder makes it.
func fromUint(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
}

// fromNumber converts a json.Number as the decoder converts the same digits:
// int64 when they are an integer that fits, float64 otherwise (so "2.0" stays
// float64). encoding/json writes the empty Number as 0.
func fromNumber(n json.Number) (any, error) {
	s := string(n)
	if s == "" {
		return int64(0), nil
	}
	if !validNumber(s) {
		return nil, &valueError{reason: fmt.Sprintf("a json.Number of %d bytes that is not a JSON number", len(s))}
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, &valueError{reason: "a json.Number out of range for a float64"}
	}
	return f, nil
}

// validNumber reports whether s follows JSON's number grammar, which
// strconv's parsers are more generous than ("0x1p4", "Inf", "+1").
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = skipDigits(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// skipDigits returns the index of the first byte at or after i in s that is
// not a decimal digit.
func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func viaJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &valueError{reason: fmt.Sprintf("a %T cannot be marshalled", v), cause: err}
	}
	var out any
	if err := utiljson.Unmarshal(b, &out); err != nil {
		return nil, &valueError{reason: fmt.Sprintf("a %T cannot be decoded as JSON", v), cause: err}
	}
	return out, nil
}

// A valueError says why a value cannot be stored, and where inside it. Its
// message names the value's type and size, never its content; the cause's
// text is left out for the same reason (see opaque).
type valueError struct {
	inside Segments // where in the value, innermost first
	reason string
	cause  error
}

// within records that err happened inside segment s of a value.
func within(err error, s Segment) error {
	if ve, ok := err.(*valueError); ok {
		ve.inside = append(ve.inside, s)
	}
	return err
}

func (e *valueError) Error() string {
	where := "the value"
	if n := len(e.inside); n > 0 {
		// Outermost first, and no more than a screenful of it.
		const max = 16
		at := make(Segments, 0, min(n, max))
		for i := n - 1; i >= 0 && len(at) < max; i-- {
			at = append(at, e.inside[i])
		}
		where = "the value at " + at.String()
		if n > max {
			where += "..."
		}
	}
	msg := where + " cannot be represented as JSON: " + e.reason
	if d := describeCause(e.cause); d != "" {
		msg += ": " + d
	}
	return msg
}

func (e *valueError) Unwrap() []error {
	if e.cause != nil {
		return []error{ErrInvalidValue, e.cause}
	}
	return []error{ErrInvalidValue}
}
