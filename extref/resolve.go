package extref

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// The resolution of one referencer: resolve checks the external values
// (compile.go, or the entry cache), then resolves each in turn
// (resolution.resolve): read its sources (read), combine them by a format
// or a template, apply its transforms (transform.go), and write the result
// to its target or hand it over. Resources are mapped to kinds in
// mapping.go; the source policy is policy.go's.

// resolve is Resolve without its metrics.
func (r *Resolver) resolve(ctx context.Context, obj client.Object) (Outcome, error) {
	var out Outcome
	content, typed, err := contentOf(obj)
	if err != nil {
		return out, &ReferenceError{Path: r.path, Index: -1, Err: fmt.Errorf("%w: %w", ErrInvalid, err)}
	}
	if r.listPath == nil {
		_, err := fieldpath.Parse(r.path)
		return out, &ReferenceError{Path: r.path, Index: -1, Err: fmt.Errorf("%w: the resolver's path: %w", ErrInvalid, err)}
	}
	if r.protErr != nil {
		return out, &ReferenceError{Path: r.path, Index: -1, Err: fmt.Errorf("%w: the resolver's %w", ErrInvalid, r.protErr)}
	}
	list, err := r.list(content)
	if err != nil {
		return out, err
	}
	ref := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if _, merged := annotation(content, MergedAnnotation); len(list) == 0 && !merged {
		r.track(ref, nil)
		return out, nil
	}

	rs := resolution{
		r:         r,
		ctx:       ctx,
		ref:       ref,
		namespace: ref.Namespace,
		state:     state{content: content, owned: typed},
	}
	key := referencerKey{gvk: obj.GetObjectKind().GroupVersionKind(), NamespacedName: ref}
	cached, _ := r.entries.get(key)
	var update []compiled // cached with the entries compiled now, once there are any
	var sh sharing
	for i, item := range list {
		d, cacheable := digest(r.seed, item)
		var e *entry
		if cacheable {
			e = lookup(cached, i, d)
		}
		if e == nil {
			var cerr *compileError
			if e, cerr = r.compile(i, item, &sh); cerr != nil {
				out.Failed = append(out.Failed, &ReferenceError{Path: cerr.path, Index: i, Err: cerr.err})
				continue
			}
			if !cacheable {
				rs.resolve(i, e, &out)
				continue
			}
			if update == nil {
				update = make([]compiled, len(list))
				copy(update, cached)
			}
			update[i] = compiled{digest: d, entry: e}
		}
		rs.resolve(i, e, &out)
	}
	if rs.cancelRead != nil {
		rs.cancelRead()
	}
	if update != nil {
		r.entries.put(key, update)
	}
	r.track(ref, rs.watched.keys)
	rs.releaseKeys()
	if len(out.Failed) == 0 {
		rs.mergeTargets(&out)
	}
	switch len(out.Failed) {
	case 0:
	case 1:
		out.Values = nil
		return out, out.Failed[0]
	default:
		out.Values = nil
		errs := make(errorList, len(out.Failed))
		for i, f := range out.Failed {
			errs[i] = f
		}
		return out, errs
	}
	if !rs.state.changed || rs.undone(obj, content, typed) {
		return out, nil
	}
	if typed {
		if err := decodeInto(rs.state.content, obj); err != nil {
			e := rs.typeError(obj, err)
			out.Failed = append(out.Failed, e)
			out.Values = nil
			return out, e
		}
	} else {
		obj.(runtime.Unstructured).SetUnstructuredContent(rs.state.content)
	}
	out.Changed = true
	out.written = make([]writtenValue, len(rs.writes))
	for j, w := range rs.writes {
		out.written[j] = writtenValue{list: rs.r.path, index: w.index, target: w.entry.targetPath, metadata: w.entry.metadata}
		if s, ok := w.v.V.(string); ok && w.entry.metadata {
			out.written[j].text = s
		}
	}
	return out, nil
}

