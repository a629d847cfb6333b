package conditions

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/internal/leaktest"
)

// The marker planted in conditions. No error may hold 4 bytes in a row of
// it: errors name a condition by its index and a field by its name, and a
// value by its type and size, since they reach other objects' conditions
// and events, and a message or reason may carry a Secret's value.
const (
	markerString = leaktest.String
	markerDigits = leaktest.Digits
)

// A marker that is a valid type and reason, so that it can stand in a
// condition next to a field that is broken.
const markerName = "S3cr3tMARKERZq7x9Wv"

// markerFieldValues are the values planted in each field of a condition:
// the marker in every JSON type.
var markerFieldValues = []any{
	markerString, markerName, "a/" + markerString, markerString + "/Ready", int64(31337424242), 31337424242.5,
	json.Number(markerDigits), true, []any{markerString}, map[string]any{"k": markerString}, "",
}

// markerEntries returns condition entries each with one field set to v and
// the others holding the marker in valid form, and entries that are not
// objects.
func markerEntries(v any) []any {
	var out []any
	for _, f := range []string{"type", "status", "reason", "message", "lastTransitionTime", "observedGeneration"} {
		e := map[string]any{"type": markerName, "status": "True", "reason": markerName, "message": markerString, "lastTransitionTime": "2024-01-02T03:04:05Z", "observedGeneration": int64(1)}
		e[f] = v
		out = append(out, e)
	}
	return append(out, v)
}

func TestNoErrorQuotesAValue(t *testing.T) {
	valid := map[string]any{"type": markerName, "status": "True", "reason": markerName, "message": markerString, "lastTransitionTime": "2024-01-02T03:04:05Z"}
	var lists [][]any
	for _, v := range markerFieldValues {
		for _, e := range markerEntries(v) {
			lists = append(lists, []any{valid, e}, []any{e})
		}
	}
	// The same type twice.
	lists = append(lists, []any{valid, valid})
	for _, list := range lists {
		for _, status := range []any{map[string]any{"conditions": list}, markerString, []any{markerString}} {
			obj := func() *unstructured.Unstructured {
				return &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "test.ctrlkit.dev/v1alpha1", "kind": "XDatabase",
					"metadata": map[string]any{"name": "orders", "namespace": "default", "generation": int64(2)},
					"status":   status,
				}}
			}
			_, err := FromUnstructured(obj())
			leaktest.Check(t, "FromUnstructured", err)
			_, err = SetUnstructured(obj(), metav1.Condition{Type: markerName, Status: metav1.ConditionTrue, Reason: markerName, Message: markerString})
			leaktest.Check(t, "SetUnstructured", err)
			_, err = RemoveUnstructured(obj(), markerName)
			leaktest.Check(t, "RemoveUnstructured", err)
			_, err = SetProgressUnstructured(obj(), 2, Done, markerName, markerString)
			leaktest.Check(t, "SetProgressUnstructured", err)

			// Propagated from an XR that lists the marker type, to a claim
			// that has the malformed list, and the other way round.
			xr := obj()
			if m, ok := xr.Object["status"].(map[string]any); ok {
				xr.Object["status"] = map[string]any{"conditions": m["conditions"], "claimConditionTypes": []any{markerName, markerString}}
			}
			_, err = Propagate(xr, claimObject(nil, nil))
			leaktest.Check(t, "Propagate from", err)
			_, err = Propagate(xrObject(nil, strs(markerName), nil), obj())
			leaktest.Check(t, "Propagate to", err)
		}
	}

	// Lists of types to propagate that are not lists of strings.
	for _, v := range markerFieldValues {
		for _, types := range []any{v, []any{v}, []any{markerName, v}} {
			xr := xrObject(nil, nil, nil)
			xr.Object["status"].(map[string]any)["claimConditionTypes"] = types
			_, err := Propagate(xr, claimObject(nil, nil))
			leaktest.Check(t, "Propagate with claimConditionTypes", err)
			claim := claimObject(nil, nil)
			claim.Object["status"].(map[string]any)["claimConditions"] = types
			_, err = Propagate(xrObject(nil, strs(markerName), nil), claim)
			leaktest.Check(t, "Propagate with the claim's record", err)
		}
	}

	// Validate and SetUnstructured with the marker in each field of a
	// condition that is invalid.
	for _, c := range []metav1.Condition{
		{Type: markerString + " x", Status: "True", Reason: markerName},
		{Type: "Example.COM-" + markerString + "/Ready", Status: "True", Reason: markerName},
		{Type: markerString + "/" + markerString, Status: "True", Reason: markerName},
		{Type: markerName, Status: metav1.ConditionStatus(markerString), Reason: markerName},
		{Type: markerName, Status: "True", Reason: markerString},
		{Type: markerName, Status: "True", Reason: markerName + ":"},
		{Type: markerName, Status: "True", Reason: markerName, ObservedGeneration: -31337424242},
		{Type: markerName, Status: "True", Reason: markerName, Message: strings.Repeat(markerString, 2000)},
		{Type: strings.Repeat(markerName, 20), Status: "True", Reason: strings.Repeat(markerName, 60)},
	} {
		err := Validate(c)
		if err == nil {
			t.Errorf("Validate(%+v): want an error, got none", c)
		}
		leaktest.Check(t, "Validate", err)
		_, err = SetUnstructured(claimObject(nil, nil), c)
		leaktest.Check(t, "SetUnstructured", err)
		xr := xrObject(nil, strs(c.Type), nil)
		xr.Object["status"].(map[string]any)["conditions"] = []any{toEntry(c)}
		_, err = Propagate(xr, claimObject(nil, nil))
		leaktest.Check(t, "Propagate of an invalid condition", err)
	}
}
