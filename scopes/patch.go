package scopes

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/fieldpath"
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
	backoff wait.Backoff
}

type readFrom struct{ r client.Reader }

func (r readFrom) applyToPatch(o *patchOptions) { o.reader = r.r }

// ReadFrom is an option that reads scopes, definitions and, for the overlap
// rule, the other scopes through r instead of the client that writes. Pass a
// manager's uncached API reader (mgr.GetAPIReader()): after a conflict, a
// cache may return the same stale scope again until its watch catches up.
func ReadFrom(r client.Reader) PatchOption { return readFrom{r} }

// Backoff is an option that sets how PatchWorkloadRefs waits between
// attempts after a conflict, and how many it makes, with the meaning of
// wait.Backoff: the first wait is Duration, each next one Factor times the
// one before, each plus up to Jitter times itself at random; the attempts end
// after Steps of them, or as soon as a wait would grow past Cap. The
// default, DefaultBackoff, lets 20 writers to one scope all succeed.
//
// A zero Backoff is DefaultBackoff. Otherwise the fields whose zero value
// makes no sense take DefaultBackoff's:
//
//   - Steps below 1, which would make no attempt at all (not even the first
//     read), takes DefaultBackoff's Steps (30);
//   - Duration of zero or less, which would retry at once and meet the same
//     writers again, takes DefaultBackoff's Duration (10ms).
//
// Factor, Jitter and Cap keep the meaning of their zero: waits that do not
// grow, no jitter, no cap. So Backoff{Duration: 50 * time.Millisecond,
// Factor: 2} makes up to 30 attempts, each wait twice the one before; set Cap
// to bound them.
type Backoff wait.Backoff

func (b Backoff) applyToPatch(o *patchOptions) { o.backoff = b.withDefaults() }

// withDefaults returns b as a wait.Backoff, its fields that make no sense
// filled from DefaultBackoff.
func (b Backoff) withDefaults() wait.Backoff {
	if b == (Backoff{}) {
		return wait.Backoff(DefaultBackoff)
	}
	if b.Steps < 1 {
		b.Steps = DefaultBackoff.Steps
	}
	if b.Duration <= 0 {
		b.Duration = DefaultBackoff.Duration
	}
	return wait.Backoff(b)
}

// DefaultBackoff is PatchWorkloadRefs' default Backoff: waits that start at
// 10ms and grow by half each time, plus up to as much again at random (full
// jitter) so that concurrent writers spread out. Since, as in wait.Backoff,
// the attempts end once a wait would grow past Cap (1s), it makes 12
// attempts, waiting about 2.6 to 5.2 s in all, before its 30 Steps are
// reached.
var DefaultBackoff = Backoff{Duration: 10 * time.Millisecond, Factor: 1.5, Jitter: 1, Steps: 30, Cap: time.Second}

// PatchWorkloadRefs applies change to the scope named by scope on the API
// server, in one patch, and reports the path it used and whether it wrote.
//
// The reference path is AtPath, or else the one the scope kind's
// ScopeDefinition (named `<plural>.<group>`, found through mapper) declares;
// when it declares none, nothing is written. Without AtPath, a missing
// ScopeDefinition is an error wrapping ErrDefinitionNotFound.
//
// It reads the scope, applies the change with RemoveWorkloadRef and
// AddWorkloadRef, and writes nothing when nothing changed. Otherwise it sends
// a JSON merge patch that carries the scope's resourceVersion, so a scope
// changed by someone else since it was read makes the API server answer with
// a conflict; it then reads the scope again and retries, waiting as Backoff
// says. Concurrent writers therefore lose no reference, and the scope's other
// fields are never overwritten.
//
// When the ScopeDefinition sets allowComponentOverlap to false, a workload
// that is not yet in the scope and is in another scope of the same kind and
// namespace is refused with an error wrapping ErrOverlap, and nothing is
// written. The check and the write are two requests: two writers adding one
// workload to two scopes at the same moment can both pass it (closing that
// window needs an admission webhook).
//
// Removals from a scope that no longer exists, or whose kind is no longer
// installed, succeed without a write: the scope holds no references. For a
// kind that is not installed this holds without AtPath too, since no
// ScopeDefinition is needed to remove nothing; adding to such a scope is an
// error that meta.IsNoMatchError recognizes.
func PatchWorkloadRefs(ctx context.Context, c client.Client, mapper meta.RESTMapper, scope ScopeRef, change Change, opts ...PatchOption) (Patched, error) {
	o := patchOptions{reader: c, backoff: wait.Backoff(DefaultBackoff)}
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
	path, overlap := o.path, true
	if path == "" || len(change.Add) > 0 {
		def, err := definitionOf(ctx, o.reader, mapper, gvk, defs.ScopeDefinition, defs.Namespace)
		if err != nil {
			// definitionOf reports a definition kind that is not installed
			// as no definition, so a no-match error is about the scope's
			// kind. A kind that is not installed has no objects, and so no
			// references to remove.
			if len(change.Add) == 0 && meta.IsNoMatchError(err) {
				return Patched{}, nil
			}
			return fail(err)
		}
		if def == nil && path == "" {
			return fail(fmt.Errorf("it has no %s: %w", defs.ScopeDefinition.Kind, ErrDefinitionNotFound))
		}
		if def != nil {
			if path == "" {
				if path, err = refPath(def); err != nil {
					return fail(err)
				}
				if path == "" {
					return Patched{}, nil
				}
			}
			if overlap, err = allowOverlap(def); err != nil {
				return fail(err)
			}
		}
	}
	if _, err := fieldpath.Parse(path); err != nil {
		return fail(err)
	}

	out := Patched{Path: path}
	key := client.ObjectKey{Namespace: scope.Namespace, Name: scope.Name}
	err := retry.OnError(o.backoff, apierrors.IsConflict, func() error {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(gvk)
		if err := o.reader.Get(ctx, key, cur); err != nil {
			if len(change.Add) == 0 && (apierrors.IsNotFound(err) || meta.IsNoMatchError(err)) {
				return nil
			}
			return err
		}
		orig := cur.DeepCopy()
		changed, added, err := change.apply(cur, path)
		if err != nil || !changed {
			return err
		}
		if !overlap && len(added) > 0 {
			if err := checkOverlap(ctx, o.reader, cur, path, added); err != nil {
				return err
			}
		}
		if err := c.Patch(ctx, cur, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
			return err
		}
		out.Changed = true
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return out, nil
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
	if list, ok := v.([]any); ok {
		return indexOf(list, ref) >= 0
	}
	return ref.matches(v)
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
