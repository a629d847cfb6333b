package extref

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// listCounter counts the lists of a reader.
type listCounter struct {
	client.Reader
	lists int
}

func (c *listCounter) List(ctx context.Context, l client.ObjectList, opts ...client.ListOption) error {
	c.lists++
	return c.Reader.List(ctx, l, opts...)
}

// resolveWith resolves a referencer of team-a with spec specYAML against
// objs under policy p, returning the error and how many lists it made.
func resolveWith(t *testing.T, p SourcePolicy, specYAML string, objs ...*unstructured.Unstructured) (*unstructured.Unstructured, int, error) {
	t.Helper()
	reader := &listCounter{Reader: listingReader(objs...)}
	w := widget(t, "team-a", "w", specYAML)
	_, err := NewResolver(reader, testMapper(), p).Resolve(context.Background(), w)
	return w, reader.lists, err
}

// TestSelectPolicyFirst: a selector sees only what the policy lets its
// referencer read. A selection the policy allows nothing of is denied
// without a list, with the same error whatever exists; objects the policy
// forbids by name are dropped before anything is counted, so that they
// change neither the value nor the error.
func TestSelectPolicyFirst(t *testing.T) {
	hidden := labelled("team-b", "hidden", map[string]string{"app": "web"}, map[string]any{"region": "top-secret-1"})
	shown := labelled("team-b", "shown", map[string]string{"app": "web"}, map[string]any{"region": "eu-west-1"})
	onlyHidden := labelled("team-b", "hidden", map[string]string{"app": "api"}, map[string]any{"region": "top-secret-1"})
	spec := func(app string) string {
		return `
externalValues:
- fromObject: {version: v1, resource: configmaps, namespace: team-b, selector: {matchLabels: [{key: app, value: ` + app + `}]}, fieldPath: data.region}
  toFieldPath: spec.out`
	}

	t.Run("NamespaceDenied", func(t *testing.T) {
		_, listsSome, errSome := resolveWith(t, SourcePolicy{}, spec("web"), hidden, shown)
		_, listsNone, errNone := resolveWith(t, SourcePolicy{}, spec("web"))
		if !errors.Is(errSome, ErrDenied) {
			t.Fatalf("error: want ErrDenied, got %v", errSome)
		}
		if diff := cmp.Diff(errNone.Error(), errSome.Error()); diff != "" {
			t.Errorf("the denial depends on what exists: -none, +some:\n%s", diff)
		}
		if listsSome+listsNone != 0 {
			t.Errorf("lists of a denied selection: want none, got %d", listsSome+listsNone)
		}
		// The same denial a source named in that namespace gets.
		_, _, errNamed := resolveWith(t, SourcePolicy{}, `
externalValues:
- fromObject: {version: v1, resource: configmaps, namespace: team-b, name: shown, fieldPath: data.region}
  toFieldPath: spec.out`)
		_, why, _ := strings.Cut(errNamed.Error(), "): ")
		if !strings.HasSuffix(errSome.Error(), "): "+why) {
			t.Errorf("denial: want it to end as a named source's (%q), got %q", why, errSome)
		}
	})

	byName := SourcePolicy{Allow: []SourceRule{{Name: "shown only", Resource: "configmaps", Namespaces: []string{"team-b"}, Names: []string{"shown"}}}}
	t.Run("ForbiddenNotCounted", func(t *testing.T) {
		w, _, err := resolveWith(t, byName, spec("web"), hidden, shown)
		require.NoError(t, err, "Single mode: the forbidden match is not counted, so one matches")
		if got, _, _ := unstructured.NestedString(w.Object, "spec", "out"); got != "eu-west-1" {
			t.Errorf("spec.out: want eu-west-1, got %q", got)
		}
	})
	t.Run("ForbiddenAloneIsNoMatch", func(t *testing.T) {
		_, _, errHidden := resolveWith(t, byName, spec("api"), onlyHidden)
		_, _, errNothing := resolveWith(t, byName, spec("api"))
		if !errors.Is(errHidden, ErrSourceNotFound) {
			t.Fatalf("error: want ErrSourceNotFound, got %v", errHidden)
		}
		if diff := cmp.Diff(errNothing.Error(), errHidden.Error()); diff != "" {
			t.Errorf("an object the policy forbids shows in the error: -nothing, +forbidden object:\n%s", diff)
		}
		if strings.Contains(errHidden.Error(), "hidden") || strings.Contains(errHidden.Error(), "top-secret") {
			t.Errorf("error names the forbidden object: %q", errHidden)
		}
	})
	t.Run("ForbiddenNotInMultiple", func(t *testing.T) {
		w, _, err := resolveWith(t, byName, `
externalValues:
- fromObject: {version: v1, resource: configmaps, namespace: team-b, selector: {mode: Multiple, minMatch: 2, matchLabels: [{key: app, value: web}]}, fieldPath: data.region}
  toFieldPath: spec.out`, hidden, shown)
		if !errors.Is(err, ErrSourceNotFound) || !strings.Contains(err.Error(), "1 object matches the selector, fewer than minMatch 2") {
			t.Errorf("error: want one match, fewer than minMatch, got %v", err)
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(w.Object, "spec", "out"); found {
			t.Errorf("spec.out written")
		}
	})
	t.Run("OwnNamespaceSecrets", func(t *testing.T) {
		s := secret("team-a", "db", map[string]string{"password": "s3cr3t"})
		s.SetLabels(map[string]string{"app": "db"})
		_, lists, err := resolveWith(t, SourcePolicy{}, `
externalValues:
- fromObject: {version: v1, resource: secrets, selector: {matchLabels: [{key: app, value: db}]}, fieldPath: data.password}
  makeAvailableAs: password`, s)
		if !errors.Is(err, ErrDenied) || lists != 0 {
			t.Errorf("a selection of Secrets by default: want ErrDenied and none, got %v after %d lists", err, lists)
		}
		w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: secrets, selector: {matchLabels: [{key: app, value: db}]}, fieldPath: data.password}
  makeAvailableAs: password`)
		out, err := NewResolver(listingReader(s), testMapper(), SourcePolicy{OwnNamespaceSecrets: true}).Resolve(t.Context(), w)
		require.NoError(t, err)
		if out.Values["password"] != "s3cr3t" {
			t.Errorf("password: want the decoded Secret value, got %v", out.Values["password"])
		}
	})
}

// TestSelectAccessReview: a selection is reviewed as a list of its kind in
// its namespace, before anything is listed.
func TestSelectAccessReview(t *testing.T) {
	rw := &reviewWriter{allow: func(_ string, attrs *authorizationv1.ResourceAttributes) bool { return attrs.Verb == "get" }}
	reader := &listCounter{Reader: listingReader(teamConfigs()...)}
	w := widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: db}]}, fieldPath: data.region}
  toFieldPath: spec.out`)
	_, err := NewResolver(reader, testMapper(), SourcePolicy{}, WithAccessReview(&AccessReview{Client: rw, ServiceAccount: "reader"})).Resolve(t.Context(), w)
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "may not list them") {
		t.Errorf("error: want a denial of the list, got %v", err)
	}
	if reader.lists != 0 {
		t.Errorf("lists: want none, got %d", reader.lists)
	}
	want := &authorizationv1.ResourceAttributes{Verb: "list", Version: "v1", Resource: "configmaps", Namespace: "team-a"}
	if len(rw.reviews) != 1 {
		t.Fatalf("reviews: want 1, got %d", len(rw.reviews))
	}
	if diff := cmp.Diff(want, rw.reviews[0].ResourceAttributes); diff != "" {
		t.Errorf("review: -want, +got:\n%s", diff)
	}

	rw.allow = func(string, *authorizationv1.ResourceAttributes) bool { return true }
	w = widget(t, "team-a", "w", `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {matchLabels: [{key: app, value: db}]}, fieldPath: data.region}
  toFieldPath: spec.out`)
	_, err = NewResolver(reader, testMapper(), SourcePolicy{}, WithAccessReview(&AccessReview{Client: rw, ServiceAccount: "reader"})).Resolve(t.Context(), w)
	require.NoError(t, err)
}

// TestSelectTooMany: more matches than a selector reads fail, whatever
// maxMatch says.
func TestSelectTooMany(t *testing.T) {
	var objs []*unstructured.Unstructured
	for i := range maxSelected + 1 {
		objs = append(objs, labelled("team-a", "cm-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"-"+itoa(i), map[string]string{"app": "many"}, map[string]any{"v": "x"}))
	}
	_, _, err := resolveWith(t, SourcePolicy{}, `
externalValues:
- fromObject: {version: v1, resource: configmaps, selector: {mode: Multiple, maxMatch: 1, matchLabels: [{key: app, value: many}]}, fieldPath: data.v}
  toFieldPath: spec.out`, objs...)
	if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "257 objects match the selector, more than 256") {
		t.Errorf("error: want ErrAmbiguous for 257 matches, got %v", err)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
