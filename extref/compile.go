package extref

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// A compileError is a malformed external value: the field at fault and why.
type compileError struct {
	path string
	err  error
}

func invalid(path string, format string, args ...any) *compileError {
	return &compileError{path: path, err: fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)}
}

var variableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// The limits of one external value, as the CRD schema (ExternalValuesSchema)
// has them. The resolver checks them itself, since a referencer's schema may
// not (a CRD written by hand, or x-kubernetes-preserve-unknown-fields): a
// target path of a megabyte makes half a million nested objects, and
// thousands of variables take a check of each name against the others.
const (
	maxSources    = 32   // items of combine and variables
	maxTransforms = 16   // items of transforms
	maxPathLength = 1024 // of fieldPath and toFieldPath
	maxMapEntries = 256  // of a Map transform
)

// compile decodes and checks external value i, sharing with the other
// values of its referencer what they have in common (sh). Paths for errors
// are built only when there is an error.
func (r *Resolver) compile(i int, item any, sh *sharing) (*entry, *compileError) {
	ev, derr := decodeExternalValue(r.path, i, item)
	if derr != nil {
		return nil, derr
	}
	at := func(suffix string) string { return r.path + "[" + strconv.Itoa(i) + "]" + suffix }
	prefixed := func(prefix string, err *compileError) *compileError {
		err.path = at(prefix + err.path)
		return err
	}

	e := &entry{}
	sources := 0
	if ev.FromObject != nil {
		sources++
		src, err := sh.source(*ev.FromObject)
		if err != nil {
			return nil, prefixed(".fromObject", err)
		}
		e.sources = []sourceRef{src}
	}
	if ev.Combine != nil {
		sources++
		if len(ev.Combine) == 0 {
			return nil, invalid(at(".combine"), "at least one source is required")
		}
		srcs := make([]sourceRef, len(ev.Combine))
		for j, s := range ev.Combine {
			src, err := sh.source(s)
			if err != nil {
				return nil, prefixed(".combine["+strconv.Itoa(j)+"]", err)
			}
			srcs[j] = src
		}
		if ev.Fmt == "" {
			return nil, invalid(at(".fmt"), "combine needs fmt")
		}
		if len(ev.Fmt) > maxExpressionLength {
			return nil, invalid(at(".fmt"), "longer than %d bytes", maxExpressionLength)
		}
		f, err := sh.format(ev.Fmt, len(ev.Combine))
		if err != nil {
			return nil, invalid(at(".fmt"), "%v", err)
		}
		e.sources, e.format = srcs, f
	} else if ev.Fmt != "" {
		return nil, invalid(at(".fmt"), "fmt needs combine")
	}
	if ev.Variables != nil {
		sources++
		if len(ev.Variables) == 0 {
			return nil, invalid(at(".variables"), "at least one variable is required")
		}
		if ev.Template == "" {
			return nil, invalid(at(".template"), "variables need a template")
		}
		e.sources = make([]sourceRef, len(ev.Variables))
		e.names = make([]string, len(ev.Variables))
		for j, v := range ev.Variables {
			p := func() string { return ".variables[" + strconv.Itoa(j) + "]" }
			if !variableName.MatchString(v.Name) {
				return nil, invalid(at(p()+".name"), "%q is not a valid variable name (letters, digits and _, not starting with a digit)", v.Name)
			}
			for _, seen := range e.names[:j] {
				if seen == v.Name {
					return nil, invalid(at(p()+".name"), "duplicate variable %q", v.Name)
				}
			}
			src, err := sh.source(v.FromRef)
			if err != nil {
				return nil, prefixed(p()+".fromRef", err)
			}
			e.sources[j], e.names[j] = src, v.Name
		}
		if len(ev.Template) > maxExpressionLength {
			return nil, invalid(at(".template"), "longer than %d bytes", maxExpressionLength)
		}
		if _, err := r.template(ev.Template); err != nil {
			return nil, invalid(at(".template"), "%v", err)
		}
		e.template = ev.Template
	} else if ev.Template != "" {
		return nil, invalid(at(".template"), "a template needs variables")
	}
	if ev.DependsOn != nil {
		sources++
		if cerr := e.dependsOn(*ev.DependsOn, sh); cerr != nil {
			return nil, prefixed(".dependsOn", cerr)
		}
	}
	if sources != 1 {
		return nil, invalid(at(""), "exactly one of fromObject, combine, variables and dependsOn must be set, found %d", sources)
	}

	switch {
	case ev.DependsOn != nil:
		if ev.ToFieldPath != "" || ev.MakeAvailableAs != "" || len(ev.Transforms) > 0 {
			return nil, invalid(at(""), "dependsOn writes nothing: toFieldPath, makeAvailableAs and transforms do not apply")
		}
	case ev.ToFieldPath != "" && ev.MakeAvailableAs != "":
		return nil, invalid(at(""), "toFieldPath and makeAvailableAs are exclusive")
	case len(ev.ToFieldPath) > maxPathLength:
		return nil, invalid(at(".toFieldPath"), "longer than %d bytes", maxPathLength)
	case ev.ToFieldPath != "":
		v := r.checkTarget(ev.ToFieldPath)
		if v.err != nil {
			return nil, invalid(at(".toFieldPath"), "%q: %v", ev.ToFieldPath, v.err)
		}
		e.target, e.targetPath, e.metadata = ev.ToFieldPath, v.path, v.metadata
		for _, s := range v.path.Segments() {
			if s.Type == fieldpath.SegmentIndex {
				e.padding += int(s.Index+1) * len("null,")
			}
		}
	case ev.MakeAvailableAs != "":
		e.key = ev.MakeAvailableAs
	case ev.FromObject != nil:
		// toFieldPath defaults to the source's path, as provider-kubernetes'
		// patchesFrom has it, where that is a target a value may be
		// written to: the same checks as a toFieldPath given.
		v := r.checkTarget(ev.FromObject.FieldPath)
		if v.err != nil {
			return nil, invalid(at(".toFieldPath"), "omitted, so it is fromObject's fieldPath %q, which is not a target: %v", ev.FromObject.FieldPath, v.err)
		}
		e.target, e.targetPath, e.metadata = ev.FromObject.FieldPath, v.path, v.metadata
		for _, s := range v.path.Segments() {
			if s.Type == fieldpath.SegmentIndex {
				e.padding += int(s.Index+1) * len("null,")
			}
		}
	default:
		return nil, invalid(at(""), "one of toFieldPath and makeAvailableAs is required")
	}

	if ev.Policy != nil {
		var ok bool
		if e.always, ok = isOther(ev.Policy.Resolve, v1alpha1.ResolveIfNotPresent, v1alpha1.ResolveAlways); !ok {
			return nil, invalid(at(".policy.resolve"), "unsupported value %q (want IfNotPresent or Always)", ev.Policy.Resolve)
		}
		if e.optional, ok = isOther(ev.Policy.Resolution, v1alpha1.ResolutionRequired, v1alpha1.ResolutionOptional); !ok {
			return nil, invalid(at(".policy.resolution"), "unsupported value %q (want Required or Optional)", ev.Policy.Resolution)
		}
		if err := e.mergePolicy(ev.Policy); err != nil {
			return nil, prefixed(".policy", err)
		}
	}
	if len(ev.Transforms) > 0 {
		e.transforms = make([]transform, len(ev.Transforms))
	}
	for j, t := range ev.Transforms {
		p := func() string { return ".transforms[" + strconv.Itoa(j) + "]" }
		if len(t.Format) > maxExpressionLength {
			return nil, invalid(at(p()+".format"), "longer than %d bytes", maxExpressionLength)
		}
		ct, err := compileTransform(t)
		if err != nil {
			return nil, invalid(at(p()), "%v", err)
		}
		e.transforms[j] = ct
	}
	e.bytes = e.size()
	return e, nil
}

