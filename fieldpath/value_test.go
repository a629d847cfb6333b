package fieldpath

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

type port struct {
	Name     string            `json:"name"`
	Port     int32             `json:"port"`
	Weight   float64           `json:"weight,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Optional *string           `json:"optional"`
	hidden   string
}

type protocol string

func TestToJSON(t *testing.T) {
	cases := map[string]struct {
		reason string
		value  any
		want   any
		err    string // a substring; the error must wrap ErrInvalidValue
	}{
		"Nil":       {reason: "nil is null.", value: nil, want: nil},
		"String":    {reason: "A string is kept.", value: "x", want: "x"},
		"Bool":      {reason: "A bool is kept.", value: true, want: true},
		"Int":       {reason: "An int becomes int64.", value: 42, want: int64(42)},
		"Int8":      {reason: "An int8 becomes int64.", value: int8(-8), want: int64(-8)},
		"Int16":     {reason: "An int16 becomes int64.", value: int16(16), want: int64(16)},
		"Int32":     {reason: "An int32 becomes int64.", value: int32(32), want: int64(32)},
		"Int64":     {reason: "An int64 is kept.", value: int64(math.MinInt64), want: int64(math.MinInt64)},
		"Uint8":     {reason: "A uint8 becomes int64.", value: uint8(255), want: int64(255)},
		"Uint16":    {reason: "A uint16 becomes int64.", value: uint16(16), want: int64(16)},
		"Uint32":    {reason: "A uint32 becomes int64.", value: uint32(math.MaxUint32), want: int64(math.MaxUint32)},
		"Uint":      {reason: "A uint that fits becomes int64.", value: uint(7), want: int64(7)},
		"Uintptr":   {reason: "A uintptr becomes int64.", value: uintptr(7), want: int64(7)},
		"BigUint64": {reason: "A uint64 above int64 becomes float64, as the decoder makes it.", value: uint64(math.MaxUint64), want: float64(math.MaxUint64)},
		"MaxInt64":  {reason: "MaxInt64 as uint64 fits.", value: uint64(math.MaxInt64), want: int64(math.MaxInt64)},
		"WholeFloat": {
			reason: "A whole float64 becomes int64, as encoding/json writes it without a fraction.",
			value:  2.0, want: int64(2),
		},
		"NegativeZero": {reason: "-0 becomes int64 0.", value: math.Copysign(0, -1), want: int64(0)},
		"Fraction":     {reason: "A fraction stays float64.", value: 2.5, want: 2.5},
		"HugeFloat":    {reason: "A whole float64 beyond int64 stays float64.", value: 1e20, want: 1e20},
		"TwoToThe63":   {reason: "2^63 does not fit int64.", value: math.Pow(2, 63), want: math.Pow(2, 63)},
		"MinusTwoToThe63": {
			reason: "-2^63 fits int64.",
			value:  -math.Pow(2, 63), want: int64(math.MinInt64),
		},
		"Float32":      {reason: "A float32 is read as the digits encoding/json writes for it.", value: float32(0.1), want: 0.1},
		"WholeFloat32": {reason: "A whole float32 becomes int64.", value: float32(3), want: int64(3)},
		"NaN":          {reason: "NaN cannot be represented.", value: math.NaN(), err: "it is not a finite number"},
		"Inf":          {reason: "Infinity cannot be represented.", value: math.Inf(1), err: "it is not a finite number"},
		"Float32Inf":   {reason: "A float32 infinity cannot be represented.", value: float32(math.Inf(-1)), err: "it is not a finite number"},
		"NumberInt":    {reason: "An integral json.Number becomes int64.", value: json.Number("12"), want: int64(12)},
		"NumberFloat":  {reason: "A json.Number with a fraction stays float64, as the decoder leaves 2.0.", value: json.Number("2.0"), want: 2.0},
		"NumberEmpty":  {reason: "encoding/json writes the empty Number as 0.", value: json.Number(""), want: int64(0)},
		"NumberBig":    {reason: "An integral json.Number beyond int64 becomes float64.", value: json.Number("1e400"), err: "out of range"},
		"NumberHex":    {reason: "A json.Number must follow JSON's grammar.", value: json.Number("0x1p4"), err: `a json.Number of 5 bytes that is not a JSON number`},
		"NumberInf":    {reason: "Inf is not a JSON number.", value: json.Number("Inf"), err: "not a JSON number"},
		"Map": {
			reason: "Maps are copied and their values converted.",
			value:  map[string]any{"a": 1, "b": []any{uint8(2), "x"}},
			want:   map[string]any{"a": int64(1), "b": []any{int64(2), "x"}},
		},
		"StringSlice": {reason: "A []string becomes []any.", value: []string{"a", "b"}, want: []any{"a", "b"}},
		"StringMap":   {reason: "A map[string]string becomes map[string]any.", value: map[string]string{"a": "b"}, want: map[string]any{"a": "b"}},
		"EmptySlice":  {reason: "An empty slice stays an empty array.", value: []any{}, want: []any{}},
		"NilSlice":    {reason: "A nil slice is null, as encoding/json writes it.", value: []any(nil), want: nil},
		"NilMap":      {reason: "A nil map is null.", value: map[string]any(nil), want: nil},
		"NilStrings":  {reason: "A nil []string is null.", value: []string(nil), want: nil},
		"NilStrMap":   {reason: "A nil map[string]string is null.", value: map[string]string(nil), want: nil},
		"Struct": {
			reason: "A struct is converted as the Kubernetes JSON decoder would: tags, omitempty, nulls, int64.",
			value:  port{Name: "http", Port: 80, hidden: "x"},
			want:   map[string]any{"name": "http", "port": int64(80), "optional": nil},
		},
		"StructPointer": {
			reason: "A pointer to a struct is followed.",
			value:  &port{Name: "http", Port: 80, Weight: 0.5, Labels: map[string]string{"a": "b"}},
			want: map[string]any{"name": "http", "port": int64(80), "weight": 0.5, "optional": nil,
				"labels": map[string]any{"a": "b"}},
		},
		"NilPointer": {reason: "A nil pointer is null.", value: (*port)(nil), want: nil},
		"TypedString": {
			reason: "A named string type is a string.",
			value:  protocol("TCP"), want: "TCP",
		},
		"Marshaler": {
			reason: "A type with MarshalJSON is converted by it.",
			value:  intstr.FromString("50%"), want: "50%",
		},
		"Time": {
			reason: "metav1.Time is written as RFC 3339.",
			value:  metav1.Unix(0, 0).Rfc3339Copy(),
			want:   metav1.Unix(0, 0).UTC().Format("2006-01-02T15:04:05Z"),
		},
		"TypedMap": {
			reason: "A typed map is converted through JSON.",
			value:  map[string]int{"a": 1},
			want:   map[string]any{"a": int64(1)},
		},
		"Bytes": {
			reason: "A []byte is base64, as encoding/json writes it.",
			value:  []byte("hi"), want: "aGk=",
		},
		"Chan": {
			reason: "A channel cannot be represented.",
			value:  make(chan int), err: "the value cannot be represented as JSON: a chan int cannot be marshalled",
		},
		"Func": {
			reason: "A function cannot be represented.",
			value:  func() {}, err: "cannot be marshalled",
		},
		"NestedNaN": {
			reason: "The error names where in the value the problem is.",
			value:  map[string]any{"a": []any{1, math.NaN()}},
			err:    "the value at a[1] cannot be represented as JSON: it is not a finite number",
		},
		"StructWithNaN": {
			reason: "NaN inside a struct cannot be represented either.",
			value:  port{Weight: math.NaN()}, err: "it holds a value that has no JSON form",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := toJSON(tc.value)
			if tc.err != "" {
				if err == nil {
					t.Fatalf("\n%s\ntoJSON(%#v): want an error containing %q, got %#v", tc.reason, tc.value, tc.err, got)
				}
				if !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("\n%s\ntoJSON(%#v): want an error wrapping ErrInvalidValue containing %q, got %q", tc.reason, tc.value, tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("\n%s\ntoJSON(%#v): %v", tc.reason, tc.value, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\ntoJSON(%#v): -want, +got:\n%s", tc.reason, tc.value, diff)
			}
		})
	}
}

// TestToJSONMatchesDecoder checks the direct conversions against the real
// thing: encoding/json's bytes decoded by Kubernetes' decoder.
func TestToJSONMatchesDecoder(t *testing.T) {
	values := []any{
		nil, "", "x", true, false,
		0, -1, 42, int8(-128), int16(1000), int32(-5), int64(math.MaxInt64), int64(math.MinInt64),
		uint8(7), uint16(7), uint32(7), uint(7), uint64(math.MaxInt64), uint64(math.MaxUint64),
		0.0, math.Copysign(0, -1), 1.0, -3.0, 2.5, 1e-7, 1e15, 1e20, 1e21, 123456789.0, math.MaxFloat64, math.SmallestNonzeroFloat64,
		float64(1 << 53), -float64(1 << 53),
		float32(0.1), float32(3), float32(1e30), float32(-2.5),
		json.Number("1"), json.Number("-0"), json.Number("2.0"), json.Number("1e3"), json.Number("123456789012345678901234"),
		map[string]any{"a": map[string]any{"b": []any{1, 2.5, "c", nil, true}}},
		[]any{[]any{}, map[string]any{}},
		[]string{"a"}, map[string]string{"k": "v"},
		[]any(nil), map[string]any(nil), []string(nil), map[string]string(nil), map[string]any{"a": []any(nil)},
	}
	for _, v := range values {
		got, err := toJSON(v)
		if err != nil {
			t.Errorf("toJSON(%#v): %v", v, err)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := utiljson.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("toJSON(%#v) differs from the decoder's %s: -want, +got:\n%s", v, b, diff)
		}
	}
}

func TestToJSONCycle(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	_, err := toJSON(m)
	if !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), "nested more than 10000 levels deep") {
		t.Errorf("toJSON of a map that contains itself: want a depth error, got %v", err)
	}
	s := []any{nil}
	s[0] = s
	if _, err := toJSON(s); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("toJSON of a slice that contains itself: want a depth error, got %v", err)
	}
}

func TestValidNumber(t *testing.T) {
	valid := []string{"0", "-0", "1", "-12", "1.5", "0.0", "1e3", "1E+3", "-1.5e-3"}
	invalid := []string{"", "-", "01", "+1", ".5", "1.", "1e", "1e+", "0x10", "Inf", "NaN", "1_000", " 1"}
	for _, s := range valid {
		if !validNumber(s) {
			t.Errorf("validNumber(%q) = false, want true", s)
		}
	}
	for _, s := range invalid {
		if validNumber(s) {
			t.Errorf("validNumber(%q) = true, want false", s)
		}
	}
}

func FuzzValidNumber(f *testing.F) {
	for _, s := range []string{"0", "-1.5e-3", "01", "1.", "1e+", "0x10", " 1", "1 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9') &&
			strings.TrimSpace(s) == s && json.Valid([]byte(s))
		if got := validNumber(s); got != want {
			t.Fatalf("validNumber(%q) = %t, encoding/json says %t", s, got, want)
		}
	})
}
