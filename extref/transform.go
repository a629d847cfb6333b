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

	"k8s.io/apimachinery/pkg/api/resource"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// transforms is the table of transforms, in the order errors list them. A
// row says which field of v1alpha1.Transform its type takes besides type
// (format, map, toType, string, match or math), how that field is checked and compiled, and how
// the transform applies to a value. To add a transform, add its
// TransformType to extref/v1alpha1 (and to the type's kubebuilder enum), and
// a row here.
var transforms = []transformKind{
	{typ: v1alpha1.TransformBase64Decode, apply: base64Decode},
	{typ: v1alpha1.TransformBase64Encode, apply: base64Encode},
	{typ: v1alpha1.TransformFormat, takes: "format", compile: compileFormat, apply: applyFormat},
	{typ: v1alpha1.TransformMap, takes: "map", compile: compileMap, apply: applyMap},
	{typ: v1alpha1.TransformConvert, takes: "toType", also: "format", need: needConvertType, compile: compileConvert, apply: applyConvert},
	{typ: v1alpha1.TransformString, takes: "string", compile: compileString, apply: applyString},
	{typ: v1alpha1.TransformMatch, takes: "match", compile: compileMatch, apply: applyMatch},
	{typ: v1alpha1.TransformMath, takes: "math", compile: compileMath, apply: applyMath},
}

// A transformKind is a row of transforms.
type transformKind struct {
	typ v1alpha1.TransformType
	// takes is the field the type takes besides type, if any; another
	// field given is an error.
	takes string
	// also is a field the type may take besides, if any.
	also string
	// need checks the field the type takes before the others are
	// checked; nil: the field must be given.
	need func(t v1alpha1.Transform) error
	// compile checks and prepares the field the type takes.
	compile func(t v1alpha1.Transform, out *transform) error
	// apply transforms a value. It never panics, never returns more than
	// MaxOutputSize bytes of string, and its errors are made by
	// render.Failf, which describe the value without its content when it
	// is secret.
	apply func(t transform, v render.Value) (any, error)
}

// transformFieldsTaken are the fields of v1alpha1.Transform one type or
// another takes, in the order a transform is checked for them.
var transformFieldsTaken = []string{"format", "map", "toType", "string", "match", "math"}

// given reports whether t has field f of transformFieldsTaken.
func given(t v1alpha1.Transform, f string) bool {
	switch f {
	case "format":
		return t.Format != ""
	case "map":
		return t.Map != nil
	case "toType":
		return t.ToType != ""
	case "string":
		return t.String != nil
	case "match":
		return t.Match != nil
	case "math":
		return t.Math != nil
	}
	return false
}

// A transform is a checked v1alpha1.Transform, ready to apply.
type transform struct {
	kind   *transformKind
	format *render.Format
	table  mapTable
	to     v1alpha1.ConvertType
	// convFormat is a Convert transform's format: 0 (none),
	// convertQuantity or convertJSON.
	convFormat int
	str        *stringOp
	match      *matchOp
	math       *mathOp
}

