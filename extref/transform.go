package extref

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// A transform is a checked v1alpha1.Transform, ready to apply.
type transform struct {
	typ    v1alpha1.TransformType
	format *format
	table  map[string]string
	to     v1alpha1.ConvertType
}

// compileTransform checks t; the error names the offending field.
func compileTransform(t v1alpha1.Transform) (transform, error) {
	out := transform{typ: t.Type}
	extra := func(field string) error {
		return fmt.Errorf("type %s does not take %s", t.Type, field)
	}
	switch t.Type {
	case v1alpha1.TransformBase64Decode, v1alpha1.TransformBase64Encode:
		switch {
		case t.Format != "":
			return out, extra("format")
		case t.Map != nil:
			return out, extra("map")
		case t.ToType != "":
			return out, extra("toType")
		}
	case v1alpha1.TransformFormat:
		if t.Format == "" {
			return out, errors.New("type Format needs format")
		}
		if t.Map != nil {
			return out, extra("map")
		}
		if t.ToType != "" {
			return out, extra("toType")
		}
		f, err := parseFormat(t.Format, 1)
		if err != nil {
			return out, err
		}
		out.format = f
	case v1alpha1.TransformMap:
		if t.Map == nil {
			return out, errors.New("type Map needs map")
		}
		if t.Format != "" {
			return out, extra("format")
		}
		if t.ToType != "" {
			return out, extra("toType")
		}
		out.table = t.Map
	case v1alpha1.TransformConvert:
		switch t.ToType {
		case v1alpha1.ConvertString, v1alpha1.ConvertInt64, v1alpha1.ConvertFloat64, v1alpha1.ConvertBool:
		case "":
			return out, errors.New("type Convert needs toType")
		default:
			return out, fmt.Errorf("unsupported toType %q (want string, int64, float64 or bool)", t.ToType)
		}
		if t.Format != "" {
			return out, extra("format")
		}
		if t.Map != nil {
			return out, extra("map")
		}
		out.to = t.ToType
	case "":
		return out, errors.New("type is required (Base64Decode, Base64Encode, Format, Map or Convert)")
	default:
		return out, fmt.Errorf("unsupported type %q (want Base64Decode, Base64Encode, Format, Map or Convert)", t.Type)
	}
	return out, nil
}

// apply transforms v, a JSON value. It never panics and never returns more
// than MaxOutputSize bytes of string.
func (t transform) apply(v any) (any, error) {
	switch t.typ {
	case v1alpha1.TransformBase64Decode:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("Base64Decode takes a string, not %s", describe(v))
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("Base64Decode: %w", err)
		}
		return string(b), nil
	case v1alpha1.TransformBase64Encode:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("Base64Encode takes a string, not %s", describe(v))
		}
		if base64.StdEncoding.EncodedLen(len(s)) > MaxOutputSize {
			return nil, fmt.Errorf("Base64Encode would give more than %d bytes", MaxOutputSize)
		}
		return base64.StdEncoding.EncodeToString([]byte(s)), nil
	case v1alpha1.TransformFormat:
		s, err := t.format.sprint([]any{v})
		if err != nil {
			return nil, err
		}
		return s, nil
	case v1alpha1.TransformMap:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("a Map transform takes a string, not %s", describe(v))
		}
		out, ok := t.table[s]
		if !ok {
			return nil, fmt.Errorf("the map has no entry for %s", describe(v))
		}
		return out, nil
	case v1alpha1.TransformConvert:
		return convert(v, t.to)
	}
	return nil, fmt.Errorf("unsupported transform type %q", t.typ)
}

// convert converts a JSON scalar to another JSON type.
func convert(v any, to v1alpha1.ConvertType) (any, error) {
	fail := func(err error) (any, error) {
		if err != nil {
			return nil, fmt.Errorf("cannot convert %s to %s: %w", describe(v), to, err)
		}
		return nil, fmt.Errorf("cannot convert %s to %s", describe(v), to)
	}
	switch to {
	case v1alpha1.ConvertString:
		switch x := v.(type) {
		case string:
			return x, nil
		case bool:
			return strconv.FormatBool(x), nil
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		}
	case v1alpha1.ConvertInt64:
		switch x := v.(type) {
		case string:
			i, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return fail(err)
			}
			return i, nil
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		case int64:
			return x, nil
		case float64:
			if i, ok := jsonvalue.WholeInt64(x); ok {
				return i, nil
			}
			return fail(errors.New("not a whole number within range"))
		}
	case v1alpha1.ConvertFloat64:
		switch x := v.(type) {
		case string:
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return fail(err)
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fail(errors.New("JSON has no NaN or infinity"))
			}
			return f, nil
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
	case v1alpha1.ConvertBool:
		switch x := v.(type) {
		case string:
			b, err := strconv.ParseBool(x)
			if err != nil {
				return fail(err)
			}
			return b, nil
		case bool:
			return x, nil
		}
	}
	return fail(nil)
}