// size estimates the bytes e keeps, counting the strings it shares with the
// referencer it was compiled from (which the entry keeps alive after the
// referencer changes), but not the source kinds and format it shares with
// the other values of its referencer (compiledSize counts those once).
func (e *entry) size() int {
	const word = 8
	n := int(unsafe.Sizeof(*e)) + len(e.target)*4 + len(e.key) + len(e.template)
	for _, s := range e.sources {
		n += int(unsafe.Sizeof(s)) + len(s.name)
	}
	for _, name := range e.names {
		n += 2*word + len(name)
	}
	for _, t := range e.transforms {
		n += int(unsafe.Sizeof(t)) + t.format.Size() + t.table.size() + t.str.size() + t.match.size() + t.math.size()
	}
	return n
}

// size estimates the bytes k keeps.
func (k *sourceKind) size() int {
	r := k.ref
	return int(unsafe.Sizeof(*k)) + len(r.Group) + len(r.Version) + len(r.Resource) + len(r.Namespace) + len(r.FieldPath)*4 +
		len(r.NameFromFieldPath)*4 + len(r.NamespaceFromFieldPath)*4 + k.sel.size()
}

// A sourceRef is an object field an external value reads: its name, and
// what it shares with the other sources of its referencer of the same
// kind, namespace and field.
type sourceRef struct {
	name string
	kind *sourceKind
}