// compileTransform checks t; the error names the offending field.
func compileTransform(t v1alpha1.Transform) (transform, error) {
	i := slices.IndexFunc(transforms, func(k transformKind) bool { return k.typ == t.Type })
	switch {
	case t.Type == "":
		return transform{}, fmt.Errorf("type is required (%s)", transformTypes())
	case i < 0:
		return transform{}, fmt.Errorf("unsupported type %q (want %s)", t.Type, transformTypes())
	}
	k := &transforms[i]
	out := transform{kind: k}
	if k.takes != "" {
		switch {
		case k.need != nil:
			if err := k.need(t); err != nil {
				return out, err
			}
		case !given(t, k.takes):
			return out, fmt.Errorf("type %s needs %s", t.Type, k.takes)
		}
	}
	for _, f := range transformFieldsTaken {
		if f != k.takes && f != k.also && given(t, f) {
			return out, fmt.Errorf("type %s does not take %s", t.Type, f)
		}
	}
	if k.compile != nil {
		if err := k.compile(t, &out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// transformTypes lists the transform types: "Base64Decode, ..., Map or
// Convert".
func transformTypes() string {
	names := make([]string, len(transforms))
	for i, k := range transforms {
		names[i] = string(k.typ)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// apply transforms v. The result is as secret as v.
func (t transform) apply(v render.Value) (render.Value, error) {
	out, err := t.kind.apply(t, v)
	if err != nil {
		return render.Value{}, err
	}
	return render.Value{V: out, Secret: v.Secret}, nil
}

// typ is the transform's type, for messages.
func (t transform) typ() v1alpha1.TransformType { return t.kind.typ }

func base64Decode(_ transform, v render.Value) (any, error) {
	s, ok := v.V.(string)
	if !ok {
		return nil, render.Failf(nil, "takes a string, not %v", v)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, render.Base64Error(err, v)
	}
	return string(b), nil
}

func base64Encode(_ transform, v render.Value) (any, error) {
	s, ok := v.V.(string)
	if !ok {
		return nil, render.Failf(nil, "takes a string, not %v", v)
	}
	if base64.StdEncoding.EncodedLen(len(s)) > MaxOutputSize {
		return nil, render.Failf(render.ErrTooLarge, "%v would give more than %d bytes", v, MaxOutputSize)
	}
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
}

func compileFormat(t v1alpha1.Transform, out *transform) error {
	f, err := render.ParseFormat(t.Format, 1)
	out.format = f
	return err
}

func applyFormat(t transform, v render.Value) (any, error) {
	return t.format.Sprint([]render.Value{v})
}

func compileMap(t v1alpha1.Transform, out *transform) error {
	out.table = newMapTable(t.Map)
	return nil
}

func applyMap(t transform, v render.Value) (any, error) {
	s, ok := v.V.(string)
	if !ok {
		return nil, render.Failf(nil, "takes a string, not %v", v)
	}
	out, ok := t.table.lookup(s)
	if !ok {
		return nil, render.Failf(nil, "the map has no entry for %v", v)
	}
	return out, nil
}

func needConvertType(t v1alpha1.Transform) error {
	switch t.ToType {
	case v1alpha1.ConvertString, v1alpha1.ConvertInt, v1alpha1.ConvertInt64, v1alpha1.ConvertFloat64, v1alpha1.ConvertBool,
		v1alpha1.ConvertObject, v1alpha1.ConvertArray:
		return nil
	case "":
		return errors.New("type Convert needs toType")
	}
	return fmt.Errorf("unsupported toType %q (want string, int, int64, float64, bool, object or array)", t.ToType)
}

func compileConvert(t v1alpha1.Transform, out *transform) error {
	out.to = t.ToType
	if out.to == v1alpha1.ConvertInt {
		out.to = v1alpha1.ConvertInt64
	}
	switch t.Format {
	case "", v1alpha1.ConvertFormatNone:
		if out.to == v1alpha1.ConvertObject || out.to == v1alpha1.ConvertArray {
			return fmt.Errorf("toType %s needs format json", t.ToType)
		}
	case v1alpha1.ConvertFormatQuantity:
		if out.to != v1alpha1.ConvertFloat64 {
			return fmt.Errorf("format quantity converts to float64, not %s", t.ToType)
		}
		out.convFormat = convertQuantity
	case v1alpha1.ConvertFormatJSON:
		if out.to != v1alpha1.ConvertObject && out.to != v1alpha1.ConvertArray {
			return fmt.Errorf("format json converts to object or array, not %s", t.ToType)
		}
		out.convFormat = convertJSON
	default:
		return fmt.Errorf("unsupported format %q of a Convert transform (want none, quantity or json)", t.Format)
	}
	return nil
}

// Convert formats other than none.
const (
	convertQuantity = 1 + iota
	convertJSON
)

func applyConvert(t transform, v render.Value) (any, error) {
	switch t.convFormat {
	case convertQuantity:
		return convertFromQuantity(v)
	case convertJSON:
		return convertFromJSON(v, t.to)
	}
	return convert(v, t.to)
}

// convertFromQuantity reads a Kubernetes quantity to float64; a number is
// one already.
func convertFromQuantity(v render.Value) (any, error) {
	switch x := v.V.(type) {
	case float64:
		return x, nil
	case string:
		q, err := resource.ParseQuantity(x)
		if err != nil {
			return nil, render.Failf(err, "cannot convert %v to float64: not a quantity", v)
		}
		f := q.AsApproximateFloat64()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, render.Failf(nil, "cannot convert %v to float64: out of range", v)
		}
		return f, nil
	}
	return nil, render.Failf(nil, "cannot convert %v to float64 with format quantity", v)
}

// convertFromJSON reads JSON text to an object or array; an object or
// array is one already.
func convertFromJSON(v render.Value, to v1alpha1.ConvertType) (any, error) {
	out := v.V
	if s, ok := v.V.(string); ok {
		out = nil
		// utiljson reads integers as int64, as every value extref reads.
		if err := utiljson.Unmarshal([]byte(s), &out); err != nil {
			return nil, render.Failf(err, "cannot convert %v to %s: not JSON", v, to)
		}
	}
	switch out.(type) {
	case map[string]any:
		if to == v1alpha1.ConvertObject {
			return out, nil
		}
	case []any:
		if to == v1alpha1.ConvertArray {
			return out, nil
		}
	}
	if _, ok := v.V.(string); ok {
		return nil, render.Failf(nil, "cannot convert %v to %s: the JSON is %s", v, to, render.KindOf(out))
	}
	return nil, render.Failf(nil, "cannot convert %v to %s", v, to)
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
