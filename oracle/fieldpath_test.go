package oracle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/json"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	xpfp1 "github.com/crossplane/crossplane-runtime/pkg/fieldpath"
	xpfp2 "github.com/crossplane/crossplane-runtime/v2/pkg/fieldpath"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// paved is what the differential tests call on each implementation: the
// methods crossplane-runtime's Paved and ours share, with merge options as
// two flags so that each side builds its own options type.
type paved interface {
	GetValue(path string) (any, error)
	SetValue(path string, value any) error
	DeleteField(path string) error
	ExpandWildcards(path string) ([]string, error)
	Merge(path string, value any, opts *mergeOpts) error
	Content() map[string]any
	IsNotFound(err error) bool
}

// mergeOpts is a merge's options on either side; nil means no options.
type mergeOpts struct{ keep, appendSlice *bool }

type ours struct{ *fieldpath.Paved }

func (p ours) Merge(path string, v any, o *mergeOpts) error {
	if o == nil {
		return p.MergeValue(path, v, nil)
	}
	return p.MergeValue(path, v, &fieldpath.MergeOptions{KeepMapValues: o.keep, AppendSlice: o.appendSlice})
}
func (p ours) Content() map[string]any { return p.UnstructuredContent() }
func (ours) IsNotFound(err error) bool { return fieldpath.IsNotFound(err) }

type runtimeV1 struct{ *xpfp1.Paved }

func (p runtimeV1) Merge(path string, v any, o *mergeOpts) error {
	if o == nil {
		return p.MergeValue(path, v, nil)
	}
	return p.MergeValue(path, v, &xpv1.MergeOptions{KeepMapValues: o.keep, AppendSlice: o.appendSlice})
}
func (p runtimeV1) Content() map[string]any { return p.UnstructuredContent() }
func (runtimeV1) IsNotFound(err error) bool { return xpfp1.IsNotFound(err) }

type runtimeV2 struct{ *xpfp2.Paved }

func (p runtimeV2) Merge(path string, v any, o *mergeOpts) error {
	if o == nil {
		return p.MergeValue(path, v, nil)
	}
	return p.MergeValue(path, v, &xpfp2.MergeOptions{KeepMapValues: o.keep, AppendSlice: o.appendSlice})
}
func (p runtimeV2) Content() map[string]any { return p.UnstructuredContent() }
func (runtimeV2) IsNotFound(err error) bool { return xpfp2.IsNotFound(err) }

// oracles are the crossplane-runtime versions ours is compared with.
var oracles = map[string]func(map[string]any) paved{
	"crossplane-runtime v1.20.0": func(o map[string]any) paved { return runtimeV1{xpfp1.Pave(o)} },
	"crossplane-runtime v2.4.0":  func(o map[string]any) paved { return runtimeV2{xpfp2.Pave(o)} },
}

// gen draws JSON values and paths from a small alphabet, so that paths
// often meet what the objects hold: the same few field names, indexes that
// are in and past arrays, every JSON type, and the values Go's zero-value
// rules single out ("", 0, false).
type gen struct{ r *rand.Rand }

var fields = []string{"a", "b", "c", "x.y"}

func (g gen) scalar() any {
	switch g.r.IntN(9) {
	case 0:
		return ""
	case 1:
		return "s"
	case 2:
		return "t"
	case 3:
		return int64(0)
	case 4:
		return int64(2)
	case 5:
		return 1.5
	case 6:
		return false
	case 7:
		return true
	default:
		return nil
	}
}

func (g gen) value(depth int) any {
	if depth <= 0 {
		return g.scalar()
	}
	switch g.r.IntN(3) {
	case 0:
		return g.scalar()
	case 1:
		n := g.r.IntN(4)
		a := make([]any, n)
		for i := range a {
			a[i] = g.value(depth - 1)
		}
		return a
	default:
		return g.object(depth - 1)
	}
}

func (g gen) object(depth int) map[string]any {
	m := map[string]any{}
	for range g.r.IntN(4) {
		m[fields[g.r.IntN(len(fields))]] = g.value(depth)
	}
	return m
}

// path draws a path of one to four segments; with wildcards, some of them
// may be "*".
func (g gen) path(wildcards bool) string {
	var b strings.Builder
	n := 1 + g.r.IntN(4)
	for i := range n {
		switch k := g.r.IntN(10); {
		case wildcards && k == 0:
			b.WriteString("[*]")
		case k < 4 && i > 0:
			fmt.Fprintf(&b, "[%d]", g.r.IntN(4))
		default:
			f := fields[g.r.IntN(len(fields))]
			switch {
			case strings.Contains(f, "."):
				fmt.Fprintf(&b, "[%s]", f)
			case i > 0:
				b.WriteString("." + f)
			default:
				b.WriteString(f)
			}
		}
	}
	return b.String()
}

