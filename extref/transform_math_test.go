package extref

import (
	"math"
	"testing"

	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// TestMathTransform: the Math transform gives what patch-and-transform's
// math transform gives, case for case of its own tests (an integer is
// int64 here, as in every JSON value extref reads), and fails where it
// fails; then fractions, overflow and secret values.
func TestMathTransform(t *testing.T) {
	two := int64(2)
	n := func(i int64) *int64 { return &i }
	m := func(typ v1alpha1.MathTransformType, multiply, clampMin, clampMax *int64) v1alpha1.Transform {
		return v1alpha1.Transform{Type: v1alpha1.TransformMath, Math: &v1alpha1.MathTransform{Type: typ, Multiply: multiply, ClampMin: clampMin, ClampMax: clampMax}}
	}
	cases := map[string]transformCase{
		"InvalidType":                  {reason: "An unknown type is refused.", t: m("bad", nil, nil, nil), in: int64(25), wantErr: `math: unsupported type "bad" (want Multiply, ClampMin or ClampMax)`},
		"NoType":                       {reason: "The type is required.", t: m("", nil, nil, nil), in: int64(25), wantErr: "math: type is required (Multiply, ClampMin or ClampMax)"},
		"NonNumberInput":               {reason: "Only numbers.", t: m(v1alpha1.MathMultiply, &two, nil, nil), in: "ola", wantErr: `takes a number, not a string ("ola")`},
		"NonNumberSecretInput":         {reason: "A secret value by type and size only.", t: m(v1alpha1.MathMultiply, &two, nil, nil), in: "ola", secret: true, wantErr: "takes a number, not a string of 3 bytes"},
		"MultiplyNoConfig":             {reason: "Multiply needs multiply.", t: m(v1alpha1.MathMultiply, nil, nil, nil), in: int64(25), wantErr: "math: type Multiply needs multiply"},
		"MultiplySuccess":              {reason: "An integer times an integer.", t: m(v1alpha1.MathMultiply, &two, nil, nil), in: int64(3), want: int64(6)},
		"MultiplySuccessInt64":         {reason: "The same, as theirs for int64.", t: m(v1alpha1.MathMultiply, &two, nil, nil), in: int64(3), want: int64(6)},
		"MultiplyFloat":                {reason: "A fraction stays one.", t: m(v1alpha1.MathMultiply, &two, nil, nil), in: 1.25, want: 2.5},
		"MultiplyOverflow":             {reason: "Overflow is an error, not a wrapped number.", t: m(v1alpha1.MathMultiply, &two, nil, nil), in: int64(math.MaxInt64/2 + 1), wantErr: "a number (4611686018427387904) times 2 overflows int64"},
		"MultiplyMinByMinusOne":        {reason: "The one overflow a division test misses.", t: m(v1alpha1.MathMultiply, n(-1), nil, nil), in: int64(math.MinInt64), wantErr: "a number (-9223372036854775808) times -1 overflows int64"},
		"MultiplyFloatOverflow":        {reason: "JSON has no infinity.", t: m(v1alpha1.MathMultiply, &two, nil, nil), in: math.MaxFloat64, secret: true, wantErr: "a number times 2 is beyond float64"},
		"MultiplyExtraField":           {reason: "A field the type does not take is refused.", t: m(v1alpha1.MathMultiply, &two, &two, nil), in: int64(1), wantErr: "math: type Multiply does not take clampMin"},
		"ClampMinSuccess":              {reason: "Below the bound: the bound.", t: m(v1alpha1.MathClampMin, nil, &two, nil), in: int64(1), want: int64(2)},
		"ClampMinSuccessNoChangeInt":   {reason: "Above it: the value.", t: m(v1alpha1.MathClampMin, nil, &two, nil), in: int64(3), want: int64(3)},
		"ClampMinSuccessNoChangeInt64": {reason: "The same, as theirs for int64.", t: m(v1alpha1.MathClampMin, nil, &two, nil), in: int64(3), want: int64(3)},
		"ClampMinSuccessInt64":         {reason: "Below the bound: the bound.", t: m(v1alpha1.MathClampMin, nil, &two, nil), in: int64(1), want: int64(2)},
		"ClampMinNoConfig":             {reason: "ClampMin needs clampMin.", t: m(v1alpha1.MathClampMin, nil, nil, nil), in: int64(25), wantErr: "math: type ClampMin needs clampMin"},
		"ClampMinFloatBelow":           {reason: "A fraction below the bound: the bound, an integer.", t: m(v1alpha1.MathClampMin, nil, &two, nil), in: 1.5, want: int64(2)},
		"ClampMinFloatAbove":           {reason: "A fraction above it: the fraction.", t: m(v1alpha1.MathClampMin, nil, &two, nil), in: 2.5, want: 2.5},
		"ClampMaxSuccess":              {reason: "Above the bound: the bound.", t: m(v1alpha1.MathClampMax, nil, nil, &two), in: int64(3), want: int64(2)},
		"ClampMaxSuccessNoChange":      {reason: "Below it: the value.", t: m(v1alpha1.MathClampMax, nil, nil, &two), in: int64(1), want: int64(1)},
		"ClampMaxSuccessInt64":         {reason: "Above the bound: the bound.", t: m(v1alpha1.MathClampMax, nil, nil, &two), in: int64(3), want: int64(2)},
		"ClampMaxNoConfig":             {reason: "ClampMax needs clampMax.", t: m(v1alpha1.MathClampMax, nil, nil, nil), in: int64(25), wantErr: "math: type ClampMax needs clampMax"},
		"ClampMaxFloatAbove":           {reason: "A fraction above the bound is clamped, compared exactly (theirs compares its integer part).", t: m(v1alpha1.MathClampMax, nil, nil, &two), in: 2.5, want: int64(2)},
		"ClampMaxFloatBelow":           {reason: "A fraction below it: the fraction.", t: m(v1alpha1.MathClampMax, nil, nil, &two), in: 1.5, want: 1.5},
	}
	runTransformCases(t, cases)
}