// undone reports whether the resolution left the referencer as it was in
// obj (whose content, unless typed, is content): external values whose
// targets are the same field, or one within the other, write it in turn,
// and the last may put back what was there. Such a referencer would
// otherwise be written on every reconcile, though nothing changes. Targets
// lie under spec or are labels and annotations, so those are compared.
func (rs *resolution) undone(obj client.Object, content map[string]any, typed bool) bool {
	if typed {
		var err error
		if content, _, err = contentOf(obj); err != nil {
			return false
		}
	}
	now := rs.state.content
	if !jsonvalue.Equal(content["spec"], now["spec"]) {
		return false
	}
	for _, field := range []string{"labels", "annotations"} {
		was, _, _ := unstructured.NestedFieldNoCopy(content, "metadata", field)
		is, _, _ := unstructured.NestedFieldNoCopy(now, "metadata", field)
		if !jsonvalue.Equal(was, is) {
			return false
		}
	}
	return true
}

// contentOf returns the unstructured content of obj, and whether it is a
// copy (of a typed object) rather than the object's own content.
func contentOf(obj client.Object) (map[string]any, bool, error) {
	if obj == nil {
		return nil, false, errors.New("no referencer")
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, false, fmt.Errorf("nil %T referencer", obj)
	}
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.UnstructuredContent(), false, nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, false, fmt.Errorf("cannot convert %T to unstructured content: %w", obj, err)
	}
	return content, true, nil
}

// decodeInto sets typed object obj from content, refusing fields its type
// does not have.
func decodeInto(content map[string]any, obj client.Object) error {
	v := reflect.ValueOf(obj)
	fresh := reflect.New(v.Type().Elem())
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(content, fresh.Interface(), true); err != nil {
		return fmt.Errorf("cannot write to %T: %w", obj, err)
	}
	v.Elem().Set(fresh.Elem())
	return nil
}

// list decodes the external values at the resolver's path.
func (r *Resolver) list(content map[string]any) ([]any, error) {
	raw, err := r.listPath.Get(content)
	if fieldpath.IsNotFound(err) || (err == nil && raw == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, &ReferenceError{Path: r.path, Index: -1, Err: fmt.Errorf("%w: %w", ErrInvalid, err)}
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, &ReferenceError{Path: r.path, Index: -1, Err: fmt.Errorf("%w: want a list, got %s", ErrInvalid, jsonvalue.Describe(raw))}
	}
	if len(list) > maxExternalValues {
		return nil, &ReferenceError{Path: r.path, Index: -1, Err: fmt.Errorf("%w: %d external values, more than %d", ErrInvalid, len(list), maxExternalValues)}
	}
	return list, nil
}

// state is the referencer's content as the resolution changes it. The
// content is copied before the first change, unless it is already a copy.
type state struct {
	content map[string]any
	owned   bool
	changed bool
}

func (s *state) set(path *fieldpath.Path, v any) error {
	if !s.owned {
		s.content = jsonvalue.DeepCopy(s.content).(map[string]any)
		s.owned = true
	}
	// Set stores a copy of v, which may be part of a source that the
	// reader's cache shares.
	if err := path.Set(s.content, v); err != nil {
		return err
	}
	s.changed = true
	return nil
}

// A resolution is one Resolve call in progress.
type resolution struct {
	r          *Resolver
	ctx        context.Context
	readCtx    context.Context // ctx bounded by the read timeout, once made
	cancelRead context.CancelFunc
	ref        types.NamespacedName // the referencer
	namespace  string               // the referencer's
	state      state
	mappings   index[schema.GroupVersionResource, mapping]
	objects    index[objectKey, readResult]
	watched    keySet[watchKey]
	keysBuf    *[]watchKey  // watched.keys' array, from watchKeyBufs
	resolved   int          // bytes written or handed over so far, counted by fits
	writes     []write      // for typeError
	merged     []mergeGroup // the values that merge into targets, by target (merge.go)
}

// An index holds values by key, in the order they were added: in a slice
// searched from start to end while it is short (a settled Resolve has a
// few, for which a slice beats a map), and in a map as well once it holds
// more than linearSearch, so that a referencer of thousands of sources
// costs no quadratic search.
type index[K comparable, V any] struct {
	items []indexed[K, V]
	m     map[K]int
}

type indexed[K comparable, V any] struct {
	key   K
	value V
}

const linearSearch = 16

func (x *index[K, V]) get(k K) (V, bool) {
	if x.m != nil {
		if i, ok := x.m[k]; ok {
			return x.items[i].value, true
		}
	} else {
		for _, e := range x.items {
			if e.key == k {
				return e.value, true
			}
		}
	}
	var zero V
	return zero, false
}

