package fielddiff

import (
	"bytes"
	"cmp"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/jsonfields"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file compares Go values by reflection, as their JSON encodings would
// compare: fields by their JSON names in declaration order, inline and
// embedded structs flattened, types with their own JSON encoding compared by
// it.

var (
	typeTime          = reflect.TypeFor[time.Time]()
	typeMetaTime      = reflect.TypeFor[metav1.Time]()
	typeProtoMessage  = reflect.TypeFor[proto.Message]()
	typeTextMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	typeBytes         = reflect.TypeFor[[]byte]()
	typeMapString     = reflect.TypeFor[map[string]string]()
)

// value compares a and b, of the same type, at the current path. omitEmpty
// says that they are a struct field tagged omitempty, whose nil and empty
// lists and maps encode alike.
func (d *differ) value(a, b reflect.Value, omitEmpty bool) {
	t := a.Type()
	switch t {
	case typeMapAny:
		d.anyMap(a.Interface().(map[string]any), b.Interface().(map[string]any), omitEmpty)
		return
	case typeListAny:
		d.anyList(a.Interface().([]any), b.Interface().([]any), omitEmpty)
		return
	case typeMapString:
		d.stringMap(a.Interface().(map[string]string), b.Interface().(map[string]string), omitEmpty)
		return
	case typeTime:
		if !a.Interface().(time.Time).Equal(b.Interface().(time.Time)) {
			d.reportRV(a, b)
		}
		return
	case typeMetaTime:
		// metav1.Time encodes as RFC 3339 in seconds, and null when zero.
		ta, tb := a.Interface().(metav1.Time), b.Interface().(metav1.Time)
		if ta.IsZero() != tb.IsZero() || ta.Unix() != tb.Unix() {
			d.reportRV(a, b)
		}
		return
	}

	switch t.Kind() {
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			d.reportRV(a, b)
		}
		return
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if jsonfields.Leaf(t) {
			break
		}
		if a.Int() != b.Int() {
			d.reportRV(a, b)
		}
		return
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if jsonfields.Leaf(t) {
			break
		}
		if a.Uint() != b.Uint() {
			d.reportRV(a, b)
		}
		return
	case reflect.Float32, reflect.Float64:
		if jsonfields.Leaf(t) {
			break
		}
		fa, fb := a.Float(), b.Float()
		if fa != fb && !(math.IsNaN(fa) && math.IsNaN(fb)) {
			d.reportRV(a, b)
		}
		return
	case reflect.String:
		if jsonfields.Leaf(t) {
			break
		}
		if a.String() != b.String() {
			d.reportRV(a, b)
		}
		return
	case reflect.Complex64, reflect.Complex128, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		d.fail("%s: %w", t, ErrUnsupported)
		return
	case reflect.Interface:
		d.iface(a, b)
		return
	case reflect.Pointer:
		d.pointer(a, b)
		return
	}

	if jsonfields.Leaf(t) {
		d.leaf(a, b)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		d.structFields(a, b)
	case reflect.Slice:
		d.slice(a, b, omitEmpty)
	case reflect.Array:
		if d.deeper() {
			d.list(a, b)
			d.shallower()
		}
	case reflect.Map:
		d.mapValue(a, b, omitEmpty)
	default:
		d.fail("%s: %w", t, ErrUnsupported)
	}
}

func (d *differ) iface(a, b reflect.Value) {
	if d.eitherNil(a, b) {
		return
	}
	if d.deeper() {
		d.anyValue(a.Elem().Interface(), b.Elem().Interface())
		d.shallower()
	}
}

// eitherNil compares pointers or interfaces a and b when either is nil, and
// reports whether it did: both nil are equal, and one nil equals the other
// only under NilEqualsEmpty when the other is empty.
func (d *differ) eitherNil(a, b reflect.Value) bool {
	aNil, bNil := a.IsNil(), b.IsNil()
	if !aNil && !bNil {
		return false
	}
	if aNil != bNil {
		other := a
		if aNil {
			other = b
		}
		if !d.cfg.nilEqualsEmpty || !isEmptyValue(other, 0) {
			d.reportRV(a, b)
		}
	}
	return true
}

func (d *differ) pointer(a, b reflect.Value) {
	t := a.Type()
	if t.Implements(typeProtoMessage) {
		d.protoValue(a, b)
		return
	}
	if d.eitherNil(a, b) {
		return
	}
	pa, pb := a.Pointer(), b.Pointer()
	if pa == pb {
		return
	}
	if !d.push(pa, pb, t) {
		return
	}
	d.value(a.Elem(), b.Elem(), false)
	d.pop(pa, pb, t)
}

func (d *differ) protoValue(a, b reflect.Value) {
	ma := a.Interface().(proto.Message).ProtoReflect()
	mb := b.Interface().(proto.Message).ProtoReflect()
	d.messageField(ma, mb)
}

