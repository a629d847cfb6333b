package jsonvalue

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNumbers(t *testing.T) {
	type want struct {
		int64, whole   int64
		isInt, isWhole bool
		float          float64
		isFloat        bool
	}
	cases := map[string]struct {
		reason string
		v      any
		want   want
	}{
		"Int64": {
			reason: "What the Kubernetes decoder gives for a whole number.",
			v:      int64(-7),
			want:   want{int64: -7, whole: -7, isInt: true, isWhole: true, float: -7, isFloat: true},
		},
		"Uint8": {
			reason: "Any Go integer type that fits an int64 is an integer.",
			v:      uint8(200),
			want:   want{int64: 200, whole: 200, isInt: true, isWhole: true, float: 200, isFloat: true},
		},
		"Uint64TooLarge": {
			reason: "A uint64 above int64's range is a number but not an int64.",
			v:      uint64(math.MaxUint64),
			want:   want{float: math.MaxUint64, isFloat: true},
		},
		"UintTooLarge": {
			reason: "So is a uint above int64's range.",
			v:      uint(math.MaxUint64),
			want:   want{float: math.MaxUint64, isFloat: true},
		},
		"Int16": {
			reason: "A negative integer of a small type is an integer and a number.",
			v:      int16(-300),
			want:   want{int64: -300, whole: -300, isInt: true, isWhole: true, float: -300, isFloat: true},
		},
		"WholeFloat": {
			reason: "A whole float64 (encoding/json's integers) is whole but not an integer type.",
			v:      float64(42),
			want:   want{whole: 42, isWhole: true, float: 42, isFloat: true},
		},
		"FractionalFloat": {
			reason: "A fraction is neither.",
			v:      2.5,
			want:   want{float: 2.5, isFloat: true},
		},
		"FloatAtTwoToThe63": {
			reason: "float64(math.MaxInt64) is 2^63, which int64 cannot hold.",
			v:      float64(math.MaxInt64),
			want:   want{float: float64(math.MaxInt64), isFloat: true},
		},
		"JSONNumberInteger": {
			reason: "A json.Number that parses as an integer is one.",
			v:      json.Number("9007199254740993"),
			want:   want{int64: 9007199254740993, whole: 9007199254740993, isInt: true, isWhole: true, float: 9007199254740992, isFloat: true},
		},
		"JSONNumberFraction": {
			reason: "A json.Number with a fraction is a float.",
			v:      json.Number("1.5"),
			want:   want{float: 1.5, isFloat: true},
		},
		"String": {
			reason: "A string is not a number, even one that looks like it.",
			v:      "1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got want
			got.int64, got.isInt = Int64(tc.v)
			got.whole, got.isWhole = WholeInt64(tc.v)
			got.float, got.isFloat = Float64(tc.v)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	cases := map[string]struct {
		reason string
		a, b   any
		want   bool
	}{
		"NumbersByValue": {
			reason: "int64(1), float64(1) and json.Number(\"1\") are the same JSON number.",
			a:      map[string]any{"n": []any{int64(1), 2.0}}, b: map[string]any{"n": []any{json.Number("1"), int(2)}},
			want: true,
		},
		"LargeIntegersExactly": {
			reason: "Integers are compared exactly, not through float64.",
			a:      int64(1 << 53), b: int64(1<<53 + 1),
			want: false,
		},
		"NaN": {
			reason: "A value equals itself, NaN included.",
			a:      math.NaN(), b: math.NaN(),
			want: true,
		},
		"MissingKey": {
			reason: "Objects need the same keys.",
			a:      map[string]any{"a": nil}, b: map[string]any{"b": nil},
			want: false,
		},
		"Order": {
			reason: "Arrays are compared in order.",
			a:      []any{"a", "b"}, b: []any{"b", "a"},
			want: false,
		},
		"KindsDiffer": {
			reason: "A string is not a number, nor null false.",
			a:      []any{"1", nil}, b: []any{int64(1), false},
			want: false,
		},
		"NotJSON": {
			reason: "Other values fall back to reflect.DeepEqual.",
			a:      struct{ A int }{1}, b: struct{ A int }{1},
			want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Equal(tc.a, tc.b); got != tc.want {
				t.Errorf("%s\nEqual(%v, %v) = %t, want %t", tc.reason, tc.a, tc.b, got, tc.want)
			}
			if got := Equal(tc.b, tc.a); got != tc.want {
				t.Errorf("%s\nEqual(%v, %v) = %t, want %t (not symmetric)", tc.reason, tc.b, tc.a, got, tc.want)
			}
		})
	}
}

func TestDeepCopy(t *testing.T) {
	in := map[string]any{"a": []any{map[string]any{"b": int64(1)}}, "s": "x"}
	out := DeepCopy(in).(map[string]any)
	out["a"].([]any)[0].(map[string]any)["b"] = int64(2)
	out["s"] = "y"
	want := map[string]any{"a": []any{map[string]any{"b": int64(1)}}, "s": "x"}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("changing the copy changed the original: -want, +got:\n%s", diff)
	}
}

func TestEqualPairs(t *testing.T) {
	cases := []struct {
		a, b any
		want bool
	}{
		{int64(1), 1.0, true},
		{1.0, int64(1), true},
		{int64(1), int64(2), false},
		{int64(1 << 60), int64(1<<60 + 1), false},
		{json.Number("1"), int64(1), true},
		{1, int64(1), true},
		{"1", int64(1), false},
		{int64(1), "1", false},
		{nil, nil, true},
		{nil, "x", false},
		{map[string]any{"a": int64(1)}, map[string]any{"a": 1.0}, true},
		{map[string]any{"a": int64(1)}, map[string]any{"b": int64(1)}, false},
		{map[string]any{"a": int64(1)}, map[string]any{}, false},
		{[]any{"x", 1.0}, []any{"x", int64(1)}, true},
		{[]any{"x"}, []any{"y"}, false},
		{[]any{"x"}, "x", false},
		{[]string{"x"}, []string{"x"}, true},
	}
	for _, tc := range cases {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("Equal(%#v, %#v) = %t, want %t", tc.a, tc.b, got, tc.want)
		}
	}
}
