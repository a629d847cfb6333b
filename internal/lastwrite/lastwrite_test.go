package lastwrite

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestBehind(t *testing.T) {
	k := types.NamespacedName{Namespace: "default", Name: "a"}
	cases := map[string]struct {
		reason   string
		recorded string
		rv       string
		want     bool
	}{
		"NothingRecorded": {reason: "Without a write the cache is trusted.", rv: "5"},
		"Older":           {reason: "An older version is behind.", recorded: "10", rv: "9", want: true},
		"Same":            {reason: "The written version is not behind.", recorded: "10", rv: "10"},
		"Newer":           {reason: "A newer version (another writer) is not behind.", recorded: "10", rv: "11"},
		"Numeric":         {reason: "Versions compare as numbers, not strings.", recorded: "99", rv: "100"},
		"Opaque":          {reason: "A version that is not an integer is trusted.", recorded: "10", rv: "abc"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var tr Tracker
			if tc.recorded != "" {
				tr.Record(k, tc.recorded)
			}
			if got := tr.Behind(k, tc.rv); got != tc.want {
				t.Errorf("%s\nBehind(%q) after a write at %q = %t, want %t", tc.reason, tc.rv, tc.recorded, got, tc.want)
			}
			tr.Forget(k)
			if tr.Behind(k, tc.rv) {
				t.Errorf("%s\nBehind(%q) after Forget = true, want false", tc.reason, tc.rv)
			}
		})
	}
}

func TestGet(t *testing.T) {
	ctx := context.Background()
	cm := func(rv string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetNamespace("default")
		u.SetName("a")
		u.SetResourceVersion(rv)
		return u
	}
	k := types.NamespacedName{Namespace: "default", Name: "a"}
	cache := fake.NewClientBuilder().WithObjects(cm("")).Build() // the fake client sets resourceVersion 999
	fromAPI := cm("")
	fromAPI.SetLabels(map[string]string{"from": "api"})
	api := fake.NewClientBuilder().WithObjects(fromAPI).Build()
	var tr Tracker

	got := cm("")
	stale, err := tr.Get(ctx, cache, api, k, got, false)
	require.NoError(t, err)
	require.False(t, stale, "nothing recorded: the cache is trusted")

	tr.Record(k, "1000")
	stale, err = tr.Get(ctx, cache, api, k, got, false)
	require.NoError(t, err)
	require.True(t, stale, "the cache holds %s, older than the recorded write", got.GetResourceVersion())

	stale, err = tr.Get(ctx, cache, api, k, got, true)
	require.NoError(t, err)
	require.False(t, stale, "a retry is never stale")
	require.Equal(t, "api", got.GetLabels()["from"], "a retry reads the API server")

	_, err = tr.Get(ctx, cache, api, types.NamespacedName{Namespace: "default", Name: "missing"}, got, false)
	require.True(t, apierrors.IsNotFound(err), "a read error is returned: %v", err)
}