// add adds k, which the index does not hold, with v.
func (x *index[K, V]) add(k K, v V) {
	x.items = append(x.items, indexed[K, V]{key: k, value: v})
	switch {
	case x.m != nil:
		x.m[k] = len(x.items) - 1
	case len(x.items) > linearSearch:
		x.m = make(map[K]int, 2*len(x.items))
		for i, e := range x.items {
			x.m[e.key] = i
		}
	}
}

// A keySet is a list of keys, each once, searched as an index is.
type keySet[K comparable] struct {
	keys []K
	m    map[K]struct{}
}

func (x *keySet[K]) has(k K) bool {
	if x.m != nil {
		_, ok := x.m[k]
		return ok
	}
	for _, e := range x.keys {
		if e == k {
			return true
		}
	}
	return false
}

// add adds k, which the set does not hold.
func (x *keySet[K]) add(k K) {
	x.keys = append(x.keys, k)
	switch {
	case x.m != nil:
		x.m[k] = struct{}{}
	case len(x.keys) > linearSearch:
		x.m = make(map[K]struct{}, 2*len(x.keys))
		for _, e := range x.keys {
			x.m[e] = struct{}{}
		}
	}
}

type objectKey struct {
	gvk       schema.GroupVersionKind
	namespace string
	name      string
}

type readResult struct {
	content map[string]any
	err     error
}

// resolve resolves external value i, checked as e, recording the result in
// out.
func (rs *resolution) resolve(i int, e *entry, out *Outcome) {
	path := func(suffix string) string { return rs.r.path + "[" + strconv.Itoa(i) + "]" + suffix }
	fail := func(rerr *ReferenceError) {
		rerr.Index = i
		// A malformed value (ErrInvalid) fails whatever its policy, since
		// no source can fix it.
		rerr.Optional = e.optional && !errors.Is(rerr.Err, ErrInvalid)
		if rerr.Optional {
			out.Skipped = append(out.Skipped, rerr)
		} else {
			out.Failed = append(out.Failed, rerr)
		}
	}

	if e.dep != nil {
		rs.depend(i, e, out, fail)
		return
	}
	if e.target != "" && !e.always {
		cur, err := e.targetPath.Get(rs.state.content)
		if err == nil && !empty(cur) {
			out.Present++
			return
		}
	}

	// Read every source, even after one failed, so that all are watched
	// and all failures reported.
	values := make([]render.Value, len(e.sources))
	secret := e.key != "" // an obscure value is secret whatever its sources
	var failed []*ReferenceError
	for j, src := range e.sources {
		v, fromSecret, rerr := rs.source(src)
		secret = secret || fromSecret
		if rerr != nil {
			switch {
			case e.format != nil:
				rerr.Path = path(".combine[" + strconv.Itoa(j) + "]")
			case e.template != "":
				rerr.Path = path(".variables[" + strconv.Itoa(j) + "].fromRef")
			default:
				rerr.Path = path(".fromObject")
			}
			failed = append(failed, rerr)
		}
		values[j] = render.Value{V: v, Secret: fromSecret || e.key != ""}
	}
	if len(failed) > 0 {
		fail(joinSources(failed))
		return
	}

	// From here on every error about the value goes through render.Seal, so that
	// none quotes a secret value, whichever code made it.
	var v render.Value
	switch {
	case e.format != nil:
		s, err := e.format.Sprint(values)
		if err != nil {
			fail(&ReferenceError{Path: path(".fmt"), Err: fmt.Errorf("%w: fmt: %w", ErrTransform, render.Seal(err, secret))})
			return
		}
		v = render.Value{V: s, Secret: secret}
	case e.template != "":
		s, ok := "", false
		if !secret {
			s, ok = e.rendered(values)
		}
		if !ok {
			data := make(map[string]any, len(values))
			for j, name := range e.names {
				data[name] = values[j].V
			}
			t, err := rs.r.template(e.template)
			if err != nil { // it parsed when it was checked
				fail(&ReferenceError{Path: path(".template"), Err: fmt.Errorf("%w: %w", ErrInvalid, err)})
				return
			}
			if s, err = t.Execute(data, secret); err != nil {
				fail(&ReferenceError{Path: path(".template"), Err: fmt.Errorf("%w: %w", ErrTransform, render.Seal(err, secret))})
				return
			}
			if !secret {
				e.remember(values, s)
			}
		}
		v = render.Value{V: s, Secret: secret}
	default:
		v = values[0]
	}
	for j, t := range e.transforms {
		tv, err := t.apply(v)
		if err != nil {
			fail(&ReferenceError{Path: path(".transforms[" + strconv.Itoa(j) + "]"), Err: fmt.Errorf("%w: %s: %w", ErrTransform, t.typ(), render.Seal(err, v.Secret))})
			return
		}
		v = tv
	}

	if e.key != "" {
		if !rs.fits(v.V, 0) {
			fail(&ReferenceError{Path: path(".makeAvailableAs"), Err: fmt.Errorf("%w (makeAvailableAs %s): %w", ErrTarget, e.key, errResolvedSize)})
			return
		}
		if out.Values == nil {
			out.Values = make(map[string]any)
		}
		out.Values[e.key] = jsonvalue.DeepCopy(v.V) // v may be the source's own
		out.Resolved++
		return
	}
	if err := checkWritable(e.metadata, v); err != nil {
		fail(&ReferenceError{Path: path(".toFieldPath"), Err: fmt.Errorf("%w to %s: %w", ErrTarget, e.target, err)})
		return
	}
	if e.merge != nil {
		rs.addMerged(i, e, v)
		out.Resolved++
		return
	}
	if cur, err := e.targetPath.Get(rs.state.content); err == nil && jsonvalue.Equal(cur, v.V) {
		out.Resolved++
		return
	}
	if !rs.fits(v.V, e.padding) {
		fail(&ReferenceError{Path: path(".toFieldPath"), Err: fmt.Errorf("%w to %s: %w", ErrTarget, e.target, errResolvedSize)})
		return
	}
	if err := rs.state.set(e.targetPath, v.V); err != nil {
		fail(&ReferenceError{Path: path(".toFieldPath"), Err: fmt.Errorf("%w to %s: %w", ErrTarget, e.target, setError(rs.state.content, e.targetPath, err))})
		return
	}
	rs.writes = append(rs.writes, write{index: i, entry: e, v: v})
	out.Resolved++
}

