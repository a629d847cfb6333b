package fielddiff

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A Diff is every changed field between two values, with the values on
// both sides, as Compare returns it.
type Diff struct {
	// Changes are the changed fields in the order ChangedFields returns
	// their paths (Changes[0].Path is FirstChangedField's path), at most
	// MaxChanges of them.
	Changes []Change
	// Truncated is true when more than MaxChanges fields changed: Changes
	// holds the first MaxChanges.
	Truncated bool
}

// A Change is one changed field: its path and its value on both sides, as
// JSON text.
type Change struct {
	// Path is the field's path, as ChangedFields writes it.
	Path string
	// Old is actual's value and New desired's, as JSON (protobuf messages as
	// protojson writes them), or "" where the field is absent on that side.
	// A value longer than MaxValueBytes is cut at a rune boundary and ends
	// with "…"; the value of a sensitive field is Redacted.
	Old, New string
	// Sensitive is true when the field, or a field inside its value, is
	// sensitive (SensitivePaths, or a protobuf field option debug_redact):
	// Old and New then say Redacted, or "" where absent.
	Sensitive bool
	// Immutable is true when the field, or a message field it is in, is
	// annotated google.api.field_behavior IMMUTABLE.
	Immutable bool
}

// Redacted stands in a Change for the value of a sensitive field.
const Redacted = "<redacted>"

// MaxValueBytes is the longest value, in bytes, that a Change holds; a
// longer one is cut and ends with "…".
const MaxValueBytes = 256

// MaxChanges is the most changes a Diff holds.
const MaxChanges = 1000

// Compare compares desired with actual as ChangedFields does and returns
// every changed field with its values: what a controller logs or reports
// before it updates a resource, and what it sees as the field's old and new
// values. No value of a sensitive field is held, and no error quotes a
// value. A change to an IMMUTABLE field is returned with an error wrapping
// ErrImmutableField, beside the Diff.
func Compare(desired, actual any, opts ...Option) (Diff, error) {
	cfg, err := newDiffConfig(opts)
	if err != nil {
		return Diff{}, err
	}
	d := differ{cfg: cfg, values: true}
	if err := d.walk(desired, actual); err != nil {
		return Diff{}, err
	}
	return Diff{Changes: d.changes, Truncated: d.truncated}, d.immutableErr()
}

type sensitivePaths []string

func (p sensitivePaths) applyToDiff(c *diffConfig) {
	for _, path := range p {
		c.pathsRaw = append(c.pathsRaw, rawPath{path: path, sensitive: true})
	}
}

// SensitivePaths marks the fields at these field paths sensitive: Compare
// reports their changes with Redacted for their values, and redacts any
// value that holds one of them (a whole object added or removed). Paths are
// written as for IgnorePaths, wildcards included
// (SensitivePaths("spec.credentials[*].secret")). Protobuf fields with the
// option debug_redact are sensitive without it. It changes no path that
// FirstChangedField or ChangedFields reports.
func SensitivePaths(paths ...string) Option { return sensitivePaths(paths) }

// reportRV reports a change of reflected values; an invalid Value is absent.
func (d *differ) reportRV(a, b reflect.Value) {
	if !d.values {
		d.report()
		return
	}
	c, ok := d.change()
	if !ok {
		return
	}
	na, ra := renderRV(a)
	nb, rb := renderRV(b)
	d.addChange(c, na, nb, a.IsValid(), b.IsValid(), ra || rb)
}

// reportAny reports a change of dynamic values; oka and okb say whether
// each side is present.
func (d *differ) reportAny(a, b any, oka, okb bool) {
	if !d.values {
		d.report()
		return
	}
	c, ok := d.change()
	if !ok {
		return
	}
	na, ra := renderAny(a, oka)
	nb, rb := renderAny(b, okb)
	d.addChange(c, na, nb, oka, okb, ra || rb)
}

// reportPB reports a change of the values of a protobuf field (or of a
// list element or map value) described by fd; an invalid Value is absent.
func (d *differ) reportPB(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) {
	if !d.values {
		d.report()
		return
	}
	c, ok := d.change()
	if !ok {
		return
	}
	na, ra := renderPB(fd, a)
	nb, rb := renderPB(fd, b)
	d.addChange(c, na, nb, a.IsValid(), b.IsValid(), ra || rb)
}

// reportMsg reports a change of two messages; a nil or invalid one is
// absent.
func (d *differ) reportMsg(a, b protoreflect.Message) {
	if !d.values {
		d.report()
		return
	}
	c, ok := d.change()
	if !ok {
		return
	}
	oka, okb := a != nil && a.IsValid(), b != nil && b.IsValid()
	var na, nb string
	var ra, rb bool
	if oka {
		na, ra = renderMsg(a)
	}
	if okb {
		nb, rb = renderMsg(b)
	}
	d.addChange(c, na, nb, oka, okb, ra || rb)
}

// change starts the Change at the current path, and reports false past
// MaxChanges.
func (d *differ) change() (Change, bool) {
	if len(d.changes) >= MaxChanges {
		d.truncated = true
		if d.immutable > 0 && d.immutablePath == "" {
			d.immutablePath = pathString(d.path)
		}
		return Change{}, false
	}
	path := pathString(d.path)
	if d.immutable > 0 && d.immutablePath == "" {
		d.immutablePath = path
	}
	return Change{Path: path, Immutable: d.immutable > 0, Sensitive: d.sensitiveHere()}, true
}

