package fielddiff

import (
	"bytes"
	"cmp"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// This file compares protobuf messages through protoreflect: fields in field
// number order, named by their proto names (or JSON names), lists by index,
// maps by sorted key. google.protobuf.Struct, Value and ListValue compare
// like the JSON they stand for; the other well-known types (Timestamp,
// Duration, wrappers, Any, FieldMask, Empty) compare as single values.

var sortedFields sync.Map // protoreflect.MessageDescriptor -> []protoreflect.FieldDescriptor

// fieldsByNumber returns md's fields in field number order.
func fieldsByNumber(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	if v, ok := sortedFields.Load(md); ok {
		return v.([]protoreflect.FieldDescriptor)
	}
	fds := md.Fields()
	fields := make([]protoreflect.FieldDescriptor, fds.Len())
	for i := range fields {
		fields[i] = fds.Get(i)
	}
	slices.SortFunc(fields, func(a, b protoreflect.FieldDescriptor) int { return cmp.Compare(a.Number(), b.Number()) })
	v, _ := sortedFields.LoadOrStore(md, fields)
	return v.([]protoreflect.FieldDescriptor)
}

// singleValue reports whether messages of the type name are one value each,
// as in their JSON form: Timestamp, Duration, the wrappers, Any, FieldMask,
// Empty. Other messages of package google.protobuf (descriptor.proto's,
// type.proto's, api.proto's) are messages like any other, compared field by
// field.
func singleValue(name protoreflect.FullName) bool {
	switch name {
	case "google.protobuf.Timestamp", "google.protobuf.Duration",
		"google.protobuf.Any", "google.protobuf.FieldMask", "google.protobuf.Empty",
		"google.protobuf.DoubleValue", "google.protobuf.FloatValue",
		"google.protobuf.Int64Value", "google.protobuf.UInt64Value",
		"google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return true
	}
	return false
}

// messageField compares two messages that a field holds (or the top-level
// messages). An invalid message (a nil pointer) is one that is not set.
func (d *differ) messageField(a, b protoreflect.Message) {
	va, vb := a.IsValid(), b.IsValid()
	if !va || !vb {
		if va == vb {
			return
		}
		other := a
		if !va {
			other = b
		}
		if d.cfg.nilEqualsEmpty && isEmptyMessage(other, 0) {
			return
		}
		d.reportMsg(a, b)
		return
	}
	d.message(a, b)
}

func (d *differ) message(a, b protoreflect.Message) {
	md := a.Descriptor()
	if md.FullName() != b.Descriptor().FullName() {
		d.reportMsg(a, b)
		return
	}
	switch md.FullName() {
	case "google.protobuf.Struct":
		d.pbStruct(a, b)
		return
	case "google.protobuf.Value":
		d.pbValue(a, b)
		return
	case "google.protobuf.ListValue":
		d.pbListValue(a, b)
		return
	}
	if singleValue(md.FullName()) {
		if !proto.Equal(a.Interface(), b.Interface()) {
			d.reportMsg(a, b)
		}
		return
	}

	pa, pb := messagePointer(a), messagePointer(b)
	if pa != 0 && pa == pb {
		return
	}
	if !d.push(pa, pb, nil) {
		return
	}
	defer d.pop(pa, pb, nil)

	for _, fi := range fieldInfos(md) {
		if fi.outputOnly {
			continue
		}
		fd := fi.fd
		name := string(fd.Name())
		if d.cfg.protoJSONNames {
			name = fd.JSONName()
		}
		ignored, saved := d.enter(fieldSegment(name))
		switch {
		case ignored:
		case fi.marked:
			d.markedField(fi, a, b)
		default:
			d.field(fd, a, b)
		}
		d.leave(saved)
		if d.done {
			return
		}
	}
}

func messagePointer(m protoreflect.Message) uintptr {
	v := reflect.ValueOf(m.Interface())
	if v.Kind() == reflect.Pointer {
		return v.Pointer()
	}
	return 0
}

func (d *differ) field(fd protoreflect.FieldDescriptor, a, b protoreflect.Message) {
	switch {
	case fd.IsList():
		d.pbList(fd, a.Get(fd).List(), b.Get(fd).List())
	case fd.IsMap():
		d.pbMap(fd, a, b)
	case fd.Message() != nil:
		ha, hb := a.Has(fd), b.Has(fd)
		switch {
		case ha && hb:
			d.message(a.Get(fd).Message(), b.Get(fd).Message())
		case ha != hb:
			other := a
			if hb {
				other = b
			}
			if d.cfg.nilEqualsEmpty && isEmptyMessage(other.Get(fd).Message(), 0) {
				return
			}
			d.reportPB(fd, getIf(a, fd, ha), getIf(b, fd, hb))
		}
	default:
		if fd.HasPresence() {
			ha, hb := a.Has(fd), b.Has(fd)
			if ha != hb {
				other := a
				if hb {
					other = b
				}
				if d.cfg.nilEqualsEmpty && isZeroScalar(fd, other.Get(fd)) {
					return
				}
				d.reportPB(fd, getIf(a, fd, ha), getIf(b, fd, hb))
				return
			}
			if !ha {
				return
			}
		}
		if va, vb := a.Get(fd), b.Get(fd); !scalarsEqual(fd, va, vb) {
			d.reportPB(fd, va, vb)
		}
	}
}

// getIf returns the value of field fd of m when has says it is set, and the
// invalid Value (absent) otherwise.
func getIf(m protoreflect.Message, fd protoreflect.FieldDescriptor, has bool) protoreflect.Value {
	if !has {
		return protoreflect.Value{}
	}
	return m.Get(fd)
}

func (d *differ) pbList(fd protoreflect.FieldDescriptor, a, b protoreflect.List) {
	la, lb := a.Len(), b.Len()
	isMsg := fd.Message() != nil
	for i := range max(la, lb) {
		ignored, saved := d.enter(indexSegment(i))
		if !ignored {
			switch {
			case i >= la || i >= lb:
				var va, vb protoreflect.Value
				if i < la {
					va = a.Get(i)
				}
				if i < lb {
					vb = b.Get(i)
				}
				d.reportPB(fd, va, vb)
			case isMsg:
				d.message(a.Get(i).Message(), b.Get(i).Message())
			default:
				if va, vb := a.Get(i), b.Get(i); !scalarsEqual(fd, va, vb) {
					d.reportPB(fd, va, vb)
				}
			}
		}
		d.leave(saved)
		if d.done {
			return
		}
	}
}

// A pbEntry is a map entry, with its key as a path field name.
type pbEntry struct {
	key  protoreflect.MapKey
	val  protoreflect.Value
	name string
}

func (d *differ) pbMap(fd protoreflect.FieldDescriptor, a, b protoreflect.Message) {
	ea, eb := d.sortedEntries(fd, a), d.sortedEntries(fd, b)
	if len(ea) > 0 || len(eb) > 0 {
		d.pbEntries(fd.MapKey(), fd.MapValue(), ea, eb, keySegment)
	}
	d.giveEntries(ea)
	d.giveEntries(eb)
}

// pbEntries compares two maps' entries, each sorted by key, in key order.
// seg makes the path segment of a key.
func (d *differ) pbEntries(kd, vd protoreflect.FieldDescriptor, ea, eb []pbEntry, seg func(string) pathSegment) {
	isMsg := vd.Message() != nil
	isJSONValue := isMsg && vd.Message().FullName() == "google.protobuf.Value"
	for len(ea) > 0 || len(eb) > 0 {
		var va, vb protoreflect.Value
		var name string
		switch c := compareEntries(kd, ea, eb); {
		case c < 0:
			va, name, ea = ea[0].val, ea[0].name, ea[1:]
		case c > 0:
			vb, name, eb = eb[0].val, eb[0].name, eb[1:]
		default:
			va, vb, name, ea, eb = ea[0].val, eb[0].val, ea[0].name, ea[1:], eb[1:]
		}
		ignored, saved := d.enter(seg(name))
		if !ignored {
			oka, okb := va.IsValid(), vb.IsValid()
			switch {
			case oka && okb && isJSONValue:
				d.pbValue(va.Message(), vb.Message())
			case oka && okb && isMsg:
				d.message(va.Message(), vb.Message())
			case oka && okb:
				if !scalarsEqual(vd, va, vb) {
					d.reportPB(vd, va, vb)
				}
			default:
				other := va
				if okb {
					other = vb
				}
				empty := false
				if d.cfg.nilEqualsEmpty {
					if isJSONValue {
						empty = isEmptyJSONValue(other.Message(), 0)
					} else {
						empty = isEmptyValueOf(vd, other, 0)
					}
				}
				if !empty {
					d.reportPB(vd, va, vb)
				}
			}
		}
		d.leave(saved)
		if d.done {
			return
		}
	}
}

// compareEntries orders the first entries of ea and eb; an empty list's
// entry comes last.
func compareEntries(kd protoreflect.FieldDescriptor, ea, eb []pbEntry) int {
	switch {
	case len(ea) == 0:
		return 1
	case len(eb) == 0:
		return -1
	}
	return compareKeys(kd, ea[0], eb[0])
}

func compareKeys(kd protoreflect.FieldDescriptor, x, y pbEntry) int {
	switch kd.Kind() {
	case protoreflect.StringKind, protoreflect.BoolKind:
		return cmp.Compare(x.name, y.name) // "false" < "true"
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return cmp.Compare(x.key.Uint(), y.key.Uint())
	default: // the signed integer kinds
		return cmp.Compare(x.key.Int(), y.key.Int())
	}
}

// sortedEntries returns the entries of map field fd of m sorted by key:
// strings in byte order, numbers by value, false before true. The list is
// one of d's spares.
func (d *differ) sortedEntries(fd protoreflect.FieldDescriptor, m protoreflect.Message) []pbEntry {
	if entries, ok := d.goMapEntries(fd, m); ok {
		return entries
	}
	pm := m.Get(fd).Map()
	if pm.Len() == 0 {
		return nil
	}
	kd := fd.MapKey()
	entries := d.takeEntries()
	if cap(entries) < pm.Len() {
		entries = make([]pbEntry, 0, pm.Len())
	}
	pm.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		e := pbEntry{key: k, val: v}
		switch kd.Kind() {
		case protoreflect.StringKind:
			e.name = k.String()
		case protoreflect.BoolKind:
			e.name = strconv.FormatBool(k.Bool())
		case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
			e.name = strconv.FormatUint(k.Uint(), 10)
		default:
			e.name = strconv.FormatInt(k.Int(), 10)
		}
		entries = append(entries, e)
		return true
	})
	slices.SortFunc(entries, func(x, y pbEntry) int { return compareKeys(kd, x, y) })
	return entries
}

