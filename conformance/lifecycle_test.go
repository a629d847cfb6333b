package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// TestDirectLifecycle writes each of directstatus's Ready conditions to a
// Dataset (the direct example's kind) on the real API server with a Writer,
// as a direct controller would, and asks every tool about it: work in
// progress (creating, updating, deleting, a failure the controller retries,
// a dependency not ready or not there yet) must read as in progress, a
// condition only someone else can resolve (an unusable dependency, another
// controller's resource) as failed, and UpToDate as done.
func TestDirectLifecycle(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "health-lifecycle"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	w := directstatus.NewWriter(env.Client)
	cause := errors.New("the cloud says no")
	cases := map[string]struct {
		ready metav1.Condition
		want  verdict
	}{
		"Creating":           {directstatus.Creating(), inProgress},
		"CreateFailure":      {directstatus.CreateFailure(cause), inProgress},
		"Updating":           {directstatus.Updating("spec.description"), inProgress},
		"UpdateFailure":      {directstatus.UpdateFailure("spec.description", cause), inProgress},
		"UpToDate":           {directstatus.UpToDate(), current},
		"Deleting":           {directstatus.Deleting(), inProgress},
		"DeleteFailed":       {directstatus.DeleteFailed(cause), inProgress},
		"DependencyNotReady": {directstatus.DependencyNotReady(errors.New("reference Dataset health-lifecycle/other is not ready")), inProgress},
		"DependencyNotFound": {directstatus.DependencyNotFound(errors.New("reference Dataset health-lifecycle/other is not found")), inProgress},
		"DependencyInvalid":  {directstatus.DependencyInvalid(errors.New("key password not found in Secret health-lifecycle/db")), failed},
		"ManagementConflict": {directstatus.ManagementConflict(errors.New("managed by another controller")), failed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := parse(t, fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata: {name: lifecycle-%s, namespace: %s}\n%s",
				datasetKind.apiVersion, datasetKind.name, strings.ToLower(name), ns, datasetKind.ready))
			if err := env.Client.Create(ctx, u); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = env.Client.Delete(context.Background(), u) }()
			if _, err := w.SetReady(ctx, u, tc.ready); err != nil {
				t.Fatal(err)
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(u.GroupVersionKind())
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(u), got); err != nil {
				t.Fatal(err)
			}
			v, err := judge(got, datasetKind.script, fluxFull)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, v); diff != "" {
				t.Errorf("Ready=%s %s: -want, +got:\n%s", tc.ready.Status, tc.ready.Reason, diff)
			}
		})
	}
}
