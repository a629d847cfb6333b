package e2e

import "testing"

// TestCrossplane runs the scenarios, in order, against one Crossplane.
// ProviderPackage installs nop as a Crossplane package and runs its
// runtime, which NopComposition needs.
func TestCrossplane(t *testing.T) {
	s := startSuite(t)
	installed := t.Run("ProviderPackage", func(st *testing.T) { testProviderPackage(st, t, s) })
	t.Run("NopComposition", func(t *testing.T) {
		if !installed {
			t.Fatal("nop's package is not installed and running (ProviderPackage failed)")
		}
		testNopComposition(t, s)
	})
	t.Run("Paused", func(t *testing.T) {
		if !installed {
			t.Fatal("nop's package is not installed and running (ProviderPackage failed)")
		}
		testPaused(t, s)
	})
	t.Run("WarningEvents", func(t *testing.T) {
		if !installed {
			t.Fatal("nop's package is not installed and running (ProviderPackage failed)")
		}
		testWarningEvents(t, s)
	})
	t.Run("ClaimConditions", func(t *testing.T) { testClaimConditions(t, s) })
	t.Run("ClaimFailure", func(t *testing.T) { testClaimFailure(t, s) })
}
