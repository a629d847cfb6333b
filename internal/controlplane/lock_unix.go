//go:build unix

package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// lock takes the control plane cache's lock (LockCache).
func lock(ctx context.Context, path string, progress io.Writer) (func(), error) {
	return LockCache(ctx, path, "controlplane", "the control plane", progress)
}

// LockCache takes an exclusive advisory lock on path, the lock of a cache of
// built binaries, waiting for another process that holds it (and saying so
// once, as cmd, building what) until ctx ends. The lock is released when the
// returned function runs or the process exits. The e2e suite's Crossplane
// cache takes it too.
func LockCache(ctx context.Context, path, cmd, what string, progress io.Writer) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s cache lock %s: %w", cacheName(what), path, err)
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("cannot lock %s cache %s: %w", cacheName(what), path, err)
		}
		if !said {
			fmt.Fprintf(progress, "%s: another process is building %s; waiting for it (lock %s)\n", cmd, what, path)
			said = true
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("cannot lock %s cache %s: %w", cacheName(what), path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

const lockIsReal = true

// cacheName names a cache in errors: "the control plane" builds the "control
// plane cache".
func cacheName(what string) string { return strings.TrimPrefix(what, "the ") }
