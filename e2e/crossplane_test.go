package e2e

import "testing"

// TestCrossplane runs the scenarios, in order, against one Crossplane.
func TestCrossplane(t *testing.T) {
	s := startSuite(t)
	t.Run("NopComposition", func(t *testing.T) { testNopComposition(t, s) })
	t.Run("ClaimConditions", func(t *testing.T) { testClaimConditions(t, s) })
	t.Run("ClaimFailure", func(t *testing.T) { testClaimFailure(t, s) })
}
