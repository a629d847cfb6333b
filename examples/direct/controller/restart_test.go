package controller_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/examples/direct/cloudapi"
	"github.com/ctrlkit/ctrlkit/examples/direct/controller"
	"github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// startLongRunning starts a manager whose controller updates through
// long-running operations, and returns the function that stops it.
func startLongRunning(t *testing.T, env *testenv.Env, cloud *cloudapi.Client) (stop func()) {
	t.Helper()
	return startLongRunningWith(t, env, cloud, func(c client.Client) client.Client { return c })
}

// startLongRunningWith is startLongRunning with the controller's client
// wrapped by wrap.
func startLongRunningWith(t *testing.T, env *testenv.Env, cloud *cloudapi.Client, wrap func(client.Client) client.Client) (stop func()) {
	t.Helper()
	mgr, err := ctrl.NewManager(env.Config, env.ManagerOptions())
	require.NoError(t, err)
	c := wrap(mgr.GetClient())
	r := &controller.Reconciler{
		Client:       c,
		Cloud:        cloud,
		Status:       directstatus.NewWriter(c, directstatus.ReadFrom(mgr.GetAPIReader())),
		SyncPeriod:   syncPeriod,
		LongRunning:  true,
		PollInterval: 100 * time.Millisecond,
	}
	require.NoError(t, r.SetupWithManager(mgr))
	return testenv.StartManager(t, mgr)
}

// TestRestartMidOperation stops the controller while an update's
// long-running operation runs and starts a new one: the new controller
// finds the operation's name in the Ready condition and polls it to the end,
// so exactly one update reaches the cloud and Ready ends UpToDate.
func TestRestartMidOperation(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	server, cloud := newCloud(t)

	stop := startLongRunning(t, env, cloud)
	ds := newDataset("restart")
	require.NoError(t, env.Client.Create(ctx, ds))
	t.Cleanup(func() { removeFinalizerAndDelete(env, ds) })
	key := client.ObjectKeyFromObject(ds)
	ready := func() (*v1alpha1.Dataset, *directstatus.OperationID) {
		got := &v1alpha1.Dataset{}
		if err := env.Client.Get(ctx, key, got); err != nil {
			return nil, nil
		}
		id, reason, ok, _ := directstatus.OperationIDOf(got)
		if ok && reason == directstatus.ReasonUpdating {
			return got, &id
		}
		return got, nil
	}
	testenv.Eventually(t, time.Minute, "the Dataset to be created", func() error {
		if got, _ := ready(); got == nil || !conditions.IsTrue(got.Status.Conditions, conditions.TypeReady) {
			return fmt.Errorf("not Ready: %+v", got)
		}
		return nil
	})

	server.SetOperationDelay(3*time.Second, "")
	edit(t, ctx, env.Client, key, func(d *v1alpha1.Dataset) { d.Spec.Description = "Orders, v2" })
	var opID directstatus.OperationID
	testenv.Eventually(t, time.Minute, "the operation to be recorded", func() error {
		got, id := ready()
		if id == nil {
			return fmt.Errorf("no operation in %+v", got)
		}
		opID = *id
		return nil
	})
	stop() // mid-operation: it runs for 3 s
	if n := server.Calls(http.MethodPatch); n != 1 {
		t.Errorf("updates that reached the cloud before the restart: want 1, got %d", n)
	}

	startLongRunning(t, env, cloud)
	testenv.Eventually(t, time.Minute, "Ready to become UpToDate", func() error {
		got, _ := ready()
		if got == nil {
			return errors.New("cannot read the Dataset")
		}
		if c := conditions.Get(got.Status.Conditions, conditions.TypeReady); c == nil || c.Reason != directstatus.ReasonUpToDate || got.Status.ObservedGeneration != got.Generation {
			return fmt.Errorf("%+v", got.Status)
		}
		return nil
	})
	if n := server.Calls(http.MethodPatch); n != 1 {
		t.Errorf("updates that reached the cloud: want 1 (the restarted controller polls the recorded operation), got %d", n)
	}
	stored, ok := server.Dataset(cloud.Name(controller.ExternalID(ds)))
	if !ok {
		t.Fatalf("the cloud has no dataset %s", cloud.Name(controller.ExternalID(ds)))
	}
	if stored.Description != "Orders, v2" {
		t.Errorf("the cloud dataset's description: want %q, got %q", "Orders, v2", stored.Description)
	}
	if !strings.Contains(string(opID), "/operations/op-") {
		t.Errorf("the recorded operation: want a name containing /operations/op-, got %q", opID)
	}
}

