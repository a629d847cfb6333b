package scopes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// memReader is an in-memory client.Reader of unstructured objects, for the
// pure logic of ChildResources and for benchmarks. It returns the stored
// objects without copying them (a cache's reader copies; the API server
// decodes). What it does not model is tested against the real API server in
// apiserver_test.go.
type memReader struct {
	objects map[schema.GroupVersionKind][]*unstructured.Unstructured
	lists   int
	failOn  string // a kind whose List fails
}

func (r *memReader) add(objs ...*unstructured.Unstructured) *memReader {
	if r.objects == nil {
		r.objects = map[schema.GroupVersionKind][]*unstructured.Unstructured{}
	}
	for _, o := range objs {
		r.objects[o.GroupVersionKind()] = append(r.objects[o.GroupVersionKind()], o)
	}
	return r
}

func (r *memReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	u := obj.(*unstructured.Unstructured)
	for _, o := range r.objects[u.GroupVersionKind()] {
		if o.GetNamespace() == key.Namespace && o.GetName() == key.Name {
			u.Object = o.DeepCopy().Object
			return nil
		}
	}
	gvk := u.GroupVersionKind()
	return notFound(gvk, key.Name)
}

func (r *memReader) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r.lists++
	ul := list.(*unstructured.UnstructuredList)
	gvk := ul.GroupVersionKind()
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	if gvk.Kind == r.failOn {
		return fmt.Errorf("the server could not find the requested resource")
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	ul.Items = nil
	for _, obj := range r.objects[gvk] {
		if o.Namespace != "" && obj.GetNamespace() != o.Namespace {
			continue
		}
		if o.LabelSelector != nil && !o.LabelSelector.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		ul.Items = append(ul.Items, *obj)
	}
	return nil
}

func notFound(gvk schema.GroupVersionKind, name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: strings.ToLower(gvk.Kind) + "s"}, name)
}

// object builds an unstructured object; owners are "uid" or "uid!" for a
// controller reference.
func object(apiVersion, kind, namespace, name, uid string, lbls map[string]string, owners ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetUID(types.UID(uid))
	u.SetLabels(lbls)
	var refs []metav1.OwnerReference
	for _, o := range owners {
		ctrl := strings.HasSuffix(o, "!")
		refs = append(refs, metav1.OwnerReference{APIVersion: "x/v1", Kind: "Owner", Name: "o", UID: types.UID(strings.TrimSuffix(o, "!")), Controller: &ctrl})
	}
	u.SetOwnerReferences(refs)
	return u
}

// id names an object in test expectations.
func id(u unstructured.Unstructured) string {
	return u.GetKind() + " " + u.GetAPIVersion() + " " + u.GetNamespace() + "/" + u.GetName()
}

func ids(us []unstructured.Unstructured) []string {
	var out []string
	for _, u := range us {
		out = append(out, id(u))
	}
	return out
}

var (
	deployments = ChildResourceKind{APIVersion: "apps/v1", Kind: "Deployment"}
	replicaSets = ChildResourceKind{APIVersion: "apps/v1", Kind: "ReplicaSet"}
	pods        = ChildResourceKind{APIVersion: "v1", Kind: "Pod"}
	services    = ChildResourceKind{APIVersion: "v1", Kind: "Service"}
)

func cluster() *memReader {
	app := map[string]string{"app": "web"}
	return (&memReader{}).add(
		object("apps/v1", "Deployment", "prod", "web-b", "d2", app, "W!"),
		object("apps/v1", "Deployment", "prod", "web-a", "d1", nil, "W!"),
		object("apps/v1", "Deployment", "prod", "shared", "d3", nil, "X!", "W"), // W is an owner, not the controller
		object("apps/v1", "Deployment", "prod", "other", "d4", nil, "X!"),
		object("apps/v1", "Deployment", "dev", "web-c", "d5", nil, "W!"), // another namespace
		object("apps/v1", "ReplicaSet", "prod", "web-a-1", "r1", nil, "d1!"),
		object("apps/v1", "ReplicaSet", "prod", "web-b-1", "r2", app, "d2!"),
		object("v1", "Pod", "prod", "web-a-1-x", "p1", nil, "r1!"),
		object("v1", "Pod", "prod", "web-b-1-y", "p2", nil, "r2!"),
		object("v1", "Pod", "prod", "stray", "p3", nil),
		object("v1", "Service", "prod", "web", "s1", app, "W!"),
		object("v1", "Service", "prod", "web-internal", "s2", nil, "W!"),
		object("example.org/v1", "Service", "prod", "web", "e1", nil, "W!"),
	)
}