// A write is an external value written to the referencer's content.
type write struct {
	index int
	entry *entry
	v     render.Value
}

// typeError is the error for a typed referencer, obj, whose resolved
// content does not decode into its type (err): it names the first external
// value whose write, after those before it, the type refuses, and the
// referencer's path when none does alone.
//
// The decoder's errors may quote the value (a time's parser does), so when
// a value written so far is secret the reason is withheld.
func (rs *resolution) typeError(obj client.Object, err error) *ReferenceError {
	secret := false
	if content, _, cerr := contentOf(obj); cerr == nil {
		for _, w := range rs.writes {
			secret = secret || w.v.Secret
			if w.entry.targetPath.Set(content, w.v.V) != nil {
				break
			}
			if derr := decodeInto(content, reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)); derr != nil {
				if secret {
					derr = render.Failf(derr, "%T cannot hold %v there: %s", obj, w.v, render.ErrWithheld)
				}
				return &ReferenceError{Path: rs.r.path + "[" + strconv.Itoa(w.index) + "].toFieldPath", Index: w.index, Err: fmt.Errorf("%w to %s: %w", ErrTarget, w.entry.target, derr)}
			}
		}
	}
	for _, w := range rs.writes {
		if w.v.Secret {
			err = render.Failf(err, "%T cannot hold the values resolved: %s", obj, render.ErrWithheld)
			break
		}
	}
	return &ReferenceError{Path: rs.r.path, Index: -1, Err: fmt.Errorf("%w: %w", ErrTarget, err)}
}

// errResolvedSize is why a value was not written: the resolution's values
// would exceed maxResolvedSize.
var errResolvedSize = fmt.Errorf("the values resolved exceed %d bytes as JSON (with the nulls their targets' indexes may add to arrays), more than one object can hold", maxResolvedSize)

// fits reports whether v, and padding bytes more, fit in what is left of
// the resolution's maxResolvedSize, and if so counts them. It measures v
// as JSON, stopping at the limit.
func (rs *resolution) fits(v any, padding int) bool {
	n, ok := render.JSONSize(v, maxResolvedSize-rs.resolved-padding)
	if ok {
		rs.resolved += n + padding
	}
	return ok
}

