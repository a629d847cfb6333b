package conformance

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/crds"
	nopv1alpha1 "github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func TestMain(m *testing.M) {
	testenv.Main(m,
		testenv.CRDs(crds.FS),
		testenv.WithScheme(nopv1alpha1.AddToScheme),
	)
}

// startControllers runs every kind's controllers until the returned
// function is called.
func startControllers(t *testing.T, env *testenv.Env) (stop func()) {
	t.Helper()
	mgr := newManager(t, env)
	if err := nop.Setup(mgr, nop.Options{MaxConcurrentReconciles: 4}); err != nil {
		t.Fatal(err)
	}
	return runManager(t, mgr)
}

const nopReady = `spec:
  forProvider:
    conditionAfter:
    - {conditionType: Ready, conditionStatus: "True", time: 0s}
`

var nopKind = kind{
	script: "ctrlkit.lua",
	ready:  nopReady,
	working: `spec:
  forProvider:
    conditionAfter:
    - {conditionType: Ready, conditionStatus: "True", time: 1h}
`,
	notReady: `spec:
  forProvider:
    conditionAfter:
    - {conditionType: Ready, conditionStatus: "False", time: 0s}
`,
	edit: `{spec: {forProvider: {patchReceiverField: edited}}}`,
}

var kinds = []kind{
	func() kind {
		k := nopKind
		k.name, k.apiVersion, k.namespaced = "NopResource", "nop.ctrlkit.dev/v1alpha1", true
		return k
	}(),
	func() kind {
		k := nopKind
		k.name, k.apiVersion = "ClusterNopResource", "nop.ctrlkit.dev/v1alpha1"
		return k
	}(),
}
