package extref

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// Sources named by a field of the referencer (nameFromFieldPath,
// namespaceFromFieldPath) and sources chosen by labels (selector). Both are
// resolved to what a source named in the spec is before the policy sees
// them: a name and a namespace, or a namespace and a label selector. A
// selection lists the objects of its namespace that match, keeps those the
// policy allows (before anything is counted, so that an object the policy
// forbids changes nothing a referencer can see), and reads its field of
// each, in sort order.

// maxSelected bounds the objects one selector reads: more matches than
// that, after the policy, fail the source whatever maxMatch says.
const maxSelected = 256

// The limits of a selector's spec, as the CRD schema has them.
const (
	maxMatchers         = 16  // items of matchLabels and of matchExpressions
	maxExpressionValues = 64  // values of one expression
	maxLabelKey         = 317 // a prefix of 253 bytes, a slash and a name of 63
	maxLabelValue       = 63
)

// A selector is a checked SourceSelector.
type selector struct {
	multiple bool
	min, max int             // objects taken; max is maxSelected when maxMatch is not given
	sort     *fieldpath.Path // nil: metadata.name
	fixed    labels.Requirements
	from     []labelFrom                   // matchers whose values come from the referencer
	static   labels.Selector               // the selector when from is empty
	watch    *selectorWatch                // static's, made once
	last     atomic.Pointer[builtSelector] // the selector built last, from the referencer's values
	text     string                        // the spec's selector, values from the referencer shown as their fields
}

// labelFrom is a label matcher whose value is a field of the referencer.
type labelFrom struct {
	key      string
	path     *fieldpath.Path
	optional bool
	at       string // the matcher's path, relative to the source
}

// compileFrom checks the fields of ref that say where its name and
// namespace come from, or how its objects are selected; the error's path is
// relative to the reference.
func compileFrom(ref v1alpha1.ObjectFieldRef) (nameFrom, namespaceFrom *fieldpath.Path, sel *selector, _ *compileError) {
	n := 0
	for _, set := range []bool{ref.Name != "", ref.NameFromFieldPath != "", ref.Selector != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return nil, nil, nil, invalid("", "exactly one of name, nameFromFieldPath and selector may be set, found %d", n)
	}
	if ref.Namespace != "" && ref.NamespaceFromFieldPath != "" {
		return nil, nil, nil, invalid("", "namespace and namespaceFromFieldPath are exclusive")
	}
	var err *compileError
	if ref.NameFromFieldPath != "" {
		if nameFrom, err = referencerPath(".nameFromFieldPath", ref.NameFromFieldPath); err != nil {
			return nil, nil, nil, err
		}
	}
	if ref.NamespaceFromFieldPath != "" {
		if namespaceFrom, err = referencerPath(".namespaceFromFieldPath", ref.NamespaceFromFieldPath); err != nil {
			return nil, nil, nil, err
		}
	}
	if ref.Selector != nil {
		if sel, err = compileSelector(ref.Selector); err != nil {
			err.path = ".selector" + err.path
			return nil, nil, nil, err
		}
	}
	return nameFrom, namespaceFrom, sel, nil
}

// referencerPath compiles a path of the referencer a value is taken from.
func referencerPath(at, path string) (*fieldpath.Path, *compileError) {
	if len(path) > maxPathLength {
		return nil, invalid(at, "longer than %d bytes", maxPathLength)
	}
	p, err := fieldpath.Compile(path)
	if err != nil {
		return nil, invalid(at, "%v", err)
	}
	if hasWildcard(p.Segments()) {
		return nil, invalid(at, "%q: wildcards are not allowed", path)
	}
	return p, nil
}

