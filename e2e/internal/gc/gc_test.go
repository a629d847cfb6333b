package gc

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestCollect runs one pass on the real API server: a dependent whose owner
// exists stays, one whose owner is gone or was recreated (another UID) is
// deleted, one with an existing and a gone owner stays, and an object
// without ownerReferences is never touched.
func TestCollect(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	ns := env.Namespace(t, "gc")
	cm := func(name string, owners ...*corev1.ConfigMap) *corev1.ConfigMap {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		for _, o := range owners {
			c.OwnerReferences = append(c.OwnerReferences, metav1.OwnerReference{
				APIVersion: "v1", Kind: "ConfigMap", Name: o.Name, UID: o.UID,
			})
		}
		if err := env.Client.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	owner := cm("owner")
	gone := cm("gone")
	recreated := cm("recreated")
	kept := cm("kept", owner)
	orphan := cm("orphan", gone)
	stale := cm("stale", recreated)
	mixed := cm("mixed", gone, owner)
	free := cm("free")
	for _, o := range []*corev1.ConfigMap{gone, recreated} {
		if err := env.Client.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	cm("recreated")

	c := &Collector{Client: env.Client, Mapper: env.Mapper,
		Kinds: []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}}}
	if err := c.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		o    *corev1.ConfigMap
		want bool
	}{{kept, true}, {orphan, false}, {stale, false}, {mixed, true}, {free, true}, {owner, true}} {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(tc.o), &corev1.ConfigMap{})
		if exists := !apierrors.IsNotFound(err); exists != tc.want {
			t.Errorf("ConfigMap %s after a pass: want it present=%t, got %t (%v)", tc.o.Name, tc.want, exists, err)
		}
	}
}
