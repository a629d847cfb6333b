package extref

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A SourcePolicy says which sources referencers may read. NewResolver takes
// one; the zero SourcePolicy is the default.
//
// A namespaced referencer may read namespaced sources in its own namespace,
// except Secrets, which it may read only when OwnNamespaceSecrets is set.
// Every other read, including every read by a cluster-scoped referencer,
// needs a rule in Allow that matches it. A denied read is an error wrapping
// ErrDenied that says which default applied and names the allow rules for
// the source's group and resource that did not match it, and nothing is
// written.
type SourcePolicy struct {
	// OwnNamespaceSecrets lets a namespaced referencer read Secrets in its
	// own namespace.
	OwnNamespaceSecrets bool

	// Allow lists further reads that are allowed.
	Allow []SourceRule
}

// A SourceRule allows reads of the sources it matches. Every field that is
// set must match.
type SourceRule struct {
	// Name identifies the rule in errors: a denied read names the rules
	// for its group and resource that did not match it (an unnamed rule
	// is named by its index, Allow[i]).
	Name string

	// Group is the API group of the sources: "" for the core group, "*"
	// for any.
	Group string

	// Resource is the plural, lower-case resource name of the sources, or
	// "*" for any resource except Secrets, which a rule must name
	// ("secrets") to allow. A rule without Resource matches nothing. It is
	// compared with the resource the RESTMapper maps a source to, so a
	// source written as "secret" or "Secrets" is matched as "secrets".
	Resource string

	// Namespaces of namespaced sources, or "*" for any namespace. A rule
	// without Namespaces matches only cluster-scoped sources.
	Namespaces []string

	// Names of the sources; empty for any name.
	Names []string

	// ReferencerNamespaces limits the rule to referencers in these
	// namespaces; empty for every referencer. A cluster-scoped referencer
	// matches "".
	ReferencerNamespaces []string
}

func isSecret(s Source) bool { return s.Group == "" && s.Resource == "secrets" }

// matchesResource reports whether the rule is for the source's group and
// resource.
func (r SourceRule) matchesResource(s Source) bool {
	if r.Group != "*" && r.Group != s.Group {
		return false
	}
	switch {
	case isSecret(s):
		return r.Resource == "secrets"
	case r.Resource == "" || (r.Resource != "*" && r.Resource != s.Resource):
		return false
	}
	return true
}

func (r SourceRule) matches(referencerNamespace string, s Source, namespaced bool) bool {
	if !r.matchesResource(s) {
		return false
	}
	if namespaced {
		if !slices.Contains(r.Namespaces, "*") && !slices.Contains(r.Namespaces, s.Namespace) {
			return false
		}
	} else if len(r.Namespaces) > 0 {
		return false
	}
	if len(r.Names) > 0 && !slices.Contains(r.Names, s.Name) {
		return false
	}
	if len(r.ReferencerNamespaces) > 0 && !slices.Contains(r.ReferencerNamespaces, referencerNamespace) {
		return false
	}
	return true
}

// check returns nil when a referencer in namespace ns (empty when it is
// cluster-scoped) may read s, else an error wrapping ErrDenied.
func (p *SourcePolicy) check(ns string, s Source, namespaced bool) error {
	own := namespaced && ns != "" && s.Namespace == ns
	if own && (!isSecret(s) || p.OwnNamespaceSecrets) {
		return nil
	}
	for _, r := range p.Allow {
		if r.matches(ns, s, namespaced) {
			return nil
		}
	}
	var why string
	switch {
	case own:
		why = "Secrets are readable only with SourcePolicy.OwnNamespaceSecrets or an allow rule for secrets"
	case ns == "":
		why = "a cluster-scoped referencer reads only what an allow rule matches"
	case !namespaced:
		why = "cluster-scoped sources are readable only when an allow rule matches"
	default:
		why = fmt.Sprintf("only the referencer's namespace %q is readable unless an allow rule matches namespace %q", ns, s.Namespace)
	}
	// Name the rules for the source's group and resource, which matched
	// everything but the namespace, the name or the referencer's
	// namespace, so that the one meant to allow the read can be found.
	var near strings.Builder
	n := 0
	for i, r := range p.Allow {
		if !r.matchesResource(s) {
			continue
		}
		if n == 0 {
			near.WriteString(" (the rules for ")
			near.WriteString(s.Resource)
			if s.Group != "" {
				near.WriteByte('.')
				near.WriteString(s.Group)
			}
			near.WriteString(", which do not match its namespace, name or scope or the referencer's namespace: ")
		} else {
			near.WriteString(", ")
		}
		if n == maxNearRules {
			near.WriteString("...")
			break
		}
		if r.Name != "" {
			fmt.Fprintf(&near, "%q", r.Name)
		} else {
			fmt.Fprintf(&near, "Allow[%d]", i)
		}
		n++
	}
	if n > 0 {
		near.WriteByte(')')
	}
	return fmt.Errorf("%w by the default source policy: %s, and none of the %d allow rules does%s", ErrDenied, why, len(p.Allow), near.String())
}

