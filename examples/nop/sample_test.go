package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/crds"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.CRDs(crds.FS), testenv.WithScheme(v1alpha1.AddToScheme))
}

// TestRecreateLeavesOthersAlone: an object of the sample's name that the
// example did not create is never deleted; the sample of an earlier run is
// replaced.
func TestRecreateLeavesOthersAlone(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	s, err := readSample()
	require.NoError(t, err)
	key := client.ObjectKeyFromObject(s.obj)

	users := &v1alpha1.NopResource{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
	// Right after the control plane starts, discovery may not list the
	// CRD's kind yet.
	testenv.Eventually(t, 10*time.Second, "the API server to serve NopResources", func() error {
		if err = env.Client.Create(ctx, users); meta.IsNoMatchError(err) {
			return err
		}
		return nil
	})
	require.NoError(t, err)
	err = s.recreate(ctx, env.Client)
	require.ErrorIs(t, err, errNotOurs)
	t.Log(err)
	got := &v1alpha1.NopResource{}
	require.NoError(t, env.Client.Get(ctx, key, got))
	if got.UID != users.UID {
		t.Errorf("UID: want %s (the user's object is left alone), got %s", users.UID, got.UID)
	}
	require.NoError(t, env.Client.Delete(ctx, got))

	// The provider-nop example's name is not the sample's.
	example := &v1alpha1.NopResource{ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "default"}}
	require.NoError(t, env.Client.Create(ctx, example))

	require.NoError(t, s.recreate(ctx, env.Client), "no object of the sample's name")
	first := &v1alpha1.NopResource{}
	require.NoError(t, env.Client.Get(ctx, key, first))
	require.NoError(t, s.recreate(ctx, env.Client), "the sample of an earlier run")
	require.NoError(t, env.Client.Get(ctx, key, got))
	if got.UID == first.UID {
		t.Errorf("UID: %s, the earlier sample's; want a new object (the earlier sample is replaced)", got.UID)
	}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(example), example), "default/example is left alone")
}

func TestDescribe(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr := func(after time.Duration, landed time.Duration) nop.Transition {
		return nop.Transition{
			Kind: "NopResource", Object: types.NamespacedName{Namespace: "default", Name: "n"},
			Condition: metav1.Condition{Type: "Ready", Status: "False", Reason: "Scheduled"},
			Due:       created.Add(after), Created: created, Landed: created.Add(landed),
		}
	}
	cases := map[string]struct {
		t         nop.Transition
		firstSeen time.Time
		want      string
	}{
		"DueBeforeFirstSeen": {
			t: tr(0, 840*time.Millisecond), firstSeen: created.Add(827 * time.Millisecond),
			want: "03:04:05.840  NopResource default/n  Ready=False (Scheduled)  due before the resource was first observed (03:04:05.827), 13ms after that",
		},
		"DueAtCreation": {
			t:    tr(500*time.Millisecond, 840*time.Millisecond),
			want: "03:04:05.840  NopResource default/n  Ready=False (Scheduled)  due at creation",
		},
		"Late": {
			t: tr(5*time.Second, 5020*time.Millisecond), firstSeen: created.Add(827 * time.Millisecond),
			want: "03:04:10.020  NopResource default/n  Ready=False (Scheduled)  due 03:04:10, 20ms late",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := describe(tc.t, tc.firstSeen); got != tc.want {
				t.Errorf("describe:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