func TestChildResources(t *testing.T) {
	workload := object("oam.dev/v1alpha2", "example-workload", "prod", "w", "W", nil)
	cases := map[string]struct {
		reason  string
		kinds   []ChildResourceKind
		opts    []ChildOption
		want    []string
		wantErr error
	}{
		"NoKinds": {reason: "A workload whose definition lists no kinds has no children."},
		"Owned": {
			reason: "Any owner reference to the workload's UID counts, in the workload's namespace; sorted by name.",
			kinds:  []ChildResourceKind{deployments},
			want:   []string{"Deployment apps/v1 prod/shared", "Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b"},
		},
		"ControllerOnly": {
			kinds: []ChildResourceKind{deployments},
			opts:  []ChildOption{ControllerOnly(true)},
			want:  []string{"Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b"},
		},
		"Selector": {
			kinds: []ChildResourceKind{{APIVersion: "apps/v1", Kind: "Deployment", Selector: map[string]string{"app": "web"}}},
			want:  []string{"Deployment apps/v1 prod/web-b"},
		},
		"SortedByKindThenAPIVersion": {
			kinds: []ChildResourceKind{services, deployments, {APIVersion: "example.org/v1", Kind: "Service"}},
			opts:  []ChildOption{ControllerOnly(true)},
			want: []string{
				"Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b",
				"Service example.org/v1 prod/web",
				"Service v1 prod/web", "Service v1 prod/web-internal",
			},
		},
		"OneLevel": {
			reason: "By default only direct children are found, as in OAM.",
			kinds:  []ChildResourceKind{deployments, replicaSets, pods},
			opts:   []ChildOption{ControllerOnly(true)},
			want:   []string{"Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b"},
		},
		"ThreeLevels": {
			reason: "A Deployment's ReplicaSets' Pods.",
			kinds:  []ChildResourceKind{pods, replicaSets, deployments},
			opts:   []ChildOption{ControllerOnly(true), Depth(3)},
			want: []string{
				"Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b",
				"Pod v1 prod/web-a-1-x", "Pod v1 prod/web-b-1-y",
				"ReplicaSet apps/v1 prod/web-a-1", "ReplicaSet apps/v1 prod/web-b-1",
			},
		},
		"DeeperThanTheTree": {
			kinds: []ChildResourceKind{deployments, replicaSets},
			opts:  []ChildOption{ControllerOnly(true), Depth(10)},
			want: []string{
				"Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b",
				"ReplicaSet apps/v1 prod/web-a-1", "ReplicaSet apps/v1 prod/web-b-1",
			},
		},
		"OverlappingKinds": {
			reason: "An object matched by two entries of one kind appears once.",
			kinds:  []ChildResourceKind{deployments, {APIVersion: "apps/v1", Kind: "Deployment", Selector: map[string]string{"app": "web"}}, deployments},
			opts:   []ChildOption{ControllerOnly(true)},
			want:   []string{"Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b"},
		},
		"ListFails": {
			kinds:   []ChildResourceKind{{APIVersion: "apps/v1", Kind: "Broken"}},
			wantErr: errors.New("cannot list apps/v1 Broken in namespace prod"),
		},
		"InvalidKind": {
			kinds:   []ChildResourceKind{{Kind: "Deployment"}},
			wantErr: ErrMalformed,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := cluster()
			r.failOn = "Broken"
			got, err := ChildResources(t.Context(), r, workload, tc.kinds, tc.opts...)
			if tc.wantErr != nil {
				require.Error(t, err)
				if !errors.Is(err, tc.wantErr) && !strings.Contains(err.Error(), tc.wantErr.Error()) {
					t.Fatalf("want an error like %q, got %q", tc.wantErr, err)
				}
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
				t.Errorf("%s\nChildResources(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestChildResourcesWithoutUIDs covers objects without a UID, as
// controller-runtime's fake client creates them: they are told apart by
// group, kind, namespace and name rather than all counting as one.
func TestChildResourcesWithoutUIDs(t *testing.T) {
	cases := map[string]struct {
		reason   string
		workload *unstructured.Unstructured
		objects  []*unstructured.Unstructured
		kinds    []ChildResourceKind
		opts     []ChildOption
		want     []string
	}{
		"TwoPods": {
			reason:  "Two Pods without UIDs owned by one workload are two children.",
			objects: []*unstructured.Unstructured{object("v1", "Pod", "prod", "b", "", nil, "W!"), object("v1", "Pod", "prod", "a", "", nil, "W!")},
			kinds:   []ChildResourceKind{pods},
			want:    []string{"Pod v1 prod/a", "Pod v1 prod/b"},
		},
		"ListedTwice": {
			reason:  "An object without a UID matched by two entries of its kind appears once.",
			objects: []*unstructured.Unstructured{object("apps/v1", "Deployment", "prod", "web", "", map[string]string{"app": "web"}, "W!")},
			kinds:   []ChildResourceKind{deployments, {APIVersion: "apps/v1", Kind: "Deployment", Selector: map[string]string{"app": "web"}}},
			want:    []string{"Deployment apps/v1 prod/web"},
		},
		"OneNameOtherKinds": {
			objects: []*unstructured.Unstructured{
				object("v1", "Service", "prod", "web", "", nil, "W!"),
				object("example.org/v1", "Service", "prod", "web", "", nil, "W!"),
				object("v1", "ConfigMap", "prod", "web", "", nil, "W!"),
			},
			kinds: []ChildResourceKind{services, {APIVersion: "example.org/v1", Kind: "Service"}, {APIVersion: "v1", Kind: "ConfigMap"}},
			want:  []string{"ConfigMap v1 prod/web", "Service example.org/v1 prod/web", "Service v1 prod/web"},
		},
		"OneNameOtherNamespaces": {
			reason:   "A cluster-scoped workload's children without UIDs, of one name in two namespaces.",
			workload: object("x/v1", "ClusterWorkload", "", "w", "W", nil),
			objects:  []*unstructured.Unstructured{object("v1", "Pod", "dev", "a", "", nil, "W!"), object("v1", "Pod", "prod", "a", "", nil, "W!")},
			kinds:    []ChildResourceKind{pods},
			want:     []string{"Pod v1 dev/a", "Pod v1 prod/a"},
		},
		"MixedWithUIDs": {
			reason: "Objects with UIDs are still known by them; those without own nothing at the next level.",
			objects: []*unstructured.Unstructured{
				object("apps/v1", "ReplicaSet", "prod", "rs", "R", nil, "W!"),
				object("apps/v1", "ReplicaSet", "prod", "rs-no-uid", "", nil, "W!"),
				object("v1", "Pod", "prod", "p1", "", nil, "R!"),
				object("v1", "Pod", "prod", "p2", "", nil, "R!"),
				object("v1", "Pod", "prod", "stray", "", nil, "!"),
			},
			kinds: []ChildResourceKind{replicaSets, pods},
			opts:  []ChildOption{Depth(3)},
			want:  []string{"Pod v1 prod/p1", "Pod v1 prod/p2", "ReplicaSet apps/v1 prod/rs", "ReplicaSet apps/v1 prod/rs-no-uid"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := tc.workload
			if w == nil {
				w = object("oam.dev/v1alpha2", "example-workload", "prod", "w", "W", nil)
			}
			got, err := ChildResources(t.Context(), (&memReader{}).add(tc.objects...), w, tc.kinds, tc.opts...)
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
				t.Errorf("%s\nChildResources(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestChildResourcesCycle(t *testing.T) {
	// Owner references that form a cycle (A owns B, B owns A) end the walk.
	r := (&memReader{}).add(
		object("v1", "ConfigMap", "ns", "a", "A", nil, "W", "B"),
		object("v1", "ConfigMap", "ns", "b", "B", nil, "A"),
	)
	w := object("v1", "Thing", "ns", "w", "W", nil)
	got, err := ChildResources(t.Context(), r, w, []ChildResourceKind{{APIVersion: "v1", Kind: "ConfigMap"}}, Depth(100))
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"ConfigMap v1 ns/a", "ConfigMap v1 ns/b"}, ids(got)); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}

func TestChildResourcesClusterScopedWorkload(t *testing.T) {
	// A cluster-scoped workload's children are looked for in every namespace.
	w := object("x/v1", "ClusterWorkload", "", "w", "W", nil)
	got, err := ChildResources(t.Context(), cluster(), w, []ChildResourceKind{deployments}, ControllerOnly(true))
	require.NoError(t, err)
	want := []string{"Deployment apps/v1 dev/web-c", "Deployment apps/v1 prod/web-a", "Deployment apps/v1 prod/web-b"}
	if diff := cmp.Diff(want, ids(got)); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}

func TestChildResourcesNeedsUID(t *testing.T) {
	w := object("x/v1", "W", "ns", "w", "", nil)
	_, err := ChildResources(t.Context(), cluster(), w, []ChildResourceKind{deployments})
	if !errors.Is(err, ErrInvalidRef) {
		t.Errorf("err = %v, want %v", err, ErrInvalidRef)
	}
	if err == nil || !strings.Contains(err.Error(), "has no UID") {
		t.Errorf("err = %v, want it to contain %q", err, "has no UID")
	}
	_, err = ChildResources(t.Context(), cluster(), nil, []ChildResourceKind{deployments})
	if !errors.Is(err, ErrInvalidRef) {
		t.Errorf("err = %v, want %v", err, ErrInvalidRef)
	}
}

// bareLists is a reader whose lists return items with nothing but their
// owner references, as OAM's runtime's tests mock them: no apiVersion, kind,
// name or UID.
type bareLists map[string][]unstructured.Unstructured

func (bareLists) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errors.New("not supported")
}

func (b bareLists) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	ul := list.(*unstructured.UnstructuredList)
	ul.Items = b[strings.TrimSuffix(ul.GetKind(), "List")]
	return nil
}

func TestChildResourcesBareItems(t *testing.T) {
	owned := func(uid string) unstructured.Unstructured {
		var u unstructured.Unstructured
		u.SetOwnerReferences([]metav1.OwnerReference{{UID: types.UID(uid)}})
		return u
	}
	r := bareLists{
		"Deployment": {owned("other"), owned("W"), owned("other")},
		"Service":    {owned("W")},
	}
	got, err := ChildResources(t.Context(), r, object("core.oam.dev/v1alpha2", "ContainerizedWorkload", "prod", "w", "W", nil), []ChildResourceKind{deployments, services})
	require.NoError(t, err)
	want := []unstructured.Unstructured{owned("W"), owned("W")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("one child listed as a Deployment and one as a Service, neither with a kind or a name, are two children: -want, +got:\n%s", diff)
	}
}
