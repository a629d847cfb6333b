package fieldpath

import (
	"fmt"
)

// A Path is a parsed field path, ready to read and write objects without
// parsing again. Get allocates nothing when the value is found. A Path is
// immutable and safe for concurrent use; the objects it reads and writes are
// not made safe by it.
type Path struct {
	text     string
	segs     Segments
	maxIndex uint   // the largest index in segs, zero when it has none
	wildcard int    // the first wildcard segment, or -1
	slot     uint32 // where the path cache stored it, if it did
	fields   bool   // every segment is a field
}

// A CompileOption configures Compile.
type CompileOption interface {
	applyToCompile(*compileOptions)
}

// A PavedOption configures a Paved.
type PavedOption interface {
	applyToPaved(*Paved)
}

type compileOptions struct {
	maxIndex uint
}

// MaxIndex is an option that sets the largest array index a path may hold,
// for Compile, Pave and PaveObject. Zero keeps DefaultMaxIndex; no value above
// math.MaxInt32 is honoured. It replaces crossplane-runtime's
// WithMaxFieldPathIndex, whose zero meant "no limit".
type MaxIndex uint

func (m MaxIndex) applyToCompile(o *compileOptions) { o.maxIndex = uint(m) }
func (m MaxIndex) applyToPaved(p *Paved)            { p.maxIndex = uint(m) }

// WithMaxFieldPathIndex is crossplane-runtime's name for the option: the
// largest array index a path may hold, where zero means no limit (in practice
// math.MaxInt32, the most any limit is).
func WithMaxFieldPathIndex(maxIndex uint) PavedOption {
	if maxIndex == 0 {
		return MaxIndex(maxIndexCap)
	}
	return MaxIndex(maxIndex)
}

// Compile parses a field path for repeated use. See Parse for the errors. A
// path with a wildcard compiles, but Get and Set reject it.
func Compile(path string, opts ...CompileOption) (*Path, error) {
	o := compileOptions{}
	for _, opt := range opts {
		opt.applyToCompile(&o)
	}
	return compile(path, limit(o.maxIndex))
}

// MustCompile is like Compile but panics if the path is invalid. It is meant
// for paths written in the source code, as package-level variables.
func MustCompile(path string, opts ...CompileOption) *Path {
	p, err := Compile(path, opts...)
	if err != nil {
		panic(err)
	}
	return p
}

func limit(maxIndex uint) uint {
	if maxIndex == 0 {
		return DefaultMaxIndex
	}
	return maxIndex
}

func compile(path string, maxIndex uint) (*Path, error) {
	segs, err := parse(path, maxIndex)
	if err != nil {
		return nil, err
	}
	p := &Path{text: path, segs: segs, wildcard: -1, fields: true}
	for i := range segs {
		if segs[i].Type != SegmentField {
			p.fields = false
		}
		switch segs[i].Type {
		case SegmentIndex:
			p.maxIndex = max(p.maxIndex, segs[i].Index)
		case SegmentWildcard:
			if p.wildcard < 0 {
				p.wildcard = i
			}
		}
	}
	return p, nil
}

// String returns the text the path was compiled from.
func (p *Path) String() string { return p.text }

// Segments returns a copy of the path's segments.
func (p *Path) Segments() Segments {
	return append(Segments(nil), p.segs...)
}

// Get returns the value at the path in obj, without copying it. A missing
// field, an index past the end of an array and a null on the way give an
// error for which IsNotFound is true; a value of the wrong type on the way
// gives one that wraps ErrWrongType.
func (p *Path) Get(obj map[string]any) (any, error) {
	if len(p.segs) == 0 {
		return nil, errZeroPath
	}
	return p.get(obj, "get")
}

// errZeroPath is returned by a Path that was not made by Compile.
var errZeroPath = fmt.Errorf("cannot use a Path that was not compiled: %w", ErrInvalidPath)

