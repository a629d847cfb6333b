package extref

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestSourcePolicy(t *testing.T) {
	cm := func(ns, name string) Source {
		return Source{Version: "v1", Resource: "configmaps", Namespace: ns, Name: name}
	}
	sec := func(ns, name string) Source {
		return Source{Version: "v1", Resource: "secrets", Namespace: ns, Name: name}
	}
	vpc := Source{Group: "ec2.example.org", Version: "v1", Resource: "vpcs", Name: "main"}
	cases := map[string]struct {
		reason     string
		policy     SourcePolicy
		referencer string // namespace; "" for cluster-scoped
		src        Source
		namespaced bool
		allowed    bool
	}{
		"OwnNamespace":                          {reason: "A namespaced referencer reads its own namespace.", referencer: "a", src: cm("a", "x"), namespaced: true, allowed: true},
		"OtherNamespace":                        {reason: "Not another namespace.", referencer: "a", src: cm("b", "x"), namespaced: true},
		"OwnSecret":                             {reason: "Not a Secret by default.", referencer: "a", src: sec("a", "x"), namespaced: true},
		"OwnSecretAllowed":                      {reason: "A Secret with OwnNamespaceSecrets.", policy: SourcePolicy{OwnNamespaceSecrets: true}, referencer: "a", src: sec("a", "x"), namespaced: true, allowed: true},
		"OtherSecretNotByOwnFlag":               {reason: "OwnNamespaceSecrets does not open other namespaces.", policy: SourcePolicy{OwnNamespaceSecrets: true}, referencer: "a", src: sec("b", "x"), namespaced: true},
		"ClusterReferencer":                     {reason: "A cluster-scoped referencer reads nothing by default.", referencer: "", src: cm("a", "x"), namespaced: true},
		"ClusterSource":                         {reason: "A cluster-scoped source needs a rule.", referencer: "a", src: vpc},
		"RuleForClusterSource":                  {reason: "A rule without namespaces matches cluster-scoped sources.", policy: SourcePolicy{Allow: []SourceRule{{Group: "ec2.example.org", Resource: "vpcs"}}}, src: vpc, allowed: true},
		"RuleWithNamespacesNotForClusterSource": {reason: "A rule with namespaces does not match cluster-scoped sources.", policy: SourcePolicy{Allow: []SourceRule{{Group: "ec2.example.org", Resource: "vpcs", Namespaces: []string{"*"}}}}, src: vpc},
		"RuleWithoutNamespacesNotForNamespaced": {reason: "A rule without namespaces does not match namespaced sources.", policy: SourcePolicy{Allow: []SourceRule{{Resource: "configmaps"}}}, referencer: "a", src: cm("b", "x"), namespaced: true},
		"RuleNamespace":                         {reason: "A rule opens a namespace.", policy: SourcePolicy{Allow: []SourceRule{{Resource: "configmaps", Namespaces: []string{"b"}}}}, referencer: "a", src: cm("b", "x"), namespaced: true, allowed: true},
		"RuleAnyNamespace":                      {reason: "* matches any namespace.", policy: SourcePolicy{Allow: []SourceRule{{Resource: "configmaps", Namespaces: []string{"*"}}}}, referencer: "", src: cm("b", "x"), namespaced: true, allowed: true},
		"RuleNames":                             {reason: "Names limit a rule.", policy: SourcePolicy{Allow: []SourceRule{{Resource: "configmaps", Namespaces: []string{"b"}, Names: []string{"y"}}}}, referencer: "a", src: cm("b", "x"), namespaced: true},
		"RuleGroup":                             {reason: "The group must match.", policy: SourcePolicy{Allow: []SourceRule{{Group: "other", Resource: "configmaps", Namespaces: []string{"b"}}}}, referencer: "a", src: cm("b", "x"), namespaced: true},
		"RuleAnyGroupResource":                  {reason: "* matches any group and resource.", policy: SourcePolicy{Allow: []SourceRule{{Group: "*", Resource: "*", Namespaces: []string{"b"}}}}, referencer: "a", src: cm("b", "x"), namespaced: true, allowed: true},
		"WildcardNotSecrets":                    {reason: "A resource wildcard never matches Secrets.", policy: SourcePolicy{Allow: []SourceRule{{Group: "*", Resource: "*", Namespaces: []string{"*"}}}}, referencer: "a", src: sec("b", "x"), namespaced: true},
		"RuleForSecrets":                        {reason: "A rule naming secrets matches them.", policy: SourcePolicy{Allow: []SourceRule{{Resource: "secrets", Namespaces: []string{"b"}}}}, referencer: "a", src: sec("b", "x"), namespaced: true, allowed: true},
		"RuleWithoutResource":                   {reason: "A rule without a resource matches nothing.", policy: SourcePolicy{Allow: []SourceRule{{Namespaces: []string{"*"}}}}, referencer: "a", src: cm("b", "x"), namespaced: true},
		"ReferencerNamespaces":                  {reason: "A rule may serve only some referencers.", policy: SourcePolicy{Allow: []SourceRule{{Resource: "configmaps", Namespaces: []string{"b"}, ReferencerNamespaces: []string{"c"}}}}, referencer: "a", src: cm("b", "x"), namespaced: true},
		"ReferencerNamespacesMatch":             {reason: "... and serves those.", policy: SourcePolicy{Allow: []SourceRule{{Resource: "configmaps", Namespaces: []string{"b"}, ReferencerNamespaces: []string{"a"}}}}, referencer: "a", src: cm("b", "x"), namespaced: true, allowed: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.policy.check(tc.referencer, tc.src, tc.namespaced)
			if tc.allowed != (err == nil) {
				t.Errorf("%s\ncheck(%q, %s): want allowed=%t, got %v", tc.reason, tc.referencer, tc.src, tc.allowed, err)
			}
			if err != nil && !errors.Is(err, ErrDenied) {
				t.Errorf("%s\ncheck(...): want an error wrapping ErrDenied, got %v", tc.reason, err)
			}
		})
	}
}

