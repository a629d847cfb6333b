// Package conflict retries a write that meets a conflict (the object
// changed since it was read), with full-jitter back-off and a bound on the
// attempts. It is the one retry loop behind scopes.Backoff and
// directstatus.Backoff, which declare the option of the same fields in their
// own packages (an option's method cannot be declared in another package);
// each converts its Backoff to this one. It imports apimachinery's errors
// only.
package conflict

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Backoff says how to wait between attempts after a conflict, and how many
// attempts to make. The wait before attempt n+1 is drawn at random between
// zero and min(Initial·2ⁿ⁻¹, Max) ("full jitter"), so that concurrent
// writers spread out instead of meeting again.
type Backoff struct {
	// Initial bounds the first wait.
	Initial time.Duration
	// Max bounds every wait; below Initial, Initial.
	Max time.Duration
	// Attempts is the most attempts, the first included.
	Attempts int
}

// WithDefaults returns b with each field of zero or less taken from def,
// and Max at least Initial.
func (b Backoff) WithDefaults(def Backoff) Backoff {
	if b.Initial <= 0 {
		b.Initial = def.Initial
	}
	if b.Max <= 0 {
		b.Max = def.Max
	}
	if b.Attempts <= 0 {
		b.Attempts = def.Attempts
	}
	b.Max = max(b.Max, b.Initial)
	return b
}

// Retry calls attempt until it returns anything but a conflict, the
// attempts run out, or ctx is done, waiting as b says in between; b's fields
// must be positive (WithDefaults). Giving up, it returns an error that wraps
// the last conflict, so that apierrors.IsConflict still recognizes it.
func Retry(ctx context.Context, b Backoff, attempt func() error) error {
	bound := b.Initial
	for n := 1; ; n++ {
		err := attempt()
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
		if n >= b.Attempts {
			return fmt.Errorf("gave up after %d attempts, each of which met a conflict (retry later): %w", n, err)
		}
		t := time.NewTimer(time.Duration(rand.Int64N(int64(bound))) + 1)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("gave up after %d attempts: %w (the last: %w)", n, context.Cause(ctx), err)
		case <-t.C:
		}
		bound = min(2*bound, b.Max)
	}
}