// leaf compares two values of a type with its own JSON (or text) encoding by
// that encoding.
func (d *differ) leaf(a, b reflect.Value) {
	ja, err := encodeLeaf(a)
	if err != nil {
		d.fail("cannot encode desired value of type %s: %w", a.Type(), encoderFailed{err})
		return
	}
	jb, err := encodeLeaf(b)
	if err != nil {
		d.fail("cannot encode actual value of type %s: %w", b.Type(), encoderFailed{err})
		return
	}
	if !bytes.Equal(ja, jb) {
		d.reportRV(a, b)
	}
}

func encodeLeaf(v reflect.Value) ([]byte, error) {
	if !v.CanAddr() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v = c
	}
	p := v.Addr().Interface()
	if m, ok := p.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return p.(encoding.TextMarshaler).MarshalText()
}

func (d *differ) structFields(a, b reflect.Value) {
	if d.deeper() {
		d.fieldList(a, b, jsonfields.Of(a.Type()))
		d.shallower()
	}
}

// fieldList compares the fields of structs a and b listed in fields, going
// into inline structs.
func (d *differ) fieldList(a, b reflect.Value, fields []jsonfields.Field) {
	for i := range fields {
		f := &fields[i]
		fa, fb := a.Field(f.Index), b.Field(f.Index)
		if f.Inline {
			d.fieldList(inlineStruct(fa), inlineStruct(fb), f.Sub)
		} else {
			ignored, saved := d.enter(fieldSegment(f.Name))
			if !ignored {
				d.value(fa, fb, f.OmitEmpty)
			}
			d.leave(saved)
		}
		if d.done {
			return
		}
	}
}

// inlineStruct returns the struct an inline field holds: itself, what it
// points to, or the zero struct for a nil pointer.
func inlineStruct(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Pointer {
		return v
	}
	if v.IsNil() {
		return reflect.Zero(v.Type().Elem())
	}
	return v.Elem()
}

func (d *differ) slice(a, b reflect.Value, omitEmpty bool) {
	la, lb := a.Len(), b.Len()
	if handled, differs := d.emptyOrNil(a.IsNil(), b.IsNil(), la == 0 && lb == 0, omitEmpty); handled {
		if differs {
			d.reportRV(a, b)
		}
		return
	}
	if a.Type() == typeBytes || a.Type().Elem().Kind() == reflect.Uint8 && !jsonfields.Leaf(a.Type().Elem()) {
		// []byte is one base64 string in JSON.
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			d.reportRV(a, b)
		}
		return
	}
	pa, pb := a.Pointer(), b.Pointer()
	if pa == pb && la == lb {
		return
	}
	t := a.Type()
	if !d.push(pa, pb, t) {
		return
	}
	d.list(a, b)
	d.pop(pa, pb, t)
}

// list compares slices or arrays element by element; an element present on
// one side only is reported by its index.
func (d *differ) list(a, b reflect.Value) {
	la, lb := a.Len(), b.Len()
	for i := range max(la, lb) {
		ignored, saved := d.enter(indexSegment(i))
		if !ignored {
			switch {
			case i < la && i < lb:
				d.value(a.Index(i), b.Index(i), false)
			case i < la:
				d.reportRV(a.Index(i), reflect.Value{})
			default:
				d.reportRV(reflect.Value{}, b.Index(i))
			}
		}
		d.leave(saved)
		if d.done {
			return
		}
	}
}

func (d *differ) stringMap(a, b map[string]string, omitEmpty bool) {
	if handled, differs := d.emptyOrNil(a == nil, b == nil, len(a) == 0 && len(b) == 0, omitEmpty); handled {
		if differs {
			d.reportRV(reflect.ValueOf(a), reflect.ValueOf(b))
		}
		return
	}
	entries(d, a, b, keySegment(""), func(x, y string) {
		if x != y {
			if d.values {
				d.reportAny(x, y, true, true)
			} else {
				d.report()
			}
		}
	}, func(s string) bool { return s == "" })
}

// A mapKey is a key of a reflected map with the field name it has in a path.
type mapKey struct {
	key  reflect.Value
	name string
	// For integer keys, which sort by value: i for signed, u for unsigned.
	i int64
	u uint64
}

