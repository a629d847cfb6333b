package run

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// TestManagerCacheDropsManagedFields: the examples' manager cache keeps an
// object without its managedFields, with its annotations (the
// last-applied-configuration one included) and everything else; an
// example's Cache hook still has the last word.
func TestManagerCacheDropsManagedFields(t *testing.T) {
	newObject := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"region": "eu"}}}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetName("o")
		u.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"spec":{"region":"eu"}}`})
		u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}})
		return u
	}
	s := &settings{metricsAddr: "0", probeAddr: "0"}
	mo := Example{}.managerOptions(s, nil, func() bool { return false })
	if mo.Cache.DefaultTransform == nil {
		t.Fatal("the manager's cache has no DefaultTransform: want one that drops managedFields")
	}
	got, err := mo.Cache.DefaultTransform(newObject())
	if err != nil {
		t.Fatal(err)
	}
	want := newObject()
	want.SetManagedFields(nil)
	if diff := cmp.Diff(want.Object, got.(*unstructured.Unstructured).Object); diff != "" {
		t.Errorf("the cache's transform: -want, +got:\n%s", diff)
	}

	hooked := Example{Cache: func(o *cache.Options) { o.DefaultTransform = nil }}.managerOptions(s, nil, func() bool { return false })
	if hooked.Cache.DefaultTransform != nil {
		t.Error("an example's Cache hook that clears DefaultTransform: still set")
	}
}