// compileSelector checks a selector; the error's path is relative to it.
func compileSelector(s *v1alpha1.SourceSelector) (*selector, *compileError) {
	sel := &selector{min: 1, max: maxSelected}
	switch s.Mode {
	case "", v1alpha1.SelectorSingle:
		if s.MinMatch != nil || s.MaxMatch != nil {
			return nil, invalid("", "minMatch and maxMatch need mode Multiple")
		}
	case v1alpha1.SelectorMultiple:
		sel.multiple = true
	default:
		return nil, invalid(".mode", "want Single or Multiple, got %s", jsonvalue.Describe(string(s.Mode)))
	}
	if s.MinMatch != nil {
		if *s.MinMatch < 0 || *s.MinMatch > maxSelected {
			return nil, invalid(".minMatch", "want 0 to %d, got %d", maxSelected, *s.MinMatch)
		}
		sel.min = int(*s.MinMatch)
	}
	if s.MaxMatch != nil {
		if *s.MaxMatch < 1 || *s.MaxMatch > maxSelected {
			return nil, invalid(".maxMatch", "want 1 to %d, got %d", maxSelected, *s.MaxMatch)
		}
		sel.max = int(*s.MaxMatch)
	}
	if sel.min > sel.max {
		return nil, invalid(".minMatch", "%d is more than maxMatch %d", sel.min, sel.max)
	}
	if s.SortByFieldPath != "" {
		p, err := referencerPath(".sortByFieldPath", s.SortByFieldPath)
		if err != nil {
			return nil, err
		}
		if verr := checkVolatile(s.SortByFieldPath); verr != nil {
			verr.path = ".sortByFieldPath"
			return nil, verr
		}
		if s.SortByFieldPath != "metadata.name" {
			sel.sort = p
		}
	}
	if len(s.MatchLabels) > maxMatchers {
		return nil, invalid(".matchLabels", "%d items, more than %d", len(s.MatchLabels), maxMatchers)
	}
	if len(s.MatchExpressions) > maxMatchers {
		return nil, invalid(".matchExpressions", "%d items, more than %d", len(s.MatchExpressions), maxMatchers)
	}
	var text []string
	for j, m := range s.MatchLabels {
		at := ".matchLabels[" + strconv.Itoa(j) + "]"
		if len(m.Key) > maxLabelKey {
			return nil, invalid(at+".key", "longer than %d bytes", maxLabelKey)
		}
		if errs := validation.IsQualifiedName(m.Key); len(errs) > 0 {
			return nil, invalid(at+".key", "%q is not a label key: %s", m.Key, errs[0])
		}
		fromField := m.ValueFromFieldPath != nil
		if fromField == (m.Value != nil) {
			return nil, invalid(at, "exactly one of value and valueFromFieldPath must be set")
		}
		switch m.Type {
		case "":
		case v1alpha1.LabelMatcherValue, v1alpha1.LabelMatcherFromFieldPath:
			if (m.Type == v1alpha1.LabelMatcherFromFieldPath) != fromField {
				return nil, invalid(at+".type", "type %s does not fit the field set", m.Type)
			}
		default:
			return nil, invalid(at+".type", "want Value or FromFieldPath, got %s", jsonvalue.Describe(string(m.Type)))
		}
		optional, ok := isOther(m.FromFieldPathPolicy, v1alpha1.FromFieldPathRequired, v1alpha1.FromFieldPathOptional)
		if !ok {
			return nil, invalid(at+".fromFieldPathPolicy", "want Required or Optional, got %s", jsonvalue.Describe(string(m.FromFieldPathPolicy)))
		}
		if !fromField {
			if m.FromFieldPathPolicy != "" {
				return nil, invalid(at+".fromFieldPathPolicy", "applies to valueFromFieldPath only")
			}
			if len(*m.Value) > maxLabelValue {
				return nil, invalid(at+".value", "longer than %d bytes", maxLabelValue)
			}
			r, err := labels.NewRequirement(m.Key, selection.Equals, []string{*m.Value})
			if err != nil {
				return nil, invalid(at+".value", "%v", err)
			}
			sel.fixed = append(sel.fixed, *r)
			text = append(text, r.String())
			continue
		}
		p, err := referencerPath(at+".valueFromFieldPath", *m.ValueFromFieldPath)
		if err != nil {
			return nil, err
		}
		sel.from = append(sel.from, labelFrom{key: m.Key, path: p, optional: optional, at: at + ".valueFromFieldPath"})
		text = append(text, m.Key+"=("+*m.ValueFromFieldPath+")")
	}
	for j, x := range s.MatchExpressions {
		at := ".matchExpressions[" + strconv.Itoa(j) + "]"
		if len(x.Values) > maxExpressionValues {
			return nil, invalid(at+".values", "%d items, more than %d", len(x.Values), maxExpressionValues)
		}
		if len(x.Key) > maxLabelKey {
			return nil, invalid(at+".key", "longer than %d bytes", maxLabelKey)
		}
		for k, v := range x.Values {
			if len(v) > maxLabelValue {
				return nil, invalid(at+".values["+strconv.Itoa(k)+"]", "longer than %d bytes", maxLabelValue)
			}
		}
		var op selection.Operator
		switch x.Operator {
		case "In":
			op = selection.In
		case "NotIn":
			op = selection.NotIn
		case "Exists":
			op = selection.Exists
		case "DoesNotExist":
			op = selection.DoesNotExist
		default:
			return nil, invalid(at+".operator", "want In, NotIn, Exists or DoesNotExist, got %s", jsonvalue.Describe(x.Operator))
		}
		r, err := labels.NewRequirement(x.Key, op, x.Values)
		if err != nil {
			return nil, invalid(at, "%v", err)
		}
		sel.fixed = append(sel.fixed, *r)
		text = append(text, r.String())
	}
	if len(sel.from) == 0 {
		sel.static = labels.NewSelector().Add(sel.fixed...)
		sel.watch = &selectorWatch{selector: sel.static, text: sel.static.String()}
	}
	sel.text = strings.Join(text, ",")
	return sel, nil
}