func (g gen) mergeOpts() *mergeOpts {
	flag := func() *bool {
		switch g.r.IntN(3) {
		case 0:
			return nil
		case 1:
			f := false
			return &f
		default:
			t := true
			return &t
		}
	}
	if g.r.IntN(4) == 0 {
		return nil
	}
	return &mergeOpts{keep: flag(), appendSlice: flag()}
}

// outcome is what one operation did: its result, whether it failed and how,
// and the object afterwards.
type outcome struct {
	Result   any
	Err      bool
	NotFound bool
	Object   map[string]any
}

func run(p paved, op func(paved) (any, error)) outcome {
	res, err := op(p)
	return outcome{Result: res, Err: err != nil, NotFound: err != nil && p.IsNotFound(err), Object: p.Content()}
}

// operation is one call with its arguments, drawn once and run on each side.
type operation struct {
	name        string
	path        string
	expand      bool // ExpandWildcards: the order of object keys is crossplane-runtime's map order
	appendSlice bool // a merge with AppendSlice
	call        func(paved) (any, error)
}

func (g gen) operation() operation {
	switch g.r.IntN(5) {
	case 0:
		path := g.path(false)
		return operation{name: fmt.Sprintf("GetValue(%q)", path), path: path, call: func(p paved) (any, error) { return p.GetValue(path) }}
	case 1:
		path, v := g.path(false), g.value(2)
		return operation{name: fmt.Sprintf("SetValue(%q, %#v)", path, v), path: path, call: func(p paved) (any, error) {
			return nil, p.SetValue(path, runtime.DeepCopyJSONValue(v))
		}}
	case 2:
		path := g.path(false)
		return operation{name: fmt.Sprintf("DeleteField(%q)", path), path: path, call: func(p paved) (any, error) { return nil, p.DeleteField(path) }}
	case 3:
		path := g.path(true)
		return operation{name: fmt.Sprintf("ExpandWildcards(%q)", path), path: path, expand: true, call: func(p paved) (any, error) {
			got, err := p.ExpandWildcards(path)
			if got == nil {
				got = []string{}
			}
			return got, err
		}}
	default:
		path, v, o := g.path(false), g.value(2), g.mergeOpts()
		desc := "nil"
		if o != nil {
			desc = fmt.Sprintf("{keep: %s, append: %s}", flagString(o.keep), flagString(o.appendSlice))
		}
		appendSlice := o != nil && o.appendSlice != nil && *o.appendSlice
		return operation{name: fmt.Sprintf("MergeValue(%q, %#v, %s)", path, v, desc), path: path, appendSlice: appendSlice, call: func(p paved) (any, error) {
			return nil, p.Merge(path, runtime.DeepCopyJSONValue(v), o)
		}}
	}
}

func flagString(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}

// TestFieldpathAgainstCrossplaneRuntime runs the same operations on the same
// objects through crossplane-runtime's fieldpath, as a library, and ours.
// Where crossplane-runtime succeeds, ours must return the same value and
// leave the same object. Where it fails, ours fails too, except on the
// inputs docs/design/fieldpath.md lists (a path through null, an array
// appended to a value of another type), which ours handles. Error texts
// differ on purpose: ours wrap sentinels and never quote values.
func TestFieldpathAgainstCrossplaneRuntime(t *testing.T) {
	const cases = 20000
	for name, oracle := range oracles {
		t.Run(name, func(t *testing.T) {
			g := gen{rand.New(rand.NewPCG(1, 2))}
			failures, compared := 0, 0
			for i := range cases {
				obj := g.object(3)
				op := g.operation()
				want := run(oracle(runtime.DeepCopyJSON(obj)), op.call)
				got := run(ours{fieldpath.Pave(runtime.DeepCopyJSON(obj))}, op.call)
				if want.Err && (!got.Err || want.NotFound != got.NotFound) && documented(obj, op) {
					continue
				}
				if op.expand {
					slices.Sort(want.Result.([]string))
					slices.Sort(got.Result.([]string))
				}
				compared++
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("case %d: %s on %#v: -%s, +ctrlkit:\n%s", i, op.name, obj, name, diff)
					if failures++; failures == 20 {
						t.Fatal("stopping after 20 differences")
					}
				}
			}
			if compared < cases*3/4 {
				t.Errorf("only %d of %d cases compared; the generator draws too many inputs whose handling is documented as different", compared, cases)
			}
		})
	}
}

