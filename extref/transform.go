package extref

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// A transform is a checked v1alpha1.Transform, ready to apply.
type transform struct {
	typ    v1alpha1.TransformType
	format *render.Format
	table  mapTable
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
		f, err := render.ParseFormat(t.Format, 1)
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
		out.table = newMapTable(t.Map)
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

// apply transforms v. It never panics, never returns more than
// MaxOutputSize bytes of string, and its errors are made by render.Failf, which
// describe the value without its content when it is secret. The result is
// as secret as v.
func (t transform) apply(v render.Value) (render.Value, error) {
	out, err := t.applyTo(v)
	if err != nil {
		return render.Value{}, err
	}
	return render.Value{V: out, Secret: v.Secret}, nil
}

func (t transform) applyTo(v render.Value) (any, error) {
	switch t.typ {
	case v1alpha1.TransformBase64Decode:
		s, ok := v.V.(string)
		if !ok {
			return nil, render.Failf(nil, "takes a string, not %v", v)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, render.Base64Error(err, v)
		}
		return string(b), nil
	case v1alpha1.TransformBase64Encode:
		s, ok := v.V.(string)
		if !ok {
			return nil, render.Failf(nil, "takes a string, not %v", v)
		}
		if base64.StdEncoding.EncodedLen(len(s)) > MaxOutputSize {
			return nil, render.Failf(render.ErrTooLarge, "%v would give more than %d bytes", v, MaxOutputSize)
		}
		return base64.StdEncoding.EncodeToString([]byte(s)), nil
	case v1alpha1.TransformFormat:
		return t.format.Sprint([]render.Value{v})
	case v1alpha1.TransformMap:
		s, ok := v.V.(string)
		if !ok {
			return nil, render.Failf(nil, "takes a string, not %v", v)
		}
		out, ok := t.table.lookup(s)
		if !ok {
			return nil, render.Failf(nil, "the map has no entry for %v", v)
		}
		return out, nil
	case v1alpha1.TransformConvert:
		return convert(v, t.to)
	}
	return nil, fmt.Errorf("unsupported transform type %q", t.typ)
}

// convert converts a JSON scalar to another JSON type.
func convert(v render.Value, to v1alpha1.ConvertType) (any, error) {
	fail := func(why string, cause error) (any, error) {
		if why != "" {
			return nil, render.Failf(cause, "cannot convert %v to %s: %s", v, to, why)
		}
		return nil, render.Failf(cause, "cannot convert %v to %s", v, to)
	}
	// strconv's errors quote their input: say why in words instead.
	parseFail := func(err error) (any, error) {
		if errors.Is(err, strconv.ErrRange) {
			return fail("out of range", err)
		}
		return fail("not "+syntaxOf(to), err)
	}
	switch to {
	case v1alpha1.ConvertString:
		switch x := v.V.(type) {
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
		switch x := v.V.(type) {
		case string:
			i, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return parseFail(err)
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
			return fail("not a whole number within range", nil)
		}
	case v1alpha1.ConvertFloat64:
		switch x := v.V.(type) {
		case string:
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return parseFail(err)
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fail("JSON has no NaN or infinity", nil)
			}
			return f, nil
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
	case v1alpha1.ConvertBool:
		switch x := v.V.(type) {
		case string:
			b, err := strconv.ParseBool(x)
			if err != nil {
				return parseFail(err)
			}
			return b, nil
		case bool:
			return x, nil
		}
	}
	return fail("", nil)
}

// syntaxOf names what a string must be to convert to a type.
func syntaxOf(to v1alpha1.ConvertType) string {
	switch to {
	case v1alpha1.ConvertInt64:
		return "a decimal integer"
	case v1alpha1.ConvertFloat64:
		return "a decimal number"
	case v1alpha1.ConvertBool:
		return "a boolean (true, false, 1, 0, t, f)"
	}
	return "valid"
}

// A mapTable is a Map transform's entries in one string, sorted by key,
// each key followed by its value, and where each ends: a table of 256
// short entries takes about its size as JSON, where a Go map took four
// times that.
type mapTable struct {
	text string
	ends []uint32 // entry i's key ends at ends[2i], its value at ends[2i+1]
}

func newMapTable(m map[string]string) mapTable {
	keys := make([]string, 0, len(m))
	n := 0
	for k, v := range m {
		keys = append(keys, k)
		n += len(k) + len(v)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	t := mapTable{ends: make([]uint32, 0, 2*len(keys))}
	for _, k := range keys {
		b.WriteString(k)
		t.ends = append(t.ends, uint32(b.Len()))
		b.WriteString(m[k])
		t.ends = append(t.ends, uint32(b.Len()))
	}
	t.text = b.String()
	return t
}

// entry returns entry i's key and value.
func (t mapTable) entry(i int) (key, value string) {
	start := uint32(0)
	if i > 0 {
		start = t.ends[2*i-1]
	}
	return t.text[start:t.ends[2*i]], t.text[t.ends[2*i]:t.ends[2*i+1]]
}

func (t mapTable) len() int { return len(t.ends) / 2 }

// lookup returns the value of key, if the table has it.
func (t mapTable) lookup(key string) (string, bool) {
	i, found := sort.Find(t.len(), func(i int) int {
		k, _ := t.entry(i)
		return strings.Compare(key, k)
	})
	if !found {
		return "", false
	}
	_, v := t.entry(i)
	return v, true
}

// size estimates the bytes t keeps.
func (t mapTable) size() int { return len(t.text) + 4*len(t.ends) }