// goMapEntries reads the entries of map field fd of m from the Go map of a
// generated message, without the allocation per entry of protoreflect's
// Range, when the map has string keys and string or message values (the
// common maps, and google.protobuf.Struct's fields). It reports false for
// other maps and messages, which sortedEntries reads through protoreflect.
func (d *differ) goMapEntries(fd protoreflect.FieldDescriptor, m protoreflect.Message) ([]pbEntry, bool) {
	if !m.IsValid() || fd.MapKey().Kind() != protoreflect.StringKind {
		return nil, false
	}
	gm, ok := goMapField(m, fd)
	if !ok {
		return nil, false
	}
	if gm.Len() == 0 {
		return nil, true
	}
	entries := d.takeEntries()
	if cap(entries) < gm.Len() {
		entries = make([]pbEntry, 0, gm.Len())
	}
	switch vk := fd.MapValue().Kind(); {
	case gm.Type() == typeMapString && vk == protoreflect.StringKind:
		for k, v := range gm.Interface().(map[string]string) {
			entries = append(entries, pbEntry{key: protoreflect.ValueOfString(k).MapKey(), val: protoreflect.ValueOfString(v), name: k})
		}
	case gm.Type().Elem().Implements(typeProtoMessage) && gm.Type().Elem().Kind() == reflect.Pointer &&
		(vk == protoreflect.MessageKind || vk == protoreflect.GroupKind):
		if !d.keyHolder.IsValid() {
			d.keyHolder = reflect.New(typeString).Elem()
		}
		var it reflect.MapIter
		it.Reset(gm)
		for it.Next() {
			d.keyHolder.SetIterKey(&it)
			k := d.keyHolder.String()
			v := it.Value().Interface().(proto.Message).ProtoReflect()
			entries = append(entries, pbEntry{key: protoreflect.ValueOfString(k).MapKey(), val: protoreflect.ValueOfMessage(v), name: k})
		}
	default:
		d.giveEntries(entries)
		return nil, false
	}
	slices.SortFunc(entries, func(x, y pbEntry) int { return strings.Compare(x.name, y.name) })
	return entries, true
}