// couldAllow reports whether the policy could allow a referencer in
// namespace ns (empty when it is cluster-scoped) to read some object of the
// given group and resource, whose scope is not known yet.
func (p *SourcePolicy) couldAllow(ns, group, resource string) bool {
	s := Source{Group: group, Resource: resource}
	if ns != "" && (!isSecret(s) || p.OwnNamespaceSecrets) {
		return true
	}
	for _, r := range p.Allow {
		if r.matchesResource(s) && (len(r.ReferencerNamespaces) == 0 || slices.Contains(r.ReferencerNamespaces, ns)) {
			return true
		}
	}
	return false
}

// maxNearRules bounds the rules a denial names.
const maxNearRules = 8

// DefaultAccessReviewTTL is how long an AccessReview reuses a decision.
const DefaultAccessReviewTTL = time.Minute

// An AccessReview (NewResolver's option WithAccessReview) checks each read,
// after the SourcePolicy allowed it, with a SubjectAccessReview: may this
// service account get this object? The provider reads with its own identity; the
// review lets a cluster administrator grant referencers, through ordinary
// RBAC for a service account, access to no more than they should have.
// A read the review denies is an error wrapping ErrDenied that names the
// service account and the authorizer's reason.
//
// Decisions are reused for TTL, so a settled referencer does not create a
// review on every reconcile.
//
// Build one with NewAccessReview, or as a literal with the same fields; it
// is safe for concurrent use once built, and must not be copied.
type AccessReview struct {
	// Client creates SubjectAccessReviews (authorization.k8s.io/v1, the
	// typed object: its scheme must know it, as client-go's scheme, a
	// manager's client's, does); it needs RBAC to create
	// subjectaccessreviews.
	Client client.Writer

	// ServiceAccount is the name of the service account reads are checked
	// for.
	ServiceAccount string

	// Namespace is the service account's namespace. Empty means the
	// referencer's namespace; a cluster-scoped referencer then has no
	// service account and every read is denied.
	Namespace string

	// TTL is how long a decision is reused; zero means
	// DefaultAccessReviewTTL, a negative TTL never reuses one.
	TTL time.Duration

	// Clock tells the time for TTL; nil means the real clock.
	Clock clock.PassiveClock

	once      sync.Once
	decisions *boundedCache[reviewKey, decision] // made on first use
	reviews   *rate.Limiter                      // made on first use
}

// An AccessReviewOption configures an AccessReview.
type AccessReviewOption interface {
	applyToAccessReview(a *AccessReview)
}

// NewAccessReview returns an AccessReview that creates SubjectAccessReviews
// with c, for the service account named serviceAccount; the options set its
// namespace (ServiceAccountNamespace), how long it reuses a decision
// (DecisionTTL) and its clock (WithClock). It is the same as an
// AccessReview literal with those fields set.
func NewAccessReview(c client.Writer, serviceAccount string, opts ...AccessReviewOption) *AccessReview {
	a := &AccessReview{Client: c, ServiceAccount: serviceAccount}
	for _, o := range opts {
		o.applyToAccessReview(a)
	}
	return a
}

// ServiceAccountNamespace is an option of NewAccessReview: the namespace of
// the service account reads are checked for (AccessReview.Namespace). By
// default it is the referencer's namespace.
type ServiceAccountNamespace string

func (n ServiceAccountNamespace) applyToAccessReview(a *AccessReview) { a.Namespace = string(n) }

// DecisionTTL is an option of NewAccessReview: how long a decision is
// reused (AccessReview.TTL). It defaults to DefaultAccessReviewTTL; a
// negative DecisionTTL never reuses one.
type DecisionTTL time.Duration

func (d DecisionTTL) applyToAccessReview(a *AccessReview) { a.TTL = time.Duration(d) }

// A referencer names as many sources as it likes, each of which may need a
// review, so the reviews an AccessReview creates are limited, for all
// referencers together, to reviewBurst at once and reviewRate a second
// after that; a read past that fails with a transient error (the reconciler
// retries with backoff), rather than wait in the client's rate limiter.
const (
	reviewRate  = 10
	reviewBurst = 50
)

// errReviewsLimited is why a read was not reviewed: too many reviews came
// at once. It is transient.
var errReviewsLimited = errors.New("too many access reviews at once; retrying")

type accessReviewOption struct{ a *AccessReview }

