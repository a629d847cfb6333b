package conditions

import (
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// xrObject returns a composite resource with the given conditions, listing
// claimConditions (when not nil) and Crossplane's claimConditionTypes (when
// not nil).
func xrObject(conds []metav1.Condition, claimConditions, claimConditionTypes []any) *unstructured.Unstructured {
	status := map[string]any{"conditions": entries(conds...)}
	if claimConditions != nil {
		status["claimConditions"] = claimConditions
	}
	if claimConditionTypes != nil {
		status["claimConditionTypes"] = claimConditionTypes
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.ctrlkit.dev/v1alpha1",
		"kind":       "XDatabase",
		"metadata":   map[string]any{"name": "orders-x7k2p", "generation": int64(9)},
		"status":     status,
	}}
}

// claimObject returns a claim at generation 2 with the given conditions, the
// given record of propagated types (when not nil) and its own status field.
func claimObject(conds []metav1.Condition, record []any) *unstructured.Unstructured {
	status := map[string]any{"address": "10.0.0.1", "conditions": entries(conds...)}
	if record != nil {
		status["claimConditions"] = record
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.ctrlkit.dev/v1alpha1",
		"kind":       "Database",
		"metadata":   map[string]any{"name": "orders", "namespace": "team-a", "generation": int64(2)},
		"status":     status,
	}}
}

func entries(conds ...metav1.Condition) []any {
	out := make([]any, len(conds))
	for i, c := range conds {
		out[i] = toEntry(c)
	}
	return out
}

func strs(s ...string) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = s[i]
	}
	return out
}

// noGeneration is c without observedGeneration, as a schema without the
// field leaves it.
func noGeneration(c metav1.Condition) metav1.Condition {
	c.ObservedGeneration = 0
	return c
}

// onClaim is the XR condition x as Propagate shows it on the claim.
func onClaim(x metav1.Condition) metav1.Condition {
	x.ObservedGeneration = 2
	return x
}

