package testenv

import (
	"path/filepath"
	"strings"
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
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("err = %v, want it to contain %q", err, missing)
	}
}
