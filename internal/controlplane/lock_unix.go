//go:build unix

package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// lock takes an exclusive advisory lock on path, waiting for another process
// that holds it (and saying so once) until ctx ends. The lock is released when
// the returned function runs or the process exits.
func lock(ctx context.Context, path string, progress io.Writer) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open control plane cache lock %s: %w", path, err)
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("cannot lock control plane cache %s: %w", path, err)
		}
		if !said {
			fmt.Fprintf(progress, "controlplane: another process is building the control plane; waiting for it (lock %s)\n", path)
			said = true
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("cannot lock control plane cache %s: %w", path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

const lockIsReal = true
