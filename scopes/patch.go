package scopes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/conflict"
)

// A ScopeRef names a scope object.
type ScopeRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Namespace is empty for a cluster-scoped scope.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String returns the scope as `HealthScope default/web`.
func (s ScopeRef) String() string {
	if s.Namespace == "" {
		return s.Kind + " " + s.Name
	}
	return s.Kind + " " + s.Namespace + "/" + s.Name
}

// A Change is what to do to the workload references of one scope. Removals
// are applied first, then additions, and PatchWorkloadRefs writes them in one
// patch. A reference may not be both added and removed.
type Change struct {
	Add    []WorkloadRef
	Remove []WorkloadRef
}

// Patched says what PatchWorkloadRefs did.
type Patched struct {
	// Path is the scope's reference path. It is empty when nothing was
	// written because the path is unknown: the scope's ScopeDefinition
	// declares none (the scope does not take references), or, without
	// AtPath, a change that only removes met a scope kind that is not
	// installed.
	Path string
	// Changed reports whether a patch was written.
	Changed bool
}

// A PatchOption configures PatchWorkloadRefs: AtPath, Definitions, ReadFrom
// and Backoff.
type PatchOption interface {
	applyToPatch(*patchOptions)
}

type patchOptions struct {
	path    string
	defs    Definitions
	reader  client.Reader
	backoff Backoff
}

type readFrom struct{ r client.Reader }

func (r readFrom) applyToPatch(o *patchOptions) { o.reader = r.r }

// ReadFrom is an option that reads scopes, definitions and, for the overlap
// rule, the other scopes through r instead of the client that writes. Pass a
// manager's uncached API reader (mgr.GetAPIReader()): after a conflict, a
// cache may return the same stale scope again until its watch catches up.
func ReadFrom(r client.Reader) PatchOption { return readFrom{r} }

// Backoff is an option that sets how PatchWorkloadRefs waits between
// attempts after a conflict, and how many attempts it makes. The wait
// before attempt n+1 is drawn at random between zero and
// min(Initial·2ⁿ⁻¹, Max) ("full jitter"), so that concurrent writers spread
// out instead of meeting again. Every call is bounded: after Attempts
// attempts that each met a conflict, it returns an error that wraps the last
// conflict (apierrors.IsConflict), and the caller retries later, as a
// reconciler does when it returns the error; the zero value of each field is
// DefaultBackoff's. A writer that keeps changing the scope therefore delays
// a call by at most the sum of the waits plus Attempts rounds of requests.
type Backoff struct {
	// Initial bounds the first wait. Zero or less: DefaultBackoff's.
	Initial time.Duration
	// Max bounds every wait. Zero or less: DefaultBackoff's; below
	// Initial, Initial.
	Max time.Duration
	// Attempts is the most attempts, the first included. Zero or less:
	// DefaultBackoff's.
	Attempts int
}

// DefaultBackoff is PatchWorkloadRefs' default: at most 10 attempts, waits
// bounded by 10ms, doubling up to 500ms, so that the waits of one call add
// up to at most 2.13s.
var DefaultBackoff = Backoff{Initial: 10 * time.Millisecond, Max: 500 * time.Millisecond, Attempts: 10}

func (b Backoff) applyToPatch(o *patchOptions) { o.backoff = b }

// withDefaults returns b with the fields that make no sense filled from
// DefaultBackoff.
func (b Backoff) withDefaults() Backoff {
	return Backoff(conflict.Backoff(b).WithDefaults(conflict.Backoff(DefaultBackoff)))
}

// retry calls attempt until it returns anything but a conflict, the
// attempts run out, or ctx is done, waiting as b says in between.
func (b Backoff) retry(ctx context.Context, attempt func() error) error {
	return conflict.Retry(ctx, conflict.Backoff(b.withDefaults()), attempt)
}

