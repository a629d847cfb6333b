package testenv

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	t.Run("DoneOnTheThirdCall", func(t *testing.T) {
		calls := 0
		err := poll(time.Minute, func() error {
			if calls++; calls < 3 {
				return fmt.Errorf("call %d", calls)
			}
			return nil
		})
		if err != nil || calls != 3 {
			t.Errorf("poll: want nil after 3, got error %v after %d calls", err, calls)
		}
	})
	t.Run("LastErrorAfterTheDeadline", func(t *testing.T) {
		calls := 0
		began := time.Now()
		err := poll(50*time.Millisecond, func() error {
			calls++
			return fmt.Errorf("call %d", calls)
		})
		if want := fmt.Sprintf("call %d", calls); err == nil || err.Error() != want {
			t.Errorf("poll: want the last one, %q, got error %v", want, err)
		}
		if calls < 2 {
			t.Errorf("poll: check called %d times within 50ms, want it called again at the deadline", calls)
		}
		if took := time.Since(began); took < 50*time.Millisecond {
			t.Errorf("poll: gave up after %s, before the deadline", took)
		}
	})
	t.Run("ZeroWithinCallsOnce", func(t *testing.T) {
		calls := 0
		errNo := errors.New("no")
		if err := poll(0, func() error { calls++; return errNo }); !errors.Is(err, errNo) || calls != 1 {
			t.Errorf("poll(0): want %v after 1, got %v after %d calls", errNo, err, calls)
		}
	})
}
