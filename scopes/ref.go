package scopes

import (
	"errors"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
	"github.com/ctrlkit/ctrlkit/internal/message"
)

// Sentinel errors. Every error of this package that callers may want to act
// on wraps one of them (or an apimachinery or fieldpath error), so that
// errors.Is tells them apart.
var (
	// ErrInvalidRef is wrapped when a WorkloadRef given to a function lacks
	// its apiVersion, kind or name, when a change both adds and removes one
	// reference, or by Locate when a namespaced scope's reference names a
	// namespace other than the scope's, or a cluster-scoped kind that
	// ClusterScopedWorkloads does not allow.
	ErrInvalidRef = errors.New("invalid workload reference")

	// ErrMalformed is wrapped when the value at a scope's reference path is
	// neither a list nor null, or when a definition's field has the wrong
	// type.
	ErrMalformed = errors.New("malformed workload references")

	// ErrInvalidRefPath is wrapped when a reference path may not hold
	// workload references: it is empty, does not start with a field, names a
	// field in metadata or status (or apiVersion or kind), or names a value
	// that is not a list. Nothing is written to such a path.
	ErrInvalidRefPath = errors.New("invalid workload reference path")

	// ErrDefinitionNotFound is wrapped when an object has no definition:
	// for a scope, the path of its references is unknown.
	ErrDefinitionNotFound = errors.New("definition not found")

	// ErrAmbiguousDefinition is wrapped when no definition has an object's
	// name and several have it as their spec.definitionRef.name.
	ErrAmbiguousDefinition = errors.New("ambiguous definition")

	// ErrNoRefPath is wrapped by Locate when the scope's ScopeDefinition
	// does not declare a reference path (spec.workloadRefPath or
	// spec.workloadRefsPath).
	ErrNoRefPath = errors.New("scope definition declares no workload reference path")

	// ErrOverlap is wrapped when a workload cannot join a scope because it
	// is already in another scope of the same kind and the ScopeDefinition
	// sets allowComponentOverlap to false.
	ErrOverlap = errors.New("workload is already in another scope")

	// ErrWorkloadNotFound is wrapped by Locate when a workload does not
	// exist or the reader may not read it: both give the same message, so
	// that a scope's status does not tell its tenants whether an object
	// they may not see exists. The API server's error is wrapped too
	// (apierrors.IsNotFound, apierrors.IsForbidden tell them apart).
	ErrWorkloadNotFound = errors.New("the workload does not exist or may not be read")

	// ErrKindNotAllowed is wrapped by Locate and ChildResources when a
	// workload reference or a child resource kind names a kind that they
	// may not read (see ReadKinds). Nothing of that kind is read.
	ErrKindNotAllowed = errors.New("kind not allowed")
)

// A WorkloadRef refers to a workload from a scope: the entry written at the
// scope's reference path. Two references are the same reference when their
// apiVersion, kind and name are equal; the UID and the namespace are recorded
// but not compared.
type WorkloadRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	// Namespace is optional and usually empty: a scope's workloads are in
	// the scope's namespace, and OAM writes none. KubeVela's references
	// (core/v1 ObjectReference) may carry one; Locate refuses one that names
	// another namespace.
	Namespace string `json:"namespace,omitempty"`
	// UID is optional. When set, AddWorkloadRef writes it in new entries and
	// refreshes the uid of an existing entry that records another one.
	UID types.UID `json:"uid,omitempty"`
}

// RefOf returns a reference to obj, whose apiVersion and kind must be set
// (as they are on unstructured objects, and on typed ones read through a
// client that sets them).
func RefOf(obj client.Object) WorkloadRef {
	apiVersion, kind := obj.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
	return WorkloadRef{APIVersion: apiVersion, Kind: kind, Name: obj.GetName(), UID: obj.GetUID()}
}

// String returns the reference as `apps/v1 Deployment "web"`, or
// `apps/v1 Deployment "other/web"` when it names a namespace.
func (r WorkloadRef) String() string {
	if r.Namespace != "" {
		return r.APIVersion + " " + r.Kind + " " + strconv.Quote(r.Namespace+"/"+r.Name)
	}
	return r.APIVersion + " " + r.Kind + " " + strconv.Quote(r.Name)
}

// Same reports whether r and o refer to the same workload: equal apiVersion,
// kind and name.
func (r WorkloadRef) Same(o WorkloadRef) bool {
	return r.APIVersion == o.APIVersion && r.Kind == o.Kind && r.Name == o.Name
}