// reviewWriter answers SubjectAccessReviews: allowed when allow says so.
type reviewWriter struct {
	client.Writer // nil: only Create is called
	allow         func(user string, attrs *authorizationv1.ResourceAttributes) bool
	reviews       []authorizationv1.SubjectAccessReviewSpec
	err           error
}

func (w *reviewWriter) Create(_ context.Context, obj client.Object, _ ...client.CreateOption) error {
	if w.err != nil {
		return w.err
	}
	sar := obj.(*authorizationv1.SubjectAccessReview)
	w.reviews = append(w.reviews, sar.Spec)
	allowed := w.allow(sar.Spec.User, sar.Spec.ResourceAttributes)
	sar.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: allowed}
	if !allowed {
		sar.Status.Reason = "no rule"
	}
	return nil
}

func TestAccessReview(t *testing.T) {
	w := &reviewWriter{allow: func(user string, attrs *authorizationv1.ResourceAttributes) bool {
		return user == "system:serviceaccount:team-a:reader" && attrs.Resource == "configmaps"
	}}
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_000_000, 0))
	review := NewAccessReview(w, "reader", DecisionTTL(time.Minute), WithClock(clk))
	ctx := t.Context()
	cm := Source{Version: "v1", Resource: "configmaps", Namespace: "team-a", Name: "settings", FieldPath: "data.region"}
	sec := Source{Version: "v1", Resource: "secrets", Namespace: "team-a", Name: "db", FieldPath: "data.password"}

	if err := review.check(ctx, "team-a", cm); err != nil {
		t.Errorf("check(configmap): want allowed, got %v", err)
	}
	err := review.check(ctx, "team-a", sec)
	if !errors.Is(err, ErrDenied) {
		t.Fatalf("check(secret): want ErrDenied, got %v", err)
	}
	if diff := cmp.Diff("denied by a SubjectAccessReview: system:serviceaccount:team-a:reader may not get it: no rule", err.Error()); diff != "" {
		t.Errorf("check(secret): -want, +got error:\n%s", diff)
	}
	wantSpec := authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:team-a:reader",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: "get", Group: "", Version: "v1", Resource: "secrets", Namespace: "team-a", Name: "db",
		},
	}
	if diff := cmp.Diff(wantSpec, w.reviews[1]); diff != "" {
		t.Errorf("review of the secret: -want, +got:\n%s", diff)
	}

	// Decisions are reused within the TTL, for any field of the object.
	other := cm
	other.FieldPath = "data.zone"
	_ = review.check(ctx, "team-a", other)
	_ = review.check(ctx, "team-a", sec)
	if got := len(w.reviews); got != 2 {
		t.Errorf("reviews within the TTL: want 2, got %d", got)
	}
	clk.SetTime(clk.Now().Add(time.Minute))
	_ = review.check(ctx, "team-a", cm)
	if got := len(w.reviews); got != 3 {
		t.Errorf("reviews after the TTL: want 3, got %d", got)
	}

	// A cluster-scoped referencer has no service account unless Namespace says.
	if err := review.check(ctx, "", cm); !errors.Is(err, ErrDenied) {
		t.Errorf("check from a cluster-scoped referencer: want ErrDenied, got %v", err)
	}
	fixed := NewAccessReview(w, "reader", ServiceAccountNamespace("team-a"), DecisionTTL(-1))
	if err := fixed.check(ctx, "", cm); err != nil {
		t.Errorf("check with a fixed service account namespace: want allowed, got %v", err)
	}

	// A failed review is an error, not a denial, and is not remembered.
	w.err = errors.New("boom")
	fresh := &AccessReview{Client: w, ServiceAccount: "reader"}
	if err := fresh.check(ctx, "team-a", cm); err == nil || errors.Is(err, ErrDenied) {
		t.Errorf("check when the review fails: want a plain error, got %v", err)
	}
}

