package extref

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// DefaultPath is where a referencer lists its external values unless the
// Path option says otherwise.
const DefaultPath = "spec.externalValues"

// DefaultReadTimeout bounds the reads of one Resolve, together, so that
// reads from a cache whose informers cannot sync (e.g. for want of RBAC)
// fail instead of blocking a worker for ever, or for one timeout per kind.
const DefaultReadTimeout = 10 * time.Second

// maxResolvedSize bounds what one Resolve writes to the referencer and
// hands over in Outcome.Values, as JSON, with the nulls that the targets'
// indexes may add to arrays: more than the API server accepts in one
// object, so that a referencer cannot make a Resolve copy a large source
// (or pad arrays) over and over.
const maxResolvedSize = 4 << 20

// maxExternalValues bounds the external values of one referencer, so that
// what one Resolve reads, checks, reviews and reports stays bounded whatever
// the referencer's schema allows: every external value, even a malformed
// one, costs its own error and message.
const maxExternalValues = 256

// maxExpressionLength bounds a format, fmt or template, as the CRD schema
// does.
const maxExpressionLength = render.MaxExpressionLength

// MaxOutputSize is the most bytes a transform, a combine format or a
// template may produce. A value copied from a source without change is not
// limited (the API server limits the source).
const MaxOutputSize = 1 << 20

// The printing engine bounds its output by MaxOutputSize: a compile-time
// check that the two are one.
var _ = [1]struct{}{}[MaxOutputSize-render.MaxOutputSize]

// A Resolver resolves the external values of referencers. It is safe for
// concurrent use.
type Resolver struct {
	reader      client.Reader
	mapper      meta.RESTMapper
	path        string
	listPath    *fieldpath.Path // nil when path is invalid
	pathSegs    fieldpath.Segments
	protected   []string             // ProtectedFields
	protSegs    []fieldpath.Segments // protected, compiled
	protErr     error                // why protected cannot be compiled
	policy      SourcePolicy
	review      *AccessReview
	watcher     *Watcher
	readTimeout time.Duration
	templates   *boundedCache[string, *render.Template] // by their text (compile.go)
	entries     *entryCache
	seed        maphash.Seed // of the external values' digests

	// mappings caches the RESTMapper's answers for resources it knows,
	// which cost more than the rest of a settled Resolve. An entry is
	// dropped when a read says the mapping no longer holds.
	mappings *boundedCache[schema.GroupVersionResource, mapping]
	misses   *boundedCache[schema.GroupVersionResource, miss] // unknown resources (mapping.go)
	targets  *boundedCache[string, targetVerdict]             // checkTarget's verdicts
	synced   *boundedCache[schema.GroupVersionKind, struct{}] // kinds whose informer was seen synced
	kinds    *unreadableKinds                                 // kinds that cannot be read (readable.go)

	lookups *rate.Limiter      // mapper lookups (mapping.go)
	clock   clock.PassiveClock // WithClock
}

// A ResolverOption configures a Resolver.
type ResolverOption interface {
	applyToResolver(r *Resolver)
}

// Path is an option that names the field holding the external values, e.g.
// spec.forProvider.externalValues. It defaults to DefaultPath. An invalid
// path makes every Resolve fail with ErrInvalid.
type Path string

func (p Path) applyToResolver(r *Resolver) { r.path = string(p) }

// ReadTimeout is an option that bounds the reads of sources of one
// Resolve, together; it defaults to DefaultReadTimeout. Reads from a cache
// whose informers have synced take no time from it.
type ReadTimeout time.Duration

func (t ReadTimeout) applyToResolver(r *Resolver) { r.readTimeout = time.Duration(t) }

// ClockOption is the option WithClock returns: an option of NewResolver,
// NewWatcher and NewAccessReview alike.
type ClockOption struct{ c clock.PassiveClock }

func (o ClockOption) applyToResolver(r *Resolver)         { r.clock = o.c }
func (o ClockOption) applyToWatcher(w *Watcher)           { w.clock = o.c }
func (o ClockOption) applyToAccessReview(a *AccessReview) { a.Clock = o.c }

// WithClock is an option of NewResolver, NewWatcher and NewAccessReview: c
// tells the time instead of the real clock. A Resolver times its re-checks
// of kinds it cannot read and of resources it cannot map by it, a Watcher
// the wakes of a referencer whose sources change, an AccessReview the
// reuse of its decisions. A nil c means the real clock.
func WithClock(c clock.PassiveClock) ClockOption { return ClockOption{c} }

// DefaultProtectedFields returns the fields a value may not be written to
// unless the ProtectedFields option says otherwise: those through which
// Crossplane binds a composite resource (XR) or a claim to its claim, its
// composition, its composed resources and its connection Secret, which
// Crossplane never copies from a claim's spec to its XR: a claim's author
// chooses the external values of an XR whose XRD has them, and so must not
// choose these fields through them. The slice is the caller's to change.
func DefaultProtectedFields() []string {
	return []string{
		"spec.claimRef",
		"spec.compositeDeletePolicy",
		"spec.compositionRef",
		"spec.compositionRevisionRef",
		"spec.compositionRevisionSelector",
		"spec.compositionSelector",
		"spec.compositionUpdatePolicy",
		"spec.crossplane", // a Crossplane v2 XR's machinery
		"spec.environmentConfigRefs",
		"spec.publishConnectionDetailsTo",
		"spec.resourceRef",
		"spec.resourceRefs",
		"spec.writeConnectionSecretToRef",
	}
}