// documented reports whether op on obj is an input on which
// docs/design/fieldpath.md says ours and crossplane-runtime differ where
// crossplane-runtime fails: a merge that appends arrays (crossplane-runtime
// fails when it meets a value of another type, at any depth), or one of the
// paths documentedPath names.
func documented(obj map[string]any, op operation) bool {
	return op.appendSlice || documentedPath(obj, op)
}

// documentedPath reports whether op's path is one on which
// docs/design/fieldpath.md says ours and crossplane-runtime differ: a path
// that passes through null, a name that begins or ends with a quote outside
// brackets (crossplane-runtime trims quotes from every name; ours keeps
// them), a wildcard given to anything but ExpandWildcards
// (crossplane-runtime takes it as the key "*"; ours refuses it), a
// backslash, or a path ours refuses (refusedPath).
func documentedPath(obj map[string]any, op operation) bool {
	if strings.Contains(op.path, `\`) {
		return true // an escape inside brackets here, a plain byte there
	}
	segs, err := fieldpath.Parse(op.path)
	if err != nil {
		return refusedPath(op.path)
	}
	return quotedName(segs) || throughNull(obj, segs) || (!op.expand && wildcard(segs))
}

// refusedPath reports whether path, which ours does not parse, is of a
// kind docs/design/fieldpath.md says ours refuses and crossplane-runtime
// may take (parseDifferences has one of each): the empty path, a negative
// index, or a quote, which opens a quoted name directly inside brackets
// here (so `["]` is unterminated) and is trimmed from every name there.
func refusedPath(path string) bool {
	return path == "" || negativeIndex.MatchString(path) || strings.ContainsAny(path, `'"`)
}

var negativeIndex = regexp.MustCompile(`\[\s*-`)

// wildcard reports whether segs hold a wildcard.
func wildcard(segs fieldpath.Segments) bool {
	return slices.ContainsFunc(segs, func(s fieldpath.Segment) bool { return s.Type == fieldpath.SegmentWildcard })
}

// quotedName reports whether a field name of segs begins or ends with a
// quote, which crossplane-runtime trims.
func quotedName(segs fieldpath.Segments) bool {
	for _, s := range segs {
		if s.Type == fieldpath.SegmentField && s.Field != strings.Trim(s.Field, `'"`) {
			return true
		}
	}
	return false
}

// throughNull reports whether a walk of segs from v meets null before its
// last segment, on any branch of a wildcard.
func throughNull(v any, segs fieldpath.Segments) bool {
	if len(segs) == 0 {
		return false
	}
	if v == nil {
		return true
	}
	s, rest := segs[0], segs[1:]
	var next []any
	switch x := v.(type) {
	case map[string]any:
		if s.Type == fieldpath.SegmentWildcard {
			for _, c := range x {
				next = append(next, c)
			}
		} else if c, ok := x[s.Field]; ok && s.Type == fieldpath.SegmentField {
			next = append(next, c)
		}
	case []any:
		if s.Type == fieldpath.SegmentWildcard {
			next = x
		} else if s.Type == fieldpath.SegmentIndex && int(s.Index) < len(x) {
			next = append(next, x[s.Index])
		}
	}
	for _, c := range next {
		if len(rest) > 0 && throughNull(c, rest) {
			return true
		}
	}
	return false
}

// parseDifferences are the paths docs/design/fieldpath.md says ctrlkit
// refuses and crossplane-runtime parses.
var parseDifferences = map[string]string{
	"":              "the empty path is an error",
	`a[x\]`:         "a backslash escapes the bracket: unterminated",
	`["]`:           "a quote directly inside brackets opens a quoted name: unterminated",
	"a[-1]":         "a negative index is an error, not the field -1",
	"a[4294967296]": "the index limit applies to Parse",
}

// quoteDifferences are paths both parse, to different names:
// crossplane-runtime trims quotes from every name; ours keeps a quote that
// is not around a name in brackets (docs/design/fieldpath.md).
var quoteDifferences = []string{`a"`, `'a'.b`, `"`}

// TestParseAgainstCrossplaneRuntime: every path the generator draws, and a
// few hand-picked odd ones, parse to the same segments, or fail on both,
// except the documented differences, which must still differ.
func TestParseAgainstCrossplaneRuntime(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(3, 4))}
	paths := []string{".", "a.", "a..b", "[", "a[", "a]", "a[0", "a[]", "[0]", "a[1.5]", "a.b[c.d].e", "a[*]", "*", "a['b']", "a[b][0]"}
	for range 2000 {
		paths = append(paths, g.path(true))
	}
	for path, why := range parseDifferences {
		_, werr := xpfp1.Parse(path)
		_, gerr := fieldpath.Parse(path)
		if werr != nil || gerr == nil {
			t.Errorf("Parse(%q): crossplane-runtime error %v, ctrlkit error %v; documented: %s", path, werr, gerr, why)
		}
	}
	for _, path := range quoteDifferences {
		want, werr := xpfp1.Parse(path)
		got, gerr := fieldpath.Parse(path)
		if werr != nil || gerr != nil || want.String() == got.String() {
			t.Errorf("Parse(%q): crossplane-runtime %q (%v), ctrlkit %q (%v); documented: ours keeps the quotes", path, want.String(), werr, got.String(), gerr)
		}
	}
	for _, path := range paths {
		want, werr := xpfp1.Parse(path)
		got, gerr := fieldpath.Parse(path)
		if (werr != nil) != (gerr != nil) {
			t.Errorf("Parse(%q): crossplane-runtime error %v, ctrlkit error %v", path, werr, gerr)
			continue
		}
		if werr != nil {
			continue
		}
		if want.String() != got.String() || len(want) != len(got) {
			t.Errorf("Parse(%q): crossplane-runtime %q (%d segments), ctrlkit %q (%d segments)", path, want.String(), len(want), got.String(), len(got))
		}
	}
}

// FuzzMergeAgainstCrossplaneRuntime merges a JSON value into a JSON object
// at a path through crossplane-runtime's MergeValue and ours, with every
// combination of options: where crossplane-runtime succeeds (and the input
// is not one of the documented differences), ours leaves the same object.
// Merges that append are compared too: crossplane-runtime's failures on
// them are skipped with the rest of its failures.
func FuzzMergeAgainstCrossplaneRuntime(f *testing.F) {
	f.Add(`{"a":{"b":[1,2],"c":""}}`, "a", `{"b":[2,3],"c":"x"}`, uint8(3))
	f.Add(`{"a":false}`, "a", `true`, uint8(1))
	f.Add(`{"a":{"b":{"c":0}}}`, "a.b", `{"c":5,"d":null}`, uint8(0))
	f.Add(`{"a":[[1],[2]]}`, "a", `[[2],[3]]`, uint8(2))
	f.Fuzz(func(t *testing.T, object, path, value string, flags uint8) {
		var obj map[string]any
		var v any
		if json.Unmarshal([]byte(object), &obj) != nil || obj == nil || json.Unmarshal([]byte(value), &v) != nil {
			return
		}
		bools := []*bool{nil, new(bool), func() *bool { b := true; return &b }()}
		o := &mergeOpts{keep: bools[flags%3], appendSlice: bools[flags/3%3]}
		if flags >= 9 {
			o = nil
		}
		op := operation{name: "MergeValue", path: path, appendSlice: o != nil && o.appendSlice != nil && *o.appendSlice,
			call: func(p paved) (any, error) { return nil, p.Merge(path, runtime.DeepCopyJSONValue(v), o) }}
		want := run(runtimeV1{xpfp1.Pave(runtime.DeepCopyJSON(obj))}, op.call)
		got := run(ours{fieldpath.Pave(runtime.DeepCopyJSON(obj))}, op.call)
		if want.Err || documentedPath(obj, op) || emptyAppend(obj, op, v) || (op.appendSlice && (wholeFloat(obj) || wholeFloat(v))) {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("MergeValue(%q, %s, %+v) on %s: -crossplane-runtime, +ctrlkit:\n%s", path, value, o, object, diff)
		}
	})
}

// wholeFloat reports whether v holds a float with an integral value, such as
// 1.0: appending compares items as JSON values here (1.0 equals 1) and with
// reflect.DeepEqual in crossplane-runtime (float64(1) is not int64(1)), a
// documented difference.
func wholeFloat(v any) bool {
	switch x := v.(type) {
	case float64:
		return x == math.Trunc(x)
	case []any:
		return slices.ContainsFunc(x, wholeFloat)
	case map[string]any:
		for _, e := range x {
			if wholeFloat(e) {
				return true
			}
		}
	}
	return false
}

// emptyAppend reports whether op appends an empty array onto an empty one:
// crossplane-runtime leaves null there (docs/design/fieldpath.md), ours [].
func emptyAppend(obj map[string]any, op operation, v any) bool {
	if !op.appendSlice {
		return false
	}
	sa, ok := v.([]any)
	if !ok || len(sa) > 0 {
		return false
	}
	got, err := fieldpath.Pave(obj).GetValue(op.path)
	da, isArray := got.([]any)
	return err == nil && isArray && len(da) == 0
}