// Set stores value at the path in obj, creating missing objects and arrays
// on the way and replacing nulls, and padding arrays with nulls up to the
// index. The value is converted to JSON form first (see the package
// documentation), so obj never shares memory with it. Set fails, leaving obj
// unchanged, when obj is nil, when the path holds a wildcard, when a value on
// the way has the wrong type, or when the value cannot be represented.
func (p *Path) Set(obj map[string]any, value any) error {
	v, err := toJSON(value)
	if err != nil {
		return fmt.Errorf("cannot set %s: %w", p.text, err)
	}
	if len(p.segs) == 0 {
		return errZeroPath
	}
	if obj == nil {
		return &walkError{op: "set", segs: p.segs, kind: errNilObject}
	}
	return p.set(obj, v, "set")
}

func (p *Path) get(obj map[string]any, op string) (any, error) {
	if p.fields {
		// Fields through objects to a value that is there: the common
		// case, walked without the general walk's checks. Anything else is
		// the general walk's, which says what is missing or wrong.
		segs, m := p.segs, obj
		last := len(segs) - 1
		for i := 0; i < last; i++ {
			next, ok := m[segs[i].Field].(map[string]any)
			if !ok {
				return p.getWalk(obj, op)
			}
			m = next
		}
		if v, found := m[segs[last].Field]; found {
			return v, nil
		}
	}
	return p.getWalk(obj, op)
}

// getWalk is get for any path and content.
func (p *Path) getWalk(obj map[string]any, op string) (any, error) {
	segs := p.segs
	if err := p.concrete(op); err != nil {
		return nil, err
	}
	var cur any = obj
	for i := range segs {
		s := &segs[i]
		switch s.Type {
		case SegmentField:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, mismatch(op, segs, i, cur)
			}
			v, found := m[s.Field]
			if !found {
				return nil, &walkError{op: op, segs: segs, at: i, kind: errMissingField}
			}
			cur = v
		case SegmentIndex:
			a, ok := cur.([]any)
			if !ok {
				return nil, mismatch(op, segs, i, cur)
			}
			if s.Index >= uint(len(a)) {
				return nil, &walkError{op: op, segs: segs, at: i, kind: errMissingIndex, length: len(a)}
			}
			cur = a[s.Index]
		default:
			return nil, &walkError{op: op, segs: segs, at: i, kind: errWildcard}
		}
	}
	return cur, nil
}

// concrete returns the error for walking a path that holds a wildcard, or
// nil when the path holds none.
func (p *Path) concrete(op string) error {
	if p.wildcard >= 0 {
		return &walkError{op: op, segs: p.segs, at: p.wildcard, kind: errWildcard}
	}
	return nil
}

// mismatch is the error for a value that cannot be followed by segment i: a
// null is not-found, anything else is the wrong type.
func mismatch(op string, segs Segments, i int, got any) error {
	if got == nil {
		return &walkError{op: op, segs: segs, at: i, kind: errNullParent}
	}
	return &walkError{op: op, segs: segs, at: i, kind: errWrongParent, got: got}
}

// A slot is where a container was found, so that a replacement (a new map
// for a null, a longer or shorter array) can be stored back.
type slot struct {
	m   map[string]any
	key string
	a   []any
	i   uint
}

func (s *slot) store(v any) {
	if s.m != nil {
		s.m[s.key] = v
	} else if s.a != nil {
		s.a[s.i] = v
	}
}

// set stores v, already in JSON form, at the path in the non-nil obj. It
// checks everything that can fail before it changes anything: past the last
// existing container, everything it meets is new.
func (p *Path) set(obj map[string]any, v any, op string) error {
	segs := p.segs
	if p.fields && obj != nil {
		// Fields all the way down to objects that exist: the common case,
		// walked without the general walk's bookkeeping. Anything else (a
		// missing or null object on the way, a value of another type) is
		// the general walk's, from the start.
		m, last := obj, len(segs)-1
		for i := 0; i < last; i++ {
			next, ok := m[segs[i].Field].(map[string]any)
			if !ok || next == nil {
				return p.setWalk(obj, v, op)
			}
			m = next
		}
		m[segs[last].Field] = v
		return nil
	}
	return p.setWalk(obj, v, op)
}

