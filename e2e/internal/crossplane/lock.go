package crossplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// lock takes an exclusive advisory lock on path, waiting (and saying so once)
// for another process that holds it until ctx ends.
func lock(ctx context.Context, path string, progress io.Writer) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open crossplane cache lock %s: %w", path, err)
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("cannot lock crossplane cache %s: %w", path, err)
		}
		if !said {
			fmt.Fprintf(progress, "crossplane: another process is building crossplane; waiting for it (lock %s)\n", path)
			said = true
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("cannot lock crossplane cache %s: %w", path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}