// A sourceKind is a source without its name, and its field path compiled.
type sourceKind struct {
	ref  v1alpha1.ObjectFieldRef // Name is ""
	path *fieldpath.Path

	// Where the name and namespace come from, when from the referencer,
	// or the selector that chooses the objects; nil for a source named in
	// the spec.
	nameFrom, namespaceFrom *fieldpath.Path
	sel                     *selector
}

// ref returns the sourceRef as the API has it.
func (s sourceRef) ref() v1alpha1.ObjectFieldRef {
	r := s.kind.ref
	r.Name = s.name
	return r
}

// sharing is what the external values of one referencer, compiled in one
// Resolve, have in common: the sources' kinds and paths, and the formats.
// A referencer of thousands of sources of one kind and field keeps one
// compiled path, not thousands.
type sharing struct {
	kinds   map[v1alpha1.ObjectFieldRef]*sourceKind
	formats map[sharedFormat]*render.Format
}

type sharedFormat struct {
	text string
	n    int
}

// source checks ref and returns it as a sourceRef.
func (sh *sharing) source(ref v1alpha1.ObjectFieldRef) (sourceRef, *compileError) {
	key := ref
	key.Name = ""
	if k := sh.kinds[key]; k != nil && (ref.Name != "" || ref.NameFromFieldPath != "") {
		return sourceRef{name: ref.Name, kind: k}, nil
	}
	p, err := checkRef(ref)
	if err != nil {
		return sourceRef{}, err
	}
	k := &sourceKind{ref: key, path: p}
	if k.nameFrom, k.namespaceFrom, k.sel, err = compileFrom(ref); err != nil {
		return sourceRef{}, err
	}
	if sh.kinds == nil {
		sh.kinds = make(map[v1alpha1.ObjectFieldRef]*sourceKind)
	}
	sh.kinds[key] = k
	return sourceRef{name: ref.Name, kind: k}, nil
}

// format parses f, a format of n values, once per referencer.
func (sh *sharing) format(f string, n int) (*render.Format, error) {
	key := sharedFormat{text: f, n: n}
	if pf := sh.formats[key]; pf != nil {
		return pf, nil
	}
	pf, err := render.ParseFormat(f, n)
	if err != nil {
		return nil, err
	}
	if sh.formats == nil {
		sh.formats = make(map[sharedFormat]*render.Format)
	}
	sh.formats[key] = pf
	return pf, nil
}

// checkRef checks the fields of a source reference, and compiles its field
// path; the error's path is relative to the reference.
func checkRef(ref v1alpha1.ObjectFieldRef) (*fieldpath.Path, *compileError) {
	switch {
	case ref.Version == "":
		return nil, invalid(".version", "version is required")
	case ref.Resource == "":
		return nil, invalid(".resource", "resource is required")
	case ref.Name == "" && ref.NameFromFieldPath == "" && ref.Selector == nil:
		return nil, invalid(".name", "name is required")
	case ref.FieldPath == "":
		return nil, invalid(".fieldPath", "fieldPath is required")
	case len(ref.FieldPath) > maxPathLength:
		return nil, invalid(".fieldPath", "longer than %d bytes", maxPathLength)
	}
	// The schema's limits, whatever the referencer's schema says: the
	// strings are kept in caches (mappings, decisions, the watch index).
	for _, f := range []struct {
		path  string
		value string
		most  int
	}{{".group", ref.Group, 253}, {".version", ref.Version, 63}, {".resource", ref.Resource, 253}, {".name", ref.Name, 253}, {".namespace", ref.Namespace, 63}} {
		if len(f.value) > f.most {
			return nil, invalid(f.path, "longer than %d bytes", f.most)
		}
	}
	switch ref.SecretData {
	case "", v1alpha1.SecretDataDecoded, v1alpha1.SecretDataBase64:
	default:
		return nil, invalid(".secretData", "unsupported value %q (want Decoded or Base64)", ref.SecretData)
	}
	p, err := fieldpath.Compile(ref.FieldPath)
	if err != nil {
		return nil, invalid(".fieldPath", "%v", err)
	}
	if hasWildcard(p.Segments()) {
		return nil, invalid(".fieldPath", "%q: wildcards are not allowed", ref.FieldPath)
	}
	if err := checkVolatile(ref.FieldPath); err != nil {
		return nil, err
	}
	return p, nil
}

