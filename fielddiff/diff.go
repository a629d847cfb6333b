package fielddiff

import (
	"errors"
	"fmt"
	"reflect"

	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Sentinel errors of FirstChangedField and ChangedFields, for errors.Is.
var (
	// ErrTypeMismatch: desired and actual are not of the same type.
	ErrTypeMismatch = errors.New("desired and actual have different types")
	// ErrUnsupported: a value has a kind that JSON cannot represent (a
	// function, a channel, a complex number, an unsafe pointer) or a map key
	// that cannot become a field name.
	ErrUnsupported = errors.New("unsupported value")
	// ErrCycle: a value refers to itself, so the comparison would not end.
	ErrCycle = errors.New("value refers to itself")
	// ErrTooDeep: a value is nested more than MaxDepth levels deep.
	ErrTooDeep = errors.New("value nested too deeply")
)

// MaxDepth is how deeply desired and actual may be nested: every object,
// list, map, struct, pointer and interface on the way to a value is one
// level. It is the nesting limit of encoding/json's and protobuf's decoders,
// so unstructured content or a message either decoded is never too deep. A
// deeper value wraps ErrTooDeep: the comparison does not recurse further, so
// no input can exhaust the stack.
const MaxDepth = 10000

// FirstChangedField compares desired with actual and returns the path of the
// first field that differs, in field path syntax (spec.description,
// spec.labels[team], spec.nodePools[2].size), and whether any did. It stops at
// that field: its cost grows with the position of the first change, not with
// the size of the objects. The path is the first entry ChangedFields would
// return. See the package documentation for the inputs it takes and the order
// that makes a field "first".
//
// A change of desired or actual as a whole (a nil pointer against a non-nil
// one, two different scalars) is reported with the prefix as the path, empty
// without a Prefix. Updating and UpdateFailure read an empty path as an
// update no field triggered ("triggered by periodic sync"), so pass a Prefix
// (Prefix("spec")) when the path goes into a condition: changed is then
// always reported with a non-empty path.
//
// When that first field is, or is inside, a protobuf field annotated
// google.api.field_behavior IMMUTABLE, the path is returned with an error
// wrapping ErrImmutableField; ChangedFields checks every change.
func FirstChangedField(desired, actual any, opts ...Option) (path string, changed bool, err error) {
	found, err := diff(desired, actual, true, opts)
	if len(found) == 0 {
		return "", false, err
	}
	return found[0], true, err
}

// ChangedFields compares desired with actual and returns the paths of every
// field that differs, in the order FirstChangedField uses, each once. A field
// whose value differs as a whole (a list present on one side only, a value of
// another type) is reported once, without the fields below it. Equal inputs
// give an empty (nil) list. Protobuf fields annotated OUTPUT_ONLY are left
// out; when a change is at or below an IMMUTABLE one, every path is
// returned with an error wrapping ErrImmutableField that names the first
// such change.
func ChangedFields(desired, actual any, opts ...Option) ([]string, error) {
	return diff(desired, actual, false, opts)
}

func diff(desired, actual any, first bool, opts []Option) ([]string, error) {
	cfg, err := newDiffConfig(opts)
	if err != nil {
		return nil, err
	}
	d := differ{cfg: cfg, first: first}
	if err := d.walk(desired, actual); err != nil {
		return nil, err
	}
	return d.found, d.immutableErr()
}

// immutableErr is the error that reports a change to an immutable field,
// or nil when there was none.
func (d *differ) immutableErr() error {
	if d.immutablePath == "" {
		return nil
	}
	return fmt.Errorf("%w %s", ErrImmutableField, d.immutablePath)
}

// walk compares desired with actual, recording what differs in d.
func (d *differ) walk(desired, actual any) error {
	cfg := d.cfg
	d.path = make([]pathSegment, len(cfg.prefix), len(cfg.prefix)+16)
	for i, s := range cfg.prefix {
		d.path[i] = pathSegment{Segment: s}
	}
	if n := cfg.ignore; n != nil && (n.leaf || n.fields != nil || n.indexes != nil || n.wildcard != nil) {
		if n.leaf {
			return nil // everything is ignored
		}
		d.ign = append(d.ign, cfg.ignore)
		d.ignEnd = 1
	}

	desired, actual = unwrapUnstructured(desired), unwrapUnstructured(actual)
	switch {
	case desired == nil && actual == nil:
		return nil
	case desired == nil || actual == nil:
		return d.mismatch(desired, actual)
	}
	if _, ok := desired.(map[string]any); ok {
		if _, ok := actual.(map[string]any); !ok {
			return d.mismatch(desired, actual)
		}
		d.anyValue(desired, actual)
		return d.err
	}
	if pa, ok := desired.(proto.Message); ok {
		pb, ok := actual.(proto.Message)
		if !ok {
			return d.mismatch(desired, actual)
		}
		ma, mb := pa.ProtoReflect(), pb.ProtoReflect()
		if ma.Descriptor().FullName() != mb.Descriptor().FullName() {
			return d.mismatch(desired, actual)
		}
		d.messageField(ma, mb)
		return d.err
	}
	va, vb := reflect.ValueOf(desired), reflect.ValueOf(actual)
	if va.Type() != vb.Type() {
		return d.mismatch(desired, actual)
	}
	d.value(va, vb, false)
	return d.err
}

func unwrapUnstructured(v any) any {
	switch u := v.(type) {
	case *unstructured.Unstructured:
		if u == nil {
			return map[string]any(nil)
		}
		return u.Object
	case unstructured.Unstructured:
		return u.Object
	}
	return v
}

// A differ walks desired and actual side by side.
type differ struct {
	cfg   *diffConfig
	first bool // stop at the first difference
	done  bool // stop now: the first difference was found, or an error
	err   error
	found []string

	// With values, changes are recorded as Changes, with their values,
	// instead of paths in found.
	values    bool
	changes   []Change
	truncated bool

	// immutable and sensitive count the protobuf fields on the current
	// path annotated IMMUTABLE and marked debug_redact; immutablePath is
	// the first change found with immutable above 0.
	immutable, sensitive int
	immutablePath        string

	path []pathSegment

	// ign holds, frame after frame, the ignore-trie nodes that the current
	// path has reached; the current frame is ign[ignStart:ignEnd]. Empty
	// when nothing is ignored.
	ign              []*ignoreNode
	ignStart, ignEnd int

	depth int // levels of nesting at the current path, at most MaxDepth
	seen  map[visit]struct{}

	// Spare lists of sorted map keys and protobuf map entries. A map takes
	// one when the walk enters it and gives it back when the walk leaves, so
	// the walk allocates a list per level of nested maps, not per map.
	keyBufs   [][]string
	entryBufs [][]pbEntry
	keyHolder reflect.Value // a settable string for protobuf map keys, made on first use
}

func (d *differ) takeKeys() []string        { return take(&d.keyBufs) }
func (d *differ) giveKeys(buf []string)     { give(&d.keyBufs, buf) }
func (d *differ) takeEntries() []pbEntry    { return take(&d.entryBufs) }
func (d *differ) giveEntries(buf []pbEntry) { give(&d.entryBufs, buf) }

// take removes a spare list from bufs and returns it, or nil if none is left.
func take[T any](bufs *[][]T) []T {
	n := len(*bufs)
	if n == 0 {
		return nil
	}
	buf := (*bufs)[n-1]
	*bufs = (*bufs)[:n-1]
	return buf
}

// give puts buf back into bufs, emptied, unless it never got an array.
func give[T any](bufs *[][]T, buf []T) {
	if cap(buf) > 0 {
		if *bufs == nil {
			*bufs = make([][]T, 0, 8)
		}
		*bufs = append(*bufs, buf[:0])
	}
}

// Cycle detection starts below this depth, as encoding/json's does: values
// that shallow cannot be cyclic enough to matter, and the common case pays
// nothing for it.
const cycleCheckDepth = 64

type visit struct {
	a, b uintptr
	t    reflect.Type
}

// enter descends into seg and reports whether the new path is ignored. Every
// enter is paired with a leave of the state it returns.
func (d *differ) enter(seg pathSegment) (ignored bool, saved ignState) {
	d.path = append(d.path, seg)
	if d.ign == nil {
		return false, ignState{}
	}
	// The current frame is always the last one: len(d.ign) == d.ignEnd.
	saved = ignState{start: d.ignStart, end: d.ignEnd}
	for i := saved.start; i < saved.end; i++ {
		d.ign = d.ign[i].step(d.ign, seg.Segment)
	}
	d.ignStart, d.ignEnd = saved.end, len(d.ign)
	for _, n := range d.ign[d.ignStart:] {
		if n.leaf {
			ignored = true
		}
	}
	return ignored, saved
}

type ignState struct{ start, end int }

func (d *differ) leave(saved ignState) {
	d.path = d.path[:len(d.path)-1]
	if d.ign == nil {
		return
	}
	d.ign = d.ign[:d.ignStart]
	d.ignStart, d.ignEnd = saved.start, saved.end
}

// report records the current path as changed.
func (d *differ) report() {
	path := pathString(d.path)
	d.found = append(d.found, path)
	if d.immutable > 0 && d.immutablePath == "" {
		d.immutablePath = path
	}
	if d.first {
		d.done = true
	}
}

func (d *differ) fail(format string, args ...any) {
	if d.err != nil {
		return
	}
	where := "desired and actual"
	if len(d.path) > 0 {
		where = pathString(d.path)
	}
	d.err = fmt.Errorf("cannot diff "+where+": "+format, args...)
	d.done = true
}

// encoderFailed is the error of a value's own MarshalJSON or MarshalText
// method. Its message says only that: the method's error may quote the value
// (encoding/json's and strconv's do), and no error of this package holds a
// byte of a value it compares. The method's error is kept for errors.Is and
// errors.As.
type encoderFailed struct{ err error }

func (e encoderFailed) Error() string { return "its MarshalJSON or MarshalText method failed" }
func (e encoderFailed) Unwrap() error { return e.err }

func (d *differ) mismatch(a, b any) error {
	return fmt.Errorf("cannot diff desired (%T) and actual (%T): %w", a, b, ErrTypeMismatch)
}

// deeper and shallower bracket a descent into a level of nesting that cannot
// refer to itself. deeper reports false, having failed the diff, past
// MaxDepth.
func (d *differ) deeper() bool {
	d.depth++
	if d.depth > MaxDepth {
		d.tooDeep()
		return false
	}
	return true
}

func (d *differ) shallower() { d.depth-- }

// tooDeep fails the diff with ErrTooDeep, naming the start of the path only:
// the whole path of a value that deep is as long as the value is deep.
func (d *differ) tooDeep() {
	if d.err != nil {
		return
	}
	where := "desired and actual"
	if len(d.path) > 0 {
		where = pathString(d.path[:min(len(d.path), maxPathInError)])
		if len(d.path) > maxPathInError {
			where += "…"
		}
	}
	d.err = fmt.Errorf("cannot diff %s: more than %d levels: %w", where, MaxDepth, ErrTooDeep)
	d.done = true
}

// maxPathInError is how many segments of a path an ErrTooDeep error names.
const maxPathInError = 16

// push and pop bracket a descent into a container for cycle detection.
// push reports false, having failed the diff, when the pair of containers is
// already on the current path or the value is nested too deeply.
func (d *differ) push(a, b uintptr, t reflect.Type) bool {
	if !d.deeper() {
		return false
	}
	if d.depth <= cycleCheckDepth {
		return true
	}
	if d.seen == nil {
		d.seen = map[visit]struct{}{}
	}
	k := visit{a, b, t}
	if _, ok := d.seen[k]; ok {
		d.fail("%w", ErrCycle)
		return false
	}
	d.seen[k] = struct{}{}
	return true
}

func (d *differ) pop(a, b uintptr, t reflect.Type) {
	if d.depth > cycleCheckDepth {
		delete(d.seen, visit{a, b, t})
	}
	d.depth--
}
