package nop

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// TestForeignSecretWaitsForAChange: a connection Secret that another owner
// holds cannot be written however often the reconciler tries, so after the
// first failure it makes no request for the Secret until the Secret changes;
// then it writes the Secret at once.
func TestForeignSecretWaitsForAChange(t *testing.T) {
	const test = "foreign-waits"
	env := testenv.Get(t)
	ctx := t.Context()
	_, requests := startManager(t, test, Options{})

	foreign := newSecret()
	foreign.SetNamespace("default")
	foreign.SetName("foreign-waits-conn")
	foreign.SetLabels(map[string]string{testLabel: test})
	foreign.Object["stringData"] = map[string]any{"password": "not yours"}
	require.NoError(t, env.Client.Create(ctx, foreign))
	cleanup(t, env.Client, foreign)

	n := newNop(test, "foreign-waits", ca("0s", "Ready", "True"))
	n.Spec.ForProvider.ConnectionDetails = []v1alpha1.ConnectionDetail{{Name: "password", Value: "mine"}}
	n.Spec.WriteConnectionSecretToRef = &v1alpha1.SecretReference{Name: foreign.GetName()}
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	got := waitForCondition(t, env.Client, n, "Synced", metav1.ConditionFalse, ReasonConnectionSecretFailed)
	if msg := conditions.Get(got.Status.Conditions, "Synced").Message; strings.Contains(msg, "not yours") || !strings.Contains(msg, "default/foreign-waits-conn") {
		t.Errorf("Synced message %q: want the Secret named and no value", msg)
	}

	// Longer than the first retry of a transient failure.
	requests.reset()
	time.Sleep(retryAfterError + 2*time.Second)
	for _, verb := range []string{"GET secrets", "POST secrets", "PUT secrets", "PUT nopresources/status"} {
		if n := requests.get(verb); n != 0 {
			t.Errorf("%d %s requests after a failure only a change can fix, want none (%s)", n, verb, requests)
		}
	}

	// The owner lets go: the change wakes the resource.
	require.NoError(t, env.Client.Delete(ctx, foreign))
	waitForCondition(t, env.Client, n, "Synced", metav1.ConditionTrue, ReasonReconcileSuccess)
	s := newSecret()
	require.NoError(t, env.Client.Get(ctx, types.NamespacedName{Namespace: "default", Name: foreign.GetName()}, s))
	if !metav1.IsControlledBy(s, got) {
		t.Errorf("the connection Secret written after the change is controlled by its resource")
	}
}

// TestSecretDataTheAPIServerRefuses: connection details that no Secret can
// hold are an invalid spec, refused before any request for the Secret and not
// retried until the spec changes.
func TestSecretDataTheAPIServerRefuses(t *testing.T) {
	ref := types.NamespacedName{Namespace: "default", Name: "conn"}
	cases := map[string]struct {
		details   []v1alpha1.ConnectionDetail
		wantField string
	}{
		"Dot":       {details: []v1alpha1.ConnectionDetail{{Name: ".", Value: "v"}}, wantField: "spec.forProvider.connectionDetails[0].name"},
		"DotDot":    {details: []v1alpha1.ConnectionDetail{{Name: "a", Value: "v"}, {Name: "..", Value: "v"}}, wantField: "spec.forProvider.connectionDetails[1].name"},
		"DotDotKey": {details: []v1alpha1.ConnectionDetail{{Name: "..data", Value: "v"}}, wantField: "spec.forProvider.connectionDetails[0].name"},
		"Slash":     {details: []v1alpha1.ConnectionDetail{{Name: "a/b", Value: "v"}}, wantField: "spec.forProvider.connectionDetails[0].name"},
		"TooLong":   {details: []v1alpha1.ConnectionDetail{{Name: strings.Repeat("k", 254), Value: "v"}}, wantField: "spec.forProvider.connectionDetails[0].name"},
		"TooLarge": {details: []v1alpha1.ConnectionDetail{
			{Name: "a", Value: strings.Repeat("s", MaxSecretBytes/2)}, {Name: "b", Value: strings.Repeat("s", MaxSecretBytes/2+1)},
		}, wantField: "spec.forProvider.connectionDetails"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkSecretData(ref, tc.details)
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("checkSecretData: %v, want an error wrapping ErrInvalidSpec", err)
			}
			if !strings.HasPrefix(err.Error(), tc.wantField+":") || !strings.Contains(err.Error(), "default/conn") {
				t.Errorf("checkSecretData: %q, want it to name %s and the Secret", err, tc.wantField)
			}
			if strings.Contains(err.Error(), "sss") {
				t.Errorf("checkSecretData: %q quotes a value", err)
			}
		})
	}
	fits := []v1alpha1.ConnectionDetail{{Name: "a.b", Value: strings.Repeat("s", MaxSecretBytes-1)}, {Name: "_c-", Value: "s"}}
	require.NoError(t, checkSecretData(ref, fits))
}

