package extref

import (
	"context"
	"encoding/base64"
	"errors"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	testapi "github.com/ctrlkit/ctrlkit/extref/internal/testapi/v1alpha1"
)

var (
	configMapKind = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	secretKind    = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	gadgetKind    = schema.GroupVersionKind{Group: "late.extref.test.ctrlkit.dev", Version: "v1alpha1", Kind: "Gadget"}
)

// memReader is an in-memory, cache-like client.Reader of unstructured
// objects: Get returns a deep copy, as controller-runtime's cache does, or
// with client.UnsafeDisableDeepCopy the stored object itself.
type memReader struct {
	mu   sync.Mutex
	objs map[objectKey]map[string]any
	gets int
	err  error // returned by every Get when set
}

func newReader(objs ...*unstructured.Unstructured) *memReader {
	r := &memReader{objs: make(map[objectKey]map[string]any)}
	for _, o := range objs {
		r.put(o)
	}
	return r
}

func (r *memReader) put(o *unstructured.Unstructured) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.objs[objectKey{gvk: o.GroupVersionKind(), namespace: o.GetNamespace(), name: o.GetName()}] = runtime.DeepCopyJSON(o.Object)
}

func (r *memReader) reads() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gets
}

func (r *memReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gets++
	if r.err != nil {
		return r.err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return errors.New("memReader reads only unstructured objects")
	}
	gvk := u.GroupVersionKind()
	o, ok := r.objs[objectKey{gvk: gvk, namespace: key.Namespace, name: key.Name}]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, key.Name)
	}
	var o2 client.GetOptions
	if o2.ApplyOptions(opts); o2.UnsafeDisableDeepCopy != nil && *o2.UnsafeDisableDeepCopy {
		u.Object = o
		return nil
	}
	u.Object = runtime.DeepCopyJSON(o)
	return nil
}

func (r *memReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("memReader does not list")
}

// testMapper knows the kinds the tests read, but not Gadget.
func testMapper() *meta.DefaultRESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(configMapKind, meta.RESTScopeNamespace)
	m.Add(secretKind, meta.RESTScopeNamespace)
	m.Add(testapi.VPCKind, meta.RESTScopeRoot)
	m.Add(testapi.WidgetKind, meta.RESTScopeNamespace)
	m.Add(testapi.ClusterWidgetKind, meta.RESTScopeRoot)
	return m
}

// resettableMapper learns Gadget on its first Reset, as a discovery-backed
// mapper learns a CRD installed after it last looked.
type resettableMapper struct {
	*meta.DefaultRESTMapper
	resets int
}

func (m *resettableMapper) Reset() {
	m.resets++
	m.Add(gadgetKind, meta.RESTScopeNamespace)
}

func object(gvk schema.GroupVersionKind, ns, name string, content map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: content}
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func configMap(ns, name string, data map[string]any) *unstructured.Unstructured {
	return object(configMapKind, ns, name, map[string]any{"data": data})
}

func secret(ns, name string, data map[string]string) *unstructured.Unstructured {
	enc := make(map[string]any, len(data))
	for k, v := range data {
		enc[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	return object(secretKind, ns, name, map[string]any{"data": enc})
}

func vpc(name, cidr string) *unstructured.Unstructured {
	return object(testapi.VPCKind, "", name, map[string]any{"spec": map[string]any{"forProvider": map[string]any{"cidrBlock": cidr}}})
}

// widget returns a Widget (or, without a namespace, a ClusterWidget) whose
// spec is given as YAML.
func widget(t testing.TB, ns, name, specYAML string) *unstructured.Unstructured {
	t.Helper()
	spec := map[string]any{}
	if err := yaml.Unmarshal([]byte(specYAML), &spec); err != nil {
		t.Fatalf("bad spec YAML: %v", err)
	}
	kind := testapi.WidgetKind
	if ns == "" {
		kind = testapi.ClusterWidgetKind
	}
	return object(kind, ns, name, map[string]any{"spec": spec})
}

func schemaGR(group, resource string) schema.GroupResource {
	return schema.GroupResource{Group: group, Resource: resource}
}
