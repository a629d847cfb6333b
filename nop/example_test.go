package nop_test

import (
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// A provider embeds the nop controllers in its own manager; the API server
// must serve the CRDs in nop/crds.
func ExampleSetup() {
	var cfg *rest.Config // e.g. from controller-runtime's config.GetConfig
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	mgr, err := manager.New(cfg, manager.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	err = nop.Setup(mgr, nop.Options{
		MaxConcurrentReconciles: 10,
		OnTransition: func(t nop.Transition) {
			fmt.Printf("%s %s: %s=%s, %s late\n", t.Kind, t.Object, t.Condition.Type, t.Condition.Status, t.Lateness())
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	// mgr.Start(ctx) runs the controllers.
}

func ExampleTransition_Lateness() {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t := nop.Transition{
		Kind:      v1alpha1.NopResourceKind,
		Object:    types.NamespacedName{Namespace: "default", Name: "example"},
		Condition: metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue},
		Entry:     1,
		Due:       created.Add(10 * time.Second),
		Landed:    created.Add(10*time.Second + 12*time.Millisecond),
	}
	fmt.Printf("%s %s: entry %d, %s=%s, %s late\n", t.Kind, t.Object, t.Entry, t.Condition.Type, t.Condition.Status, t.Lateness())
	// Output: NopResource default/example: entry 1, Ready=True, 12ms late
}