var typeString = reflect.TypeFor[string]()

// goMapFields maps the struct type of a generated message to the index of
// the Go field of each of its map fields, by field number.
var goMapFields sync.Map // reflect.Type -> map[protoreflect.FieldNumber]int

// goMapField returns the Go map that holds map field fd of generated message
// m, found by the field number in its protobuf struct tag.
func goMapField(m protoreflect.Message, fd protoreflect.FieldDescriptor) (reflect.Value, bool) {
	p := reflect.ValueOf(m.Interface())
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Type().Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	sv := p.Elem()
	var byNumber map[protoreflect.FieldNumber]int
	if v, ok := goMapFields.Load(sv.Type()); ok {
		byNumber = v.(map[protoreflect.FieldNumber]int)
	} else {
		byNumber = mapFieldsOf(sv.Type())
		goMapFields.Store(sv.Type(), byNumber)
	}
	i, ok := byNumber[fd.Number()]
	if !ok {
		return reflect.Value{}, false
	}
	return sv.Field(i), true
}

// mapFieldsOf returns the indexes of the exported map fields of struct type
// t that carry a protobuf tag, by the field number in the tag
// (`protobuf:"bytes,3,rep,name=labels,proto3"`).
func mapFieldsOf(t reflect.Type) map[protoreflect.FieldNumber]int {
	byNumber := map[protoreflect.FieldNumber]int{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Type.Kind() != reflect.Map {
			continue
		}
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok {
			continue
		}
		parts := strings.Split(tag, ",")
		if len(parts) < 2 {
			continue
		}
		n, err := strconv.ParseInt(parts[1], 10, 32)
		if err != nil {
			continue
		}
		byNumber[protoreflect.FieldNumber(n)] = i
	}
	return byNumber
}