// setWalk is set for any path and content.
func (p *Path) setWalk(obj map[string]any, v any, op string) error {
	segs := p.segs
	if err := p.concrete(op); err != nil {
		return err
	}
	var cur any = obj
	var parent slot
	last := len(segs) - 1
	for i := range segs {
		s := &segs[i]
		switch s.Type {
		case SegmentField:
			m, ok := cur.(map[string]any)
			if !ok && cur != nil {
				return &walkError{op: op, segs: segs, at: i, kind: errWrongParent, got: cur}
			}
			if m == nil {
				// A null, or a nil map, is replaced by a new object.
				m = make(map[string]any, 1)
				parent.store(m)
			}
			if i == last {
				m[s.Field] = v
				return nil
			}
			cur = m[s.Field]
			parent = slot{m: m, key: s.Field}
		case SegmentIndex:
			a, ok := cur.([]any)
			if !ok && cur != nil {
				return &walkError{op: op, segs: segs, at: i, kind: errWrongParent, got: cur}
			}
			if s.Index >= uint(len(a)) {
				a = append(a, make([]any, int(s.Index)+1-len(a))...)
				parent.store(a)
			}
			if i == last {
				a[s.Index] = v
				return nil
			}
			cur = a[s.Index]
			parent = slot{a: a, i: s.Index}
		}
	}
	return nil
}

// delete removes the map key or the array element at the path. A path that
// leads nowhere is not an error; a value of the wrong type on the way is.
func (p *Path) delete(obj map[string]any, op string) error {
	segs := p.segs
	if err := p.concrete(op); err != nil {
		return err
	}
	// parent holds cur, at segs[i-1].
	var parent, cur any = nil, obj
	last := len(segs) - 1
	for i := range last {
		v, found, ok := child(cur, &segs[i])
		if !ok {
			return &walkError{op: op, segs: segs, at: i, kind: errWrongParent, got: cur}
		}
		if !found {
			return nil
		}
		parent, cur = cur, v
	}
	s := &segs[last]
	if cur == nil {
		return nil
	}
	switch s.Type {
	case SegmentField:
		if m, ok := cur.(map[string]any); ok {
			delete(m, s.Field)
			return nil
		}
	case SegmentIndex:
		if a, ok := cur.([]any); ok {
			if s.Index < uint(len(a)) {
				copy(a[s.Index:], a[s.Index+1:])
				a[len(a)-1] = nil
				// The shorter array replaces a in parent, which holds a at
				// segs[last-1] since last > 0: obj is not an array.
				storeAt(parent, &segs[last-1], a[:len(a)-1])
			}
			return nil
		}
	}
	return &walkError{op: op, segs: segs, at: last, kind: errWrongParent, got: cur}
}

// child returns the value that s, a field or an index, selects in cur.
// found is false when there is none: cur is null, or has no such field or
// element. ok is false when cur is a value that s cannot select in.
func child(cur any, s *Segment) (v any, found, ok bool) {
	if s.Type == SegmentField {
		m, isObject := cur.(map[string]any)
		if !isObject {
			return nil, false, cur == nil
		}
		v, found = m[s.Field]
		return v, found, true
	}
	a, isArray := cur.([]any)
	if !isArray {
		return nil, false, cur == nil
	}
	if s.Index >= uint(len(a)) {
		return nil, false, true
	}
	return a[s.Index], true, true
}

// storeAt stores v at s, a field or an index, in c, the object or array
// in which child found a value at s.
func storeAt(c any, s *Segment, v any) {
	switch x := c.(type) {
	case map[string]any:
		x[s.Field] = v
	case []any:
		x[s.Index] = v
	}
}