// setError is why a value could not be set at path in content. fieldpath's
// error quotes the field on the way that is neither an object nor an array,
// which may hold a value read from a Secret (by this resolution, or by an
// earlier one that wrote it there), so it is described by its type and size
// only.
func setError(content map[string]any, path *fieldpath.Path, err error) error {
	if !errors.Is(err, fieldpath.ErrWrongType) {
		return err
	}
	segs := path.Segments()
	var cur any = content
walk:
	for i, s := range segs {
		switch x := cur.(type) {
		case nil:
			break walk // Set creates the rest
		case map[string]any:
			if s.Type == fieldpath.SegmentField {
				cur = x[s.Field]
				continue
			}
		case []any:
			if s.Type == fieldpath.SegmentIndex {
				if s.Index >= uint(len(x)) {
					break walk // Set pads the array and creates the rest
				}
				cur = x[s.Index]
				continue
			}
		}
		parent, want := "the object", "an object"
		if i > 0 {
			parent = segs[:i].String()
		}
		if s.Type == fieldpath.SegmentIndex {
			want = "an array"
		}
		return render.Failf(err, "cannot set %s: %s is %s, not %s", segs, parent, render.KindOf(cur), want)
	}
	return render.Failf(err, "cannot set %s: a field on the way is neither an object nor an array", segs)
}

// joinSources reports the failing sources of one external value as one
// error: the first one's, whose Err also holds the others, so that its
// message names every failing source and errors.Is finds every sentinel.
func joinSources(failed []*ReferenceError) *ReferenceError {
	if len(failed) == 1 {
		return failed[0]
	}
	first := *failed[0]
	errs := make(errorList, 0, len(failed))
	errs = append(errs, first.Err)
	for _, f := range failed[1:] {
		errs = append(errs, f)
	}
	first.Err = errs
	return &first
}

// empty reports whether a target holds no value: missing, null or "".
func empty(v any) bool {
	if v == nil {
		return true
	}
	s, ok := v.(string)
	return ok && s == ""
}

// checkWritable checks a value for a target: a label or an annotation
// (metadata, as the parsed target says, whatever its notation) takes a
// string, and every string must be valid UTF-8 to survive JSON. The error
// never holds the value.
func checkWritable(metadata bool, v render.Value) error {
	if metadata {
		if _, ok := v.V.(string); !ok {
			return render.Failf(nil, "labels and annotations take strings, not %v", v)
		}
	}
	if !validUTF8(v.V) {
		return render.Failf(nil, "the value (%s) is not valid UTF-8 text, which the object cannot hold: read a Secret's binary data as stored with secretData: Base64, or hand it over with makeAvailableAs", render.KindOf(v.V))
	}
	return nil
}

// validUTF8 reports whether every string in a JSON value, keys included, is
// valid UTF-8.
func validUTF8(v any) bool {
	switch x := v.(type) {
	case string:
		return utf8.ValidString(x)
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !validUTF8(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !validUTF8(e) {
				return false
			}
		}
	}
	return true
}

// read returns the value of one source field and whether it comes from a
// Secret, or why it has none; the caller sets the error's Path.
func (rs *resolution) read(ref v1alpha1.ObjectFieldRef, path *fieldpath.Path) (v any, secret bool, _ *ReferenceError) {
	src := Source{Group: ref.Group, Version: ref.Version, Resource: ref.Resource, Namespace: ref.Namespace, Name: ref.Name, FieldPath: ref.FieldPath}
	fail := func(err error) (any, bool, *ReferenceError) {
		s := src
		return nil, secret, &ReferenceError{Source: &s, Err: err}
	}
	gvr := schema.GroupVersionResource{Group: ref.Group, Version: ref.Version, Resource: ref.Resource}
	m, isSecret, err := rs.locate(&src)
	secret = isSecret
	if err != nil {
		return fail(err)
	}
	if err := rs.r.policy.check(rs.namespace, src, m.namespaced); err != nil {
		return fail(err)
	}
	if rs.r.review != nil {
		if err := rs.r.review.check(rs.ctx, rs.namespace, src); err != nil {
			return fail(err)
		}
	}

	key := objectKey{gvk: m.gvk, namespace: src.Namespace, name: src.Name}
	rs.watch(watchKey{gk: m.gvk.GroupKind(), gvk: m.gvk, namespace: src.Namespace, name: src.Name, field: path})
	res, found := rs.objects.get(key)
	if !found {
		res = rs.get(key, m)
		if meta.IsNoMatchError(res.err) {
			rs.r.forget(gvr)
		}
		rs.objects.add(key, res)
	}
	if res.err != nil {
		return fail(res.err)
	}
	v, err = fieldValue(res.content, ref, src, path, m, secret)
	if err != nil {
		return fail(err)
	}
	return v, secret, nil
}