func (r WorkloadRef) validate() error {
	var missing []string
	if r.APIVersion == "" {
		missing = append(missing, "apiVersion")
	}
	if r.Kind == "" {
		missing = append(missing, "kind")
	}
	if r.Name == "" {
		missing = append(missing, "name")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("workload reference %s has no %s: %w", r, join(missing), ErrInvalidRef)
}

// object returns the reference as a scope entry.
func (r WorkloadRef) object() map[string]any {
	m := map[string]any{"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name}
	if r.Namespace != "" {
		m["namespace"] = r.Namespace
	}
	if r.UID != "" {
		m["uid"] = string(r.UID)
	}
	return m
}

// matches reports whether the scope entry v refers to the same workload as r.
func (r WorkloadRef) matches(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	return m["name"] == r.Name && m["kind"] == r.Kind && m["apiVersion"] == r.APIVersion
}

// staleUID reports whether the entry m, which matches r, records a UID other
// than r's. An entry without a uid is never stale: the scope's schema may
// prune the field, and refreshing it would then write on every reconcile.
func (r WorkloadRef) staleUID(m map[string]any) bool {
	if r.UID == "" {
		return false
	}
	uid, ok := m["uid"]
	return ok && uid != string(r.UID)
}

// AddWorkloadRef adds ref to the workload references of scope at path and
// reports whether the scope changed. The path must name a list outside
// metadata and status (see CheckRefPath). What it does depends on the value
// there:
//
//   - missing or null: it becomes a list holding ref; missing objects on the
//     way are created, but every array element the path names must exist;
//   - a list: ref is appended unless an entry already refers to the same
//     workload (entries keep their order; entries that are not references are
//     kept as they are);
//   - anything else, an object included: an error wrapping ErrInvalidRefPath
//     and ErrMalformed that names the path and the type found.
//
// On error the scope is left exactly as it was.
func AddWorkloadRef(scope *unstructured.Unstructured, path string, ref WorkloadRef) (changed bool, err error) {
	if err := ref.validate(); err != nil {
		return false, fmt.Errorf("cannot add a workload reference to %s: %w", describeScope(scope), err)
	}
	if scope == nil {
		return false, fmt.Errorf("cannot add workload reference %s: the scope is nil: %w", ref, ErrMalformed)
	}
	changed, err = addRef(scope, path, ref)
	if err != nil {
		return false, fmt.Errorf("cannot add workload reference %s to %s at %s: %w", ref, describeScope(scope), path, err)
	}
	return changed, nil
}

func addRef(scope *unstructured.Unstructured, path string, ref WorkloadRef) (bool, error) {
	p := fieldpath.Pave(scope.Object)
	x, err := refList(p, path)
	if err != nil {
		return false, err
	}
	switch i := indexOf(x, ref); {
	case x == nil:
		if err := elementsExist(p, path); err != nil {
			return false, err
		}
		err = p.SetValue(path, []any{ref.object()})
	case i < 0:
		// Setting the element one past the end appends it without
		// copying the others. The limit admits that index, and any
		// index the path itself holds.
		at := path + "[" + strconv.Itoa(len(x)) + "]"
		err = fieldpath.Pave(scope.Object, fieldpath.MaxIndex(max(len(x), fieldpath.DefaultMaxIndex))).SetValue(at, ref.object())
	case ref.staleUID(x[i].(map[string]any)):
		list := append([]any(nil), x...)
		list[i] = withUID(x[i].(map[string]any), ref.UID)
		err = p.SetValue(path, list)
	default:
		return false, nil
	}
	if err != nil {
		return false, err
	}
	scope.Object = p.UnstructuredContent()
	return true, nil
}

// RemoveWorkloadRef removes every entry that refers to the same workload as
// ref from the workload references of scope at path, keeping the order of
// the others, and reports whether the scope changed. A missing or null value
// holds no references; a list left empty stays an empty list. A path that
// CheckRefPath refuses, or any value other than a list, is an error wrapping
// ErrInvalidRefPath, and on error the scope is left exactly as it was.
func RemoveWorkloadRef(scope *unstructured.Unstructured, path string, ref WorkloadRef) (changed bool, err error) {
	if err := ref.validate(); err != nil {
		return false, fmt.Errorf("cannot remove a workload reference from %s: %w", describeScope(scope), err)
	}
	if scope == nil {
		return false, nil
	}
	changed, err = removeRef(scope, path, ref)
	if err != nil {
		return false, fmt.Errorf("cannot remove workload reference %s from %s at %s: %w", ref, describeScope(scope), path, err)
	}
	return changed, nil
}

func removeRef(scope *unstructured.Unstructured, path string, ref WorkloadRef) (bool, error) {
	x, err := refList(fieldpath.Pave(scope.Object), path)
	if err != nil || indexOf(x, ref) < 0 {
		return false, err
	}
	// Delete from the end, so that the indexes still to delete stay put
	// while later elements move down. As in addRef, the limit admits every
	// index of the list (Add appends past the default limit, and whatever
	// Add wrote Remove must be able to delete) and any index the path itself
	// holds.
	del := fieldpath.Pave(scope.Object, fieldpath.MaxIndex(max(len(x), fieldpath.DefaultMaxIndex)))
	for i := len(x) - 1; i >= 0; i-- {
		if !ref.matches(x[i]) {
			continue
		}
		if err := del.DeleteField(path + "[" + strconv.Itoa(i) + "]"); err != nil {
			return false, err
		}
	}
	return true, nil
}

// WorkloadRefs returns the workload references of scope at path, in order:
// none for a missing or null value, and one per entry of a list that is a
// reference. Entries that are not (a string, or an object without a string
// apiVersion, kind and name, such as OAM's placeholder) are skipped, as Add
// and Remove keep them; Locate can report them (ReportSkipped). A path that
// CheckRefPath refuses, or a value other than a list, is an error wrapping
// ErrInvalidRefPath.
func WorkloadRefs(scope *unstructured.Unstructured, path string) ([]WorkloadRef, error) {
	if scope == nil {
		return nil, nil
	}
	refs, _, _, err := readRefs(scope.Object, path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the workload references of %s at %s: %w", describeScope(scope), path, err)
	}
	return refs, nil
}

// A SkippedEntry is an entry of a scope's reference list that is not a
// workload reference. Add, Remove and Locate leave it as it is.
type SkippedEntry struct {
	// Path is the entry's path: spec.workloadRefs[2].
	Path string
	// Reason says why it is not a reference: `is a string of 5 bytes, not a workload reference`.
	Reason string
}

// String returns the entry as `spec.workloadRefs[2] is a string of 5 bytes, not a workload reference`.
func (s SkippedEntry) String() string { return s.Path + " " + s.Reason }

// readRefs returns the references at path, the index of each in the list,
// and the entries skipped.
func readRefs(content map[string]any, path string) ([]WorkloadRef, []int, []SkippedEntry, error) {
	x, err := refList(fieldpath.Pave(content), path)
	if err != nil || x == nil {
		return nil, nil, nil, err
	}
	refs := make([]WorkloadRef, 0, len(x))
	entries := make([]int, 0, len(x))
	var skipped []SkippedEntry
	for i, e := range x {
		var reason string
		if m, ok := e.(map[string]any); ok {
			r, err := refFrom(m)
			if err == nil {
				refs = append(refs, r)
				entries = append(entries, i)
				continue
			}
			reason = err.Error()
		} else {
			reason = "is " + jsonvalue.Shape(e) + ", not a workload reference"
		}
		skipped = append(skipped, SkippedEntry{Path: path + "[" + strconv.Itoa(i) + "]", Reason: reason})
	}
	return refs, entries, skipped, nil
}

// refList returns the list of workload references at path in p: nil for a
// missing or null value. A path that CheckRefPath refuses, or any other
// value, is an error.
func refList(p *fieldpath.Paved, path string) ([]any, error) {
	if err := CheckRefPath(path); err != nil {
		return nil, err
	}
	v, err := p.GetValue(path)
	if fieldpath.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, pathError(err)
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return x, nil
	}
	return nil, wrongType(path, v)
}

// refFrom reads a scope entry. Its errors read after the entry's path.
func refFrom(m map[string]any) (WorkloadRef, error) {
	var r WorkloadRef
	var bad []string
	for _, f := range []struct {
		name string
		to   *string
	}{{"apiVersion", &r.APIVersion}, {"kind", &r.Kind}, {"name", &r.Name}} {
		s, ok := m[f.name].(string)
		if !ok || s == "" {
			bad = append(bad, f.name)
		}
		*f.to = s
	}
	if len(bad) > 0 {
		return WorkloadRef{}, fmt.Errorf("is an object with no string %s, not a workload reference", join(bad))
	}
	if ns, ok := m["namespace"].(string); ok {
		r.Namespace = ns
	}
	if uid, ok := m["uid"].(string); ok {
		r.UID = types.UID(uid)
	}
	return r, nil
}

// elementsExist returns an error when path names an array element that does
// not exist: AddWorkloadRef creates missing fields but never pads arrays.
func elementsExist(p *fieldpath.Paved, path string) error {
	segs, err := fieldpath.Parse(path)
	if err != nil {
		return err
	}
	for i, s := range segs {
		if s.Type != fieldpath.SegmentIndex {
			continue
		}
		if _, err := p.GetValue(segs[:i+1].String()); err != nil {
			return err
		}
	}
	return nil
}

func indexOf(list []any, ref WorkloadRef) int {
	for i, e := range list {
		if ref.matches(e) {
			return i
		}
	}
	return -1
}

func withUID(m map[string]any, uid types.UID) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	c["uid"] = string(uid)
	return c
}