// templateCacheSize and templateCacheBytes bound the parsed templates a
// Resolver keeps, in number and in bytes of their text.
const (
	templateCacheSize  = 512
	templateCacheBytes = 256 << 10
)

func newTemplateCache() *boundedCache[string, *render.Template] {
	return newBoundedCache(templateCacheSize, templateCacheBytes, func(text string, _ *render.Template) int { return len(text) })
}

// template returns text parsed as a template. Parsed templates are cached by
// their text, since the same few are resolved on every reconcile, and kept
// nowhere else: a parsed template takes tens of times its text.
func (r *Resolver) template(text string) (*render.Template, error) {
	if t, ok := r.templates.get(text); ok {
		return t, nil
	}
	t, err := render.ParseTemplate(text)
	if err != nil {
		return nil, err
	}
	r.templates.put(text, t)
	return t, nil
}

// checkTarget checks that a target lies under spec, outside the external
// values themselves, or is a single label or annotation, and does not
// overlap a protected field, and compiles it.
// Verdicts are cached, since the same few targets are checked on every
// reconcile. It also reports whether the target is a label or an
// annotation, decided from the parsed path (metadata.labels[x] and
// metadata[labels][x] alike), which takes only strings.
func (r *Resolver) checkTarget(target string) targetVerdict {
	if v, ok := r.targets.get(target); ok {
		return v
	}
	v := r.target(target)
	if len(target) <= 256 {
		r.targets.put(target, v)
	}
	return v
}

// targetVerdict is what checkTarget found of a target.
type targetVerdict struct {
	path     *fieldpath.Path // when err is nil
	metadata bool            // a label or an annotation
	err      error
}

func (r *Resolver) target(target string) targetVerdict {
	p, err := fieldpath.Compile(target)
	if err != nil {
		return targetVerdict{err: err}
	}
	segs := p.Segments()
	if hasWildcard(segs) {
		return targetVerdict{err: errors.New("wildcards are not allowed")}
	}
	field := func(i int, name string) bool {
		return i < len(segs) && segs[i].Type == fieldpath.SegmentField && (name == "" || segs[i].Field == name)
	}
	var v targetVerdict
	switch {
	case field(0, "metadata"):
		if len(segs) != 3 || !(field(1, "labels") || field(1, "annotations")) || !field(2, "") {
			return targetVerdict{err: errors.New("the only metadata a value may be written to is one label or annotation")}
		}
		if field(1, "annotations") && field(2, MergedAnnotation) {
			return targetVerdict{err: fmt.Errorf("%s is extref's record of merged values", MergedAnnotation)}
		}
		v = targetVerdict{path: p, metadata: true}
	case field(0, "spec") && len(segs) >= 2:
		if overlaps(segs, r.pathSegs) {
			return targetVerdict{err: fmt.Errorf("overlaps %s, where the external values are", r.path)}
		}
		v = targetVerdict{path: p}
	default:
		return targetVerdict{err: errors.New("a value may be written only under spec, or to a label or an annotation")}
	}
	for i, s := range r.protSegs {
		if overlaps(segs, s) {
			return targetVerdict{err: fmt.Errorf("overlaps %s, a field protected from external values", r.protected[i])}
		}
	}
	return v
}

func hasWildcard(segs fieldpath.Segments) bool {
	for _, s := range segs {
		if s.Type == fieldpath.SegmentWildcard {
			return true
		}
	}
	return false
}

