package testenv

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStartReportsReason checks that a control plane that cannot be set up
// (here: a CRD directory that does not exist) yields an error naming the
// cause, which Get turns into a test failure rather than a skip.
func TestStartReportsReason(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "crds")
	_, err := start(settings{crdDirs: []string{missing}})
	require.Error(t, err)
	require.Contains(t, err.Error(), missing)
}
