package lastwrite

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
	ctx := t.Context()
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
	if stale {
		t.Errorf("nothing recorded: the cache is trusted")
	}

	tr.Record(k, "1000")
	stale, err = tr.Get(ctx, cache, api, k, got, false)
	require.NoError(t, err)
	if !stale {
		t.Errorf("the cache holds %s, older than the recorded write", got.GetResourceVersion())
	}

	if tr.Reconciled(k, "1000") {
		t.Errorf("the event of the awaited write passes while a reconcile waits for it")
	}

	stale, err = tr.Get(ctx, cache, api, k, got, true)
	require.NoError(t, err)
	if stale {
		t.Errorf("a retry is never stale")
	}
	if diff := cmp.Diff("api", got.GetLabels()["from"]); diff != "" {
		t.Errorf("a retry reads the API server: -want, +got:\n%s", diff)
	}

	_, err = tr.Get(ctx, cache, api, types.NamespacedName{Namespace: "default", Name: "missing"}, got, false)
	if !apierrors.IsNotFound(err) {
		t.Errorf("a read error is returned: %v", err)
	}
}

// TestGetCacheStaysBehind checks that a cache behind the last write is
// waited for only MaxBehind: later first attempts read from the API server,
// until the cache catches up, when waiting starts afresh.
func TestGetCacheStaysBehind(t *testing.T) {
	ctx := t.Context()
	cm := func(rv string, from string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetNamespace("default")
		u.SetName("a")
		u.SetResourceVersion(rv)
		u.SetLabels(map[string]string{"from": from})
		return u
	}
	k := types.NamespacedName{Namespace: "default", Name: "a"}
	cache := fake.NewClientBuilder().WithObjects(cm("", "cache")).Build() // resourceVersion 999
	api := fake.NewClientBuilder().WithObjects(cm("", "api")).Build()
	now := time.Unix(1000, 0)
	tr := Tracker{now: func() time.Time { return now }}
	get := func(step string, wantStale bool, wantFrom string) {
		t.Helper()
		got := &unstructured.Unstructured{}
		got.SetAPIVersion("v1")
		got.SetKind("ConfigMap")
		stale, err := tr.Get(ctx, cache, api, k, got, false)
		require.NoError(t, err)
		if stale != wantStale {
			t.Errorf("%s: stale = %t, want %t", step, stale, wantStale)
		}
		if !stale && got.GetLabels()["from"] != wantFrom {
			t.Errorf("%s: read from %s, want %s", step, got.GetLabels()["from"], wantFrom)
		}
	}

	tr.Record(k, "1000")
	get("cache first found behind", true, "")
	now = now.Add(MaxBehind - time.Millisecond)
	get("behind for less than MaxBehind", true, "")
	now = now.Add(time.Millisecond)
	get("behind for MaxBehind", false, "api")
	tr.Record(k, "1001") // the reconcile wrote; the cache is still behind
	get("still behind after a write", false, "api")

	// The cache catches up: the next time it falls behind is waited for.
	tr.Record(k, "999")
	get("caught up", false, "cache")
	tr.Record(k, "1002")
	get("behind again", true, "")
}

