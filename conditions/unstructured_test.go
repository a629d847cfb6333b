package conditions

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// object returns a namespaced test object with the given status; a nil
// status means none.
func object(status any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.ctrlkit.dev/v1alpha1",
		"kind":       "XDatabase",
		"metadata":   map[string]any{"name": "orders", "namespace": "default", "generation": int64(3)},
	}}
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

// entry returns c as it appears in unstructured content.
func entry(c metav1.Condition) map[string]any { return toEntry(c) }

func TestFromUnstructured(t *testing.T) {
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")
	ready := cond("Ready", metav1.ConditionTrue, "Available")

	cases := map[string]struct {
		reason  string
		u       *unstructured.Unstructured
		want    []metav1.Condition
		wantErr string
	}{
		"NoStatus": {
			reason: "A missing status has no conditions.",
			u:      object(nil),
		},
		"NullStatus": {
			reason: "A null status has no conditions.",
			u:      &unstructured.Unstructured{Object: map[string]any{"status": nil}},
		},
		"NilObject": {
			reason: "An unstructured object without content has no conditions.",
			u:      &unstructured.Unstructured{},
		},
		"NoList": {
			reason: "A status without conditions has none.",
			u:      object(map[string]any{"phase": "Pending"}),
		},
		"EmptyList": {
			reason: "An empty list has no conditions.",
			u:      object(map[string]any{"conditions": []any{}}),
		},
		"Conditions": {
			reason: "Conditions are read in order.",
			u:      object(map[string]any{"conditions": []any{entry(ready), entry(db)}}),
			want:   []metav1.Condition{ready, db},
		},
		"Lenient": {
			reason: "Crossplane-style entries without message or observedGeneration, a float64 generation, a time with an offset, and unknown keys are read.",
			u: object(map[string]any{"conditions": []any{
				map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": "2026-01-02T04:04:05+01:00", "extra": true},
				map[string]any{"type": "Ready", "status": "False", "observedGeneration": float64(4), "lastTransitionTime": nil},
				map[string]any{"type": "Other", "status": "Unknown", "observedGeneration": json.Number("5"), "lastTransitionTime": ""},
			}}),
			want: []metav1.Condition{
				{Type: "Synced", Status: metav1.ConditionTrue, Reason: "ReconcileSuccess", LastTransitionTime: t0},
				{Type: "Ready", Status: metav1.ConditionFalse, ObservedGeneration: 4},
				{Type: "Other", Status: metav1.ConditionUnknown, ObservedGeneration: 5},
			},
		},
		"StatusNotObject": {
			reason:  "A status that is not an object is malformed.",
			u:       object("ok"),
			wantErr: `cannot read conditions of XDatabase default/orders: status: must be an object, not a string`,
		},
		"ListNotList": {
			reason:  "Conditions that are not a list are malformed.",
			u:       object(map[string]any{"conditions": map[string]any{}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions: must be a list, not an object`,
		},
		"EntryNotObject": {
			reason:  "An entry that is not an object is malformed, and named by index.",
			u:       object(map[string]any{"conditions": []any{entry(ready), "Ready"}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[1]: must be an object, not a string`,
		},
		"MissingType": {
			reason:  "An entry without a type is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"status": "True"}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].type: missing`,
		},
		"EmptyType": {
			reason:  "An entry with an empty type is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"type": "", "status": "True"}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].type: must not be empty`,
		},
		"TypeNotString": {
			reason:  "An entry whose type is not a string is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"type": int64(1), "status": "True"}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].type: must be a string, not a number`,
		},
		"MissingStatus": {
			reason:  "An entry without a status is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"type": "Ready"}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].status: missing`,
		},
		"ReasonNotString": {
			reason:  "An entry whose reason is not a string is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": []any{}}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].reason: must be a string, not a list`,
		},
		"MessageNotString": {
			reason:  "An entry whose message is not a string is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True", "message": false}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].message: must be a string, not a boolean`,
		},
		"BadTime": {
			reason:  "An entry whose lastTransitionTime is not RFC 3339 is malformed.",
			u:       object(map[string]any{"conditions": []any{entry(ready), map[string]any{"type": "X", "status": "True", "lastTransitionTime": "yesterday"}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[1].lastTransitionTime (a string of 9 bytes): must be an RFC 3339 time (e.g. "2006-01-02T15:04:05Z")`,
		},
		"TimeNotString": {
			reason:  "An entry whose lastTransitionTime is not a string is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"type": "X", "status": "True", "lastTransitionTime": int64(5)}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].lastTransitionTime: must be a string, not a number`,
		},
		"FractionalGeneration": {
			reason:  "An entry whose observedGeneration is not an integer is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"type": "X", "status": "True", "observedGeneration": 1.5}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].observedGeneration: must be an integer, not a fraction or a number out of range`,
		},
		"GenerationString": {
			reason:  "An entry whose observedGeneration is a string is malformed.",
			u:       object(map[string]any{"conditions": []any{map[string]any{"type": "X", "status": "True", "observedGeneration": "1"}}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[0].observedGeneration: must be an integer, not a string`,
		},
		"Duplicate": {
			reason:  "A repeated type is malformed: Set's one-per-type rule could not hold.",
			u:       object(map[string]any{"conditions": []any{entry(ready), entry(db), entry(ready)}}),
			wantErr: `cannot read conditions of XDatabase default/orders: status.conditions[2]: its type repeats that of status.conditions[0]`,
		},
		"DuplicateInALongList": {
			reason: "A repeated type is found, and named, in a list long enough to be checked with a map.",
			u: object(map[string]any{"conditions": func() []any {
				l := []any{entry(ready)}
				for i := range 2 * longList {
					l = append(l, map[string]any{"type": fmt.Sprintf("C%d", i), "status": "True"})
				}
				return append(l, map[string]any{"type": "C7", "status": "False"})
			}()}),
			wantErr: fmt.Sprintf(`cannot read conditions of XDatabase default/orders: status.conditions[%d]: its type repeats that of status.conditions[8]`, 2*longList+1),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := FromUnstructured(tc.u)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Errorf("%s\nFromUnstructured(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if err != nil && !errors.Is(err, ErrMalformed) {
				t.Errorf("%s\nFromUnstructured(...): the error should wrap ErrMalformed", tc.reason)
			}
			if diff := cmp.Diff(tc.want, got, timeComparer); diff != "" {
				t.Errorf("%s\nFromUnstructured(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}

	if _, err := FromUnstructured(nil); !errors.Is(err, ErrNilObject) {
		t.Errorf("FromUnstructured(nil): want ErrNilObject, got %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSetUnstructured(t *testing.T) {
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")
	ready := cond("Ready", metav1.ConditionTrue, "Available")

	type want struct {
		u       *unstructured.Unstructured
		changed bool
		err     string
	}
	cases := map[string]struct {
		reason string
		u      *unstructured.Unstructured
		c      metav1.Condition
		want   want
	}{
		"NoStatus": {
			reason: "A missing status is created, and the new condition stamped with the clock.",
			u:      object(nil),
			c:      with(db, func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} }),
			want: want{
				u:       object(map[string]any{"conditions": []any{entry(with(db, func(c *metav1.Condition) { c.LastTransitionTime = nowStamp }))}}),
				changed: true,
			},
		},
		"NoContent": {
			reason: "An object without content gets a status.",
			u:      &unstructured.Unstructured{},
			c:      db,
			want: want{
				u:       &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{entry(db)}}}},
				changed: true,
			},
		},
		"KeepsOtherStatusFields": {
			reason: "Other status fields, known or not, are kept.",
			u:      object(map[string]any{"phase": "Pending", "atProvider": map[string]any{"id": "x"}}),
			c:      db,
			want: want{
				u:       object(map[string]any{"phase": "Pending", "atProvider": map[string]any{"id": "x"}, "conditions": []any{entry(db)}}),
				changed: true,
			},
		},
		"Append": {
			reason: "A new type is appended.",
			u:      object(map[string]any{"conditions": []any{entry(ready)}}),
			c:      db,
			want: want{
				u:       object(map[string]any{"conditions": []any{entry(ready), entry(db)}}),
				changed: true,
			},
		},
		"NoChange": {
			reason: "The same condition again changes nothing.",
			u:      object(map[string]any{"conditions": []any{entry(ready), entry(db)}}),
			c:      with(db, func(c *metav1.Condition) { c.LastTransitionTime = given }),
			want:   want{u: object(map[string]any{"conditions": []any{entry(ready), entry(db)}})},
		},
		"NoChangeCrossplaneEntry": {
			reason: "An entry without message or observedGeneration equals a condition with empty ones.",
			u:      object(map[string]any{"conditions": []any{map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": "2026-01-02T03:04:05Z"}}}),
			c:      metav1.Condition{Type: "Synced", Status: metav1.ConditionTrue, Reason: "ReconcileSuccess"},
			want:   want{u: object(map[string]any{"conditions": []any{map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": "2026-01-02T03:04:05Z"}}})},
		},
		"StatusChange": {
			reason: "A status change stamps the clock's time and keeps the position and the entry's unknown keys.",
			u: object(map[string]any{"conditions": []any{
				entry(ready),
				with2(entry(db), "severity", "Error"),
			}}),
			c: with(db, func(c *metav1.Condition) {
				c.Status, c.Reason, c.LastTransitionTime = metav1.ConditionTrue, "Available", metav1.Time{}
			}),
			want: want{
				u: object(map[string]any{"conditions": []any{
					entry(ready),
					with2(entry(with(db, func(c *metav1.Condition) {
						c.Status, c.Reason, c.LastTransitionTime = metav1.ConditionTrue, "Available", nowStamp
					})), "severity", "Error"),
				}}),
				changed: true,
			},
		},
		"MessageChangeKeepsWrittenTime": {
			reason: "A message change keeps lastTransitionTime as it was written.",
			u: object(map[string]any{"conditions": []any{
				with2(entry(db), "lastTransitionTime", "2026-01-02T04:04:05+01:00"),
			}}),
			c: with(db, func(c *metav1.Condition) { c.Message = "gone" }),
			want: want{
				u: object(map[string]any{"conditions": []any{
					with2(entry(with(db, func(c *metav1.Condition) { c.Message = "gone" })), "lastTransitionTime", "2026-01-02T04:04:05+01:00"),
				}}),
				changed: true,
			},
		},
		"GenerationToZero": {
			reason: "An observedGeneration of zero is omitted, as metav1.Condition's JSON omits it.",
			u:      object(map[string]any{"conditions": []any{entry(db)}}),
			c:      with(db, func(c *metav1.Condition) { c.ObservedGeneration = 0 }),
			want: want{
				u:       object(map[string]any{"conditions": []any{entry(with(db, func(c *metav1.Condition) { c.ObservedGeneration = 0 }))}}),
				changed: true,
			},
		},
		"Invalid": {
			reason: "An invalid condition is an error, and nothing is written.",
			u:      object(map[string]any{"conditions": []any{entry(ready)}}),
			c:      with(db, func(c *metav1.Condition) { c.Reason = "not found" }),
			want: want{
				u:   object(map[string]any{"conditions": []any{entry(ready)}}),
				err: `cannot set a condition on XDatabase default/orders: invalid condition: reason (a string of 9 bytes): must start with a letter, contain only letters, digits, '_', ',' and ':', and end with a letter, digit or '_' (e.g. "NotFound")`,
			},
		},
		"MalformedEntry": {
			reason: "A malformed entry elsewhere in the list is an error naming its index, and nothing is written.",
			u:      object(map[string]any{"conditions": []any{entry(ready), map[string]any{"type": "X", "status": "True", "observedGeneration": "two"}}}),
			c:      db,
			want: want{
				u:   object(map[string]any{"conditions": []any{entry(ready), map[string]any{"type": "X", "status": "True", "observedGeneration": "two"}}}),
				err: `cannot set a condition on XDatabase default/orders: status.conditions[1].observedGeneration: must be an integer, not a string`,
			},
		},
		"MalformedStatus": {
			reason: "A status that is not an object is an error, and nothing is written.",
			u:      object([]any{}),
			c:      db,
			want: want{
				u:   object([]any{}),
				err: `cannot set a condition on XDatabase default/orders: status: must be an object, not a list`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := tc.u.DeepCopy()
			changed, err := fakeSetter().SetUnstructured(u, tc.c)
			if diff := cmp.Diff(tc.want.err, errString(err)); diff != "" {
				t.Errorf("%s\nSetUnstructured(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.changed, changed); diff != "" {
				t.Errorf("%s\nSetUnstructured(...): -want changed, +got changed:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.u, u); diff != "" {
				t.Errorf("%s\nSetUnstructured(...): -want object, +got object:\n%s", tc.reason, diff)
			}
		})
	}

	if _, err := SetUnstructured(nil, db); !errors.Is(err, ErrNilObject) {
		t.Errorf("SetUnstructured(nil, ...): want ErrNilObject, got %v", err)
	}
}

// with2 returns a copy of m with k set to v.
func with2(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[k] = v
	return out
}

func TestSetUnstructuredDoesNotChangeSharedContent(t *testing.T) {
	// A caller may hold the old list, e.g. from a shallow copy; the list it
	// holds keeps its entries.
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")
	u := object(map[string]any{"conditions": []any{entry(db)}})
	old := u.Object["status"].(map[string]any)["conditions"].([]any)
	oldEntry := old[0].(map[string]any)
	if _, err := SetUnstructured(u, with(db, func(c *metav1.Condition) { c.Message = "new" })); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(entry(db), oldEntry); diff != "" {
		t.Errorf("SetUnstructured(...) changed the old entry: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]any{entry(db)}, old); diff != "" {
		t.Errorf("SetUnstructured(...) changed the old list: -want, +got:\n%s", diff)
	}

	// A shallow copy of the object shares its status map: neither a change
	// nor a new condition in the copy reaches the original.
	shallow := &unstructured.Unstructured{Object: maps.Clone(u.Object)}
	before := u.DeepCopy()
	for _, c := range []metav1.Condition{with(db, func(c *metav1.Condition) { c.Message = "newer" }), cond("CacheReady", metav1.ConditionTrue, "Available")} {
		if _, err := SetUnstructured(shallow, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := RemoveUnstructured(shallow, "DatabaseReady"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before.Object, u.Object); diff != "" {
		t.Errorf("writes to a shallow copy changed the original: -want, +got:\n%s", diff)
	}
}

func TestRemoveUnstructured(t *testing.T) {
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")
	ready := cond("Ready", metav1.ConditionTrue, "Available")
	cases := map[string]struct {
		reason      string
		u           *unstructured.Unstructured
		t           string
		wantU       *unstructured.Unstructured
		wantRemoved bool
		wantErr     string
	}{
		"Remove": {
			reason:      "The type is removed and the others keep their order.",
			u:           object(map[string]any{"phase": "x", "conditions": []any{entry(db), entry(ready)}}),
			t:           "DatabaseReady",
			wantU:       object(map[string]any{"phase": "x", "conditions": []any{entry(ready)}}),
			wantRemoved: true,
		},
		"RemoveLast": {
			reason:      "Removing the only condition leaves an empty list.",
			u:           object(map[string]any{"conditions": []any{entry(db)}}),
			t:           "DatabaseReady",
			wantU:       object(map[string]any{"conditions": []any{}}),
			wantRemoved: true,
		},
		"Absent": {
			reason: "Removing an absent type changes nothing.",
			u:      object(map[string]any{"conditions": []any{entry(ready)}}),
			t:      "DatabaseReady",
			wantU:  object(map[string]any{"conditions": []any{entry(ready)}}),
		},
		"NoStatus": {
			reason: "Removing from a missing status changes nothing and creates nothing.",
			u:      object(nil),
			t:      "DatabaseReady",
			wantU:  object(nil),
		},
		"Malformed": {
			reason:  "A malformed entry is an error, and nothing is removed.",
			u:       object(map[string]any{"conditions": []any{entry(db), 7.0}}),
			t:       "DatabaseReady",
			wantU:   object(map[string]any{"conditions": []any{entry(db), 7.0}}),
			wantErr: `cannot remove a condition from XDatabase default/orders: status.conditions[1]: must be an object, not a number`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := tc.u.DeepCopy()
			removed, err := RemoveUnstructured(u, tc.t)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Errorf("%s\nRemoveUnstructured(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantRemoved, removed); diff != "" {
				t.Errorf("%s\nRemoveUnstructured(...): -want removed, +got removed:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantU, u); diff != "" {
				t.Errorf("%s\nRemoveUnstructured(...): -want object, +got object:\n%s", tc.reason, diff)
			}
		})
	}
	if _, err := RemoveUnstructured(nil, "Ready"); !errors.Is(err, ErrNilObject) {
		t.Errorf("RemoveUnstructured(nil, ...): want ErrNilObject, got %v", err)
	}
}

// TestUnstructuredRoundTrip checks that what SetUnstructured writes survives
// JSON, the way it travels to the API server, and reads back equal.
func TestUnstructuredRoundTrip(t *testing.T) {
	s := fakeSetter()
	u := object(nil)
	want := []metav1.Condition{
		cond("Ready", metav1.ConditionTrue, "Available"),
		with(cond("DatabaseReady", metav1.ConditionFalse, "NotFound"), func(c *metav1.Condition) { c.ObservedGeneration = 0 }),
	}
	for _, c := range want {
		if _, err := s.SetUnstructured(u, c); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	back := &unstructured.Unstructured{}
	if err := back.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	got, err := FromUnstructured(back)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, timeComparer); diff != "" {
		t.Errorf("round trip: -want, +got:\n%s", diff)
	}

	// And typed JSON decoding agrees.
	var typed struct {
		Status struct {
			Conditions []metav1.Condition `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal(data, &typed); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, typed.Status.Conditions, timeComparer); diff != "" {
		t.Errorf("typed decoding: -want, +got:\n%s", diff)
	}
}

func TestSetUnstructuredAllocations(t *testing.T) {
	conds := make([]metav1.Condition, 10)
	for i := range conds {
		conds[i] = cond(string(rune('A'+i))+"Ready", metav1.ConditionTrue, "Available")
	}
	u := object(map[string]any{"conditions": entries(conds...)})
	same := conds[9]
	if n := testing.AllocsPerRun(100, func() { _, _ = SetUnstructured(u, same) }); n != 0 {
		t.Errorf("SetUnstructured with no change on 10 conditions: want 0 allocations, got %v", n)
	}
}
