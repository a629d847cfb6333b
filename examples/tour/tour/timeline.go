package tour

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
)

// A Transition is one change of one condition of one object, as a watch
// delivered it.
type Transition struct {
	// Seen is when the watch event arrived.
	Seen time.Time
	// Kind and Object name the object (Object is namespace/name or name).
	Kind, Object string
	// Condition is the condition after the change.
	Condition metav1.Condition
}

// Timeline watches objects of several kinds and records, and prints, every
// change of their status conditions (type, status, reason or message).
type Timeline struct {
	c     client.WithWatch
	out   io.Writer
	start time.Time

	wg      sync.WaitGroup
	mu      sync.Mutex
	last    map[string]map[string]metav1.Condition // object -> type -> condition
	history []Transition
}

// NewTimeline returns a Timeline that prints to out.
func NewTimeline(c client.WithWatch, out io.Writer) *Timeline {
	return &Timeline{c: c, out: out, start: time.Now(), last: map[string]map[string]metav1.Condition{}}
}

// Watch records the conditions of every object of gvk until ctx ends,
// reconnecting when the watch closes. It returns at once; errors are retried.
func (t *Timeline) Watch(ctx context.Context, gvk schema.GroupVersionKind) {
	t.wg.Go(func() {
		for ctx.Err() == nil {
			if err := t.watchOnce(ctx, gvk); err != nil && ctx.Err() == nil {
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}
	})
}

// Wait waits for the watches to end, after their contexts ended.
func (t *Timeline) Wait() { t.wg.Wait() }

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (t *Timeline) watchOnce(ctx context.Context, gvk schema.GroupVersionKind) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := t.c.List(ctx, list); err != nil {
		return err
	}
	for i := range list.Items {
		t.observe(&list.Items[i])
	}
	w, err := t.c.Watch(ctx, list, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.GetResourceVersion()}})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			if ev.Type != watch.Added && ev.Type != watch.Modified {
				continue
			}
			if u, ok := ev.Object.(*unstructured.Unstructured); ok {
				t.observe(u)
			}
		}
	}
}

// observe records and prints the conditions of u that changed.
func (t *Timeline) observe(u *unstructured.Unstructured) {
	cs, err := conditions.FromUnstructured(u)
	if err != nil {
		return
	}
	key := u.GetKind() + " " + objectName(u)
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	prev := t.last[key]
	if prev == nil {
		prev = map[string]metav1.Condition{}
		t.last[key] = prev
	}
	for _, c := range cs {
		p, ok := prev[c.Type]
		if ok && p.Status == c.Status && p.Reason == c.Reason && p.Message == c.Message {
			continue
		}
		prev[c.Type] = c
		tr := Transition{Seen: now, Kind: u.GetKind(), Object: objectName(u), Condition: c}
		t.history = append(t.history, tr)
		fmt.Fprintf(t.out, "%s  +%5.1fs  %-22s %-12s %-7s %-16s %s\n", now.Format("15:04:05.000"), now.Sub(t.start).Seconds(),
			tr.Kind+" "+tr.Object, c.Type, c.Status, c.Reason, oneLine(c.Message))
	}
}

// History returns the transitions recorded for the object (kind and
// namespace/name) so far, in the order they were seen.
func (t *Timeline) History(kind, object string) []Transition {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Transition
	for _, tr := range t.history {
		if tr.Kind == kind && tr.Object == object {
			out = append(out, tr)
		}
	}
	return out
}

func objectName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 110 {
		s = s[:107] + "..."
	}
	return s
}