// fieldValue returns the value of source src's field (path) in content, an
// object of mapping m read for ref, or why it has none.
func fieldValue(content map[string]any, ref v1alpha1.ObjectFieldRef, src Source, path *fieldpath.Path, m mapping, secret bool) (any, error) {
	v, err := path.Get(content)
	if err != nil {
		if secret {
			// fieldpath's errors quote the values on the way.
			return nil, render.Failf(ErrFieldNotFound, "%s: %s has no such field, or a value on the way is not an object or an array", ErrFieldNotFound, src.FieldPath)
		}
		return nil, fmt.Errorf("%w: %w", ErrFieldNotFound, err)
	}
	if v == nil {
		return nil, fmt.Errorf("%w: %s is null", ErrFieldNotFound, src.FieldPath)
	}
	switch data := m.resource == secretsResource && isData(src.FieldPath); {
	case data && ref.SecretData != v1alpha1.SecretDataBase64:
		if v, err = decodeSecretData(v); err != nil {
			return nil, fmt.Errorf("%w: %s of the Secret: %w", ErrFieldNotFound, src.FieldPath, err)
		}
	case !data && ref.SecretData != "":
		return nil, fmt.Errorf("%w: secretData applies to a Secret's data only", ErrInvalid)
	}
	return v, nil
}

var secretsResource = schema.GroupResource{Resource: "secrets"}

// isData reports whether a field path names a Secret's data or a key in it.
func isData(path string) bool {
	segs, err := fieldpath.Parse(path)
	return err == nil && len(segs) > 0 && segs[0].Type == fieldpath.SegmentField && segs[0].Field == "data"
}

// decodeSecretData decodes a value of a Secret's data from base64: one
// key's, or, for data itself, every key's. The error never holds the value.
func decodeSecretData(v any) (any, error) {
	switch x := v.(type) {
	case string:
		b, err := base64.StdEncoding.DecodeString(x)
		if err != nil {
			return nil, errors.New("not valid base64")
		}
		return string(b), nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			d, err := decodeSecretData(e)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			out[k] = d
		}
		return out, nil
	}
	return nil, fmt.Errorf("want base64 text, got %s", render.KindOf(v))
}

// get reads one source object, of mapping m. A cache hands over its own
// object rather than a copy: the resolution only reads it, and copies what
// it writes to the referencer or hands over in Outcome.Values.
//
// A kind that cannot be read (the controller may not list it, the API
// server does not serve it, or its informer does not sync) would make every
// read of it wait: once one read has failed so, or the cache's informer has
// reported it, every read of the kind by any referencer fails at once with
// the same error, until the cache's informer has synced (or, for another
// reader, until a re-check succeeds; readable.go). The reads of one
// Resolve share one ReadTimeout, so a referencer naming many such kinds
// holds a worker for one read timeout at most, not one per kind.
func (rs *resolution) get(key objectKey, m mapping) readResult {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": m.apiVersion, "kind": m.kind}}
	probe, err := rs.r.unreadable(rs.ctx, m, u)
	if err != nil {
		return readResult{err: err}
	}
	ctx := rs.readContext()
	var stop func()
	if _, ok := rs.r.synced.get(key.gvk); !ok {
		ctx, stop = rs.r.syncing(ctx, m, u)
	}
	err = rs.r.reader.Get(ctx, types.NamespacedName{Namespace: key.namespace, Name: key.name}, u, sharedRead...)
	cut := err != nil && ctx.Err() != nil && rs.ctx.Err() == nil // before stop cancels ctx
	if stop != nil {
		stop()
	}
	if cut {
		if why := rs.r.kinds.why(m.resource); why != nil {
			return readResult{err: why} // reported by the informer while the read waited
		}
		rs.r.kinds.failed(m.resource, unsynced(key.gvk.Kind, context.DeadlineExceeded), rs.r.clock.Now())
		return readResult{err: unsynced(key.gvk.Kind, err)}
	}
	if probe && (err == nil || apierrors.IsNotFound(err)) {
		rs.r.kinds.readable(m.resource)
	}
	switch {
	case err == nil:
	case apierrors.IsNotFound(err):
		return readResult{err: fmt.Errorf("%w: %s %q does not exist", ErrSourceNotFound, key.gvk.Kind, key.name)}
	case err != nil:
		return readResult{err: fmt.Errorf("cannot read the source: %w", err)}
	}
	return readResult{content: u.Object}
}