// size estimates the bytes s keeps.
func (s *selector) size() int {
	if s == nil {
		return 0
	}
	n := 128 + 3*len(s.text)
	for _, f := range s.from {
		n += 64 + len(f.key) + len(f.at) + 4*len(f.path.String())
	}
	return n
}

// referencerString returns the string at path in the referencer's content,
// or why there is none usable, never quoting what is there; at names the
// field of the external value that holds path.
func referencerString(content map[string]any, path *fieldpath.Path, at string) (string, error) {
	v, err := path.Get(content)
	switch s, ok := v.(string); {
	case err != nil || v == nil:
		return "", fmt.Errorf("%w: %s: the referencer has no value at %s", ErrFieldNotFound, at, path)
	case !ok:
		return "", fmt.Errorf("%w: %s: the referencer's %s is %s, not a string", ErrFieldNotFound, at, path, render.KindOf(v))
	case s == "":
		return "", fmt.Errorf("%w: %s: the referencer's %s is empty", ErrFieldNotFound, at, path)
	default:
		return s, nil
	}
}

// source reads one source of an external value: by name, or, when its name
// or namespace comes from the referencer or a selector chooses it, as
// those say.
func (rs *resolution) source(src sourceRef) (any, bool, *ReferenceError) {
	k := src.kind
	if k.nameFrom == nil && k.namespaceFrom == nil && k.sel == nil {
		return rs.read(src.ref(), k.path)
	}
	ref := src.ref()
	fail := func(err error) (any, bool, *ReferenceError) {
		s := Source{Group: ref.Group, Version: ref.Version, Resource: ref.Resource, Namespace: ref.Namespace, Name: ref.Name, FieldPath: ref.FieldPath}
		if k.sel != nil {
			s.Selector = k.sel.text
		}
		// What is not known yet shows as the field it comes from.
		if s.Name == "" && k.nameFrom != nil {
			s.Name = "(" + ref.NameFromFieldPath + ")"
		}
		if s.Namespace == "" && k.namespaceFrom != nil {
			s.Namespace = "(" + ref.NamespaceFromFieldPath + ")"
		}
		return nil, false, &ReferenceError{Source: &s, Err: err}
	}
	if k.nameFrom != nil {
		name, err := referencerString(rs.state.content, k.nameFrom, "nameFromFieldPath")
		if err != nil {
			return fail(err)
		}
		if len(name) > 253 || name == "." || name == ".." || strings.ContainsAny(name, "/%") {
			return fail(fmt.Errorf("%w: nameFromFieldPath: the referencer's %s is not an object name (a string of %d bytes)", ErrFieldNotFound, k.nameFrom, len(name)))
		}
		ref.Name = name
	}
	if k.namespaceFrom != nil {
		ns, err := referencerString(rs.state.content, k.namespaceFrom, "namespaceFromFieldPath")
		if err != nil {
			return fail(err)
		}
		if len(validation.IsDNS1123Label(ns)) > 0 {
			return fail(fmt.Errorf("%w: namespaceFromFieldPath: the referencer's %s is not a namespace name (a string of %d bytes)", ErrFieldNotFound, k.namespaceFrom, len(ns)))
		}
		ref.Namespace = ns
	}
	if k.sel == nil {
		return rs.read(ref, k.path)
	}
	return rs.selectRead(ref, k)
}