// ProtectedFields is an option that replaces DefaultProtectedFields: an
// external value whose target is one of these fields, lies under one, or
// holds one is ErrInvalid. ProtectedFields() protects nothing but the
// external values themselves. Each is a field path without wildcards,
// such as spec.claimRef or metadata.labels[x]; one that is not makes every
// Resolve fail with ErrInvalid.
func ProtectedFields(paths ...string) ResolverOption {
	return protectedFields(slices.Clone(paths))
}

type protectedFields []string

func (p protectedFields) applyToResolver(r *Resolver) { r.protected = p }

// compileProtected compiles the protected fields.
func compileProtected(paths []string) ([]fieldpath.Segments, error) {
	segs := make([]fieldpath.Segments, 0, len(paths))
	for _, f := range paths {
		p, err := fieldpath.Compile(f)
		if err != nil {
			return nil, fmt.Errorf("protected field %q: %w", f, err)
		}
		s := p.Segments()
		if hasWildcard(s) {
			return nil, fmt.Errorf("protected field %q: wildcards are not allowed", f)
		}
		segs = append(segs, s)
	}
	return segs, nil
}

// NewResolver returns a Resolver that reads sources through reader, maps
// their resources to kinds with mapper, and reads only the sources policy
// allows. The zero SourcePolicy allows only namespaced sources in a
// namespaced referencer's own namespace, and no Secrets.
//
// The reader should be a cache: a manager's GetCache(), not its GetClient(),
// whose reads of unstructured objects go to the API server unless the
// client's cache options say otherwise. Each source kind then costs one
// informer, shared with a Watcher and any other user of the cache, and a
// settled referencer is resolved without an API request.
//
// Options: WithWatcher, WithAccessReview, Path, ReadTimeout,
// ProtectedFields and WithClock.
func NewResolver(reader client.Reader, mapper meta.RESTMapper, policy SourcePolicy, opts ...ResolverOption) *Resolver {
	r := &Resolver{reader: reader, mapper: mapper, policy: policy, path: DefaultPath, protected: DefaultProtectedFields(), readTimeout: DefaultReadTimeout, seed: maphash.MakeSeed()}
	r.kinds = &unreadableKinds{}
	r.lookups = rate.NewLimiter(lookupRate, lookupBurst)
	r.entries = newEntryCache()
	r.templates = newTemplateCache()
	r.mappings = newBoundedCache[schema.GroupVersionResource, mapping](maxMappings, 0, nil)
	r.misses = newBoundedCache[schema.GroupVersionResource, miss](maxMappings, 0, nil)
	r.targets = newBoundedCache[string, targetVerdict](maxMappings, 0, nil)
	r.synced = newBoundedCache[schema.GroupVersionKind, struct{}](maxMappings, 0, nil)
	for _, o := range opts {
		o.applyToResolver(r)
	}
	if r.clock == nil {
		r.clock = clock.RealClock{}
	}
	r.kinds.useClock(r.clock)
	r.protSegs, r.protErr = compileProtected(r.protected)
	// An invalid path is parsed again by Resolve, which reports the error.
	if p, err := fieldpath.Compile(r.path); err == nil {
		r.listPath, r.pathSegs = p, p.Segments()
	}
	return r
}

// An Outcome is what Resolve did.
type Outcome struct {
	// Changed is true when Resolve changed the referencer (in memory): the
	// caller should write it. When it is false no write is needed.
	Changed bool

	// Values are the values of obscure references, by their
	// makeAvailableAs key, for the controller's use. They are never
	// written to the referencer. Nil when Resolve failed.
	Values map[string]any

	// Resolved counts the external values that were resolved: written,
	// found already equal, or handed over in Values.
	Resolved int

	// Present counts IfNotPresent values that were not resolved because
	// their target already had a value.
	Present int

	// Skipped are the optional external values that could not be resolved.
	Skipped []*ReferenceError

	// Failed are the required external values that could not be resolved;
	// Resolve's error reports them.
	Failed []*ReferenceError

	// written are the external values written to the referencer, when
	// Changed, so that RejectedCondition can name them.
	written []writtenValue
}

// Resolve resolves the external values of obj, in order, into obj.
//
// Nothing is written when a required value fails: obj is left as it was,
// Outcome.Values is nil, and the error (a *ReferenceError, or several
// joined) names each failing value by index, its source and why. An
// optional value that fails is skipped and listed in Outcome.Skipped.
// A malformed external value fails whatever its policy.
//
// obj may be an *unstructured.Unstructured, changed in place, or a typed
// object, which is converted to unstructured content and back; a value
// written to a field the type does not have is an error wrapping ErrTarget.
func (r *Resolver) Resolve(ctx context.Context, obj client.Object) (Outcome, error) {
	out, err := r.resolve(ctx, obj)
	countResolution(&out, err)
	return out, err
}

func (r *Resolver) track(ref types.NamespacedName, keys []watchKey) {
	if r.watcher != nil {
		r.watcher.track(ref, keys)
	}
}
