package fieldpath

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// A Paved is unstructured JSON content (what an unstructured.Unstructured
// holds) read and written by field path. Paths are parsed once and cached.
//
// A Paved is not safe for concurrent use while anything writes to it.
type Paved struct {
	object   map[string]any
	maxIndex uint // zero means DefaultMaxIndex
}

// Pave wraps object for access by field path. Writes go to object itself. A
// nil object is allowed: the first Set creates the map, which
// UnstructuredContent then returns.
func Pave(object map[string]any, opts ...PavedOption) *Paved {
	p := &Paved{object: object}
	for _, o := range opts {
		o.applyToPaved(p)
	}
	return p
}

// PaveObject wraps a Kubernetes object for access by field path. The content
// of an object that implements runtime.Unstructured and hands out its own map
// (such as *unstructured.Unstructured) is used as it is, so writes through
// the Paved change the object. Any other object is paved over a copy of its
// content, and writes change only the copy: a runtime.Unstructured that
// builds its content afresh on every call (such as
// *unstructured.UnstructuredList) over a deep copy of that content, which
// SetUnstructuredContent(p.UnstructuredContent()) writes back; a typed
// object over its conversion by runtime.DefaultUnstructuredConverter.
func PaveObject(o runtime.Object, opts ...PavedOption) (*Paved, error) {
	if o == nil {
		return nil, fmt.Errorf("cannot pave a nil object: %w", ErrInvalidValue)
	}
	if v := reflect.ValueOf(o); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("cannot pave a nil %T: %w", o, ErrInvalidValue)
	}
	if u, ok := o.(runtime.Unstructured); ok {
		content := u.UnstructuredContent()
		if len(content) == 0 {
			// An empty Unstructured hands out a new map on every call; give it
			// this one, so that writes reach the object.
			u.SetUnstructuredContent(content)
		}
		if sameMap(u.UnstructuredContent(), content) {
			return Pave(content, opts...), nil
		}
		// The content is built afresh on every call, as a list's is: writes
		// to it would reach the object in part (a list's items, not its top
		// level), so pave a copy that shares nothing with it.
		c, err := toJSON(content)
		if err != nil {
			return nil, fmt.Errorf("cannot pave %T: %w", o, err)
		}
		m, _ := c.(map[string]any)
		return Pave(m, opts...), nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, opaque(fmt.Sprintf("cannot pave %T: it cannot be converted to unstructured content", o), ErrInvalidValue, err)
	}
	return Pave(content, opts...), nil
}

// sameMap reports whether a and b are the same map, not merely equal ones.
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// UnstructuredContent returns the content, creating an empty map when there
// is none so that writes to it are kept.
func (p *Paved) UnstructuredContent() map[string]any {
	if p.object == nil {
		p.object = map[string]any{}
	}
	return p.object
}

// SetUnstructuredContent replaces the content with content; later writes go
// to it.
func (p *Paved) SetUnstructuredContent(content map[string]any) {
	p.object = content
}

// MarshalJSON writes the content, so that a Paved marshals as the object it
// holds ("null" when it holds none).
func (p Paved) MarshalJSON() ([]byte, error) {
	return json.Marshal(p.object)
}

// UnmarshalJSON replaces the content with the JSON object in data, decoded as
// the Kubernetes decoder decodes it (int64 for integers). JSON null leaves no
// content; anything but an object or null is an error.
func (p *Paved) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return opaque("cannot decode a Paved: it is not a JSON object or null", ErrInvalidValue, err)
	}
	p.object = m
	return nil
}

func (p *Paved) path(path string) (*Path, error) {
	return paths.lookup(path, p.maxIndex)
}

// GetValue returns the value at path, without copying it: changes to a
// returned map or slice change the content. See Path.Get for the errors.
func (p *Paved) GetValue(path string) (any, error) {
	fp, err := p.path(path)
	if err != nil {
		return nil, err
	}
	return fp.get(p.object, "get")
}

// GetValueInto decodes the value at path into out, a pointer, as the
// Kubernetes JSON decoder would decode it: field names match case-sensitively
// and numbers held in interface values become int64 or float64.
func (p *Paved) GetValueInto(path string, out any) error {
	v, err := p.GetValue(path)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return opaque(fmt.Sprintf("cannot get %s into %T: it is %s, which cannot be encoded as JSON", path, out, jsonvalue.Shape(v)), ErrInvalidValue, err)
	}
	if err := utiljson.Unmarshal(b, out); err != nil {
		return opaque(fmt.Sprintf("cannot get %s into %T: it is %s, which does not decode into it", path, out, jsonvalue.Shape(v)), ErrWrongType, err)
	}
	return nil
}

// GetString returns the string at path.
func (p *Paved) GetString(path string) (string, error) {
	v, err := p.GetValue(path)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", wrongTypeError(path, "a string", v)
	}
	return s, nil
}

// GetStringArray returns a copy of the array of strings at path.
func (p *Paved) GetStringArray(path string) ([]string, error) {
	v, err := p.GetValue(path)
	if err != nil {
		return nil, err
	}
	switch a := v.(type) {
	case []any:
		out := make([]string, len(a))
		for i, e := range a {
			var ok bool
			if out[i], ok = e.(string); !ok {
				return nil, notStringError(path, "an array of strings", "element "+strconv.Itoa(i), e)
			}
		}
		return out, nil
	case []string:
		return append([]string(nil), a...), nil
	default:
		return nil, wrongTypeError(path, "an array of strings", v)
	}
}