func (o accessReviewOption) applyToResolver(r *Resolver) { r.review = o.a }

// WithAccessReview is an option of NewResolver: a read the SourcePolicy
// allows is also checked by a; see AccessReview.
func WithAccessReview(a *AccessReview) ResolverOption { return accessReviewOption{a} }

type reviewKey struct {
	user string
	src  Source
	verb string
}

type decision struct {
	allowed bool
	reason  string
}

// maxDecisions and maxDecisionBytes bound the decisions an AccessReview
// keeps: in number, and in bytes as decisionSize counts them, since a
// source's name and a review's reason may be long. Past either, the
// decisions used least recently are dropped: a referencer naming thousands
// of sources makes other referencers' decisions be reviewed again only
// once they are the oldest. A decision larger than maxDecisionBytes is not
// kept.
const (
	maxDecisions     = 4096
	maxDecisionBytes = 4 << 20
)

// decisionSize is what a decision kept for key takes: its strings, and
// about 200 bytes of structs and cache slot.
func decisionSize(key reviewKey, d decision) int {
	s := key.src
	return 200 + len(key.user) + len(s.Group) + len(s.Version) + len(s.Resource) + len(s.Namespace) + len(s.Name) + len(s.FieldPath) + len(d.reason)
}

// init makes what an AccessReview keeps, once, whether it was built by
// NewAccessReview or as a literal.
func (a *AccessReview) init() {
	a.once.Do(func() {
		a.decisions = newBoundedCache(maxDecisions, maxDecisionBytes, decisionSize)
		a.reviews = rate.NewLimiter(reviewRate, reviewBurst)
	})
}

func (a *AccessReview) now() time.Time {
	if a.Clock == nil {
		return time.Now()
	}
	return a.Clock.Now()
}

// check reviews a read of s by the service account of a referencer in
// namespace ns.
func (a *AccessReview) check(ctx context.Context, ns string, s Source) error {
	return a.checkVerb(ctx, ns, s, "get")
}

// checkList reviews a list of the objects of s's group, resource and
// namespace, which a selector makes: the service account must be allowed
// to list them, as it would to select them itself.
func (a *AccessReview) checkList(ctx context.Context, ns string, s Source) error {
	s.Name, s.Selector = "", ""
	return a.checkVerb(ctx, ns, s, "list")
}

func (a *AccessReview) checkVerb(ctx context.Context, ns string, s Source, verb string) error {
	a.init()
	saNamespace := a.Namespace
	if saNamespace == "" {
		saNamespace = ns
	}
	if saNamespace == "" || a.ServiceAccount == "" {
		return fmt.Errorf("%w by the access review: a cluster-scoped referencer has no service account (set AccessReview.Namespace)", ErrDenied)
	}
	user := "system:serviceaccount:" + saNamespace + ":" + a.ServiceAccount
	key := reviewKey{user: user, src: s, verb: verb}
	key.src.FieldPath = ""
	ttl := a.TTL
	if ttl == 0 {
		ttl = DefaultAccessReviewTTL
	}
	now := a.now()
	if ttl > 0 {
		if d, ok := a.decisions.getAt(key, now); ok {
			return d.err(user, verb)
		}
	}
	if !take(a.reviews, now, 0) {
		return fmt.Errorf("cannot review access for %s: %w", user, errReviewsLimited)
	}
	d, err := a.review(ctx, user, saNamespace, s, verb)
	if err != nil {
		return err
	}
	if ttl > 0 {
		a.decisions.putUntil(key, d, now.Add(ttl))
	}
	return d.err(user, verb)
}

func (d decision) err(user, verb string) error {
	if d.allowed {
		return nil
	}
	reason := d.reason
	if reason == "" {
		reason = "no RBAC rule allows it"
	}
	if verb == "list" {
		return fmt.Errorf("%w by a SubjectAccessReview: %s may not list them: %s", ErrDenied, user, reason)
	}
	return fmt.Errorf("%w by a SubjectAccessReview: %s may not get it: %s", ErrDenied, user, reason)
}

func (a *AccessReview) review(ctx context.Context, user, saNamespace string, s Source, verb string) (decision, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   user,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + saNamespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: verb, Group: s.Group, Version: s.Version, Resource: s.Resource, Namespace: s.Namespace, Name: s.Name,
		},
	}}
	if err := a.Client.Create(ctx, sar); err != nil {
		return decision{}, fmt.Errorf("cannot review access for %s: %w", user, err)
	}
	reason := sar.Status.Reason
	if !sar.Status.Allowed && reason == "" {
		reason = sar.Status.EvaluationError
	}
	return decision{allowed: sar.Status.Allowed, reason: reason}, nil
}