func (d *differ) mapValue(a, b reflect.Value, omitEmpty bool) {
	la, lb := a.Len(), b.Len()
	if handled, differs := d.emptyOrNil(a.IsNil(), b.IsNil(), la == 0 && lb == 0, omitEmpty); handled {
		if differs {
			d.reportRV(a, b)
		}
		return
	}
	pa, pb := a.Pointer(), b.Pointer()
	if pa == pb {
		return
	}
	t := a.Type()
	keys, ok := d.mapKeys(a, b)
	if !ok {
		return
	}
	if !d.push(pa, pb, t) {
		return
	}
	defer d.pop(pa, pb, t)
	for _, k := range keys {
		ignored, saved := d.enter(keySegment(k.name))
		if !ignored {
			va, vb := a.MapIndex(k.key), b.MapIndex(k.key)
			switch {
			case va.IsValid() && vb.IsValid():
				d.value(va, vb, false)
			case va.IsValid():
				if !d.cfg.nilEqualsEmpty || !isEmptyValue(va, 0) {
					d.reportRV(va, vb)
				}
			default:
				if !d.cfg.nilEqualsEmpty || !isEmptyValue(vb, 0) {
					d.reportRV(va, vb)
				}
			}
		}
		d.leave(saved)
		if d.done {
			return
		}
	}
}

// mapKeys returns the union of a's and b's keys, sorted: strings in byte
// order, numbers by value.
func (d *differ) mapKeys(a, b reflect.Value) ([]mapKey, bool) {
	kt := a.Type().Key()
	keys := make([]mapKey, 0, a.Len())
	seen := make(map[string]struct{}, a.Len())
	for _, m := range []reflect.Value{a, b} {
		it := m.MapRange()
		for it.Next() {
			k, ok := d.keyOf(it.Key(), kt)
			if !ok {
				return nil, false
			}
			if _, dup := seen[k.name]; dup {
				continue
			}
			seen[k.name] = struct{}{}
			keys = append(keys, k)
		}
	}
	signed, unsigned := false, false
	switch kt.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		signed = !jsonfields.Leaf(kt)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		unsigned = !jsonfields.Leaf(kt)
	}
	slices.SortFunc(keys, func(x, y mapKey) int {
		switch {
		case signed && x.i != y.i:
			return cmp.Compare(x.i, y.i)
		case unsigned && x.u != y.u:
			return cmp.Compare(x.u, y.u)
		}
		return strings.Compare(x.name, y.name)
	})
	return keys, true
}

// keyOf names a map key as encoding/json would: a string as itself, a
// TextMarshaler by its text (a nil pointer as ""), an integer in decimal.
func (d *differ) keyOf(k reflect.Value, kt reflect.Type) (mapKey, bool) {
	if kt.Kind() == reflect.String {
		return mapKey{key: k, name: k.String()}, true
	}
	if kt.Implements(typeTextMarshaler) {
		if (k.Kind() == reflect.Pointer || k.Kind() == reflect.Interface) && k.IsNil() {
			if k.Kind() == reflect.Interface {
				d.fail("nil map key of type %s: %w", kt, ErrUnsupported)
				return mapKey{}, false
			}
			// encoding/json writes a nil pointer key as "".
			return mapKey{key: k, name: ""}, true
		}
		text, err := k.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			d.fail("cannot encode map key of type %s: %w", kt, encoderFailed{err})
			return mapKey{}, false
		}
		return mapKey{key: k, name: string(text)}, true
	}
	switch kt.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return mapKey{key: k, name: strconv.FormatInt(k.Int(), 10), i: k.Int()}, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return mapKey{key: k, name: strconv.FormatUint(k.Uint(), 10), u: k.Uint()}, true
	}
	d.fail("map key type %s: %w", kt, ErrUnsupported)
	return mapKey{}, false
}

// isEmptyValue reports whether v is empty in the sense of NilEqualsEmpty: nil,
// a zero scalar, an empty list or map, a pointer to an empty value, or a
// struct or message whose fields are all empty.
func isEmptyValue(v reflect.Value, depth int) bool {
	if !v.IsValid() {
		return true
	}
	if depth > cycleCheckDepth {
		return false
	}
	switch v.Kind() {
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.String:
		return v.Len() == 0
	case reflect.Slice:
		return v.Len() == 0
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if !isEmptyValue(it.Value(), depth+1) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range v.Len() {
			if !isEmptyValue(v.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		return isEmptyAnyDepth(v.Elem().Interface(), depth+1)
	case reflect.Pointer:
		if v.IsNil() {
			return true
		}
		if m, ok := v.Interface().(proto.Message); ok {
			return isEmptyMessage(m.ProtoReflect(), depth+1)
		}
		return isEmptyValue(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == typeTime || v.Type() == typeMetaTime {
			return v.IsZero()
		}
		return isEmptyFields(v, jsonfields.Of(v.Type()), depth)
	}
	return false
}

// isEmptyFields reports whether the fields of struct v listed in fields are
// all empty, going into inline structs.
func isEmptyFields(v reflect.Value, fields []jsonfields.Field, depth int) bool {
	for i := range fields {
		f := &fields[i]
		fv := v.Field(f.Index)
		if f.Inline {
			if !isEmptyFields(inlineStruct(fv), f.Sub, depth+1) {
				return false
			}
		} else if !isEmptyValue(fv, depth+1) {
			return false
		}
	}
	return true
}
