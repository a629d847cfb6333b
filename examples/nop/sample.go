package main

import (
	"context"
	_ "embed"
	"errors"
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

// sampleLabel marks the sample as this example's: it replaces only an
// object that carries it.
const sampleLabel = "nop.ctrlkit.dev/sample"

// errNotOurs is returned when an object of the sample's name exists and is
// not the example's.
var errNotOurs = errors.New("not created by this example")

// sample is the design's NopResource (example.yaml), and what has become of
// its schedule.
type sample struct {
	obj    *v1alpha1.NopResource
	last   int           // the index of its schedule's last entry
	done   chan struct{} // closed when the last entry has landed
	finish func()

	mu      sync.Mutex
	created time.Time // when the sample's creation returned: its first observation
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
	ours := t.Object == client.ObjectKeyFromObject(s.obj)
	s.mu.Lock()
	created := s.created
	s.mu.Unlock()
	if !ours {
		created = time.Time{}
	}
	fmt.Println(describe(t, created))
	if ours && t.Entry == s.last {
		s.finish()
	}
}

// describe says when t landed and how late. creationTimestamp has a
// precision of one second, so an entry due within a resource's first second
// may be due before the resource existed: its lateness is measured from
// firstSeen (when the resource was first observed), or, when that is
// unknown (zero), the entry is said to be due at creation.
func describe(t nop.Transition, firstSeen time.Time) string {
	head := fmt.Sprintf("%s  %s %s  %s=%s (%s)  ", t.Landed.Format("15:04:05.000"), t.Kind, t.Object,
		t.Condition.Type, t.Condition.Status, t.Condition.Reason)
	switch {
	case !firstSeen.IsZero() && t.Due.Before(firstSeen):
		return head + fmt.Sprintf("due before the resource was first observed (%s), %s after that", firstSeen.Format("15:04:05.000"), t.Landed.Sub(firstSeen).Round(time.Millisecond))
	case firstSeen.IsZero() && t.Due.Before(t.Created.Add(time.Second)):
		return head + "due at creation"
	}
	return head + fmt.Sprintf("due %s, %s late", t.Due.Format("15:04:05"), t.Lateness().Round(time.Millisecond))
}

// The sample's permissions (the demo role, apart from the provider's):
// recreate reads, deletes and creates the sample NopResource.
//
// +kubebuilder:rbac:groups=nop.ctrlkit.dev,resources=nopresources,verbs=get;create;delete
//
// The example removes what it created (run.Example.Objects): it lists and
// deletes them, and patches those kept with --keep-running to release their
// finalizers.
//
// +kubebuilder:rbac:groups=nop.ctrlkit.dev,resources=nopresources;clusternopresources,verbs=list;delete;patch

// recreate deletes a sample left by an earlier run, since its schedule has
// passed, and creates it anew. An object of the sample's name that does not
// carry the sample's label is someone else's: it is left alone, and recreate
// fails with errNotOurs.
func (s *sample) recreate(ctx context.Context, c client.Client) error {
	obj := s.obj.DeepCopy()
	old := &v1alpha1.NopResource{}
	switch err := c.Get(ctx, client.ObjectKeyFromObject(obj), old); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("cannot read NopResource %s: %w", client.ObjectKeyFromObject(obj), err)
	case old.Labels[sampleLabel] != obj.Labels[sampleLabel]:
		return fmt.Errorf("cannot create the sample: NopResource %s exists and was %w (it has no label %s=%s); delete or rename it",
			client.ObjectKeyFromObject(obj), errNotOurs, sampleLabel, obj.Labels[sampleLabel])
	default:
		// The sample of an earlier run: its UID is the precondition, so that
		// an object created in its place meanwhile is not deleted.
		if err := c.Delete(ctx, old, client.Preconditions{UID: &old.UID}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("cannot delete the old sample: %w", err)
		}
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
	s.mu.Lock()
	s.created = time.Now()
	s.mu.Unlock()
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