// PatchWorkloadRefs applies change to the scope named by scope on the API
// server, in one patch, and reports the path it used and whether it wrote.
//
// The reference path is AtPath, or else the one the scope kind's
// ScopeDefinition declares (see FindDefinition; scopes have no type label);
// when it declares none, nothing is written. A path that CheckRefPath
// refuses, or whose value in the scope is not a list, is an error wrapping
// ErrInvalidRefPath that names the option or the ScopeDefinition, and
// nothing is written. Without AtPath, adding to a scope without a
// ScopeDefinition is an error wrapping ErrDefinitionNotFound that says what
// was looked up; removing from one succeeds without a write, leaving the
// references in a scope no controller reads (as KubeVela does), so an
// application's finalizer can finish.
//
// It reads the scope, applies the change with RemoveWorkloadRef and
// AddWorkloadRef, and writes nothing when nothing changed. Otherwise it sends
// a JSON merge patch that carries the scope's resourceVersion, so a scope
// changed by someone else since it was read makes the API server answer with
// a conflict; it then reads the scope again and retries, waiting as Backoff
// says, until it succeeds, the attempts run out (by default 10, see
// DefaultBackoff; the error then wraps the last conflict) or ctx is done.
// Concurrent writers therefore lose no reference, add none twice, and never
// overwrite the scope's other fields; a call that gives up writes nothing.
//
// When the ScopeDefinition sets allowComponentOverlap to false, a workload
// that is not yet in the scope and is in another scope of the same kind and
// namespace is refused with an error wrapping ErrOverlap, and nothing is
// written. The check and the write are two requests: two writers adding one
// workload to two scopes at the same moment can both pass it (closing that
// window needs an admission webhook).
//
// Removals from a scope that no longer exists, or whose kind is no longer
// installed, succeed without a write: the scope holds no references. Adding
// to a scope whose kind is not installed is an error that
// meta.IsNoMatchError recognizes.
func PatchWorkloadRefs(ctx context.Context, c client.Client, mapper meta.RESTMapper, scope ScopeRef, change Change, opts ...PatchOption) (Patched, error) {
	o := patchOptions{reader: c, backoff: DefaultBackoff}
	for _, opt := range opts {
		opt.applyToPatch(&o)
	}
	defs := o.defs.withDefaults()
	fail := func(err error) (Patched, error) {
		return Patched{}, fmt.Errorf("cannot patch the workload references of %s: %w", scope, err)
	}
	if scope.APIVersion == "" || scope.Kind == "" || scope.Name == "" {
		return fail(fmt.Errorf("the scope needs an apiVersion, a kind and a name: %w", ErrInvalidRef))
	}
	if err := change.validate(); err != nil {
		return fail(err)
	}
	gvk := schema.FromAPIVersionAndKind(scope.APIVersion, scope.Kind)

	// The definition gives the path unless AtPath does, and the overlap rule
	// whenever references are added.
	path, source, overlap := o.path, "option AtPath", true
	if path == "" || len(change.Add) > 0 {
		q := definitionQuery{defKind: defs.ScopeDefinition, kind: gvk, appNamespace: scope.Namespace, namespaces: defs.Namespaces}
		def, looked, err := q.find(ctx, o.reader, mapper)
		if err != nil {
			// find reports a definition kind that is not installed as no
			// definition, so a no-match error is about the scope's kind. A
			// kind that is not installed has no objects, and so no
			// references to remove.
			if len(change.Add) == 0 && meta.IsNoMatchError(err) {
				return Patched{}, nil
			}
			return fail(err)
		}
		if def == nil && path == "" {
			if len(change.Add) == 0 {
				return Patched{}, nil
			}
			return fail(fmt.Errorf("it has no %s: looked for %s; create one, or pass AtPath: %w", defs.ScopeDefinition.Kind, looked, ErrDefinitionNotFound))
		}
		if def != nil {
			if path == "" {
				var field string
				if path, field, err = refPath(def); err != nil {
					return fail(err)
				}
				if path == "" {
					return Patched{}, nil
				}
				source = describeScope(def) + " (" + field + ")"
			}
			if overlap, err = allowOverlap(def); err != nil {
				return fail(err)
			}
		}
	}
	refused := func(err error) (Patched, error) {
		return fail(fmt.Errorf("path %q of %s is refused: %w", path, source, err))
	}
	if err := CheckRefPath(path); err != nil {
		return refused(err)
	}

	w := &waiter{change: change, done: make(chan struct{})}
	wr := writer{c: c, reader: o.reader, backoff: o.backoff, gvk: gvk, scope: scope, path: path, overlap: overlap}
	wr.write(ctx, w)
	if errors.Is(w.err, ErrInvalidRefPath) {
		return refused(w.err)
	}
	if w.err != nil {
		return fail(w.err)
	}
	return Patched{Path: path, Changed: w.changed}, nil
}

func (c Change) validate() error {
	for _, r := range c.Add {
		if err := r.validate(); err != nil {
			return err
		}
	}
	for _, r := range c.Remove {
		if err := r.validate(); err != nil {
			return err
		}
		for _, a := range c.Add {
			if a.Same(r) {
				return fmt.Errorf("workload reference %s is both added and removed: %w", r, ErrInvalidRef)
			}
		}
	}
	return nil
}

// apply applies the change to scope and returns whether it changed and the
// references it added that the scope did not hold before.
func (c Change) apply(scope *unstructured.Unstructured, path string) (changed bool, added []WorkloadRef, err error) {
	for _, r := range c.Remove {
		ch, err := RemoveWorkloadRef(scope, path, r)
		if err != nil {
			return false, nil, err
		}
		changed = changed || ch
	}
	for _, r := range c.Add {
		held := holds(scope.Object, path, r)
		ch, err := AddWorkloadRef(scope, path, r)
		if err != nil {
			return false, nil, err
		}
		changed = changed || ch
		if ch && !held {
			added = append(added, r)
		}
	}
	return changed, added, nil
}

// holds reports whether the references at path in content include ref.
func holds(content map[string]any, path string, ref WorkloadRef) bool {
	v, err := fieldpath.Pave(content).GetValue(path)
	if err != nil {
		return false
	}
	list, ok := v.([]any)
	return ok && indexOf(list, ref) >= 0
}

// checkOverlap returns an error wrapping ErrOverlap when another scope of
// scope's kind, in its namespace, holds one of refs at path.
func checkOverlap(ctx context.Context, r client.Reader, scope *unstructured.Unstructured, path string, refs []WorkloadRef) error {
	list := &unstructured.UnstructuredList{}
	gvk := scope.GroupVersionKind()
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := r.List(ctx, list, client.InNamespace(scope.GetNamespace())); err != nil {
		return fmt.Errorf("cannot list the %s scopes to enforce allowComponentOverlap: %w", gvk.Kind, err)
	}
	for i := range list.Items {
		other := &list.Items[i]
		if other.GetName() == scope.GetName() {
			continue
		}
		for _, ref := range refs {
			if holds(other.Object, path, ref) {
				return fmt.Errorf("workload %s is already in %s, and the %s definition sets allowComponentOverlap to false: %w",
					ref, describeScope(other), gvk.Kind, ErrOverlap)
			}
		}
	}
	return nil
}