// TestCrashBetweenCallAndRecord: the controller dies after the cloud has
// accepted an update's long-running operation and before the operation's
// name reaches the Ready condition (from the moment the update arrives at
// the cloud, none of its writes to the API server land). The controller
// that starts next finds no operation to poll and calls again; the call's
// idempotency key (directstatus.RequestID) makes the cloud answer with the
// first operation, so exactly one update is applied and Ready ends
// UpToDate.
func TestCrashBetweenCallAndRecord(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	server, cloud := newCloud(t)

	var crashed atomic.Bool
	stop := startLongRunningWith(t, env, cloud, func(c client.Client) client.Client {
		return crashingClient{Client: c, crashed: &crashed}
	})
	ds := newDataset("crash")
	require.NoError(t, env.Client.Create(ctx, ds))
	t.Cleanup(func() { removeFinalizerAndDelete(env, ds) })
	key := client.ObjectKeyFromObject(ds)
	get := func() *v1alpha1.Dataset {
		got := &v1alpha1.Dataset{}
		require.NoError(t, env.Client.Get(ctx, key, got))
		return got
	}
	testenv.Eventually(t, time.Minute, "the Dataset to be created", func() error {
		if got := get(); !conditions.IsTrue(got.Status.Conditions, conditions.TypeReady) {
			return fmt.Errorf("not Ready: %+v", got.Status)
		}
		return nil
	})

	server.SetOperationDelay(3*time.Second, "")
	server.Observe(func(method, _ string) {
		if method == http.MethodPatch {
			crashed.Store(true)
		}
	})
	edit(t, ctx, env.Client, key, func(d *v1alpha1.Dataset) { d.Spec.Description = "Orders, v2" })
	testenv.Eventually(t, time.Minute, "the update to reach the cloud", func() error {
		if n := server.Applied(http.MethodPatch); n != 1 {
			return fmt.Errorf("%d updates applied", n)
		}
		return nil
	})
	stop()
	server.Observe(nil)
	if _, reason, ok, _ := directstatus.OperationIDOf(get()); ok {
		t.Fatalf("the operation was recorded (%s) although the controller crashed first", reason)
	}

	startLongRunning(t, env, cloud)
	testenv.Eventually(t, time.Minute, "Ready to become UpToDate", func() error {
		got := get()
		if c := conditions.Get(got.Status.Conditions, conditions.TypeReady); c == nil || c.Reason != directstatus.ReasonUpToDate || got.Status.ObservedGeneration != got.Generation {
			return fmt.Errorf("%+v", got.Status)
		}
		return nil
	})
	if n := server.Calls(http.MethodPatch); n < 2 {
		t.Errorf("update calls: want at least 2 (the restarted controller called again), got %d", n)
	}
	if n := server.Applied(http.MethodPatch); n != 1 {
		t.Errorf("updates the cloud applied: want 1 (the second call carried the first one's key), got %d", n)
	}
	stored, ok := server.Dataset(cloud.Name(controller.ExternalID(ds)))
	if !ok || stored.Description != "Orders, v2" {
		t.Errorf("the cloud dataset: want description %q, got %+v", "Orders, v2", stored)
	}
}

// errCrashed is what every write of a crashingClient returns once crashed.
var errCrashed = errors.New("the controller has crashed")

// crashingClient is a controller's client whose writes stop reaching the
// API server once crashed is set, as if the process had died there.
type crashingClient struct {
	client.Client
	crashed *atomic.Bool
}

func (c crashingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if c.crashed.Load() {
		return errCrashed
	}
	return c.Client.Update(ctx, obj, opts...)
}

func (c crashingClient) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	if c.crashed.Load() {
		return errCrashed
	}
	return c.Client.Patch(ctx, obj, p, opts...)
}

func (c crashingClient) Status() client.SubResourceWriter {
	return crashingStatus{SubResourceWriter: c.Client.Status(), crashed: c.crashed}
}

type crashingStatus struct {
	client.SubResourceWriter
	crashed *atomic.Bool
}

func (c crashingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if c.crashed.Load() {
		return errCrashed
	}
	return c.SubResourceWriter.Update(ctx, obj, opts...)
}

func (c crashingStatus) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
	if c.crashed.Load() {
		return errCrashed
	}
	return c.SubResourceWriter.Patch(ctx, obj, p, opts...)
}
