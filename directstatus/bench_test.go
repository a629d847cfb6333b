package directstatus_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/directstatus"
)

func BenchmarkUpdating(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = directstatus.Updating("spec.nodePools[2].size")
	}
}
