package directstatus_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/internal/leaktest"
)

// The marker planted in objects. No error of the Writer may hold 4 bytes in
// a row of it: a controller reports the Writer's errors in events and logs,
// and the object's status may carry a value copied from a Secret.
const (
	leakMarker       = leaktest.String
	leakMarkerDigits = leaktest.Digits
	leakMarkerName   = leaktest.Name // a valid condition type and reason
)

// leakyField fails to marshal with an error that quotes its value.
type leakyField struct{ V string }

func (l leakyField) MarshalJSON() ([]byte, error) {
	return nil, errors.New("cannot marshal " + strconv.Quote(l.V))
}

type leakyStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	Secret             leakyField         `json:"secret"`
}

// leakyObject is a typed object whose conversion to unstructured content
// fails with an error that quotes a value.
type leakyObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            leakyStatus `json:"status,omitempty"`
}

func (o *leakyObject) DeepCopyObject() runtime.Object {
	c := *o
	return &c
}

func TestNoErrorQuotesAValue(t *testing.T) {
	ctx := t.Context()
	w := directstatus.NewWriter(fake.NewClientBuilder().Build())
	valid := map[string]any{"type": "Ready", "status": "True", "reason": leakMarkerName, "message": leakMarker, "lastTransitionTime": "2024-01-02T03:04:05Z"}
	values := []any{
		leakMarker, leakMarkerName, int64(31337424242), 31337424242.5, json.Number(leakMarkerDigits), true,
		[]any{leakMarker}, map[string]any{"k": leakMarker}, "2024-13-" + leakMarker,
	}
	var statuses []any
	for _, v := range values {
		statuses = append(statuses, v, map[string]any{"observedGeneration": v}, map[string]any{"conditions": v}, map[string]any{"conditions": []any{v}})
		for _, f := range []string{"type", "status", "reason", "message", "lastTransitionTime", "observedGeneration"} {
			e := map[string]any{}
			for k, x := range valid {
				e[k] = x
			}
			e[f] = v
			statuses = append(statuses, map[string]any{"conditions": []any{e}}, map[string]any{"conditions": []any{valid, e}})
		}
	}
	statuses = append(statuses, map[string]any{"conditions": []any{valid, valid}})
	for _, status := range statuses {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "test.ctrlkit.dev/v1alpha1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "default", "generation": int64(2)},
			"status":   status,
		}}
		_, err := w.SetReady(ctx, u, directstatus.UpToDate())
		if err == nil {
			continue // a status the Writer could read: the fake client refuses the kind
		}
		if l := leaktest.Find(err.Error()); l != "" {
			t.Errorf("SetReady: the error quotes %q of a planted value: %s", l, err)
		}
		_, _, _, err = directstatus.OperationIDOf(u)
		if err != nil {
			if l := leaktest.Find(err.Error()); l != "" {
				t.Errorf("OperationIDOf: the error quotes %q of a planted value: %s", l, err)
			}
		}
	}

	// The marker in a condition the caller passes that Validate refuses.
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}}
	for _, c := range []metav1.Condition{
		{Status: metav1.ConditionStatus(leakMarker), Reason: leakMarkerName, Message: leakMarker},
		{Status: metav1.ConditionTrue, Reason: leakMarker, Message: leakMarker},
		{Status: metav1.ConditionTrue, Reason: leakMarkerName, Message: strings.Repeat(leakMarker, 2000)},
	} {
		_, err := w.SetReady(ctx, u, c)
		if err == nil {
			t.Errorf("SetReady(%+v): want an error, got none", c)
			continue
		}
		if l := leaktest.Find(err.Error()); l != "" {
			t.Errorf("SetReady: the error quotes %q of a planted value: %s", l, err)
		}
	}

	// A typed object whose conversion fails with an error quoting a value.
	obj := &leakyObject{Status: leakyStatus{Secret: leakyField{leakMarker}}}
	obj.SetName("w")
	obj.SetNamespace("default")
	_, err := w.SetReady(ctx, obj, directstatus.UpToDate())
	if err == nil {
		t.Error("SetReady of an object that cannot be converted: want an error, got none")
	} else if l := leaktest.Find(err.Error()); l != "" {
		t.Errorf("SetReady: the error quotes %q of a planted value: %s", l, err)
	}
	_, _, _, err = directstatus.OperationIDOf(obj)
	if err == nil {
		t.Error("OperationIDOf of an object that cannot be converted: want an error, got none")
	} else if l := leaktest.Find(err.Error()); l != "" {
		t.Errorf("OperationIDOf: the error quotes %q of a planted value: %s", l, err)
	}
}
