package extref

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestListFailedUsesResolverClock: a kind that the cache's list or watch
// finds forbidden or not served is timed by the clock of the Resolver that
// shares the UnreadableKinds, not by the real one, so its re-check comes
// recheckMin after that clock's now.
func TestListFailedUsesResolverClock(t *testing.T) {
	gr := schema.GroupResource{Group: "example.org", Resource: "widgets"}
	cases := map[string]struct {
		reason string
		err    error
	}{
		"Forbidden": {reason: "A forbidden list is timed by the Resolver's clock.", err: apierrors.NewForbidden(gr, "", errors.New("no"))},
		"NotFound":  {reason: "A resource not served is timed by the Resolver's clock.", err: apierrors.NewNotFound(gr, "")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			now := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			var u UnreadableKinds
			NewResolver(nil, nil, SourcePolicy{}, WithClock(clocktesting.NewFakePassiveClock(now)), WithUnreadableKinds(&u))
			r := toolscache.NewReflector(&toolscache.ListWatch{}, &unstructured.Unstructured{}, toolscache.NewStore(toolscache.MetaNamespaceKeyFunc), 0)

			u.WatchErrorHandler(t.Context(), r, tc.err)

			k := u.kinds.kinds[gr]
			require.NotNil(t, k, "the kind is not recorded as unreadable")
			if diff := cmp.Diff(now.Add(recheckMin), k.next); diff != "" {
				t.Errorf("%s\nnext re-check: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
