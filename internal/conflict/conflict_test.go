package conflict

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRetry(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "widgets"}, "w", errors.New("modified"))
	other := errors.New("boom")
	cases := map[string]struct {
		reason       string
		results      []error // what each attempt returns; past the end, nil
		attempts     int
		want         int // attempts made
		wantConflict bool
		wantErr      error
	}{
		"Success":    {reason: "A first success is one attempt.", attempts: 3, want: 1},
		"Retried":    {reason: "Conflicts are retried until one succeeds.", results: []error{conflict, conflict}, attempts: 3, want: 3},
		"GivesUp":    {reason: "After Attempts conflicts the last is returned, wrapped.", results: []error{conflict, conflict, conflict}, attempts: 2, want: 2, wantConflict: true},
		"NotRetried": {reason: "Another error ends the retries.", results: []error{other, conflict}, attempts: 3, want: 1, wantErr: other},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := 0
			err := Retry(t.Context(), Backoff{Initial: time.Millisecond, Max: time.Millisecond, Attempts: tc.attempts}, func() error {
				n++
				if n <= len(tc.results) {
					return tc.results[n-1]
				}
				return nil
			})
			if diff := cmp.Diff(tc.want, n); diff != "" {
				t.Errorf("%s\nattempts: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantConflict, apierrors.IsConflict(err)); diff != "" {
				t.Errorf("%s\nIsConflict(%v): -want, +got:\n%s", tc.reason, err, diff)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("%s\nwant an error wrapping %v, got %v", tc.reason, tc.wantErr, err)
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	def := Backoff{Initial: 10 * time.Millisecond, Max: 500 * time.Millisecond, Attempts: 10}
	cases := map[string]struct {
		reason string
		in     Backoff
		want   Backoff
	}{
		"Zero":         {reason: "Zero fields are the default's.", want: def},
		"MaxBelowInit": {reason: "Max is at least Initial.", in: Backoff{Initial: time.Second, Max: time.Millisecond}, want: Backoff{Initial: time.Second, Max: time.Second, Attempts: 10}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.in.WithDefaults(def)); diff != "" {
				t.Errorf("%s\nWithDefaults: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