func TestReconciled(t *testing.T) {
	k := types.NamespacedName{Namespace: "default", Name: "a"}
	// A step is one call on a Tracker; event steps say whether the event
	// needs no reconcile, the end step whether to reconcile again.
	type step struct {
		do   string // record, stale, begin, end, event, forget
		rv   string
		want bool
	}
	cases := map[string]struct {
		reason string
		steps  []step
	}{
		"Unknown": {
			reason: "An object never reconciled needs a reconcile.",
			steps:  []step{{do: "event", rv: "5", want: false}},
		},
		"OwnWrite": {
			reason: "The event of the recorded version, or an older one, needs none; a newer one does.",
			steps: []step{
				{do: "record", rv: "10"},
				{do: "event", rv: "10", want: true},
				{do: "event", rv: "9", want: true},
				{do: "event", rv: "11", want: false},
			},
		},
		"Numeric": {
			reason: "Versions compare as numbers.",
			steps:  []step{{do: "record", rv: "99"}, {do: "event", rv: "100", want: false}},
		},
		"Opaque": {
			reason: "A version that is not an integer needs a reconcile.",
			steps:  []step{{do: "record", rv: "10"}, {do: "event", rv: "abc", want: false}},
		},
		"Waiting": {
			reason: "While a reconcile waits for the cache, the awaited event passes, until the next record.",
			steps: []step{
				{do: "record", rv: "10"},
				{do: "stale", rv: "9"},
				{do: "event", rv: "10", want: false},
				{do: "record", rv: "10"},
				{do: "event", rv: "10", want: true},
			},
		},
		"EventBeforeResponse": {
			reason: "The event of a write that comes before the reconcile ends is dropped, and asks for nothing more.",
			steps: []step{
				{do: "begin"},
				{do: "event", rv: "11", want: true},
				{do: "record", rv: "11"},
				{do: "end", want: false},
				{do: "event", rv: "11", want: true},
			},
		},
		"UpdateDuringReconcile": {
			reason: "An update newer than what the reconcile recorded makes End ask for another reconcile.",
			steps: []step{
				{do: "begin"},
				{do: "event", rv: "12", want: true},
				{do: "event", rv: "11", want: true},
				{do: "record", rv: "11"},
				{do: "end", want: true},
				{do: "event", rv: "13", want: false},
			},
		},
		"FailedReconcile": {
			reason: "A reconcile that recorded nothing is reconciled again after an event.",
			steps:  []step{{do: "begin"}, {do: "event", rv: "3", want: true}, {do: "end", want: true}},
		},
		"StaleDuringReconcile": {
			reason: "A reconcile put off for the cache is reconciled again when the awaited event came meanwhile.",
			steps: []step{
				{do: "record", rv: "10"},
				{do: "begin"},
				{do: "stale", rv: "9"},
				{do: "event", rv: "10", want: true},
				{do: "end", want: true},
			},
		},
		"AwaitedWrite": {
			reason: "The event of a write whose reconcile left work to it passes once, after the reconcile ends.",
			steps: []step{
				{do: "begin"},
				{do: "record", rv: "11"},
				{do: "await"},
				{do: "end", want: false},
				{do: "event", rv: "11", want: false},
				{do: "record", rv: "11"},
				{do: "event", rv: "11", want: true},
			},
		},
		"AwaitedWriteEventFirst": {
			reason: "The event of a write whose reconcile left work to it, come before the reconcile ended, makes End ask for another.",
			steps: []step{
				{do: "begin"},
				{do: "event", rv: "11", want: true},
				{do: "record", rv: "11"},
				{do: "await"},
				{do: "end", want: true},
			},
		},
		"Quiet": {
			reason: "A reconcile without events asks for nothing more.",
			steps:  []step{{do: "begin"}, {do: "record", rv: "4"}, {do: "end", want: false}},
		},
		"Forget": {
			reason: "A forgotten object needs a reconcile.",
			steps:  []step{{do: "record", rv: "4"}, {do: "forget"}, {do: "event", rv: "4", want: false}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var tr Tracker
			for i, s := range tc.steps {
				var got bool
				switch s.do {
				case "record":
					tr.Record(k, s.rv)
				case "stale":
					if !tr.Behind(k, s.rv) {
						t.Errorf("precondition: %s is behind", s.rv)
					}
					tr.Await(k) // as Get does on reading it
				case "await":
					tr.Await(k)
				case "begin":
					tr.Begin(k)
				case "end":
					got = tr.End(k)
				case "event":
					got = tr.Reconciled(k, s.rv)
				case "forget":
					tr.Forget(k)
				}
				if (s.do == "end" || s.do == "event") && got != s.want {
					t.Errorf("%s\nstep %d (%s %s) = %t, want %t", tc.reason, i, s.do, s.rv, got, s.want)
				}
			}
		})
	}
}