// pathError marks a value of the wrong type on the way to the reference path
// as malformed references too.
func pathError(err error) error {
	if errors.Is(err, fieldpath.ErrWrongType) {
		return fmt.Errorf("%w (%w)", err, ErrMalformed)
	}
	return err
}

func wrongType(path string, v any) error {
	return fmt.Errorf("%s holds %s, not a list of workload references: %w (%w)", path, jsonvalue.Shape(v), ErrInvalidRefPath, ErrMalformed)
}

// CheckRefPath returns an error wrapping ErrInvalidRefPath when path may not
// hold workload references whatever the scope holds there: it does not
// parse (wrapping fieldpath.ErrInvalidPath too), is empty, holds a
// wildcard, starts with an index, or starts with metadata, status, apiVersion or kind. Writing
// references into metadata would replace labels or annotations, or make the
// workload an owner of the scope; status belongs to the scope's controller.
// Add, Remove, WorkloadRefs, PatchWorkloadRefs and Locate also refuse a path
// whose value is not a list (nor missing, nor null).
func CheckRefPath(path string) error {
	if first, ok := plainFields(path); ok {
		// The common form, fields joined by dots, decided without parsing
		// (which allocates); checkRefPath gives the same answer.
		switch first {
		case "metadata", "status", "apiVersion", "kind":
		default:
			return nil
		}
	}
	return checkRefPath(path)
}

