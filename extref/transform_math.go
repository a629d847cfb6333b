package extref

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// A mathOp is a checked v1alpha1.MathTransform.
type mathOp struct {
	typ v1alpha1.MathTransformType
	n   int64 // the factor or the bound
}

func compileMath(t v1alpha1.Transform, out *transform) error {
	m := t.Math
	fields := []struct {
		name string
		typ  v1alpha1.MathTransformType
		v    *int64
	}{
		{"multiply", v1alpha1.MathMultiply, m.Multiply},
		{"clampMin", v1alpha1.MathClampMin, m.ClampMin},
		{"clampMax", v1alpha1.MathClampMax, m.ClampMax},
	}
	switch m.Type {
	case "":
		return fmt.Errorf("math: type is required (Multiply, ClampMin or ClampMax)")
	case v1alpha1.MathMultiply, v1alpha1.MathClampMin, v1alpha1.MathClampMax:
	default:
		return fmt.Errorf("math: unsupported type %q (want Multiply, ClampMin or ClampMax)", m.Type)
	}
	op := &mathOp{typ: m.Type}
	for _, f := range fields {
		switch {
		case f.typ == m.Type && f.v == nil:
			return fmt.Errorf("math: type %s needs %s", m.Type, f.name)
		case f.typ == m.Type:
			op.n = *f.v
		case f.v != nil:
			return fmt.Errorf("math: type %s does not take %s", m.Type, f.name)
		}
	}
	out.math = op
	return nil
}

func applyMath(t transform, v render.Value) (any, error) {
	op := t.math
	switch x := v.V.(type) {
	case int64:
		switch op.typ {
		case v1alpha1.MathMultiply:
			p := x * op.n
			if x != 0 && (p/x != op.n || x == -1 && op.n == math.MinInt64 || op.n == -1 && x == math.MinInt64) {
				return nil, render.Failf(nil, "%v times %d overflows int64", v, op.n)
			}
			return p, nil
		case v1alpha1.MathClampMin:
			return max(x, op.n), nil
		case v1alpha1.MathClampMax:
			return min(x, op.n), nil
		}
	case float64:
		switch op.typ {
		case v1alpha1.MathMultiply:
			p := x * float64(op.n)
			if math.IsInf(p, 0) || math.IsNaN(p) {
				return nil, render.Failf(nil, "%v times %d is beyond float64", v, op.n)
			}
			return p, nil
		case v1alpha1.MathClampMin:
			if x < float64(op.n) {
				return op.n, nil
			}
			return x, nil
		case v1alpha1.MathClampMax:
			if x > float64(op.n) {
				return op.n, nil
			}
			return x, nil
		}
	}
	return nil, render.Failf(nil, "takes a number, not %v", v)
}

// size estimates the bytes op keeps; nil keeps none.
func (op *mathOp) size() int {
	if op == nil {
		return 0
	}
	return int(unsafe.Sizeof(*op))
}