func scalarsEqual(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return a.Bool() == b.Bool()
	case protoreflect.EnumKind:
		return a.Enum() == b.Enum()
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return a.Int() == b.Int()
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return a.Uint() == b.Uint()
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		fa, fb := a.Float(), b.Float()
		return fa == fb || math.IsNaN(fa) && math.IsNaN(fb)
	case protoreflect.StringKind:
		return a.String() == b.String()
	case protoreflect.BytesKind:
		return bytes.Equal(a.Bytes(), b.Bytes())
	}
	return a.Interface() == b.Interface()
}

func isZeroScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return !v.Bool()
	case protoreflect.EnumKind:
		return v.Enum() == 0
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int() == 0
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return v.Uint() == 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float() == 0
	case protoreflect.StringKind:
		return v.String() == ""
	case protoreflect.BytesKind:
		return len(v.Bytes()) == 0
	}
	return false
}

// isEmptyValueOf reports whether v, a value of a field (or of a list or map
// element) described by fd, is empty.
func isEmptyValueOf(fd protoreflect.FieldDescriptor, v protoreflect.Value, depth int) bool {
	if fd.Message() != nil {
		return isEmptyMessage(v.Message(), depth+1)
	}
	return isZeroScalar(fd, v)
}

func isEmptyMap(fd protoreflect.FieldDescriptor, m protoreflect.Map, depth int) bool {
	empty := true
	m.Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
		empty = isEmptyValueOf(fd.MapValue(), v, depth+1)
		return empty
	})
	return empty
}

// isEmptyMessage reports whether every field of m is unset or empty.
func isEmptyMessage(m protoreflect.Message, depth int) bool {
	if !m.IsValid() {
		return true
	}
	if depth > cycleCheckDepth {
		return false
	}
	empty := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case outputOnlyField(fd):
			// the server's, left out of the comparison
		case fd.IsList():
			empty = v.List().Len() == 0
		case fd.IsMap():
			empty = isEmptyMap(fd, v.Map(), depth)
		default:
			empty = isEmptyValueOf(fd, v, depth)
		}
		return empty
	})
	return empty
}

// google.protobuf.Struct, Value and ListValue, compared as the JSON they
// stand for: a Struct's keys are fields of the path (labels[team], not
// labels.fields[team]).

func (d *differ) pbStruct(a, b protoreflect.Message) {
	fd := a.Descriptor().Fields().ByName("fields")
	ea, eb := d.sortedEntries(fd, a), d.sortedEntries(fd, b)
	defer d.giveEntries(ea)
	defer d.giveEntries(eb)
	if len(ea) == 0 && len(eb) == 0 {
		return
	}
	if !d.deeper() {
		return
	}
	d.pbEntries(fd.MapKey(), fd.MapValue(), ea, eb, fieldSegment)
	d.shallower()
}