// A builtSelector is a selector built from values of the referencer ("" for
// a label left out), kept so that a referencer whose values did not change
// reuses it.
type builtSelector struct {
	values []string
	watch  *selectorWatch
}

// labelSelector returns the selector's label selector for the referencer,
// and its watch key.
func (s *selector) labelSelector(content map[string]any) (*selectorWatch, error) {
	if s.static != nil {
		return s.watch, nil
	}
	var buf [4]string
	values := buf[:0]
	for _, f := range s.from {
		cur, err := f.path.Get(content)
		str, ok := cur.(string)
		if err != nil || !ok {
			str = ""
		}
		values = append(values, str)
	}
	if last := s.last.Load(); last != nil && slices.Equal(last.values, values) && !slices.Contains(values, "") {
		return last.watch, nil
	}
	reqs := make(labels.Requirements, len(s.fixed), len(s.fixed)+len(s.from))
	copy(reqs, s.fixed)
	for _, f := range s.from {
		if cur, err := f.path.Get(content); f.optional && (err != nil || cur == nil || cur == "") {
			continue // missing or empty: the label is left out
		}
		v, err := referencerString(content, f.path, "selector"+f.at)
		if err != nil {
			return nil, err
		}
		if len(validation.IsValidLabelValue(v)) > 0 {
			return nil, fmt.Errorf("%w: selector%s: the referencer's %s is not a label value (a string of %d bytes)", ErrFieldNotFound, f.at, f.path, len(v))
		}
		r, err := labels.NewRequirement(f.key, selection.Equals, []string{v})
		if err != nil {
			return nil, fmt.Errorf("%w: selector%s: the referencer's %s is not a label value", ErrFieldNotFound, f.at, f.path)
		}
		reqs = append(reqs, *r)
	}
	ls := labels.NewSelector().Add(reqs...)
	w := &selectorWatch{selector: ls, text: ls.String()}
	s.last.Store(&builtSelector{values: slices.Clone(values), watch: w})
	return w, nil
}

// A selectorWatch is a label selector a referencer's sources were chosen
// by, for the Watcher: its text identifies it.
type selectorWatch struct {
	selector labels.Selector
	text     string
}

// selectRead returns the value of the field of the objects a selector
// chooses, as its mode says, and whether one comes from a Secret.
func (rs *resolution) selectRead(ref v1alpha1.ObjectFieldRef, k *sourceKind) (v any, secret bool, _ *ReferenceError) {
	sel := k.sel
	src := Source{Group: ref.Group, Version: ref.Version, Resource: ref.Resource, Namespace: ref.Namespace, Selector: sel.text, FieldPath: ref.FieldPath}
	fail := func(err error) (any, bool, *ReferenceError) {
		s := src
		return nil, secret, &ReferenceError{Source: &s, Err: err}
	}
	w, err := sel.labelSelector(rs.state.content)
	if err != nil {
		return fail(err)
	}
	m, isSecret, err := rs.locate(&src)
	secret = isSecret
	if err != nil {
		return fail(err)
	}
	// The policy first: a selection the policy allows no object of is
	// denied as a name would be, whatever exists; then the objects it
	// allows are the only ones counted.
	if !rs.r.policy.allowsSome(rs.namespace, src, m.namespaced) {
		return fail(rs.r.policy.check(rs.namespace, src, m.namespaced))
	}
	if rs.r.review != nil {
		if err := rs.r.review.checkList(rs.ctx, rs.namespace, src); err != nil {
			return fail(err)
		}
	}
	rs.watch(watchKey{gk: m.gvk.GroupKind(), gvk: m.gvk, namespace: src.Namespace, sel: w, field: k.path})
	if sel.sort != nil {
		rs.watch(watchKey{gk: m.gvk.GroupKind(), gvk: m.gvk, namespace: src.Namespace, sel: w, field: sel.sort})
	}
	items, err := rs.list(m, src.Namespace, w.selector)
	if err != nil {
		return fail(err)
	}
	matched := items[:0]
	for _, it := range items {
		s := src
		s.Name = it.GetName()
		if rs.r.policy.allows(rs.namespace, s, m.namespaced) {
			matched = append(matched, it)
		}
	}
	n := len(matched)
	switch {
	case n == 0 && sel.min > 0:
		return fail(fmt.Errorf("%w: no %s matches the selector", ErrSourceNotFound, m.gvk.Kind))
	case n < sel.min:
		return fail(fmt.Errorf("%w: %s the selector, fewer than minMatch %d", ErrSourceNotFound, objectsMatch(n), sel.min))
	case !sel.multiple && n > 1:
		return fail(fmt.Errorf("%w: %s the selector, and mode Single takes one", ErrAmbiguous, objectsMatch(n)))
	case n > maxSelected:
		return fail(fmt.Errorf("%w: %s the selector, more than %d", ErrAmbiguous, objectsMatch(n), maxSelected))
	}
	if err := sortSelected(matched, sel.sort); err != nil {
		return fail(err)
	}
	if len(matched) > sel.max {
		matched = matched[:sel.max]
	}
	values := make([]any, len(matched))
	for i := range matched {
		s := src
		s.Name = matched[i].GetName()
		v, err := fieldValue(matched[i].Object, ref, s, k.path, m, secret)
		if err != nil {
			src.Name = s.Name
			return fail(err)
		}
		values[i] = v
	}
	if !sel.multiple {
		return values[0], secret, nil
	}
	return values, secret, nil
}

