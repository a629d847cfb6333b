package informers

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// fakeInformers are informertest's, safe for the Set's timers.
type fakeInformers struct {
	mu sync.Mutex
	*informertest.FakeInformers
}

func (f *fakeInformers) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.FakeInformers.GetInformer(ctx, obj, opts...)
}

func (f *fakeInformers) RemoveInformer(ctx context.Context, obj client.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.FakeInformers.RemoveInformer(ctx, obj)
}

// running returns the kinds with an informer.
func (f *fakeInformers) running() map[string]bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]bool{}
	for gvk := range f.InformersByGVK {
		out[gvk.Kind] = true
	}
	return out
}

func kind(group, k string) Kind {
	return Kind{GVK: schema.GroupVersionKind{Group: group, Version: "v1", Kind: k}}
}

// waitFor polls cond for up to a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5s: %s", what)
		}
	}
}

// TestSet: only allowed kinds get an informer; one whose last user leaves
// is removed after Idle, one still used or read again meanwhile is kept.
func TestSet(t *testing.T) {
	f := &fakeInformers{FakeInformers: &informertest.FakeInformers{Scheme: runtime.NewScheme()}}
	const idle = 200 * time.Millisecond
	var handlers sync.Map
	s := New(f, Options{
		Idle:   idle,
		Allows: func(gk schema.GroupKind) bool { return gk.Group == "apps" },
		Handler: func(k Kind) toolscache.ResourceEventHandler {
			handlers.Store(k, true)
			return toolscache.ResourceEventHandlerFuncs{}
		},
	})
	deploy, sts, pods := kind("apps", "Deployment"), kind("apps", "StatefulSet"), kind("", "Pod")

	s.Update(nil, []Kind{deploy, pods})
	if got := f.running(); len(got) != 0 {
		t.Errorf("before Start: informers %v, want none", got)
	}
	s.Start(t.Context())
	s.Update(nil, []Kind{deploy, sts})
	if got := f.running(); len(got) != 2 || !got["Deployment"] || !got["StatefulSet"] {
		t.Errorf("informers %v, want Deployment and StatefulSet only", got)
	}
	if _, ok := handlers.Load(pods); ok {
		t.Errorf("a handler for Pods, which the Set does not allow")
	}
	if s.Touch(pods) {
		t.Errorf("Touch(pods): want false, got true")
	}

	// Deployments lose one of their two users, StatefulSets their only one.
	s.Update([]Kind{deploy, sts}, nil)
	waitFor(t, "the StatefulSet informer to stop", func() bool { return !f.running()["StatefulSet"] })
	if !f.running()["Deployment"] {
		t.Errorf("the Deployment informer stopped while a user needs it")
	}

	// The last user leaves, but Deployments are read meanwhile.
	s.Update([]Kind{deploy, pods}, nil)
	time.Sleep(idle / 2)
	s.Touch(deploy)
	time.Sleep(idle * 3 / 4)
	if !f.running()["Deployment"] {
		t.Errorf("the Deployment informer stopped within Idle of a read")
	}
	waitFor(t, "the Deployment informer to stop", func() bool { return !f.running()["Deployment"] })
	if n := s.Len(); n != 0 {
		t.Errorf("Len: want 0, got %d", n)
	}
}

// TestReader refuses kinds the Set does not allow, before any read.
func TestReader(t *testing.T) {
	s := New(&fakeInformers{FakeInformers: &informertest.FakeInformers{}}, Options{Allows: func(gk schema.GroupKind) bool { return gk.Group == "apps" }})
	r := s.Reader(fake.NewClientBuilder().Build(), runtime.NewScheme())
	secret := &unstructured.Unstructured{}
	secret.SetAPIVersion("v1")
	secret.SetKind("Secret")
	if err := r.Get(t.Context(), client.ObjectKey{Namespace: "a", Name: "s"}, secret); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("Get of a Secret: want ErrNotAllowed, got %v", err)
	}
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("v1")
	list.SetKind("SecretList")
	if err := r.List(t.Context(), list); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("List of Secrets: want ErrNotAllowed, got %v", err)
	}
	d := &unstructured.Unstructured{}
	d.SetAPIVersion("apps/v1")
	d.SetKind("Deployment")
	if err := r.Get(t.Context(), client.ObjectKey{Namespace: "a", Name: "d"}, d); errors.Is(err, ErrNotAllowed) {
		t.Errorf("Get of a Deployment: want it read, got %v", err)
	}
}
