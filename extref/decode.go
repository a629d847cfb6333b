package extref

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// The decoder below turns the unstructured content of an external value
// into its Go type. It does what runtime.DefaultUnstructuredConverter does
// with unknown fields reported, at a fraction of its cost (the converter
// dominated a settled Resolve), and its errors name the field at fault. A
// null counts as an absent field, as the Kubernetes decoder has it. The path
// of the field being decoded is kept as a stack and formatted only for an
// error.

type decoder struct {
	stack []pathSeg
	err   *compileError
}

// A pathSeg is ".field", "[index]" (field and raw empty), or raw text.
type pathSeg struct {
	field string
	raw   string
	index int
}

func (d *decoder) field(f string) { d.stack = append(d.stack, pathSeg{field: f}) }
func (d *decoder) index(i int)    { d.stack = append(d.stack, pathSeg{index: i}) }
func (d *decoder) pop()           { d.stack = d.stack[:len(d.stack)-1] }

func (d *decoder) path() string {
	var b strings.Builder
	for i, s := range d.stack {
		switch {
		case s.raw != "":
			b.WriteString(s.raw)
		case s.field == "":
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case i > 0:
			b.WriteByte('.')
			fallthrough
		default:
			b.WriteString(s.field)
		}
	}
	return b.String()
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = invalid(d.path(), format, args...)
	}
}

// object returns v as an object whose fields are all known, or nil.
func (d *decoder) object(v any, known []string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.fail("want an object, got %s", jsonvalue.Describe(v))
		return nil
	}
	if len(m) > len(known) || !allKnown(m, known) {
		var unknown []string
		for k := range m {
			if !slices.Contains(known, k) {
				unknown = append(unknown, k)
			}
		}
		sort.Strings(unknown)
		d.fail("unknown field %q", unknown[0])
		return nil
	}
	return m
}

func allKnown(m map[string]any, known []string) bool {
	for k := range m {
		if !slices.Contains(known, k) {
			return false
		}
	}
	return true
}

// str returns field f of m as a string; absent or null is "".
func (d *decoder) str(m map[string]any, f string) string {
	v := m[f]
	if v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.field(f)
		d.fail("want a string, got %s", jsonvalue.Describe(v))
		d.pop()
	}
	return s
}

// list returns field f of m as a list; absent or null is nil.
func (d *decoder) list(m map[string]any, f string) ([]any, bool) {
	v, ok := m[f]
	if !ok || v == nil {
		return nil, false
	}
	l, ok := v.([]any)
	if !ok {
		d.field(f)
		d.fail("want a list, got %s", jsonvalue.Describe(v))
		d.pop()
	}
	return l, ok
}

var (
	externalValueFields = []string{"fromObject", "combine", "fmt", "variables", "template", "toFieldPath", "makeAvailableAs", "policy", "transforms"}
	refFields           = []string{"group", "version", "resource", "name", "namespace", "fieldPath", "secretData"}
	variableFields      = []string{"name", "fromRef"}
	policyFields        = []string{"resolve", "resolution"}
	transformFields     = []string{"type", "format", "map", "toType"}
)

// decodeExternalValue decodes external value i of the list at base.
func decodeExternalValue(base string, i int, v any) (v1alpha1.ExternalValue, *compileError) {
	var ev v1alpha1.ExternalValue
	d := &decoder{stack: make([]pathSeg, 0, 8)}
	d.field(base)
	d.index(i)
	m := d.object(v, externalValueFields)
	if m == nil {
		return ev, d.err
	}
	if fv := m["fromObject"]; fv != nil {
		d.field("fromObject")
		ref := d.ref(fv)
		ev.FromObject = &ref
		d.pop()
	}
	ev.Combine = decodeList(d, m, "combine", maxSources, d.ref)
	ev.Fmt = d.str(m, "fmt")
	ev.Variables = decodeList(d, m, "variables", maxSources, d.variable)
	ev.Template = d.str(m, "template")
	ev.ToFieldPath = d.str(m, "toFieldPath")
	ev.MakeAvailableAs = d.str(m, "makeAvailableAs")
	if fv := m["policy"]; fv != nil {
		d.field("policy")
		if pm := d.object(fv, policyFields); pm != nil {
			ev.Policy = &v1alpha1.Policy{
				Resolve:    v1alpha1.ResolvePolicy(d.str(pm, "resolve")),
				Resolution: v1alpha1.ResolutionPolicy(d.str(pm, "resolution")),
			}
		}
		d.pop()
	}
	ev.Transforms = decodeList(d, m, "transforms", maxTransforms, d.transform)
	return ev, d.err
}

// decodeList decodes field f of m, a list of at most maxItems items, with
// elem for each item; absent or null is nil.
func decodeList[T any](d *decoder, m map[string]any, f string, maxItems int, elem func(any) T) []T {
	l, ok := d.list(m, f)
	if !ok {
		return nil
	}
	d.field(f)
	if len(l) > maxItems {
		d.fail("%d items, more than %d", len(l), maxItems)
		d.pop()
		return nil
	}
	out := make([]T, len(l))
	for i, e := range l {
		d.index(i)
		out[i] = elem(e)
		d.pop()
	}
	d.pop()
	return out
}

func (d *decoder) variable(v any) v1alpha1.Variable {
	var vr v1alpha1.Variable
	if m := d.object(v, variableFields); m != nil {
		vr.Name = d.str(m, "name")
		if fv := m["fromRef"]; fv != nil {
			d.field("fromRef")
			vr.FromRef = d.ref(fv)
			d.pop()
		}
	}
	return vr
}

func (d *decoder) ref(v any) v1alpha1.ObjectFieldRef {
	m := d.object(v, refFields)
	if m == nil {
		return v1alpha1.ObjectFieldRef{}
	}
	return v1alpha1.ObjectFieldRef{
		Group:      d.str(m, "group"),
		Version:    d.str(m, "version"),
		Resource:   d.str(m, "resource"),
		Name:       d.str(m, "name"),
		Namespace:  d.str(m, "namespace"),
		FieldPath:  d.str(m, "fieldPath"),
		SecretData: v1alpha1.SecretDataEncoding(d.str(m, "secretData")),
	}
}

func (d *decoder) transform(v any) v1alpha1.Transform {
	m := d.object(v, transformFields)
	if m == nil {
		return v1alpha1.Transform{}
	}
	t := v1alpha1.Transform{
		Type:   v1alpha1.TransformType(d.str(m, "type")),
		Format: d.str(m, "format"),
		ToType: v1alpha1.ConvertType(d.str(m, "toType")),
	}
	if fv := m["map"]; fv != nil {
		d.field("map")
		tm, ok := fv.(map[string]any)
		if !ok {
			d.fail("want an object, got %s", jsonvalue.Describe(fv))
		}
		if len(tm) > maxMapEntries {
			d.fail("%d entries, more than %d", len(tm), maxMapEntries)
			d.pop()
			return t
		}
		t.Map = make(map[string]string, len(tm))
		for k, mv := range tm {
			s, ok := mv.(string)
			if !ok {
				d.stack = append(d.stack, pathSeg{raw: "[" + k + "]"})
				d.fail("want a string, got %s", jsonvalue.Describe(mv))
				d.pop()
			}
			t.Map[k] = s
		}
		d.pop()
	}
	return t
}
