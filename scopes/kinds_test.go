package scopes

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kindRecorder records the kinds a reader is asked to get or list.
type kindRecorder struct {
	client.Reader
	kinds []string
}

func (r *kindRecorder) record(obj runtime.Object) {
	kind := strings.TrimSuffix(obj.GetObjectKind().GroupVersionKind().Kind, "List")
	if !slices.Contains(r.kinds, kind) {
		r.kinds = append(r.kinds, kind)
	}
}

func (r *kindRecorder) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.record(obj)
	return r.Reader.Get(ctx, key, obj, opts...)
}

func (r *kindRecorder) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r.record(list)
	return r.Reader.List(ctx, list, opts...)
}

func TestNotSecret(t *testing.T) {
	for gk, want := range map[schema.GroupKind]bool{
		{Kind: "Secret"}:                       false,
		{Kind: "secret"}:                       false,
		{Kind: "SECRET"}:                       false,
		{Kind: "ConfigMap"}:                    true,
		{Kind: "Secrets"}:                      true,
		{Group: "example.org", Kind: "Secret"}: true,
		{Group: "apps", Kind: "Deployment"}:    true,
	} {
		if got := NotSecret(gk); got != want {
			t.Errorf("NotSecret(%v) = %v, want %v", gk, got, want)
		}
		if got := ReadKinds(nil).Allows(gk); got != want {
			t.Errorf("ReadKinds(nil).Allows(%v) = %v, want %v", gk, got, want)
		}
	}
}

// TestLocateReadKinds: by default, a reference to a Secret and a child
// resource kind Secret are refused without a read, the workload's other
// children still found; ReadKinds replaces the default, in both places.
func TestLocateReadKinds(t *testing.T) {
	ctx := t.Context()
	objects := func() *kindRecorder {
		return &kindRecorder{Reader: (&memReader{}).add(
			definition("WorkloadDefinition", "example-workload.oam.dev", `{"childResourceKinds":[{"apiVersion":"v1","kind":"Secret"},{"apiVersion":"v1","kind":"Service"}]}`),
			object("oam.dev/v1alpha2", "example-workload", "prod", "w", "W", nil),
			object("v1", "Secret", "prod", "s", "S", nil),
			object("v1", "Secret", "prod", "w-creds", "S2", nil, "W!"),
			object("v1", "Service", "prod", "web", "s1", nil, "W!"),
		)}
	}
	scope := scopeOf(t, `{"workloadRefs":[
		{"apiVersion":"v1","kind":"Secret","name":"s"},
		{"apiVersion":"oam.dev/v1alpha2","kind":"example-workload","name":"w"}]}`)
	scope.SetNamespace("prod")

	type summary struct {
		Workload string
		Children []string
		Err      string
	}
	summarize := func(got []Located) []summary {
		var out []summary
		for _, l := range got {
			s := summary{Children: ids(l.Children)}
			if l.Workload != nil {
				s.Workload = l.Workload.GetName()
			}
			if l.Err != nil {
				s.Err = l.Err.Error()
				if !errors.Is(l.Err, ErrKindNotAllowed) {
					t.Errorf("%s: err = %v, want it to wrap ErrKindNotAllowed", l.Ref, l.Err)
				}
			}
			out = append(out, s)
		}
		return out
	}

	r := objects()
	got, err := Locate(ctx, r, testMapper(), scope, AtPath("spec.workloadRefs"))
	if !errors.Is(err, ErrKindNotAllowed) {
		t.Errorf("err = %v, want it to wrap ErrKindNotAllowed", err)
	}
	want := []summary{
		{Err: `cannot locate workload v1 Secret "s" of HealthScope prod/hs: objects of kind Secret are not read unless the ReadKinds option allows them: kind not allowed`},
		{Workload: "w", Children: []string{"Service v1 prod/web"},
			Err: `cannot locate workload oam.dev/v1alpha2 example-workload "w" of HealthScope prod/hs: cannot find the child resources of example-workload prod/w: objects of kind Secret are not read unless the ReadKinds option allows them: kind not allowed`},
	}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("by default: -want, +got:\n%s", diff)
	}
	if slices.Contains(r.kinds, "Secret") {
		t.Errorf("by default, kinds read = %v: want no Secret", r.kinds)
	}

	r = objects()
	got, err = Locate(ctx, r, testMapper(), scope, AtPath("spec.workloadRefs"), ReadKinds(func(gk schema.GroupKind) bool { return gk.Kind != "Service" }))
	if !errors.Is(err, ErrKindNotAllowed) {
		t.Errorf("err = %v, want it to wrap ErrKindNotAllowed", err)
	}
	want = []summary{
		{Workload: "s"},
		{Workload: "w", Children: []string{"Secret v1 prod/w-creds"},
			Err: `cannot locate workload oam.dev/v1alpha2 example-workload "w" of HealthScope prod/hs: cannot find the child resources of example-workload prod/w: objects of kind Service are not read unless the ReadKinds option allows them: kind not allowed`},
	}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("ReadKinds allowing Secrets and not Services: -want, +got:\n%s", diff)
	}
	if slices.Contains(r.kinds, "Service") {
		t.Errorf("kinds read = %v: want no Service", r.kinds)
	}
}

func TestChildResourcesReadKinds(t *testing.T) {
	ctx := t.Context()
	workload := object("oam.dev/v1alpha2", "example-workload", "prod", "w", "W", nil)
	r := &kindRecorder{Reader: cluster().add(
		object("v1", "Secret", "prod", "w-creds", "S", nil, "W!"),
		object("v1", "ConfigMap", "prod", "w-config", "C", nil, "W!"),
	)}
	kinds := []ChildResourceKind{
		{APIVersion: "v1", Kind: "Secret"},
		{APIVersion: "v1", Kind: "secret"},
		{APIVersion: "v1", Kind: "Secret", Selector: map[string]string{"app": "web"}},
		services,
	}
	got, err := ChildResources(ctx, r, workload, kinds)
	if !errors.Is(err, ErrKindNotAllowed) {
		t.Errorf("err = %v, want it to wrap ErrKindNotAllowed", err)
	}
	const msg = "cannot find the child resources of example-workload prod/w: objects of kinds Secret, secret are not read unless the ReadKinds option allows them: kind not allowed"
	if err == nil || err.Error() != msg {
		t.Errorf("err = %v, want %q", err, msg)
	}
	if diff := cmp.Diff([]string{"Service v1 prod/web", "Service v1 prod/web-internal"}, ids(got)); diff != "" {
		t.Errorf("the other kinds' children: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Service"}, r.kinds); diff != "" {
		t.Errorf("kinds read: -want, +got:\n%s", diff)
	}

	r.kinds = nil
	got, err = ChildResources(ctx, r, workload, []ChildResourceKind{{APIVersion: "v1", Kind: "Secret"}, {APIVersion: "v1", Kind: "ConfigMap"}},
		ReadKinds(func(gk schema.GroupKind) bool { return gk == schema.GroupKind{Kind: "Secret"} }))
	if !errors.Is(err, ErrKindNotAllowed) || !strings.Contains(err.Error(), "objects of kind ConfigMap are not read") {
		t.Errorf("err = %v, want it to refuse ConfigMap and wrap ErrKindNotAllowed", err)
	}
	if diff := cmp.Diff([]string{"Secret v1 prod/w-creds"}, ids(got)); diff != "" {
		t.Errorf("ReadKinds allowing Secrets only: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Secret"}, r.kinds); diff != "" {
		t.Errorf("kinds read: -want, +got:\n%s", diff)
	}
}
