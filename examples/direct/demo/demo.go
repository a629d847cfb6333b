// Package demo is the script of `go run ./examples/direct`: it creates a
// Dataset, edits its spec step by step (one edit meets an injected cloud
// failure, one asks for what the cloud refuses), and prints every transition
// of its Ready condition as a watch delivers it.
package demo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/direct/cloudapi"
	"github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
)

// Options of a demo run.
type Options struct {
	// Client reaches the API server, with v1alpha1 in its scheme.
	Client client.WithWatch
	// Cloud is the fake cloud the controller calls.
	Cloud *cloudapi.Server
	// Namespace holds the demo's Dataset. Defaults to "default".
	Namespace string
	// Out receives the transcript.
	Out io.Writer
	// StepTimeout bounds the wait for each step to settle. Defaults to two
	// minutes.
	StepTimeout time.Duration
}

// A step edits the Dataset and waits until its Ready condition, at the
// edit's generation, satisfies done.
type step struct {
	title string
	edit  func(ds *v1alpha1.Dataset, cloud *cloudapi.Server)
	done  func(ready *metav1.Condition) bool
}

func upToDate(c *metav1.Condition) bool { return c.Status == metav1.ConditionTrue }

func failed(c *metav1.Condition) bool { return c.Reason == "UpdateFailure" }

var steps = []step{
	{
		title: "create Dataset orders",
		done:  upToDate,
	},
	{
		title: "edit spec.description",
		edit: func(ds *v1alpha1.Dataset, _ *cloudapi.Server) {
			ds.Spec.Description = "Orders of the web shop, by day"
		},
		done: upToDate,
	},
	{
		title: "edit spec.labels[team], while the cloud fails the next update with 503",
		edit: func(ds *v1alpha1.Dataset, cloud *cloudapi.Server) {
			cloud.InjectFailure(cloudapi.Failure{Method: http.MethodPatch, Code: http.StatusServiceUnavailable, Message: "the backend is unavailable, try again"})
			ds.Spec.Labels["team"] = "data"
		},
		done: upToDate, // after the failure, the controller's retry succeeds
	},
	{
		title: "edit spec.location, which the cloud cannot change",
		edit: func(ds *v1alpha1.Dataset, _ *cloudapi.Server) {
			ds.Spec.Location = "US"
		},
		done: failed,
	},
	{
		title: "put spec.location back",
		edit: func(ds *v1alpha1.Dataset, _ *cloudapi.Server) {
			ds.Spec.Location = "EU"
		},
		done: upToDate,
	},
}

// The demo's permissions: it creates the demo Dataset, watches it and edits
// its spec.
//
// +kubebuilder:rbac:groups=examples.ctrlkit.dev,resources=datasets,verbs=get;list;watch;create;update
//
// The example removes what it created (run.Example.Objects): it lists and
// deletes them, and patches those kept with --keep-running to release their
// finalizers.
//
// +kubebuilder:rbac:groups=examples.ctrlkit.dev,resources=datasets,verbs=list;delete;patch

// Run plays the script and returns when its last step has settled.
func Run(ctx context.Context, o Options) error {
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.StepTimeout == 0 {
		o.StepTimeout = 2 * time.Minute
	}
	ds := &v1alpha1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: "orders", Namespace: o.Namespace},
		Spec: v1alpha1.DatasetSpec{
			Description: "Orders of the web shop",
			Labels:      map[string]string{"team": "shop"},
			Location:    "EU",
		},
	}
	w, err := o.Client.Watch(ctx, &v1alpha1.DatasetList{}, client.InNamespace(o.Namespace), client.MatchingFields{"metadata.name": ds.Name})
	if err != nil {
		return fmt.Errorf("cannot watch Datasets: %w", err)
	}
	defer w.Stop()
	p := &printer{out: o.Out, start: time.Now()}

	for i, s := range steps {
		fmt.Fprintf(o.Out, "\n== step %d: %s\n", i+1, s.title)
		if s.edit == nil {
			if err := o.Client.Create(ctx, ds); err != nil {
				return fmt.Errorf("cannot create Dataset %s: %w", ds.Name, err)
			}
		} else if err := edit(ctx, o.Client, ds, func(d *v1alpha1.Dataset) { s.edit(d, o.Cloud) }); err != nil {
			return err
		}
		if err := p.until(ctx, w, ds.Generation, s.done, o.StepTimeout); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.title, err)
		}
	}
	fmt.Fprintf(o.Out, "\nThe cloud was called %d times to create, %d to update, %d to read.\n",
		o.Cloud.Calls(http.MethodPost), o.Cloud.Calls(http.MethodPatch), o.Cloud.Calls(http.MethodGet))
	return nil
}

// edit changes the Dataset's spec on the API server, on a fresh copy.
func edit(ctx context.Context, c client.Client, ds *v1alpha1.Dataset, f func(*v1alpha1.Dataset)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(ds), ds); err != nil {
			return err
		}
		f(ds)
		return c.Update(ctx, ds)
	})
	if err != nil {
		return fmt.Errorf("cannot edit Dataset %s: %w", ds.Name, err)
	}
	return nil
}

// A printer prints each new Ready condition the watch delivers.
type printer struct {
	out   io.Writer
	start time.Time
	last  metav1.Condition
}

// until prints Ready transitions until one, observed at generation gen or
// later, satisfies done.
func (p *printer) until(ctx context.Context, w watch.Interface, gen int64, done func(*metav1.Condition) bool, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("no settled Ready condition after %s; last seen: %s %s", timeout, p.last.Reason, p.last.Message)
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("the watch ended")
			}
			ds, ok := ev.Object.(*v1alpha1.Dataset)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			ready := conditions.Get(ds.Status.Conditions, conditions.TypeReady)
			if ready == nil {
				continue
			}
			if ready.Status != p.last.Status || ready.Reason != p.last.Reason || ready.Message != p.last.Message || ready.ObservedGeneration != p.last.ObservedGeneration {
				fmt.Fprintf(p.out, "%6.1fs  generation %d  Ready=%-5s  %-13s  %s\n",
					time.Since(p.start).Seconds(), ready.ObservedGeneration, ready.Status, ready.Reason, ready.Message)
				p.last = *ready
			}
			if ready.ObservedGeneration >= gen && done(ready) {
				return nil
			}
		}
	}
}