// objectsMatch says how many objects match.
func objectsMatch(n int) string {
	if n == 1 {
		return "1 object matches"
	}
	return strconv.Itoa(n) + " objects match"
}

// sortSelected sorts objects by the field at path (nil: by name), then by
// namespace and name. The fields must all be strings or all numbers; a
// missing one sorts first. The error quotes no value.
func sortSelected(objs []unstructured.Unstructured, path *fieldpath.Path) error {
	byName := func(a, b *unstructured.Unstructured) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	}
	if path == nil || len(objs) < 2 {
		slices.SortFunc(objs, func(a, b unstructured.Unstructured) int { return byName(&a, &b) })
		return nil
	}
	type keyed struct {
		obj   *unstructured.Unstructured
		s     string
		f     float64
		isNum bool
	}
	keys := make([]keyed, len(objs))
	kind := ""
	for i := range objs {
		v, err := path.Get(objs[i].Object)
		if err != nil && !fieldpath.IsNotFound(err) {
			return fmt.Errorf("%w: sortByFieldPath %s of %s: not an object or an array on the way", ErrFieldNotFound, path, objs[i].GetName())
		}
		k := keyed{obj: &objs[i]}
		this := ""
		switch x := v.(type) {
		case nil:
		case string:
			k.s, this = x, "string"
		case int64:
			k.f, k.isNum, this = float64(x), true, "number"
		case float64:
			k.f, k.isNum, this = x, true, "number"
		default:
			return fmt.Errorf("%w: sortByFieldPath %s of %s is %s, not a string or a number", ErrFieldNotFound, path, objs[i].GetName(), render.KindOf(v))
		}
		if this != "" {
			if kind != "" && kind != this {
				return fmt.Errorf("%w: sortByFieldPath %s holds both strings and numbers", ErrFieldNotFound, path)
			}
			kind = this
		}
		keys[i] = k
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		var c int
		if kind == "number" {
			c = cmp.Compare(a.f, b.f)
		} else {
			c = cmp.Compare(a.s, b.s)
		}
		return cmp.Or(c, byName(a.obj, b.obj))
	})
	sorted := make([]unstructured.Unstructured, len(objs))
	for i, k := range keys {
		sorted[i] = *k.obj
	}
	copy(objs, sorted)
	return nil
}

