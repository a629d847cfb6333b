package conditions

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The marker planted in conditions. No error may hold 4 bytes in a row of
// it: errors name a condition by its index and a field by its name, and a
// value by its type and size, since they reach other objects' conditions
// and events, and a message or reason may carry a Secret's value.
const (
	markerString = "s3cr3t-MARKER-Zq7x9Wv"
	markerDigits = "31337424242"
)

// A marker that is a valid type and reason, so that it can stand in a
// condition next to a field that is broken.
const markerName = "S3cr3tMARKERZq7x9Wv"

func leak(msg string) string {
	for _, m := range []string{markerString, markerDigits, markerName, "3.13374242425e+10"} {
		for n := len(m); n >= 4; n-- {
			for i := 0; i+n <= len(m); i++ {
				if strings.Contains(msg, m[i:i+n]) {
					return m[i : i+n]
				}
			}
		}
	}
	return ""
}

func checkNoLeak(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if l := leak(err.Error()); l != "" {
		t.Errorf("%s: the error quotes %q of a planted value: %s", what, l, err)
	}
}

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
			checkNoLeak(t, "FromUnstructured", err)
			_, err = SetUnstructured(obj(), metav1.Condition{Type: markerName, Status: metav1.ConditionTrue, Reason: markerName, Message: markerString})
			checkNoLeak(t, "SetUnstructured", err)
			_, err = RemoveUnstructured(obj(), markerName)
			checkNoLeak(t, "RemoveUnstructured", err)
			_, err = SetProgressUnstructured(obj(), 2, Done, markerName, markerString)
			checkNoLeak(t, "SetProgressUnstructured", err)

			// Propagated from an XR that lists the marker type, to a claim
			// that has the malformed list, and the other way round.
			xr := obj()
			if m, ok := xr.Object["status"].(map[string]any); ok {
				xr.Object["status"] = map[string]any{"conditions": m["conditions"], "claimConditionTypes": []any{markerName, markerString}}
			}
			_, err = Propagate(xr, claimObject(nil, nil))
			checkNoLeak(t, "Propagate from", err)
			_, err = Propagate(xrObject(nil, strs(markerName), nil), obj())
			checkNoLeak(t, "Propagate to", err)
		}
	}

	// Lists of types to propagate that are not lists of strings.
	for _, v := range markerFieldValues {
		for _, types := range []any{v, []any{v}, []any{markerName, v}} {
			xr := xrObject(nil, nil, nil)
			xr.Object["status"].(map[string]any)["claimConditionTypes"] = types
			_, err := Propagate(xr, claimObject(nil, nil))
			checkNoLeak(t, "Propagate with claimConditionTypes", err)
			claim := claimObject(nil, nil)
			claim.Object["status"].(map[string]any)["claimConditions"] = types
			_, err = Propagate(xrObject(nil, strs(markerName), nil), claim)
			checkNoLeak(t, "Propagate with the claim's record", err)
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
		checkNoLeak(t, "Validate", err)
		_, err = SetUnstructured(claimObject(nil, nil), c)
		checkNoLeak(t, "SetUnstructured", err)
		xr := xrObject(nil, strs(c.Type), nil)
		xr.Object["status"].(map[string]any)["conditions"] = []any{toEntry(c)}
		_, err = Propagate(xr, claimObject(nil, nil))
		checkNoLeak(t, "Propagate of an invalid condition", err)
	}
}