// TestNewAccessReview: the constructor and its options set the fields an
// AccessReview literal sets, so that either builds the same review.
func TestNewAccessReview(t *testing.T) {
	w := &reviewWriter{}
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_000_000, 0))
	got := NewAccessReview(w, "reader", ServiceAccountNamespace("team-a"), DecisionTTL(time.Hour), WithClock(clk))
	want := &AccessReview{Client: w, ServiceAccount: "reader", Namespace: "team-a", TTL: time.Hour, Clock: clk}
	if got.Client != want.Client || got.ServiceAccount != want.ServiceAccount || got.Namespace != want.Namespace || got.TTL != want.TTL || got.Clock != want.Clock {
		t.Errorf("NewAccessReview(...): want the fields %v %q %q %s %v, got %v %q %q %s %v", want.Client, want.ServiceAccount, want.Namespace, want.TTL, want.Clock, got.Client, got.ServiceAccount, got.Namespace, got.TTL, got.Clock)
	}
	if d := NewAccessReview(w, "reader"); d.Namespace != "" || d.TTL != 0 || d.Clock != nil {
		t.Errorf("NewAccessReview without options: want the zero namespace, TTL and clock (the defaults), got %q, %s, %v", d.Namespace, d.TTL, d.Clock)
	}
}

func TestResolveWithAccessReview(t *testing.T) {
	w := &reviewWriter{allow: func(string, *authorizationv1.ResourceAttributes) bool { return false }}
	reader := newReader(configMap("team-a", "settings", map[string]any{"region": "eu-west-1"}))
	ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
  toFieldPath: spec.forProvider.region`)
	out, err := NewResolver(reader, testMapper(), SourcePolicy{}, WithAccessReview(&AccessReview{Client: w, ServiceAccount: "reader"})).Resolve(t.Context(), ref)
	if !errors.Is(err, ErrDenied) {
		t.Fatalf("Resolve(...): want ErrDenied from the review, got %v", err)
	}
	if out.Changed || reader.reads() != 0 {
		t.Errorf("Resolve(...): a denied read must not happen nor write, got changed=%t, %d reads", out.Changed, reader.reads())
	}
	if got := Condition(out, err, 1).Reason; got != ReasonResolutionDenied {
		t.Errorf("Condition(...).Reason: want %s, got %s", ReasonResolutionDenied, got)
	}
}

// TestResolveSecretSpellings checks that the policy, the access review and
// the watch see the resource the RESTMapper maps to, not the one written: a
// Secret spelled secret, Secrets or SECRET is a Secret.
func TestResolveSecretSpellings(t *testing.T) {
	reader := newReader(secret("team-a", "db", map[string]string{"password": "s3cr3t"}), secret("team-b", "db", map[string]string{"password": "s3cr3t"}))
	wildcard := SourcePolicy{Allow: []SourceRule{{Name: "anything", Group: "*", Resource: "*", Namespaces: []string{"*"}}}}
	for _, spelling := range []string{"secrets", "secret", "Secrets", "SECRET", "sEcReTs"} {
		for name, tc := range map[string]struct {
			namespace string
			policy    SourcePolicy
		}{
			"OwnNamespace":           {namespace: "team-a"},
			"OtherNamespace":         {namespace: "team-b"},
			"OtherNamespaceWildcard": {namespace: "team-b", policy: wildcard},
			"OwnNamespaceWildcard":   {namespace: "team-a", policy: wildcard},
		} {
			t.Run(spelling+"/"+name, func(t *testing.T) {
				ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: `+spelling+`, namespace: `+tc.namespace+`, name: db, fieldPath: data.password}
  toFieldPath: spec.forProvider.region
- fromObject: {version: v1, resource: `+spelling+`, namespace: `+tc.namespace+`, name: db, fieldPath: data.password}
  makeAvailableAs: password
  policy: {resolution: Optional}`)
				reads := reader.reads()
				w := NewWatcher(nil)
				out, err := NewResolver(reader, testMapper(), tc.policy, WithWatcher(w)).Resolve(t.Context(), ref)
				if !errors.Is(err, ErrDenied) {
					t.Fatalf("Resolve(...): want ErrDenied, got %v", err)
				}
				if out.Changed || out.Values != nil || len(out.Skipped) != 1 || !errors.Is(out.Skipped[0], ErrDenied) {
					t.Errorf("Resolve(...): want nothing written nor handed over, got %+v", summarize(out))
				}
				if got := reader.reads() - reads; got != 0 {
					t.Errorf("Resolve(...): a denied read must not happen, got %d reads", got)
				}
				want := "cannot resolve spec.externalValues[0].fromObject (secrets " + tc.namespace + "/db, data.password): denied"
				if got := err.Error(); len(got) < len(want) || got[:len(want)] != want {
					t.Errorf("Resolve(...): want an error starting %q, got %q", want, got)
				}
			})
		}
	}

	// The access review asks about secrets, whatever the spelling.
	rw := &reviewWriter{allow: func(string, *authorizationv1.ResourceAttributes) bool { return true }}
	ref := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: SECRET, name: db, fieldPath: data.password}
  makeAvailableAs: password`)
	r := NewResolver(reader, testMapper(), SourcePolicy{OwnNamespaceSecrets: true}, WithAccessReview(&AccessReview{Client: rw, ServiceAccount: "reader"}))
	if _, err := r.Resolve(t.Context(), ref); err != nil {
		t.Fatalf("Resolve(...) with the access review allowing: %v", err)
	}
	if len(rw.reviews) != 1 {
		t.Fatalf("reviews: want 1, got %d", len(rw.reviews))
	}
	if got := rw.reviews[0].ResourceAttributes.Resource; got != "secrets" {
		t.Errorf("the review's resource: want secrets, got %q", got)
	}
}

// TestSourcePolicyNamesNearRules checks that a denial names the rules for
// the source's group and resource, which did not match it otherwise.
func TestSourcePolicyNamesNearRules(t *testing.T) {
	policy := SourcePolicy{Allow: []SourceRule{
		{Name: "vpcs", Group: "ec2.example.org", Resource: "vpcs"},
		{Name: "common settings", Resource: "configmaps", Namespaces: []string{"crossplane-system"}, Names: []string{"common-settings"}},
		{Resource: "configmaps", Namespaces: []string{"team-c"}},
		{Name: "anything", Group: "*", Resource: "*", Namespaces: []string{"team-d"}},
		{Name: "accounts", Resource: "secrets", Namespaces: []string{"crossplane-system"}, Names: []string{"accounts"}},
	}}
	cases := map[string]struct {
		src        Source
		namespaced bool
		want       string
	}{
		"ConfigMap": {
			src: Source{Version: "v1", Resource: "configmaps", Namespace: "crossplane-system", Name: "other"}, namespaced: true,
			want: `denied by the default source policy: a cluster-scoped referencer reads only what an allow rule matches, and none of the 5 allow rules does (the rules for configmaps, which do not match its namespace, name or scope or the referencer's namespace: "common settings", Allow[2], "anything")`,
		},
		"Secret": {
			src: Source{Version: "v1", Resource: "secrets", Namespace: "team-d", Name: "accounts"}, namespaced: true,
			want: `denied by the default source policy: a cluster-scoped referencer reads only what an allow rule matches, and none of the 5 allow rules does (the rules for secrets, which do not match its namespace, name or scope or the referencer's namespace: "accounts")`,
		},
		"WildcardRule": {
			src:  Source{Group: "other.example.org", Version: "v1", Resource: "things", Name: "x"},
			want: `denied by the default source policy: a cluster-scoped referencer reads only what an allow rule matches, and none of the 5 allow rules does (the rules for things.other.example.org, which do not match its namespace, name or scope or the referencer's namespace: "anything")`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := policy.check("", tc.src, tc.namespaced)
			if !errors.Is(err, ErrDenied) {
				t.Fatalf("check(...): want ErrDenied, got %v", err)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("check(...): -want, +got error:\n%s", diff)
			}
		})
	}
}

