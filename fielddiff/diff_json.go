package fielddiff

import (
	"reflect"
	"slices"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// This file compares unstructured (JSON-like) content without reflection:
// map[string]any, []any, strings, booleans, numbers and nil, as
// encoding/json and apimachinery's unstructured helpers produce them. Other
// dynamic types go to the reflection-based walk.

var (
	typeMapAny  = reflect.TypeFor[map[string]any]()
	typeListAny = reflect.TypeFor[[]any]()
)

// anyValue compares two dynamic values found at the current path.
func (d *differ) anyValue(a, b any) {
	if a == nil || b == nil {
		if a == nil && b == nil {
			return
		}
		other := a
		if other == nil {
			other = b
		}
		if d.cfg.nilEqualsEmpty && isEmptyAny(other) {
			return
		}
		d.reportAny(a, b, true, true)
		return
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			d.anyMap(x, y, false)
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			d.anyList(x, y, false)
			return
		}
	case string:
		if y, ok := b.(string); ok {
			if x != y {
				d.reportAny(a, b, true, true)
			}
			return
		}
	case bool:
		if y, ok := b.(bool); ok {
			if x != y {
				d.reportAny(a, b, true, true)
			}
			return
		}
	default:
		if eq, ok := jsonvalue.NumbersEqual(a, b); ok {
			if !eq {
				d.reportAny(a, b, true, true)
			}
			return
		}
		va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
		if va.Type() == vb.Type() {
			d.value(va, vb, false)
			return
		}
		if !d.supported(a) {
			return
		}
	}
	// Values of different types differ (numbers were compared above).
	if d.supported(b) {
		d.reportAny(a, b, true, true)
	}
}

// supported fails the diff and reports false when v has a kind that JSON
// cannot represent.
func (d *differ) supported(v any) bool {
	if t := reflect.TypeOf(v); t != nil && !jsonKind(t.Kind()) {
		d.fail("%s: %w", t, ErrUnsupported)
		return false
	}
	return true
}

func jsonKind(k reflect.Kind) bool {
	switch k {
	case reflect.Complex64, reflect.Complex128, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Invalid:
		return false
	}
	return true
}

// anyMap compares two JSON objects. omitEmpty says that they are a struct
// field tagged omitempty, whose nil and empty maps encode alike.
func (d *differ) anyMap(a, b map[string]any, omitEmpty bool) {
	if handled, differs := d.emptyOrNil(a == nil, b == nil, len(a) == 0 && len(b) == 0, omitEmpty); handled {
		if differs {
			d.reportAny(nilIfEmpty(a), nilIfEmpty(b), true, true)
		}
		return
	}
	pa, pb := mapPointer(a), mapPointer(b)
	if pa == pb {
		return
	}
	if !d.push(pa, pb, typeMapAny) {
		return
	}
	defer d.pop(pa, pb, typeMapAny)

	entries(d, a, b, fieldSegment(""), d.anyValue, isEmptyAny)
}

// entries compares maps a and b entry by entry in key order, each under seg
// with the key as its field name: with compare where both have the key; an
// entry on one side only differs unless NilEqualsEmpty reads it as absent
// (isEmpty).
func entries[V any](d *differ, a, b map[string]V, seg pathSegment, compare func(x, y V), isEmpty func(V) bool) {
	keys := sortedUnion(d.takeKeys(), a, b)
	defer d.giveKeys(keys)
	for _, k := range keys {
		seg.Field = k
		ignored, saved := d.enter(seg)
		if !ignored {
			va, oka := a[k]
			vb, okb := b[k]
			switch {
			case oka && okb:
				compare(va, vb)
			case !d.cfg.nilEqualsEmpty || !isEmpty(va) || !isEmpty(vb):
				// On one side only (the other is V's zero value, empty).
				if d.values {
					d.reportAny(any(va), any(vb), oka, okb)
				} else {
					d.report()
				}
			}
		}
		d.leave(saved)
		if d.done {
			return
		}
	}
}

// sortedUnion returns the keys of a and b, sorted, each once, in buf's
// array when it is large enough.
func sortedUnion[V any](buf []string, a, b map[string]V) []string {
	keys := buf[:0]
	if cap(keys) < max(len(a), len(b)) {
		keys = make([]string, 0, max(len(a), len(b)))
	}
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(a) == len(b) {
		same := true
		for _, k := range keys {
			if _, ok := b[k]; !ok {
				same = false
				break
			}
		}
		if same {
			return keys
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// anyList compares two JSON arrays. omitEmpty says that they are a struct
// field tagged omitempty, whose nil and empty lists encode alike.
func (d *differ) anyList(a, b []any, omitEmpty bool) {
	if handled, differs := d.emptyOrNil(a == nil, b == nil, len(a) == 0 && len(b) == 0, omitEmpty); handled {
		if differs {
			d.reportRV(reflect.ValueOf(a), reflect.ValueOf(b))
		}
		return
	}
	pa, pb := uintptr(reflect.ValueOf(a).UnsafePointer()), uintptr(reflect.ValueOf(b).UnsafePointer())
	if pa == pb && len(a) == len(b) {
		return
	}
	if !d.push(pa, pb, typeListAny) {
		return
	}
	defer d.pop(pa, pb, typeListAny)

	n := max(len(a), len(b))
	for i := range n {
		ignored, saved := d.enter(indexSegment(i))
		if !ignored {
			switch {
			case i < len(a) && i < len(b):
				d.anyValue(a[i], b[i])
			case i < len(a): // an element present on one side only
				d.reportAny(a[i], nil, true, false)
			default:
				d.reportAny(nil, b[i], false, true)
			}
		}
		d.leave(saved)
		if d.done {
			return
		}
	}
}

// emptyOrNil decides two lists or maps that are empty on both sides or nil
// on one side only (JSON null, or a field that is omitted), and reports
// whether it did (handled) and whether they differ, which the caller
// reports: both empty are equal, and a nil one differs from the other,
// unless NilEqualsEmpty reads nil as empty (the caller then compares them
// element by element) or both are empty and omitEmpty says they are a
// struct field tagged omitempty, which encodes nil and empty alike.
func (d *differ) emptyOrNil(aNil, bNil, bothEmpty, omitEmpty bool) (handled, differs bool) {
	if aNil != bNil && !d.cfg.nilEqualsEmpty {
		return true, !(bothEmpty && omitEmpty)
	}
	return bothEmpty, false
}

// nilIfEmpty returns m as a value for a change: nil (JSON null) when m is.
func nilIfEmpty(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

func mapPointer(m map[string]any) uintptr {
	return uintptr(reflect.ValueOf(m).UnsafePointer())
}

// isEmptyAny reports whether v is empty in the sense of NilEqualsEmpty.
func isEmptyAny(v any) bool {
	return isEmptyAnyDepth(v, 0)
}

func isEmptyAnyDepth(v any, depth int) bool {
	if depth > cycleCheckDepth {
		return false // deep enough to be a cycle; call it not empty
	}
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case map[string]any:
		for _, e := range x {
			if !isEmptyAnyDepth(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		return len(x) == 0
	case int64:
		return x == 0
	case float64:
		return x == 0
	}
	if f, ok := jsonvalue.Float64(v); ok {
		return f == 0
	}
	return isEmptyValue(reflect.ValueOf(v), depth+1)
}
