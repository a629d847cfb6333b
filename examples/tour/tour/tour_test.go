package tour_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/examples/tour/tour"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDDirs(tour.CRDDirsUnder("../../..")...), testenv.WithScheme(tour.AddToScheme))
}

// TestTour plays the whole tour twice against one real API server, playing
// kube-controller-manager as `make demo` does on a local control plane, and
// expects every scenario to pass both times. The first run keeps its objects
// (Watch, then the end of its context, as --watch and Ctrl-C do); the second
// deletes them before it starts, and its own at the end.
func TestTour(t *testing.T) {
	env := testenv.Get(t)

	first := play(t, tour.Options{Config: env.Config, Watch: true})
	if strings.Contains(first, "an earlier tour left") {
		t.Errorf("the first run in a fresh cluster found objects of an earlier tour")
	}
	n, held := owned(t, env.Config)
	if n == 0 {
		t.Fatalf("the first run, with Watch, left none of its objects")
	}
	if held != 0 {
		t.Errorf("the first run, with Watch, left %d objects with finalizers that no controller removes once it stopped", held)
	}

	second := play(t, tour.Options{Config: env.Config})
	if !strings.Contains(second, "an earlier tour left") {
		t.Errorf("the second run does not say that it deleted the first run's objects")
	}
	if !strings.Contains(second, "deleted the tour's") {
		t.Errorf("the second run does not say that it deleted its objects")
	}
	if n, _ := owned(t, env.Config); n != 0 {
		t.Errorf("%d objects labelled %s=%s are left after a run without Watch, want 0", n, tour.LabelCreatedBy, tour.CreatedBy)
	}
}

// play runs the tour with o and expects every scenario to pass. With
// o.Watch it ends the run once the summary is printed. It returns the
// output.
func play(t *testing.T, o tour.Options) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out bytes.Buffer
	o.Simulate, o.Out, o.CloudLatency = true, &out, 50*time.Millisecond
	if o.Watch {
		o.OnSummary = cancel
	}
	results, err := tour.Run(ctx, o)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatalf("tour.Run: %v", err)
	}
	if len(results) != 5 {
		t.Errorf("len(results) = %d, want 5", len(results))
	}
	for _, r := range results {
		if !r.Passed {
			t.Errorf("scenario %s failed: %s", r.Scenario, r.Observed)
		}
	}
	if !tour.Passed(results) {
		t.Error("tour.Passed = false")
	}
	for _, want := range []string{"NopResource ctrlkit-tour/tour-nops-0", "App ctrlkit-tour/shop", "Dataset ctrlkit-tour/orders", "== summary"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output does not mention %q", want)
		}
	}
	return out.String()
}

// owned counts the objects of any kind that carry the tour's label, and those
// of them with finalizers, except
// namespaces, which the tour keeps; the tour deletes only the kinds it knows
// it creates, so this finds a kind it forgot.
func owned(t *testing.T, cfg *rest.Config) (n, held int) {
	t.Helper()
	ctx := context.Background()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatalf("cannot discover the API: %v", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || r.Kind == "Namespace" {
				continue
			}
			got, err := dyn.Resource(gv.WithResource(r.Name)).List(ctx, metav1.ListOptions{LabelSelector: tour.LabelCreatedBy + "=" + tour.CreatedBy})
			if err != nil {
				t.Fatalf("cannot list %s: %v", r.Name, err)
			}
			for _, o := range got.Items {
				t.Logf("labelled as the tour's: %s %s/%s, finalizers %v", o.GetKind(), o.GetNamespace(), o.GetName(), o.GetFinalizers())
				if len(o.GetFinalizers()) > 0 {
					held++
				}
			}
			n += len(got.Items)
		}
	}
	return n, held
}
