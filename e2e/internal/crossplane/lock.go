package crossplane

import (
	"context"
	"io"

	"github.com/ctrlkit/ctrlkit/internal/controlplane"
)

// lock takes the Crossplane cache's lock the way the control plane's cache
// takes its own (controlplane.LockCache).
func lock(ctx context.Context, path string, progress io.Writer) (func(), error) {
	return controlplane.LockCache(ctx, path, "crossplane", "crossplane", progress)
}
