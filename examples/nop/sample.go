package main

import (
	"context"
	_ "embed"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

//go:embed example.yaml
var exampleYAML []byte

// sample is the design's NopResource (example.yaml), and what has become of
// its schedule.
type sample struct {
	obj    *v1alpha1.NopResource
	last   int           // the index of its schedule's last entry
	done   chan struct{} // closed when the last entry has landed
	finish func()
}

func readSample() (*sample, error) {
	obj := &v1alpha1.NopResource{}
	if err := yaml.Unmarshal(exampleYAML, obj); err != nil {
		return nil, fmt.Errorf("cannot read the sample: %w", err)
	}
	s := &sample{obj: obj, last: len(obj.Spec.ForProvider.ConditionAfter) - 1, done: make(chan struct{})}
	s.finish = sync.OnceFunc(func() { close(s.done) })
	return s, nil
}

// print prints a transition of any object, and notes the sample's last.
func (s *sample) print(t nop.Transition) {
	fmt.Printf("%s  %s %s  %s=%s (%s)  due %s, %s late\n", t.Landed.Format("15:04:05.000"), t.Kind, t.Object,
		t.Condition.Type, t.Condition.Status, t.Condition.Reason, t.Due.Format("15:04:05"), t.Lateness().Round(time.Millisecond))
	if t.Object == client.ObjectKeyFromObject(s.obj) && t.Entry == s.last {
		s.finish()
	}
}

// recreate deletes a sample left by an earlier run, since its schedule has
// passed, and creates it anew.
func (s *sample) recreate(ctx context.Context, c client.Client) error {
	obj := s.obj.DeepCopy()
	if err := c.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("cannot delete the old sample: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), &v1alpha1.NopResource{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if err != nil {
		return fmt.Errorf("cannot delete the old sample: %w", err)
	}
	obj = s.obj.DeepCopy()
	if err := c.Create(ctx, obj); err != nil {
		return fmt.Errorf("cannot create the sample: %w", err)
	}
	fmt.Printf("created NopResource %s at %s; its schedule: Ready False at 5s, True at 10s, Synced False at 15s, True at 20s\n",
		client.ObjectKeyFromObject(obj), obj.CreationTimestamp.Format("15:04:05"))
	return nil
}

// wait waits for the sample's last transition.
func (s *sample) wait(ctx context.Context) error {
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