func TestPropagate(t *testing.T) {
	// The XR's conditions.
	xReady := cond("Ready", metav1.ConditionTrue, "Available")
	xSynced := cond("Synced", metav1.ConditionTrue, "ReconcileSuccess")
	xDB := with(cond("DatabaseReady", metav1.ConditionTrue, "Available"), func(c *metav1.Condition) { c.ObservedGeneration = 9 })
	xImage := with(cond("ImageReady", metav1.ConditionFalse, "NotFound"), func(c *metav1.Condition) { c.LastTransitionTime = given })
	// The claim's own conditions.
	cReady := cond("Ready", metav1.ConditionFalse, "Creating")
	cSynced := cond("Synced", metav1.ConditionTrue, "ReconcileSuccess")
	cHealthy := cond("Healthy", metav1.ConditionTrue, "Probed")

	type args struct {
		xr, claim *unstructured.Unstructured
		opts      []PropagateOption
	}
	type want struct {
		claim   *unstructured.Unstructured
		changed bool
		err     string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"First": {
			reason: "Listed types the XR has are appended in the order listed, with the claim's generation, and recorded; Ready is not copied.",
			args: args{
				xr:    xrObject([]metav1.Condition{xReady, xSynced, xDB, xImage}, strs("ImageReady", "Ready", "DatabaseReady", "Missing"), nil),
				claim: claimObject([]metav1.Condition{cReady, cSynced}, nil),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{cReady, cSynced, onClaim(xImage), onClaim(xDB)}, strs("ImageReady", "DatabaseReady")),
				changed: true,
			},
		},
		"AlreadyPropagated": {
			reason: "A claim that already shows the XR's conditions does not change.",
			args: args{
				xr:    xrObject([]metav1.Condition{xReady, xDB, xImage}, strs("ImageReady", "DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cReady, onClaim(xImage), onClaim(xDB)}, strs("ImageReady", "DatabaseReady")),
			},
			want: want{claim: claimObject([]metav1.Condition{cReady, onClaim(xImage), onClaim(xDB)}, strs("ImageReady", "DatabaseReady"))},
		},
		"NoGenerationOnClaim": {
			reason: "A claim condition that lacks only observedGeneration (a schema without the field prunes it) needs no write.",
			args: args{
				xr:    xrObject([]metav1.Condition{xImage}, strs("ImageReady"), nil),
				claim: claimObject([]metav1.Condition{noGeneration(xImage)}, strs("ImageReady")),
			},
			want: want{claim: claimObject([]metav1.Condition{noGeneration(xImage)}, strs("ImageReady"))},
		},
		"NoGenerationOnClaimAndNewReason": {
			reason: "A claim condition without observedGeneration that differs otherwise is written whole, with the claim's generation.",
			args: args{
				xr: xrObject([]metav1.Condition{xImage}, strs("ImageReady"), nil),
				claim: claimObject([]metav1.Condition{with(noGeneration(xImage), func(c *metav1.Condition) { c.Reason = "Pulling" })},
					strs("ImageReady")),
			},
			want: want{claim: claimObject([]metav1.Condition{onClaim(xImage)}, strs("ImageReady")), changed: true},
		},
		"OlderGenerationOnClaim": {
			reason: "A claim condition of an older generation takes the claim's generation, though nothing else changed.",
			args: args{
				xr:    xrObject([]metav1.Condition{xImage}, strs("ImageReady"), nil),
				claim: claimObject([]metav1.Condition{xImage}, strs("ImageReady")),
			},
			want: want{claim: claimObject([]metav1.Condition{onClaim(xImage)}, strs("ImageReady")), changed: true},
		},
		"NoStatus": {
			reason: "A claim without status gets one when there is something to propagate.",
			args: args{
				xr: xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: &unstructured.Unstructured{Object: map[string]any{
					"kind": "Database", "metadata": map[string]any{"name": "orders", "generation": int64(2)},
				}},
			},
			want: want{
				claim: &unstructured.Unstructured{Object: map[string]any{
					"kind": "Database", "metadata": map[string]any{"name": "orders", "generation": int64(2)},
					"status": map[string]any{"conditions": entries(onClaim(xDB)), "claimConditions": strs("DatabaseReady")},
				}},
				changed: true,
			},
		},
		"NothingListed": {
			reason: "An XR that lists nothing leaves a claim with no record alone: no status field is added.",
			args: args{
				xr:    xrObject([]metav1.Condition{xReady, xDB}, nil, nil),
				claim: claimObject([]metav1.Condition{cReady}, nil),
			},
			want: want{claim: claimObject([]metav1.Condition{cReady}, nil)},
		},
		"DroppedFromList": {
			reason: "A recorded type the XR no longer lists is removed, and the record shrinks.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB, xImage}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cReady, onClaim(xImage), onClaim(xDB)}, strs("ImageReady", "DatabaseReady")),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{cReady, onClaim(xDB)}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"GoneFromXR": {
			reason: "A recorded type the XR still lists but no longer has is removed.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady", "ImageReady"), nil),
				claim: claimObject([]metav1.Condition{onClaim(xImage), cReady, onClaim(xDB)}, strs("ImageReady", "DatabaseReady")),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{cReady, onClaim(xDB)}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"AllGone": {
			reason: "When nothing is propagated any more the record field is deleted.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, nil, nil),
				claim: claimObject([]metav1.Condition{onClaim(xDB)}, strs("DatabaseReady")),
			},
			want: want{
				claim:   claimObject(nil, nil),
				changed: true,
			},
		},
		"ClaimOwnConditionsUntouched": {
			reason: "Conditions the claim's controller set, and that were never recorded, stay.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cHealthy, cReady, onClaim(xDB), cSynced}, strs("DatabaseReady", "ImageReady")),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{cHealthy, cReady, onClaim(xDB), cSynced}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"ReservedNeverRemoved": {
			reason: "Ready and Synced are never removed, even if a record names them, and the record is corrected.",
			args: args{
				xr:    xrObject([]metav1.Condition{xReady, xSynced, xDB}, strs("Ready", "Synced", "DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cReady, cSynced, onClaim(xDB)}, strs("Ready", "Synced", "DatabaseReady")),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{cReady, cSynced, onClaim(xDB)}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"CrossplaneField": {
			reason: "Crossplane's claimConditionTypes is honoured, after claimConditions, without repeats.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB, xImage}, strs("DatabaseReady"), strs("ImageReady", "DatabaseReady")),
				claim: claimObject(nil, nil),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{onClaim(xDB), onClaim(xImage)}, strs("DatabaseReady", "ImageReady")),
				changed: true,
			},
		},
		"CrossplaneFieldAlone": {
			reason: "Crossplane's claimConditionTypes works without claimConditions.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, nil, strs("DatabaseReady")),
				claim: claimObject(nil, nil),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{onClaim(xDB)}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"StatusChangeMirrorsTime": {
			reason: "A changed XR condition updates the claim's in place, with the XR's lastTransitionTime.",
			args: args{
				xr: xrObject([]metav1.Condition{with(xImage, func(c *metav1.Condition) {
					c.Status, c.Reason, c.LastTransitionTime = metav1.ConditionTrue, "Available", nowStamp
				}), xDB}, strs("DatabaseReady", "ImageReady"), nil),
				claim: claimObject([]metav1.Condition{onClaim(xImage), cReady, onClaim(xDB)}, strs("DatabaseReady", "ImageReady")),
			},
			want: want{
				claim: claimObject([]metav1.Condition{onClaim(with(xImage, func(c *metav1.Condition) {
					c.Status, c.Reason, c.LastTransitionTime = metav1.ConditionTrue, "Available", nowStamp
				})), cReady, onClaim(xDB)}, strs("DatabaseReady", "ImageReady")),
				changed: true,
			},
		},
		"TimeOnlyChange": {
			reason: "The claim mirrors the XR's lastTransitionTime even when nothing else changed.",
			args: args{
				xr:    xrObject([]metav1.Condition{with(xDB, func(c *metav1.Condition) { c.LastTransitionTime = given })}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{onClaim(xDB)}, strs("DatabaseReady")),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{onClaim(with(xDB, func(c *metav1.Condition) { c.LastTransitionTime = given }))}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"NoXRTimeNew": {
			reason: "An XR condition without lastTransitionTime is stamped with the clock when it first reaches the claim.",
			args: args{
				xr:    xrObject([]metav1.Condition{with(xDB, func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} })}, strs("DatabaseReady"), nil),
				claim: claimObject(nil, nil),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{onClaim(with(xDB, func(c *metav1.Condition) { c.LastTransitionTime = nowStamp }))}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"NoXRTimeSameStatus": {
			reason: "An XR condition without lastTransitionTime keeps the claim's while the status holds.",
			args: args{
				xr: xrObject([]metav1.Condition{with(xDB, func(c *metav1.Condition) {
					c.LastTransitionTime, c.Message = metav1.Time{}, "new message"
				})}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{onClaim(xDB)}, strs("DatabaseReady")),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{onClaim(with(xDB, func(c *metav1.Condition) { c.Message = "new message" }))}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"NoXRTimeStatusChange": {
			reason: "An XR condition without lastTransitionTime whose status changed is stamped with the clock.",
			args: args{
				xr: xrObject([]metav1.Condition{with(xDB, func(c *metav1.Condition) {
					c.LastTransitionTime, c.Status = metav1.Time{}, metav1.ConditionFalse
				})}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{onClaim(xDB)}, strs("DatabaseReady")),
			},
			want: want{
				claim: claimObject([]metav1.Condition{onClaim(with(xDB, func(c *metav1.Condition) {
					c.LastTransitionTime, c.Status = nowStamp, metav1.ConditionFalse
				}))}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"ClaimGenerationChanged": {
			reason: "A new claim generation updates observedGeneration.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{with(onClaim(xDB), func(c *metav1.Condition) { c.ObservedGeneration = 1 })}, strs("DatabaseReady")),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{onClaim(xDB)}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"TakesOverClaimCondition": {
			reason: "A listed type replaces a claim condition of the same type, and is recorded.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{with(cHealthy, func(c *metav1.Condition) { c.Type = "DatabaseReady" })}, nil),
			},
			want: want{
				claim:   claimObject([]metav1.Condition{onClaim(xDB)}, strs("DatabaseReady")),
				changed: true,
			},
		},
		"RecordField": {
			reason: "RecordField moves the record.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cReady}, nil),
				opts:  []PropagateOption{RecordField{"status", "propagation", "types"}},
			},
			want: want{
				claim: func() *unstructured.Unstructured {
					u := claimObject([]metav1.Condition{cReady, onClaim(xDB)}, nil)
					u.Object["status"].(map[string]any)["propagation"] = map[string]any{"types": strs("DatabaseReady")}
					return u
				}(),
				changed: true,
			},
		},
		"EmptyRecordField": {
			reason: "An empty RecordField keeps no record: the condition is copied and nothing else is written.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cReady}, nil),
				opts:  []PropagateOption{RecordField{}},
			},
			want: want{
				claim:   claimObject([]metav1.Condition{cReady, onClaim(xDB)}, nil),
				changed: true,
			},
		},
		"EmptyRecordFieldSettled": {
			reason: "Without a record, a claim that shows the XR's conditions is settled, even on a schema without a record field.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cReady, onClaim(xDB)}, nil),
				opts:  []PropagateOption{RecordField{}},
			},
			want: want{
				claim: claimObject([]metav1.Condition{cReady, onClaim(xDB)}, nil),
			},
		},
		"PrunedRecordSettles": {
			reason: "A claim that shows the XR's conditions and has no record field (its schema prunes it) is settled: the record is written only along with a change.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cReady, onClaim(xDB)}, nil),
			},
			want: want{
				claim: claimObject([]metav1.Condition{cReady, onClaim(xDB)}, nil),
			},
		},
		"EmptyRecordFieldKeepsUnlisted": {
			reason: "Without a record, a type the XR no longer lists stays on the claim, as Crossplane's claim reconciler leaves it.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, nil, nil),
				claim: claimObject([]metav1.Condition{cReady, onClaim(xDB)}, nil),
				opts:  []PropagateOption{RecordField{}},
			},
			want: want{
				claim: claimObject([]metav1.Condition{cReady, onClaim(xDB)}, nil),
			},
		},
		"MalformedXRConditions": {
			reason: "A malformed XR condition is an error naming the XR and the entry.",
			args: args{
				xr: func() *unstructured.Unstructured {
					u := xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil)
					u.Object["status"].(map[string]any)["conditions"] = []any{"DatabaseReady"}
					return u
				}(),
				claim: claimObject(nil, nil),
			},
			want: want{
				claim: claimObject(nil, nil),
				err:   `cannot read conditions of XDatabase orders-x7k2p: status.conditions[0]: must be an object, not a string`,
			},
		},
		"MalformedList": {
			reason: "A claimConditions that is not a list of strings is an error naming the entry.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, []any{"DatabaseReady", int64(3)}, nil),
				claim: claimObject(nil, nil),
			},
			want: want{
				claim: claimObject(nil, nil),
				err:   `cannot read the condition types to propagate from XDatabase orders-x7k2p: status.claimConditions[1]: must be a string, not a number`,
			},
		},
		"MalformedCrossplaneList": {
			reason: "A claimConditionTypes that is not a list is an error.",
			args: args{
				xr: func() *unstructured.Unstructured {
					u := xrObject([]metav1.Condition{xDB}, nil, nil)
					u.Object["status"].(map[string]any)["claimConditionTypes"] = "DatabaseReady"
					return u
				}(),
				claim: claimObject(nil, nil),
			},
			want: want{
				claim: claimObject(nil, nil),
				err:   `cannot read the condition types to propagate from XDatabase orders-x7k2p: status.claimConditionTypes: must be a list of strings, not a string`,
			},
		},
		"MalformedClaimConditions": {
			reason: "A malformed claim condition is an error, and the claim is left unchanged.",
			args: args{
				xr: xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: func() *unstructured.Unstructured {
					u := claimObject([]metav1.Condition{cReady, cReady}, nil)
					return u
				}(),
			},
			want: want{
				claim: claimObject([]metav1.Condition{cReady, cReady}, nil),
				err:   `cannot read conditions of Database team-a/orders: status.conditions[1]: its type repeats that of status.conditions[0]`,
			},
		},
		"MalformedRecord": {
			reason: "A record that is not a list of strings is an error, and the claim is left unchanged.",
			args: args{
				xr:    xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil),
				claim: claimObject([]metav1.Condition{cReady}, []any{map[string]any{}}),
			},
			want: want{
				claim: claimObject([]metav1.Condition{cReady}, []any{map[string]any{}}),
				err:   `cannot read the propagated condition types of Database team-a/orders: status.claimConditions[0]: must be a string, not an object`,
			},
		},
		"InvalidXRCondition": {
			reason: "An XR condition that would be invalid on the claim is an error, and the claim is left unchanged.",
			args: args{
				xr: xrObject([]metav1.Condition{xImage, with(xDB, func(c *metav1.Condition) { c.Reason = "" })},
					strs("ImageReady", "DatabaseReady"), nil),
				claim: claimObject(nil, nil),
			},
			want: want{
				claim: claimObject(nil, nil),
				err:   `cannot propagate status.conditions[1] of XDatabase orders-x7k2p to Database team-a/orders: invalid condition: reason: must not be empty`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			xr, claim := tc.args.xr.DeepCopy(), tc.args.claim.DeepCopy()
			changed, err := fakeSetter().Propagate(xr, claim, tc.args.opts...)
			if diff := cmp.Diff(tc.want.err, errString(err)); diff != "" {
				t.Errorf("%s\nPropagate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrInvalid) {
				t.Errorf("%s\nPropagate(...): the error should wrap ErrMalformed or ErrInvalid: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.changed, changed); diff != "" {
				t.Errorf("%s\nPropagate(...): -want changed, +got changed:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.claim, claim); diff != "" {
				t.Errorf("%s\nPropagate(...): -want claim, +got claim:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.args.xr, xr); diff != "" {
				t.Errorf("%s\nPropagate(...) changed the XR: -want, +got:\n%s", tc.reason, diff)
			}
			if err != nil || !changed {
				return
			}
			// A second pass over the result finds nothing to do.
			again, err := fakeSetter().Propagate(xr, claim, tc.args.opts...)
			if err != nil || again {
				t.Errorf("%s\nPropagate(...) a second time: want no change and no error, got %v, %v", tc.reason, again, err)
			}
		})
	}

	if _, err := Propagate(nil, claimObject(nil, nil)); !errors.Is(err, ErrNilObject) {
		t.Errorf("Propagate(nil, ...): want ErrNilObject, got %v", err)
	}
	if _, err := Propagate(xrObject(nil, nil, nil), nil); !errors.Is(err, ErrNilObject) {
		t.Errorf("Propagate(..., nil): want ErrNilObject, got %v", err)
	}
}

// TestPropagateDoesNotChangeSharedContent checks that a claim whose content
// is shared with another object (a shallow copy, an informer's cache) changes
// only in its own status map.
func TestPropagateDoesNotChangeSharedContent(t *testing.T) {
	xDB := cond("DatabaseReady", metav1.ConditionTrue, "Available")
	xr := xrObject([]metav1.Condition{xDB}, strs("DatabaseReady"), nil)
	claim := claimObject([]metav1.Condition{onClaim(with(xDB, func(c *metav1.Condition) { c.Message = "old" }))}, strs("DatabaseReady"))
	list := claim.Object["status"].(map[string]any)["conditions"].([]any)
	want := entries(onClaim(with(xDB, func(c *metav1.Condition) { c.Message = "old" })))
	changed, err := Propagate(xr, claim)
	if err != nil || !changed {
		t.Fatalf("Propagate(...): want a change and no error, got %v, %v", changed, err)
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("Propagate(...) changed the claim's old list in place: -want, +got:\n%s", diff)
	}

	// A shallow copy of the claim shares its status map: neither the
	// conditions nor the record written to the copy reach the original.
	xCache := cond("CacheReady", metav1.ConditionTrue, "Available")
	xr = xrObject([]metav1.Condition{xDB, xCache}, strs("DatabaseReady", "CacheReady"), nil)
	original := claimObject([]metav1.Condition{onClaim(xDB)}, strs("DatabaseReady"))
	before := original.DeepCopy()
	shallow := &unstructured.Unstructured{Object: maps.Clone(original.Object)}
	if changed, err := Propagate(xr, shallow); err != nil || !changed {
		t.Fatalf("Propagate(...) to a shallow copy: want a change and no error, got %v, %v", changed, err)
	}
	if diff := cmp.Diff(before.Object, original.Object); diff != "" {
		t.Errorf("Propagate(...) to a shallow copy changed the original: -want, +got:\n%s", diff)
	}
}

// A settled claim is checked without allocating: Propagate runs on every
// reconcile of every claim.
func TestPropagateSettledAllocs(t *testing.T) {
	xr, claim := propagateBench()
	allocs := testing.AllocsPerRun(100, func() {
		if changed, err := Propagate(xr, claim); changed || err != nil {
			t.Fatal(changed, err)
		}
	})
	if allocs > 0 {
		t.Errorf("Propagate of a settled claim with 20 conditions: %v allocations, want 0", allocs)
	}
}

// TestPropagateLongLists runs one scenario with lists short enough to be
// scanned and long enough to be looked up in maps: the XR lists its
// conditions in reverse order, once twice, with Ready and a type it does not
// have; the claim has its own condition and, recorded, conditions the XR no
// longer lists. The claim ends with its own condition and the listed ones,
// in the order listed, and a second pass changes nothing.
func TestPropagateLongLists(t *testing.T) {
	for _, n := range []int{10, 3 * longList, 50_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var xConds, cConds, wantConds []metav1.Condition
			var listed, recorded, wantRecord []any
			own := cond("Healthy", metav1.ConditionTrue, "Probed")
			cConds = append(cConds, own)
			wantConds = append(wantConds, own)
			for i := range n {
				xConds = append(xConds, cond(fmt.Sprintf("X%d", i), metav1.ConditionTrue, "Available"))
				old := cond(fmt.Sprintf("Old%d", i), metav1.ConditionFalse, "Gone")
				cConds = append(cConds, old)
				recorded = append(recorded, old.Type)
			}
			for i := n - 1; i >= 0; i-- {
				listed = append(listed, xConds[i].Type)
				wantConds = append(wantConds, onClaim(xConds[i]))
				wantRecord = append(wantRecord, xConds[i].Type)
			}
			listed = append(listed, "Ready", "Missing", xConds[0].Type)
			xr := xrObject(xConds, nil, listed)
			claim := claimObject(cConds, recorded)

			start := time.Now()
			changed, err := fakeSetter().Propagate(xr, claim)
			took := time.Since(start)
			if err != nil || !changed {
				t.Fatalf("Propagate(...): want a change and no error, got %v, %v", changed, err)
			}
			if took > 10*time.Second {
				t.Errorf("Propagate(...) took %s, want well under 10s", took)
			}
			if diff := cmp.Diff(claimObject(wantConds, wantRecord), claim); diff != "" {
				t.Errorf("Propagate(...): -want claim, +got claim:\n%s", diff)
			}
			again, err := fakeSetter().Propagate(xr, claim)
			if err != nil || again {
				t.Errorf("Propagate(...) a second time: want no change and no error, got %v, %v", again, err)
			}
		})
	}
}