func (d *differ) pbValue(a, b protoreflect.Message) {
	od := a.Descriptor().Oneofs().ByName("kind")
	fa, fb := a.WhichOneof(od), b.WhichOneof(od)
	// An unset kind is read as null.
	nullA := fa == nil || fa.Name() == "null_value"
	nullB := fb == nil || fb.Name() == "null_value"
	switch {
	case nullA && nullB:
		return
	case nullA || nullB:
		other := a
		if nullA {
			other = b
		}
		if d.cfg.nilEqualsEmpty && isEmptyJSONValue(other, 0) {
			return
		}
		d.reportMsg(a, b)
		return
	case fa.Number() != fb.Number():
		d.reportMsg(a, b)
		return
	}
	switch fa.Name() {
	case "struct_value":
		d.pbStruct(a.Get(fa).Message(), b.Get(fb).Message())
	case "list_value":
		d.pbListValue(a.Get(fa).Message(), b.Get(fb).Message())
	default:
		if !jsonScalarsEqual(fa, a, b) {
			d.reportMsg(a, b)
		}
	}
}

// jsonScalarsEqual compares the scalars (string, number or bool) that field
// fd of two google.protobuf.Values holds; it reads generated Values through
// their Go fields, since protoreflect copies a oneof's string to return it.
func jsonScalarsEqual(fd protoreflect.FieldDescriptor, a, b protoreflect.Message) bool {
	va, oka := a.Interface().(*structpb.Value)
	vb, okb := b.Interface().(*structpb.Value)
	if oka && okb {
		switch x := va.GetKind().(type) {
		case *structpb.Value_StringValue:
			return x.StringValue == vb.GetStringValue()
		case *structpb.Value_NumberValue:
			fa, fb := x.NumberValue, vb.GetNumberValue()
			return fa == fb || math.IsNaN(fa) && math.IsNaN(fb)
		case *structpb.Value_BoolValue:
			return x.BoolValue == vb.GetBoolValue()
		}
	}
	return scalarsEqual(fd, a.Get(fd), b.Get(fd))
}

func (d *differ) pbListValue(a, b protoreflect.Message) {
	la, lb := jsonList(a), jsonList(b)
	if !d.deeper() {
		return
	}
	defer d.shallower()
	for i := range max(la.Len(), lb.Len()) {
		ignored, saved := d.enter(indexSegment(i))
		if !ignored {
			switch {
			case i < la.Len() && i < lb.Len():
				d.pbValue(la.Get(i), lb.Get(i))
			case i < la.Len():
				d.reportMsg(la.Get(i), nil)
			default:
				d.reportMsg(nil, lb.Get(i))
			}
		}
		d.leave(saved)
		if d.done {
			return
		}
	}
}

// A jsonValues is the values of a google.protobuf.ListValue: the Go slice
// of a generated one, which reads without allocating, or else protoreflect's
// list.
type jsonValues struct {
	values []*structpb.Value
	list   protoreflect.List
}

func jsonList(m protoreflect.Message) jsonValues {
	if l, ok := m.Interface().(*structpb.ListValue); ok {
		return jsonValues{values: l.GetValues()}
	}
	return jsonValues{list: m.Get(m.Descriptor().Fields().ByName("values")).List()}
}

func (l jsonValues) Len() int {
	if l.list != nil {
		return l.list.Len()
	}
	return len(l.values)
}

func (l jsonValues) Get(i int) protoreflect.Message {
	if l.list != nil {
		return l.list.Get(i).Message()
	}
	return l.values[i].ProtoReflect()
}

// isEmptyJSONValue reports whether a google.protobuf.Value is null, "", 0,
// false, an empty list, or a struct of empty values.
func isEmptyJSONValue(v protoreflect.Message, depth int) bool {
	if depth > cycleCheckDepth {
		return false
	}
	fd := v.WhichOneof(v.Descriptor().Oneofs().ByName("kind"))
	if fd == nil {
		return true
	}
	switch fd.Name() {
	case "null_value":
		return true
	case "struct_value":
		s := v.Get(fd).Message()
		ffd := s.Descriptor().Fields().ByName("fields")
		empty := true
		s.Get(ffd).Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
			empty = isEmptyJSONValue(e.Message(), depth+1)
			return empty
		})
		return empty
	case "list_value":
		l := v.Get(fd).Message()
		return l.Get(l.Descriptor().Fields().ByName("values")).List().Len() == 0
	}
	return isZeroScalar(fd, v.Get(fd))
}
