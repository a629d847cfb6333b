// Package jsonfields resolves the fields of a Go struct type as
// encoding/json sees them: names from tags, inline and embedded structs
// flattened, name conflicts settled by encoding/json's rules. fielddiff
// compares structs field by field with it; directstatus finds the status
// fields it writes with it.
package jsonfields

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

var (
	typeJSONMarshaler = reflect.TypeFor[json.Marshaler]()
	typeTextMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

var leafTypes sync.Map // reflect.Type -> bool

// Leaf reports whether values of t encode themselves (json.Marshaler or
// encoding.TextMarshaler, with a value or a pointer receiver).
func Leaf(t reflect.Type) bool {
	if v, ok := leafTypes.Load(t); ok {
		return v.(bool)
	}
	pt := reflect.PointerTo(t)
	leaf := t.Implements(typeJSONMarshaler) || pt.Implements(typeJSONMarshaler) ||
		t.Implements(typeTextMarshaler) || pt.Implements(typeTextMarshaler)
	leafTypes.Store(t, leaf)
	return leaf
}

// A Field is a field of a struct, or an inline struct whose fields (Sub)
// are the parent's.
type Field struct {
	Index     int
	Name      string
	Inline    bool    // a struct whose fields are the parent's
	Sub       []Field // for Inline: its fields visible from the outermost struct
	OmitEmpty bool
}

var structInfos sync.Map // reflect.Type -> []Field

// Of returns the fields of struct type t as encoding/json sees
// them: exported (or embedded) fields not tagged "-", named by their tag or
// else their Go name; an embedded struct without a tag name, or an exported
// or embedded field tagged inline, is flattened into its parent. A name that
// appears more than once through flattened structs is resolved as
// encoding/json resolves it: the shallowest field wins; at equal depth a
// field named by its tag wins over the others; otherwise all are left out.
func Of(t reflect.Type) []Field {
	if v, ok := structInfos.Load(t); ok {
		return v.([]Field)
	}
	var leaves []leafField
	collectFields(t, nil, map[reflect.Type]bool{}, &leaves)
	leaves = dominantFields(leaves)
	var fields []Field
	for _, l := range leaves {
		fields = addField(fields, l, 0)
	}
	v, _ := structInfos.LoadOrStore(t, fields)
	return v.([]Field)
}

// A leafField is a field found by collectFields, with the path of field
// indexes that reaches it through inline structs.
type leafField struct {
	index     []int
	name      string
	tagged    bool // named by its tag
	omitEmpty bool
}

// collectFields appends the fields of struct type t, and of the structs
// flattened into it, in declaration order, depth first. A struct type
// already being flattened (an embedded pointer to itself) is not flattened
// again, as encoding/json visits each type once.
func collectFields(t reflect.Type, prefix []int, onPath map[reflect.Type]bool, out *[]leafField) {
	onPath[t] = true
	defer delete(onPath, t)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		isStruct := ft.Kind() == reflect.Struct || ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct
		inline := hasOption(opts, "inline") && isStruct
		if sf.Anonymous && name == "" && isStruct && !Leaf(ft) && !isProtoMessage(ft) {
			if !sf.IsExported() {
				// encoding/json promotes the exported fields of an embedded
				// struct of an unexported type; reflection cannot read them
				// without unsafe, so they are left out.
				continue
			}
			inline = true
		}
		if !sf.IsExported() && !(inline && sf.Anonymous) {
			// encoding/json ignores an unexported field that is not
			// embedded, inline tag or not, and reflection cannot read it.
			continue
		}
		index := append(prefix[:len(prefix):len(prefix)], i)
		if inline {
			st := ft
			if st.Kind() == reflect.Pointer {
				st = st.Elem()
			}
			if !onPath[st] {
				collectFields(st, index, onPath, out)
			}
			continue
		}
		tagged := name != ""
		if !tagged {
			name = sf.Name
		}
		// omitzero omits only a nil list or map; an empty one is written
		// ([] or {}), so it does not make them equal as omitempty does.
		*out = append(*out, leafField{index: index, name: name, tagged: tagged, omitEmpty: hasOption(opts, "omitempty")})
	}
}

// dominantFields keeps, of the fields that share a name, the one
// encoding/json encodes: the shallowest, or at equal depth the only one
// named by its tag; when there is none, it drops them all. The order is
// kept.
func dominantFields(fields []leafField) []leafField {
	byName := make(map[string][]int, len(fields))
	dup := false
	for i, f := range fields {
		if len(byName[f.name]) > 0 {
			dup = true
		}
		byName[f.name] = append(byName[f.name], i)
	}
	if !dup {
		return fields
	}
	keep := make([]bool, len(fields))
	for _, idx := range byName {
		best, atBest, taggedAtBest := -1, 0, 0
		for _, i := range idx {
			switch depth := len(fields[i].index); {
			case best < 0 || depth < len(fields[best].index):
				best, atBest, taggedAtBest = i, 1, 0
				if fields[i].tagged {
					taggedAtBest = 1
				}
			case depth == len(fields[best].index):
				atBest++
				if fields[i].tagged {
					taggedAtBest++
					if !fields[best].tagged {
						best = i
					}
				}
			}
		}
		if atBest == 1 || taggedAtBest == 1 {
			keep[best] = true
		}
	}
	kept := fields[:0:0]
	for i, f := range fields {
		if keep[i] {
			kept = append(kept, f)
		}
	}
	return kept
}

// addField adds leaf l, whose path of indexes goes through inline structs
// from level on, to fields, and returns fields. Leaves come in depth-first
// order, so an inline struct already added is the last field.
func addField(fields []Field, l leafField, level int) []Field {
	i := l.index[level]
	if level == len(l.index)-1 {
		return append(fields, Field{Index: i, Name: l.name, OmitEmpty: l.omitEmpty})
	}
	if n := len(fields); n > 0 && fields[n-1].Inline && fields[n-1].Index == i {
		fields[n-1].Sub = addField(fields[n-1].Sub, l, level+1)
		return fields
	}
	return append(fields, Field{Index: i, Inline: true, Sub: addField(nil, l, level+1)})
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// Lookup finds the field of struct type t with the JSON name name, looking
// into inline and embedded structs; a pointer field's type is the type it
// points to.
func Lookup(t reflect.Type, name string) (reflect.Type, bool) {
	return lookupIn(t, Of(t), name)
}

func lookupIn(t reflect.Type, fields []Field, name string) (reflect.Type, bool) {
	for i := range fields {
		f := &fields[i]
		ft := t.Field(f.Index).Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Inline {
			if found, ok := lookupIn(ft, f.Sub, name); ok {
				return found, true
			}
			continue
		}
		if f.Name == name {
			return ft, true
		}
	}
	return nil, false
}

// isProtoMessage reports whether t implements protobuf's proto.Message
// (a ProtoReflect method returning a protoreflect.Message), which
// encoding/json does not flatten when embedded, without importing protobuf.
func isProtoMessage(t reflect.Type) bool {
	m, ok := t.MethodByName("ProtoReflect")
	if !ok || m.Type.NumIn() != 1 || m.Type.NumOut() != 1 || m.Type.IsVariadic() {
		return false
	}
	out := m.Type.Out(0)
	return out.Kind() == reflect.Interface && out.Name() == "Message" &&
		out.PkgPath() == "google.golang.org/protobuf/reflect/protoreflect"
}