// TestSecretDataRefusedAgainstAPIServer: the CRD refuses the keys the API
// server refuses in a Secret, and an object admitted with data too large for
// a Secret stalls without a request for the Secret.
func TestSecretDataRefusedAgainstAPIServer(t *testing.T) {
	const test = "secret-refused"
	env := testenv.Get(t)
	ctx := t.Context()
	for _, key := range []string{".", "..", "..data"} {
		n := newNop(test, "bad-key")
		n.Spec.ForProvider.ConnectionDetails = []v1alpha1.ConnectionDetail{{Name: key, Value: "v"}}
		n.Spec.WriteConnectionSecretToRef = &v1alpha1.SecretReference{Name: "bad-key-conn"}
		err := env.Client.Create(ctx, n)
		if err == nil {
			cleanup(t, env.Client, n)
			t.Errorf("the CRD admitted the Secret key %q", key)
		} else if !strings.Contains(err.Error(), "connectionDetails[0].name") {
			t.Errorf("refusal of key %q: %v, want it to name the field", key, err)
		}
	}

	_, requests := startManager(t, test, Options{})
	n := newNop(test, "too-large", ca("0s", "Ready", "True"))
	n.Spec.ForProvider.ConnectionDetails = []v1alpha1.ConnectionDetail{
		{Name: "a", Value: strings.Repeat("s", MaxSecretBytes/2)}, {Name: "b", Value: strings.Repeat("s", MaxSecretBytes/2+1)},
	}
	n.Spec.WriteConnectionSecretToRef = &v1alpha1.SecretReference{Name: "too-large-conn"}
	require.NoError(t, env.Client.Create(ctx, n))
	cleanup(t, env.Client, n)
	waitForCondition(t, env.Client, n, "Stalled", metav1.ConditionTrue, ReasonInvalidSpec)
	requests.reset()
	time.Sleep(retryAfterError + 2*time.Second)
	for _, verb := range []string{"GET secrets", "POST secrets", "PUT secrets", "PUT nopresources/status"} {
		if n := requests.get(verb); n != 0 {
			t.Errorf("%d %s requests for an invalid spec, want none (%s)", n, verb, requests)
		}
	}
}

// TestSecretBackoff: transient failures are retried after retryAfterError,
// doubled with each failure in a row up to maxRetryAfterError, and a success
// starts again from the first.
func TestSecretBackoff(t *testing.T) {
	var g secretGate
	key := types.NamespacedName{Namespace: "default", Name: "n"}
	var got []time.Duration
	for range 8 {
		got = append(got, g.failed(key))
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second,
		maxRetryAfterError, maxRetryAfterError, maxRetryAfterError}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits after failures in a row: -want, +got:\n%s", diff)
	}
	g.succeeded(key)
	if d := g.failed(key); d != retryAfterError {
		t.Errorf("wait after a success and a failure: %v, want %v", d, retryAfterError)
	}
}