// list lists the objects of mapping m in namespace ns (all, for a
// cluster-scoped kind) that match ls, waiting for the reader as get does.
func (rs *resolution) list(m mapping, ns string, ls labels.Selector) ([]unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": m.apiVersion, "kind": m.kind}}
	probe, err := rs.r.unreadable(rs.ctx, m, u)
	if err != nil {
		return nil, err
	}
	ctx := rs.readContext()
	var stop func()
	if _, ok := rs.r.synced.get(m.gvk); !ok {
		ctx, stop = rs.r.syncing(ctx, m, u)
	}
	l := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": m.apiVersion, "kind": m.gvk.Kind + "List"}}
	opts := []client.ListOption{client.MatchingLabelsSelector{Selector: ls}, client.UnsafeDisableDeepCopy}
	if ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	err = rs.r.reader.List(ctx, l, opts...)
	cut := err != nil && ctx.Err() != nil && rs.ctx.Err() == nil
	if stop != nil {
		stop()
	}
	if cut {
		if why := rs.r.kinds.why(m.resource); why != nil {
			return nil, why
		}
		rs.r.kinds.failed(m.resource, unsynced(m.gvk.Kind, context.DeadlineExceeded), rs.r.clock.Now())
		return nil, unsynced(m.gvk.Kind, err)
	}
	if probe && err == nil {
		rs.r.kinds.readable(m.resource)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list the sources: %w", err)
	}
	return l.Items, nil
}

// allowsSome reports whether the policy could allow a referencer in
// namespace ns to read some object of s's group, resource and namespace,
// whatever its name.
func (p *SourcePolicy) allowsSome(ns string, s Source, namespaced bool) bool {
	if namespaced && ns != "" && s.Namespace == ns && (!isSecret(s) || p.OwnNamespaceSecrets) {
		return true
	}
	for _, r := range p.Allow {
		r.Names = nil
		if r.matches(ns, s, namespaced) {
			return true
		}
	}
	return false
}

// allows reports whether a referencer in namespace ns may read s.
func (p *SourcePolicy) allows(ns string, s Source, namespaced bool) bool {
	if namespaced && ns != "" && s.Namespace == ns && (!isSecret(s) || p.OwnNamespaceSecrets) {
		return true
	}
	for _, r := range p.Allow {
		if r.matches(ns, s, namespaced) {
			return true
		}
	}
	return false
}

// selector decodes the selector field of a source.
func (d *decoder) selector(v any) *v1alpha1.SourceSelector {
	m := d.object(v, []string{"mode", "matchLabels", "matchExpressions", "minMatch", "maxMatch", "sortByFieldPath"})
	if m == nil {
		return &v1alpha1.SourceSelector{}
	}
	s := &v1alpha1.SourceSelector{
		Mode:            v1alpha1.SelectorMode(d.str(m, "mode")),
		SortByFieldPath: d.str(m, "sortByFieldPath"),
	}
	for _, f := range []struct {
		name string
		to   **int64
	}{{"minMatch", &s.MinMatch}, {"maxMatch", &s.MaxMatch}} {
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
	s.MatchLabels = decodeList(d, m, "matchLabels", maxMatchers, func(lv any) v1alpha1.LabelMatcher {
		lm := d.object(lv, []string{"type", "key", "value", "valueFromFieldPath", "fromFieldPathPolicy"})
		if lm == nil {
			return v1alpha1.LabelMatcher{}
		}
		out := v1alpha1.LabelMatcher{
			Type:                v1alpha1.LabelMatcherType(d.str(lm, "type")),
			Key:                 d.str(lm, "key"),
			FromFieldPathPolicy: v1alpha1.FromFieldPathPolicy(d.str(lm, "fromFieldPathPolicy")),
		}
		if lm["value"] != nil {
			s := d.str(lm, "value")
			out.Value = &s
		}
		if lm["valueFromFieldPath"] != nil {
			s := d.str(lm, "valueFromFieldPath")
			out.ValueFromFieldPath = &s
		}
		return out
	})
	s.MatchExpressions = decodeList(d, m, "matchExpressions", maxMatchers, func(ev any) v1alpha1.LabelSelectorRequirement {
		em := d.object(ev, []string{"key", "operator", "values"})
		if em == nil {
			return v1alpha1.LabelSelectorRequirement{}
		}
		out := v1alpha1.LabelSelectorRequirement{Key: d.str(em, "key"), Operator: d.str(em, "operator")}
		out.Values = decodeList(d, em, "values", maxExpressionValues, func(vv any) string {
			s, ok := vv.(string)
			if !ok {
				d.fail("want a string, got %s", jsonvalue.Describe(vv))
			}
			return s
		})
		return out
	})
	return s
}