// informerGetter is the part of a cache (cache.Informers) that tells
// whether a kind's informer has synced.
type informerGetter interface {
	GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error)
}

// unreadable returns why the kind of mapping m cannot be read, when that is
// known and the kind has not become readable since: for a cache, until its
// informer has synced; for another reader, until its re-check, which probe
// says this read is. obj is an empty object of the kind.
func (r *Resolver) unreadable(ctx context.Context, m mapping, obj client.Object) (probe bool, _ error) {
	err, probe := r.kinds.known(m.resource, r.clock.Now())
	if err == nil && !probe {
		return false, nil
	}
	informers, ok := r.reader.(informerGetter)
	if !ok {
		return probe, err // nil when this read re-checks the kind
	}
	inf, ierr := informers.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if ierr == nil && inf.HasSynced() {
		r.kinds.readable(m.resource)
		r.synced.put(m.gvk, struct{}{})
		return false, nil
	}
	if err == nil {
		err = r.kinds.why(m.resource)
	}
	return false, err
}

// syncing returns ctx, cancelled as soon as the kind of mapping m is known
// to be unreadable, when the reader is a cache whose informer of the kind
// has not synced, so that a read waiting for it ends when the informer
// reports that it may not list the kind; and a function to call after the
// read. A kind whose informer has synced is remembered, and its reads take
// neither.
func (r *Resolver) syncing(ctx context.Context, m mapping, obj client.Object) (context.Context, func()) {
	informers, ok := r.reader.(informerGetter)
	if !ok {
		return ctx, nil
	}
	inf, err := informers.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return ctx, nil
	}
	if inf.HasSynced() {
		r.synced.put(m.gvk, struct{}{})
		return ctx, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	failed := r.kinds.signal(m.resource)
	go func() {
		select {
		case <-failed:
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx, cancel
}

// unsynced is why a read of a kind whose informer has not synced failed.
// Its message is the same whether this read ran out of time or an earlier
// one did, so that the condition reporting it does not change (and is not
// written again) on every retry.
func unsynced(kind string, cause error) error {
	return render.Failf(cause, "cannot read the source: the cache of %s has not synced within the read timeout (the controller may not be able to list it)", kind)
}

// sharedRead are the options of a read of a source.
var sharedRead = []client.GetOption{client.UnsafeDisableDeepCopy}

// readContext returns the context for the next read: one context for all
// the reads of the resolution, bounded by the read timeout.
func (rs *resolution) readContext() context.Context {
	if rs.r.readTimeout <= 0 {
		return rs.ctx
	}
	if rs.readCtx == nil {
		rs.readCtx, rs.cancelRead = context.WithTimeout(rs.ctx, rs.r.readTimeout)
	}
	return rs.readCtx
}

func (rs *resolution) watch(k watchKey) {
	if rs.r.watcher == nil {
		return
	}
	if rs.watched.has(k) {
		return
	}
	if rs.keysBuf == nil {
		rs.keysBuf, _ = watchKeyBufs.Get().(*[]watchKey)
		if rs.keysBuf == nil {
			rs.keysBuf = new([]watchKey)
		}
		rs.watched.keys = (*rs.keysBuf)[:0]
	}
	rs.watched.add(k)
	// Before the read, not only at track: a source created between the
	// two would otherwise find no referencer to wake.
	rs.r.watcher.expect(rs.ref, k)
}

// watchKeyBufs hold the arrays of a Resolve's watched keys for the next
// Resolve: the Watcher keeps none of them (track copies what it needs), so
// a settled Resolve allocates none.
var watchKeyBufs sync.Pool

// maxPooledKeys is the largest array of keys kept in watchKeyBufs.
const maxPooledKeys = 256

// releaseKeys gives the array of the watched keys back to watchKeyBufs.
func (rs *resolution) releaseKeys() {
	if rs.keysBuf == nil || cap(rs.watched.keys) > maxPooledKeys {
		return
	}
	keys := rs.watched.keys
	clear(keys) // keeps no strings or paths alive
	*rs.keysBuf = keys[:0]
	watchKeyBufs.Put(rs.keysBuf)
	rs.keysBuf, rs.watched = nil, keySet[watchKey]{}
}
