package conflict

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestIgnore(t *testing.T) {
	gr := schema.GroupResource{Group: "example.ctrlkit.dev", Resource: "apps"}
	other := errors.New("boom")
	cases := map[string]struct {
		err, want error
	}{
		"Nil":             {err: nil, want: nil},
		"Conflict":        {err: apierrors.NewConflict(gr, "a", errors.New("changed")), want: nil},
		"WrappedConflict": {err: fmt.Errorf("cannot update: %w", apierrors.NewConflict(gr, "a", errors.New("changed"))), want: nil},
		"Other":           {err: other, want: other},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Ignore(tc.err); !errors.Is(got, tc.want) || (tc.want == nil) != (got == nil) {
				t.Errorf("Ignore(%v): want %v, got %v", tc.err, tc.want, got)
			}
		})
	}
}
