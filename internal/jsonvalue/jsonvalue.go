// Package jsonvalue holds what ctrlkit's packages need to know about values
// decoded from JSON (map[string]any, []any, string, bool, nil and numbers):
// numbers compared and converted by value whatever their Go type, deep
// equality and deep copies. The Kubernetes decoders give int64 for whole
// numbers and float64 for others; encoding/json gives float64 (or
// json.Number); values set by Go code may be any integer type. All of them
// are the same JSON number when their values are equal. Describe names a
// value in an error message, in the same words for every package.
//
// The package imports the standard library only, so that fieldpath, which
// every other package builds on, stays light.
package jsonvalue

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// Int64 returns v as an int64 when v is a Go integer that fits one, or a
// json.Number that parses as one. Floats are not integers here, even whole
// ones; WholeInt64 accepts them.
func Int64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, true
		}
	}
	return 0, false
}

// WholeInt64 is Int64 that also accepts a whole float64 or float32 within
// int64's range, which is how encoding/json decodes an integer into any.
func WholeInt64(v any) (int64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	default:
		return Int64(v)
	}
	// float64(math.MaxInt64) is 2^63, which int64 cannot hold.
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return int64(f), true
	}
	return 0, false
}

// Float64 returns any Go number, or a json.Number that parses, as a float64.
func Float64(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint64:
		return float64(x), true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	// The other integers fit an int64; uint and uint64 may not.
	if i, ok := Int64(v); ok {
		return float64(i), true
	}
	return 0, false
}

// NumbersEqual compares two numbers by value: int64(1), int(1), float64(1)
// and json.Number("1") are equal. Two integers are compared exactly, not
// through float64, which cannot tell 2^53 from 2^53+1; NaN equals NaN, so
// that a value equals itself. ok is false unless both are numbers.
func NumbersEqual(a, b any) (eq, ok bool) {
	if x, ok := Int64(a); ok {
		if y, ok := Int64(b); ok {
			return x == y, true
		}
	}
	x, okA := Float64(a)
	y, okB := Float64(b)
	if !okA || !okB {
		return false, false
	}
	if math.IsNaN(x) && math.IsNaN(y) {
		return true, true
	}
	return x == y, true
}

// Equal reports whether two JSON values are equal: objects with the same
// keys and equal values, arrays with equal items in the same order, and
// numbers by value (NumbersEqual). Values that are not JSON are compared with
// reflect.DeepEqual.
func Equal(a, b any) bool { return equal(a, b, nil) }

// EqualForm is Equal for an a that may hold values Go code put there: form
// turns each value of a, at every level, into the JSON value it stands for
// (a map[string]string into a map[string]any, a nil map into nil) before it
// is compared with b's.
func EqualForm(a, b any, form func(any) any) bool { return equal(a, b, form) }

func equal(a, b any, form func(any) any) bool {
	if form != nil {
		a = form(a)
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, found := y[k]
			if !found || !equal(xv, yv, form) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i], form) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	if eq, ok := NumbersEqual(a, b); ok {
		return eq
	}
	return reflect.DeepEqual(a, b)
}

// DeepCopy copies the objects and arrays of v, so that the copy can be
// changed without changing v. Other values are immutable, or not JSON, and
// are shared.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	}
	return v
}