// GetStringObject returns a copy of the object of strings at path, such as
// metadata.labels.
func (p *Paved) GetStringObject(path string) (map[string]string, error) {
	v, err := p.GetValue(path)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case map[string]any:
		out := make(map[string]string, len(m))
		for k, e := range m {
			s, ok := e.(string)
			if !ok {
				return nil, notStringError(path, "an object of strings", "field "+strconv.Quote(k), e)
			}
			out[k] = s
		}
		return out, nil
	case map[string]string:
		out := make(map[string]string, len(m))
		for k, s := range m {
			out[k] = s
		}
		return out, nil
	default:
		return nil, wrongTypeError(path, "an object of strings", v)
	}
}

// notStringError is the error for an item of the array or object at path,
// named by at, that is not a string.
func notStringError(path, what, at string, item any) error {
	return fmt.Errorf("cannot get %s as %s: %s is %s: %w", path, what, at, jsonvalue.Shape(item), ErrWrongType)
}

// GetBool returns the boolean at path.
func (p *Paved) GetBool(path string) (bool, error) {
	v, err := p.GetValue(path)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, wrongTypeError(path, "a boolean", v)
	}
	return b, nil
}

// GetInteger returns the integer at path. It accepts int64 (what the
// Kubernetes decoder produces), the other Go integer types when the value
// fits, a whole float64 or float32 within int64's range (what encoding/json
// produces), and an integral json.Number.
func (p *Paved) GetInteger(path string) (int64, error) {
	v, err := p.GetValue(path)
	if err != nil {
		return 0, err
	}
	if i, ok := jsonvalue.WholeInt64(v); ok {
		return i, nil
	}
	return 0, wrongTypeError(path, "an integer", v)
}

// SetValue stores value at path. See Path.Set for what it creates, how it
// converts the value, and when it fails; on failure the content is unchanged.
func (p *Paved) SetValue(path string, value any) error {
	fp, err := p.path(path)
	if err != nil {
		return err
	}
	v, err := toJSON(value)
	if err != nil {
		return fmt.Errorf("cannot set %s: %w", path, err)
	}
	return p.set(fp, v, "set")
}

// set stores v, already in JSON form, creating the content if there is none.
func (p *Paved) set(fp *Path, v any, op string) error {
	if p.object != nil {
		return fp.set(p.object, v, op)
	}
	m := map[string]any{}
	if err := fp.set(m, v, op); err != nil {
		return err
	}
	p.object = m
	return nil
}

// SetString stores a string at path.
func (p *Paved) SetString(path, value string) error {
	return p.setJSON(path, value)
}

// SetBool stores a boolean at path.
func (p *Paved) SetBool(path string, value bool) error {
	return p.setJSON(path, value)
}

// setJSON stores v, already in JSON form, at path. The typed setters call it
// from functions small enough to inline, so that a constant argument is
// boxed without allocating.
func (p *Paved) setJSON(path string, v any) error {
	fp, err := p.path(path)
	if err != nil {
		return err
	}
	return p.set(fp, v, "set")
}

// SetNumber stores a number at path: int64 when it is whole and fits, float64
// otherwise. NaN and the infinities are errors.
func (p *Paved) SetNumber(path string, value float64) error {
	return p.SetValue(path, value)
}

// DeleteField removes the field or the array element at path; later elements
// of an array move down by one. A path that does not exist is not an error; a
// value of the wrong type on the way, or a wildcard, is.
func (p *Paved) DeleteField(path string) error {
	fp, err := p.path(path)
	if err != nil {
		return err
	}
	return fp.delete(p.object, "delete")
}

// MergeOptions say how MergeValue combines a value with the one already at
// its path. A nil *MergeOptions replaces the existing value. The fields are
// pointers, as in crossplane-runtime, so that a Composition's optional
// fields decode into them; nil means false.
type MergeOptions struct {
	// KeepMapValues keeps every value already present: objects are merged
	// field by field, and only fields that are absent or null are taken from
	// the merged value. Without it, the merged value's fields win.
	KeepMapValues *bool `json:"keepMapValues,omitempty"`

	// AppendSlice appends to an existing array the items of the merged array
	// that it does not already hold (by deep equality), instead of replacing
	// it.
	AppendSlice *bool `json:"appendSlice,omitempty"`
}

// keepMapValues reports whether KeepMapValues is set and true.
func (o *MergeOptions) keepMapValues() bool {
	return o != nil && o.KeepMapValues != nil && *o.KeepMapValues
}

// appendSlice reports whether AppendSlice is set and true.
func (o *MergeOptions) appendSlice() bool {
	return o != nil && o.AppendSlice != nil && *o.AppendSlice
}

// MergeValue merges value into the value at path. With nil opts it is
// SetValue. Otherwise objects are merged recursively, field by field, and
// arrays and scalars are replaced unless opts say otherwise; a missing or
// null existing value is simply replaced. The merged value is converted as
// SetValue converts it, and on failure the content is unchanged.
func (p *Paved) MergeValue(path string, value any, opts *MergeOptions) error {
	fp, err := p.path(path)
	if err != nil {
		return err
	}
	src, err := toJSON(value)
	if err != nil {
		return fmt.Errorf("cannot merge into %s: %w", path, err)
	}
	if opts == nil {
		return p.set(fp, src, "merge into")
	}
	if fp.wildcard >= 0 {
		return &walkError{op: "merge into", segs: fp.segs, at: fp.wildcard, kind: errWildcard}
	}
	dst, err := fp.get(p.object, "merge into")
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return p.set(fp, merge(dst, src, opts), "merge into")
}