// TestAccessReviewDecisionBytes keeps decisions for sources of long names
// (a referencer's schema need not limit them): the decisions kept never
// take more than maxDecisionBytes, counting their strings, and a decision
// larger than that is not kept.
func TestAccessReviewDecisionBytes(t *testing.T) {
	a := NewAccessReview(nil, "reader")
	a.init()
	now := time.Now()
	name := func(i int) string { return fmt.Sprintf("%06d-%s", i, strings.Repeat("n", 64<<10)) }
	key := func(i int) reviewKey {
		return reviewKey{user: "system:serviceaccount:a:reader", src: Source{Version: "v1", Resource: "configmaps", Namespace: "a", Name: name(i)}}
	}
	size := decisionSize(key(0), decision{allowed: true})
	for i := range 200 {
		a.decisions.putUntil(key(i), decision{allowed: true}, now.Add(time.Minute))
		if kept := a.decisions.len() * size; kept > maxDecisionBytes || a.decisions.bytes != kept {
			t.Fatalf("after %d decisions: %d kept take %d bytes, counted %d, at most %d", i+1, a.decisions.len(), kept, a.decisions.bytes, maxDecisionBytes)
		}
	}
	if n := a.decisions.len(); n != maxDecisionBytes/size {
		t.Errorf("decisions kept: want %d, got %d", maxDecisionBytes/size, n)
	}
	huge := reviewKey{user: "u", src: Source{Name: strings.Repeat("n", maxDecisionBytes)}}
	a.decisions.putUntil(huge, decision{allowed: true}, now.Add(time.Minute))
	if _, ok := a.decisions.getAt(huge, now); ok {
		t.Errorf("a decision larger than maxDecisionBytes: want not, got it kept")
	}
	if _, ok := a.decisions.getAt(key(199), now.Add(time.Minute)); ok {
		t.Errorf("a decision at its expiry: want not, got it reused")
	}
}