// addChange completes c with desired's value a and actual's value b and
// records it. redact says that either value holds a sensitive field.
func (d *differ) addChange(c Change, a, b string, oka, okb, redact bool) {
	if c.Sensitive || redact {
		c.Sensitive = true
		a, b = "", ""
		if oka {
			a = Redacted
		}
		if okb {
			b = Redacted
		}
	}
	c.New, c.Old = cut(a), cut(b)
	d.changes = append(d.changes, c)
}

// sensitiveHere reports whether the value at the current path is, or holds,
// a sensitive field: below a protobuf field with debug_redact, at or below a
// path of SensitivePaths, or above one.
func (d *differ) sensitiveHere() bool {
	if d.sensitive > 0 {
		return true
	}
	root := d.cfg.sensitivePaths()
	if root == nil {
		return false
	}
	nodes := []*ignoreNode{root}
	for _, seg := range d.path[len(d.cfg.prefix):] {
		var next []*ignoreNode
		for _, n := range nodes {
			if n.leaf {
				return true
			}
			next = n.step(next, seg.Segment)
		}
		if len(next) == 0 {
			return false
		}
		nodes = next
	}
	for _, n := range nodes {
		if n.leaf || n.fields != nil || n.indexes != nil || n.wildcard != nil {
			return true
		}
	}
	return false
}

// cut shortens s to MaxValueBytes at a rune boundary, ending it with "…".
func cut(s string) string {
	if len(s) <= MaxValueBytes {
		return s
	}
	const ellipsis = "…"
	n := MaxValueBytes - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis
}

// unavailable stands for a value that cannot be written as JSON (a value
// reached through an unexported embedded struct, or one whose encoder
// fails); the diff has already reported an encoder's failure.
const unavailable = "<unavailable>"

// renderRV writes v as JSON; redact is true when v holds a protobuf message
// with a sensitive field.
func renderRV(v reflect.Value) (s string, redact bool) {
	if !v.IsValid() {
		return "", false
	}
	if !v.CanInterface() {
		switch v.Kind() {
		case reflect.String:
			return renderAny(v.String(), true)
		case reflect.Bool:
			return strconv.FormatBool(v.Bool()), false
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return strconv.FormatInt(v.Int(), 10), false
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return strconv.FormatUint(v.Uint(), 10), false
		}
		return unavailable, false
	}
	return renderAny(v.Interface(), true)
}

// renderAny writes v as JSON, or "" when it is absent.
func renderAny(v any, present bool) (s string, redact bool) {
	if !present {
		return "", false
	}
	if m, ok := v.(proto.Message); ok && m != nil && m.ProtoReflect().IsValid() {
		return renderMsg(m.ProtoReflect())
	}
	if holdsMessage(reflect.TypeOf(v)) {
		return Redacted, true // a message inside may hold a sensitive field, which encoding/json would not know
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return unavailable, false
	}
	return string(bytes.TrimSuffix(out.Bytes(), []byte("\n"))), false
}

// holdsMessage reports whether values of type t may hold a protobuf
// message with a sensitive field; it answers false for the types of
// unstructured content and for structs without messages.
func holdsMessage(t reflect.Type) bool {
	if t == nil {
		return false
	}
	if v, ok := messageHolders.Load(t); ok {
		return v.(bool)
	}
	holds := holdsMessageOf(t, map[reflect.Type]bool{})
	messageHolders.Store(t, holds)
	return holds
}

func holdsMessageOf(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Implements(typeProtoMessage) {
		m, ok := reflect.Zero(t).Interface().(proto.Message)
		return !ok || sensitiveBelow(m.ProtoReflect().Descriptor())
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsMessageOf(t.Elem(), seen)
	case reflect.Map:
		return holdsMessageOf(t.Key(), seen) || holdsMessageOf(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsMessageOf(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// renderPB writes the value v of a field (or element) described by fd as
// protojson does.
func renderPB(fd protoreflect.FieldDescriptor, v protoreflect.Value) (string, bool) {
	if !v.IsValid() {
		return "", false
	}
	if fd.Message() != nil {
		return renderMsg(v.Message())
	}
	var b []byte
	switch fd.Kind() {
	case protoreflect.BoolKind:
		b = strconv.AppendBool(b, v.Bool())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			b = strconv.AppendQuote(b, string(ev.Name()))
		} else {
			b = strconv.AppendInt(b, int64(v.Enum()), 10)
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		b = strconv.AppendInt(b, v.Int(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b = strconv.AppendQuote(b, strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		b = strconv.AppendUint(b, v.Uint(), 10)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = strconv.AppendQuote(b, strconv.FormatUint(v.Uint(), 10))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			b = append(b, `"NaN"`...)
		case math.IsInf(f, 1):
			b = append(b, `"Infinity"`...)
		case math.IsInf(f, -1):
			b = append(b, `"-Infinity"`...)
		default:
			bits := 64
			if fd.Kind() == protoreflect.FloatKind {
				bits = 32
			}
			b = strconv.AppendFloat(b, f, 'g', -1, bits)
		}
	case protoreflect.StringKind:
		s, _ := renderAny(v.String(), true)
		return s, false
	case protoreflect.BytesKind:
		b = strconv.AppendQuote(b, base64.StdEncoding.EncodeToString(v.Bytes()))
	default:
		return unavailable, false
	}
	return string(b), false
}

// renderMsg writes m as protojson does, without its random spaces; redact
// is true when m's type has a sensitive field, at any depth.
func renderMsg(m protoreflect.Message) (string, bool) {
	if sensitiveBelow(m.Descriptor()) {
		return Redacted, true
	}
	b, err := protojson.Marshal(m.Interface())
	if err != nil {
		return unavailable, false
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return unavailable, false
	}
	return out.String(), false
}
