package directstatus_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
)

// An event as a recorder received it.
type event struct{ Type, Reason, Action, Note string }

// eventLog is an events.EventRecorder that keeps what it is given.
type eventLog struct {
	mu     sync.Mutex
	events []event
}

func (l *eventLog) Eventf(_ runtime.Object, _ runtime.Object, eventtype, reason, action, note string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, event{eventtype, reason, action, fmt.Sprintf(note, args...)})
}

func (l *eventLog) take() []event {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.events
	l.events = nil
	return e
}

// TestLifecycleHealth writes each Ready condition of the lifecycle to a
// Widget on the real API server and checks the health conditions the Writer
// writes beside it, and the event it records on the transition.
func TestLifecycleHealth(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	cases := map[string]struct {
		reason string
		ready  metav1.Condition
		// health is the condition written beside Ready: Reconciling,
		// Stalled, or "" for none.
		health    string
		eventType string
		action    string
	}{
		"Creating":           {reason: "A create in flight is work in progress.", ready: directstatus.Creating(), health: "Reconciling", eventType: "Normal", action: "Create"},
		"CreateFailure":      {reason: "A failed create is retried.", ready: directstatus.CreateFailure(errors.New("quota")), health: "Reconciling", eventType: "Warning", action: "Create"},
		"Updating":           {reason: "An update in flight is work in progress.", ready: directstatus.Updating("spec.size"), health: "Reconciling", eventType: "Normal", action: "Update"},
		"UpdateFailure":      {reason: "A failed update is retried.", ready: directstatus.UpdateFailure("spec.size", errors.New("quota")), health: "Reconciling", eventType: "Warning", action: "Update"},
		"UpToDate":           {reason: "Done: neither health condition.", ready: directstatus.UpToDate(), eventType: "Normal", action: "Reconcile"},
		"Deleting":           {reason: "A delete in flight is work in progress.", ready: directstatus.Deleting(), health: "Reconciling", eventType: "Normal", action: "Delete"},
		"DeleteFailed":       {reason: "A failed delete is retried.", ready: directstatus.DeleteFailed(errors.New("in use")), health: "Reconciling", eventType: "Warning", action: "Delete"},
		"DependencyNotReady": {reason: "The dependency is on its way: the controller waits for it.", ready: directstatus.DependencyNotReady(errors.New("reference Network default/net is not ready")), health: "Reconciling", eventType: "Warning", action: "Reconcile"},
		"DependencyNotFound": {reason: "The dependency may be created after the object (a GitOps tool applies both): the controller waits.", ready: directstatus.DependencyNotFound(errors.New("reference Network default/net is not found")), health: "Reconciling", eventType: "Warning", action: "Reconcile"},
		"DependencyInvalid":  {reason: "A dependency that exists but cannot be used needs someone to change it or the object.", ready: directstatus.DependencyInvalid(errors.New("key password not found in Secret default/db")), health: "Stalled", eventType: "Warning", action: "Reconcile"},
		"ManagementConflict": {reason: "Another controller holds the resource: nothing this one does helps.", ready: directstatus.ManagementConflict(errors.New("managed by another controller")), health: "Stalled", eventType: "Warning", action: "Reconcile"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			log := &eventLog{}
			w := directstatus.NewWriter(env.Client, directstatus.RecordEvents(log))
			obj := newWidget(t, env, "lifecycle-"+toDNS(name))

			_, err := w.SetReady(ctx, obj, tc.ready)
			require.NoError(t, err)
			got := &v1alpha1.Widget{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
			for _, typ := range []string{conditions.TypeReconciling, conditions.TypeStalled} {
				c := conditions.Get(got.Status.Conditions, typ)
				if typ != tc.health {
					if c != nil {
						t.Errorf("%s\n%s: want none, got %+v", tc.reason, typ, c)
					}
					continue
				}
				if c == nil || c.Status != metav1.ConditionTrue || c.Reason != tc.ready.Reason || c.Message != tc.ready.Message {
					t.Errorf("%s\n%s: want True with Ready's reason %s and message, got %+v", tc.reason, typ, tc.ready.Reason, c)
				}
			}
			want := []event{{tc.eventType, tc.ready.Reason, tc.action, tc.ready.Message}}
			if diff := cmp.Diff(want, log.take()); diff != "" {
				t.Errorf("%s\nevents on the transition: -want, +got:\n%s", tc.reason, diff)
			}

			// The same condition again is no transition: no write, no event.
			_, err = w.SetReady(ctx, obj, tc.ready)
			require.NoError(t, err)
			if e := log.take(); len(e) != 0 {
				t.Errorf("SetReady of the condition the object holds: want no event, got %+v", e)
			}
		})
	}
}

// TestEventsOnTransitionsOnly checks that an event is recorded when Ready's
// status or reason changes, not when only its message does.
func TestEventsOnTransitionsOnly(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	log := &eventLog{}
	w := directstatus.NewWriter(env.Client, directstatus.RecordEvents(log))
	obj := newWidget(t, env, "transitions")

	steps := []struct {
		ready metav1.Condition
		want  []event
	}{
		{directstatus.Updating("spec.size"), []event{{"Normal", "Updating", "Update", "Updating resource (first field path: spec.size)"}}},
		{directstatus.Updating("spec.color"), nil}, // a new message, the same reason
		{directstatus.UpdateFailure("spec.color", errors.New("quota")), []event{{"Warning", "UpdateFailure", "Update", "Failed to update resource (first field path: spec.color): quota"}}},
		{directstatus.UpdateFailure("spec.color", errors.New("quota again")), nil},
		{directstatus.UpToDate(), []event{{"Normal", "UpToDate", "Reconcile", "Resource is up to date"}}},
		{directstatus.UpToDate(), nil},
		{directstatus.Deleting(), []event{{"Normal", "Deleting", "Delete", "Deleting resource"}}},
	}
	for i, s := range steps {
		_, err := w.SetReady(ctx, obj, s.ready)
		require.NoError(t, err)
		if diff := cmp.Diff(s.want, log.take()); diff != "" {
			t.Errorf("step %d (%s): events: -want, +got:\n%s", i, s.ready.Reason, diff)
		}
	}

	// A terminal failure is a Warning whatever its reason.
	op, err := w.StartCreate(ctx, obj)
	require.NoError(t, err)
	log.take()
	_ = op.Failed(ctx, reconcile.TerminalError(errors.New("invalid spec")))
	got := log.take()
	if len(got) != 1 || got[0].Type != "Warning" || got[0].Reason != "CreateFailure" {
		t.Errorf("terminal create failure: want one Warning CreateFailure event, got %+v", got)
	}
}

func toDNS(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			b = append(b, byte(r-'A'+'a'))
		default:
			b = append(b, byte(r))
		}
	}
	return string(b)
}