// overlaps reports whether one path is a prefix of the other.
func overlaps(a, b fieldpath.Segments) bool {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// isOther decodes a field that takes one of two values, def (also when the
// field is empty) or other: it reports whether v is other, and whether v is
// one of the two at all.
func isOther[T ~string](v, def, other T) (isOther, ok bool) {
	switch v {
	case "", def:
		return false, true
	case other:
		return true, true
	}
	return false, false
}

// entry is a checked external value.
type entry struct {
	sources    []sourceRef
	names      []string       // variable names, for a template
	format     *render.Format // for combine
	template   string         // the text: parsed templates are kept only in the Resolver's template cache
	target     string
	targetPath *fieldpath.Path
	padding    int    // the most bytes of nulls a write to targetPath may add to arrays
	metadata   bool   // target is a label or an annotation
	key        string // makeAvailableAs
	always     bool
	optional   bool
	dep        *dependency             // for dependsOn: sources are its deletion timestamp, then its conditions
	merge      *fieldpath.MergeOptions // how a merged value merges; nil for Replace
	transforms []transform
	bytes      int // size's estimate, for the entry cache

	last atomic.Pointer[rendering] // the template's last output
}

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
	externalValueFields = []string{"fromObject", "combine", "fmt", "variables", "template", "dependsOn", "toFieldPath", "makeAvailableAs", "policy", "transforms"}
	dependencyFields    = []string{"group", "version", "resource", "name", "namespace", "ready"}
	refFields           = []string{"group", "version", "resource", "name", "namespace", "fieldPath", "secretData", "nameFromFieldPath", "namespaceFromFieldPath", "selector"}
	variableFields      = []string{"name", "fromRef"}
	policyFields        = []string{"resolve", "resolution", "toFieldPath"}
	transformFields     = []string{"type", "format", "map", "toType", "string", "match", "math"}
	stringFieldNames    = []string{"type", "fmt", "convert", "trim", "regexp", "join", "replace"}
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
	if fv := m["dependsOn"]; fv != nil {
		d.field("dependsOn")
		if dm := d.object(fv, dependencyFields); dm != nil {
			ev.DependsOn = &v1alpha1.Dependency{
				Group:     d.str(dm, "group"),
				Version:   d.str(dm, "version"),
				Resource:  d.str(dm, "resource"),
				Name:      d.str(dm, "name"),
				Namespace: d.str(dm, "namespace"),
				Ready:     d.boolean(dm, "ready"),
			}
		}
		d.pop()
	}
	ev.ToFieldPath = d.str(m, "toFieldPath")
	ev.MakeAvailableAs = d.str(m, "makeAvailableAs")
	if fv := m["policy"]; fv != nil {
		d.field("policy")
		if pm := d.object(fv, policyFields); pm != nil {
			ev.Policy = &v1alpha1.Policy{
				Resolve:     v1alpha1.ResolvePolicy(d.str(pm, "resolve")),
				Resolution:  v1alpha1.ResolutionPolicy(d.str(pm, "resolution")),
				ToFieldPath: v1alpha1.ToFieldPathPolicy(d.str(pm, "toFieldPath")),
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
	ref := v1alpha1.ObjectFieldRef{
		Group:                  d.str(m, "group"),
		Version:                d.str(m, "version"),
		Resource:               d.str(m, "resource"),
		Name:                   d.str(m, "name"),
		Namespace:              d.str(m, "namespace"),
		FieldPath:              d.str(m, "fieldPath"),
		SecretData:             v1alpha1.SecretDataEncoding(d.str(m, "secretData")),
		NameFromFieldPath:      d.str(m, "nameFromFieldPath"),
		NamespaceFromFieldPath: d.str(m, "namespaceFromFieldPath"),
	}
	if sv := m["selector"]; sv != nil {
		d.field("selector")
		ref.Selector = d.selector(sv)
		d.pop()
	}
	return ref
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
	if sv := m["string"]; sv != nil {
		d.field("string")
		t.String = d.stringTransform(sv)
		d.pop()
	}
	if mv := m["match"]; mv != nil {
		d.field("match")
		t.Match = d.matchTransform(mv)
		d.pop()
	}
	if mv := m["math"]; mv != nil {
		d.field("math")
		t.Math = d.mathTransform(mv)
		d.pop()
	}
	return t
}

// mathTransform decodes the math field of a transform.
func (d *decoder) mathTransform(v any) *v1alpha1.MathTransform {
	m := d.object(v, []string{"type", "multiply", "clampMin", "clampMax"})
	if m == nil {
		return &v1alpha1.MathTransform{}
	}
	out := &v1alpha1.MathTransform{Type: v1alpha1.MathTransformType(d.str(m, "type"))}
	for _, f := range []struct {
		name string
		to   **int64
	}{{"multiply", &out.Multiply}, {"clampMin", &out.ClampMin}, {"clampMax", &out.ClampMax}} {
		if fv := m[f.name]; fv != nil {
			d.field(f.name)
			i, ok := jsonvalue.WholeInt64(fv)
			if !ok {
				d.fail("want an integer, got %s", jsonvalue.Describe(fv))
			}
			*f.to = &i
			d.pop()
		}
	}
	return out
}

// matchTransform decodes the match field of a transform.
func (d *decoder) matchTransform(v any) *v1alpha1.MatchTransform {
	m := d.object(v, []string{"patterns", "fallbackValue", "fallbackTo"})
	if m == nil {
		return &v1alpha1.MatchTransform{}
	}
	out := &v1alpha1.MatchTransform{FallbackTo: v1alpha1.MatchFallbackTo(d.str(m, "fallbackTo"))}
	if fv := m["fallbackValue"]; fv != nil {
		d.field("fallbackValue")
		out.FallbackValue = d.json(fv)
		d.pop()
	}
	out.Patterns = decodeList(d, m, "patterns", maxMatchPatterns, func(pv any) v1alpha1.MatchPattern {
		pm := d.object(pv, []string{"type", "literal", "regexp", "result"})
		if pm == nil {
			return v1alpha1.MatchPattern{}
		}
		p := v1alpha1.MatchPattern{Type: v1alpha1.MatchPatternType(d.str(pm, "type"))}
		if _, ok := pm["literal"]; ok && pm["literal"] != nil {
			s := d.str(pm, "literal")
			p.Literal = &s
		}
		if _, ok := pm["regexp"]; ok && pm["regexp"] != nil {
			s := d.str(pm, "regexp")
			p.Regexp = &s
		}
		if rv := pm["result"]; rv != nil {
			d.field("result")
			p.Result = *d.json(rv)
			d.pop()
		}
		return p
	})
	return out
}

// json encodes a JSON value of a spec as its text.
func (d *decoder) json(v any) *v1alpha1.JSON {
	b, err := json.Marshal(v)
	if err != nil {
		d.fail("not a JSON value")
		return &v1alpha1.JSON{}
	}
	return &v1alpha1.JSON{Raw: b}
}

// stringTransform decodes the string field of a transform.
func (d *decoder) stringTransform(v any) *v1alpha1.StringTransform {
	m := d.object(v, stringFieldNames)
	if m == nil {
		return &v1alpha1.StringTransform{}
	}
	s := &v1alpha1.StringTransform{
		Type:    v1alpha1.StringTransformType(d.str(m, "type")),
		Fmt:     d.str(m, "fmt"),
		Convert: v1alpha1.StringConversion(d.str(m, "convert")),
		Trim:    d.str(m, "trim"),
	}
	if rv := m["regexp"]; rv != nil {
		d.field("regexp")
		if rm := d.object(rv, []string{"match", "group"}); rm != nil {
			s.Regexp = &v1alpha1.StringTransformRegexp{Match: d.str(rm, "match")}
			if g, ok := rm["group"]; ok && g != nil {
				d.field("group")
				i, ok := jsonvalue.WholeInt64(g)
				if !ok || i < 0 || i > math.MaxInt32 {
					d.fail("want a group number, got %s", jsonvalue.Describe(g))
				}
				n := int32(i)
				s.Regexp.Group = &n
				d.pop()
			}
		}
		d.pop()
	}
	if jv := m["join"]; jv != nil {
		d.field("join")
		if jm := d.object(jv, []string{"separator"}); jm != nil {
			s.Join = &v1alpha1.StringTransformJoin{Separator: d.str(jm, "separator")}
		}
		d.pop()
	}
	if rv := m["replace"]; rv != nil {
		d.field("replace")
		if rm := d.object(rv, []string{"search", "replace"}); rm != nil {
			s.Replace = &v1alpha1.StringTransformReplace{Search: d.str(rm, "search"), Replace: d.str(rm, "replace")}
		}
		d.pop()
	}
	return s
}