// plainFields returns the first field of path when path is field names
// joined by single dots, none empty and none holding a bracket: the form
// that fieldpath.Parse reads as those fields, split at the dots. A field
// "*" (a wildcard) is not plain.
func plainFields(path string) (first string, ok bool) {
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) {
			switch path[i] {
			case '[', ']':
				return "", false
			case '.':
			default:
				continue
			}
		}
		if f := path[start:i]; f == "" || f == "*" {
			return "", false // empty (the path, or a field between dots), or a wildcard
		}
		if start == 0 {
			first = path[:i]
		}
		start = i + 1
	}
	return first, true
}

// checkRefPath is CheckRefPath for any path, parsing it.
func checkRefPath(path string) error {
	segs, err := fieldpath.Parse(path)
	if err != nil {
		return fmt.Errorf("%w (%w)", err, ErrInvalidRefPath)
	}
	if len(segs) == 0 {
		return fmt.Errorf("the path is empty: %w", ErrInvalidRefPath)
	}
	first := segs[0]
	if first.Type != fieldpath.SegmentField {
		return fmt.Errorf("%s starts with an index, not a field of the scope: %w", path, ErrInvalidRefPath)
	}
	for _, s := range segs {
		if s.Type == fieldpath.SegmentWildcard {
			return fmt.Errorf("%s holds a wildcard, which names no single list: %w (%w)", path, ErrInvalidRefPath, fieldpath.ErrInvalidPath)
		}
	}
	switch first.Field {
	case "metadata":
		return fmt.Errorf("%s is in metadata, which references may not replace or extend: %w", path, ErrInvalidRefPath)
	case "status":
		return fmt.Errorf("%s is in status, which belongs to the scope's controller: %w", path, ErrInvalidRefPath)
	case "apiVersion", "kind":
		return fmt.Errorf("%s is the scope's %s, not a list: %w", path, first.Field, ErrInvalidRefPath)
	}
	return nil
}

// describeScope names a scope in an error message: `HealthScope default/web`.
func describeScope(scope *unstructured.Unstructured) string {
	if scope == nil {
		return "the scope"
	}
	kind := scope.GetKind()
	if kind == "" {
		kind = "scope"
	}
	return message.Object(kind, scope.GetNamespace(), scope.GetName())
}

func join(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	s := words[0]
	for _, w := range words[1 : len(words)-1] {
		s += ", " + w
	}
	return s + " or " + words[len(words)-1]
}
