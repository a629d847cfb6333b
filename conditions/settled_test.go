package conditions

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// rawEntry is a condition entry as unstructured content, from key-value
// pairs: fields can be left out, or given values of any kind.
func rawEntry(kv ...any) map[string]any {
	e := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i].(string)] = kv[i+1]
	}
	return e
}

// stamp is the API server's form of t0.
const stamp = "2026-01-02T03:04:05Z"

// propagated is a condition as the XR has it (observedGeneration 9) or as
// the claim shows it (observedGeneration 2).
func propagated(t string, generation int64) map[string]any {
	return rawEntry("type", t, "status", "True", "reason", "Available", "message", t+" is ready",
		"lastTransitionTime", stamp, "observedGeneration", generation)
}

func TestSettled(t *testing.T) {
	xrReady := rawEntry("type", "Ready", "status", "True", "reason", "Available", "lastTransitionTime", stamp)
	claimReady := rawEntry("type", "Ready", "status", "False", "reason", "Creating", "lastTransitionTime", stamp, "observedGeneration", int64(2))
	claimSynced := rawEntry("type", "Synced", "status", "True", "reason", "ReconcileSuccess", "lastTransitionTime", stamp)
	db, image := propagated("DatabaseReady", 9), propagated("ImageReady", 9)
	dbOnClaim, imageOnClaim := propagated("DatabaseReady", 2), propagated("ImageReady", 2)
	// edited returns a copy of e with the key-value pairs set, or deleted
	// for a value of deleteKey.
	type deleteKey struct{}
	edited := func(e map[string]any, kv ...any) map[string]any {
		out := rawEntry()
		for k, v := range e {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if _, ok := kv[i+1].(deleteKey); ok {
				delete(out, kv[i].(string))
				continue
			}
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	xr := func(conds []any, listed ...string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"kind":     "XDatabase",
			"metadata": map[string]any{"name": "orders-x7k2p", "generation": int64(9)},
			"status":   map[string]any{"conditions": conds, "claimConditions": strs(listed...)},
		}}
	}
	claim := func(conds []any, record []any) *unstructured.Unstructured {
		return claimObjectRaw(conds, record, int64(2))
	}
	listed := []string{"DatabaseReady", "ImageReady"}
	record := strs(listed...)
	many := make([]any, propagateBuf+1)
	for i := range many {
		many[i] = propagated(fmt.Sprintf("Condition%02dReady", i), 2)
	}

	cases := map[string]struct {
		reason string
		xr     *unstructured.Unstructured
		claim  *unstructured.Unstructured
		record RecordField
		// fast: settled decides; changed and err: what Propagate's full
		// path returns.
		fast, changed bool
		err           bool
	}{
		"Settled": {
			reason: "A claim that shows the XR's listed conditions, beside its own, is settled.",
			xr:     xr([]any{xrReady, db, image}, listed...),
			claim:  claim([]any{claimReady, claimSynced, dbOnClaim, imageOnClaim}, record),
			fast:   true,
		},
		"Reordered": {
			reason: "Conditions are found by type, whatever their order on either object.",
			xr:     xr([]any{image, xrReady, db}, listed...),
			claim:  claim([]any{imageOnClaim, claimReady, dbOnClaim, claimSynced}, record),
			fast:   true,
		},
		"NoRecordField": {
			reason: "A claim whose schema has no record field (Crossplane's) settles without one.",
			xr:     xr([]any{db, image}, listed...),
			claim:  claim([]any{dbOnClaim, imageOnClaim}, nil),
			fast:   true,
		},
		"RecordOff": {
			reason: "With no record field, a record on the claim is not read.",
			xr:     xr([]any{db, image}, listed...),
			claim:  claim([]any{dbOnClaim, imageOnClaim}, strs("Other")),
			record: RecordField{},
			fast:   true,
		},
		"ListedTwiceAndReserved": {
			reason: "A type listed twice is propagated once; a listed Ready is not propagated.",
			xr:     xr([]any{xrReady, db, image}, "Ready", "DatabaseReady", "ImageReady", "DatabaseReady", "Missing"),
			claim:  claim([]any{claimReady, dbOnClaim, imageOnClaim}, record),
			fast:   true,
		},
		"NothingAnywhere": {
			reason: "An XR and a claim with no status are settled.",
			xr:     &unstructured.Unstructured{Object: map[string]any{}},
			claim:  &unstructured.Unstructured{Object: map[string]any{}},
			fast:   true,
		},
		"XRTimeUnset": {
			reason: "An XR condition with no lastTransitionTime keeps the claim's.",
			xr:     xr([]any{edited(db, "lastTransitionTime", deleteKey{}), image}, listed...),
			claim:  claim([]any{dbOnClaim, imageOnClaim}, record),
			fast:   true,
		},
		"MissingAndEmpty": {
			reason: "A missing reason or message is the empty string, and a whole float observedGeneration an integer.",
			xr:     xr([]any{edited(db, "message", ""), image}, listed...),
			claim:  claim([]any{edited(dbOnClaim, "message", deleteKey{}, "observedGeneration", float64(2)), imageOnClaim}, record),
			fast:   true,
		},
		"SameInstantOtherForm": {
			reason: "Times written differently are compared by the full path, which finds the same second.",
			xr:     xr([]any{db, image}, listed...),
			claim:  claim([]any{edited(dbOnClaim, "lastTransitionTime", "2026-01-02T04:04:05+01:00"), imageOnClaim}, record),
		},
		"SameSecondFraction": {
			reason: "The API server stores seconds: a fraction of one is no change.",
			xr:     xr([]any{edited(db, "lastTransitionTime", "2026-01-02T03:04:05.5Z"), image}, listed...),
			claim:  claim([]any{dbOnClaim, imageOnClaim}, record),
		},
		"QualifiedType": {
			reason: "A type with a prefix is validated by the full path.",
			xr:     xr([]any{propagated("example.com/DatabaseReady", 9)}, "example.com/DatabaseReady"),
			claim:  claim([]any{propagated("example.com/DatabaseReady", 2)}, strs("example.com/DatabaseReady")),
		},
		"TypeEndsInUnderscore": {
			reason: "A type that ends in '_' is invalid, even when the claim already shows it.",
			xr:     xr([]any{propagated("Database_", 9)}, "Database_"),
			claim:  claim([]any{propagated("Database_", 2)}, strs("Database_")),
			err:    true,
		},
		"TooMany": {
			reason: "More conditions than the buffers hold go to the full path.",
			xr:     xr(many),
			claim:  claim(many, nil),
		},
		"OtherSecond": {
			reason:  "A time one second apart is a change.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claim([]any{edited(dbOnClaim, "lastTransitionTime", "2026-01-02T03:04:06Z"), imageOnClaim}, record),
			changed: true,
		},
		"ClaimTimeUnset": {
			reason:  "The XR's time is copied to a claim condition that has none.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claim([]any{edited(dbOnClaim, "lastTransitionTime", deleteKey{}), imageOnClaim}, record),
			changed: true,
		},
		"MessageMissingOnClaim": {
			reason:  "A message the claim lacks is a change.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claim([]any{edited(dbOnClaim, "message", deleteKey{}), imageOnClaim}, record),
			changed: true,
		},
		"OldGeneration": {
			reason:  "A claim condition of an older generation is a change.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claim([]any{edited(dbOnClaim, "observedGeneration", int64(1)), imageOnClaim}, record),
			changed: true,
		},
		"StatusCase": {
			reason:  "Statuses are compared exactly.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claim([]any{edited(dbOnClaim, "status", "true"), imageOnClaim}, record),
			changed: true,
		},
		"NotOnClaim": {
			reason:  "A listed type the claim lacks is a change.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claim([]any{dbOnClaim}, record),
			changed: true,
		},
		"RecordDiffers": {
			reason:  "A record that lists other types is a change.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claim([]any{dbOnClaim, imageOnClaim}, strs("DatabaseReady")),
			changed: true,
		},
		"RecordOrder": {
			reason:  "The record lists the types in the order listed.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claim([]any{dbOnClaim, imageOnClaim}, strs("ImageReady", "DatabaseReady")),
			changed: true,
		},
		"RecordNull": {
			reason:  "A record field the schema keeps, but null, is written.",
			xr:      xr([]any{db, image}, listed...),
			claim:   claimObjectRaw([]any{dbOnClaim, imageOnClaim}, nil, int64(2), "claimConditions"),
			changed: true,
		},
		"UnlistedXRConditionBadTime": {
			reason: "A malformed XR condition is an error, listed or not.",
			xr:     xr([]any{edited(xrReady, "lastTransitionTime", "yesterday"), db, image}, listed...),
			claim:  claim([]any{dbOnClaim, imageOnClaim}, record),
			err:    true,
		},
		"ListedXRConditionBadTime": {
			reason: "A malformed time is an error even where both objects have it.",
			xr:     xr([]any{edited(db, "lastTransitionTime", "yesterday"), image}, listed...),
			claim:  claim([]any{edited(dbOnClaim, "lastTransitionTime", "yesterday"), imageOnClaim}, record),
			err:    true,
		},
		"ClaimConditionBadTime": {
			reason: "A malformed condition of the claim's own is an error.",
			xr:     xr([]any{db, image}, listed...),
			claim:  claim([]any{edited(claimSynced, "lastTransitionTime", "2026-13-01T00:00:00Z"), dbOnClaim, imageOnClaim}, record),
			err:    true,
		},
		"ClaimConditionBadGeneration": {
			reason: "An observedGeneration that is not an integer is an error.",
			xr:     xr([]any{db, image}, listed...),
			claim:  claim([]any{edited(claimSynced, "observedGeneration", 1.5), dbOnClaim, imageOnClaim}, record),
			err:    true,
		},
		"ClaimReasonNotString": {
			reason: "A reason that is not a string is an error.",
			xr:     xr([]any{db, image}, listed...),
			claim:  claim([]any{edited(claimSynced, "reason", int64(1)), dbOnClaim, imageOnClaim}, record),
			err:    true,
		},
		"ClaimRepeatsItsOwnType": {
			reason: "A repeated type among the claim's own conditions is an error.",
			xr:     xr([]any{db, image}, listed...),
			claim:  claim([]any{claimSynced, dbOnClaim, claimSynced, imageOnClaim}, record),
			err:    true,
		},
		"ClaimRepeatsPropagatedType": {
			reason: "A repeated propagated type on the claim is an error.",
			xr:     xr([]any{db, image}, listed...),
			claim:  claim([]any{dbOnClaim, imageOnClaim, dbOnClaim}, record),
			err:    true,
		},
		"XRRepeatsUnlistedType": {
			reason: "A repeated type on the XR is an error, listed or not.",
			xr:     xr([]any{xrReady, db, image, xrReady}, listed...),
			claim:  claim([]any{dbOnClaim, imageOnClaim}, record),
			err:    true,
		},
		"XRRepeatsListedType": {
			reason: "A repeated listed type on the XR is an error.",
			xr:     xr([]any{db, image, db}, listed...),
			claim:  claim([]any{dbOnClaim, imageOnClaim}, record),
			err:    true,
		},
		"InvalidReasonAlreadyOnClaim": {
			reason: "An XR condition invalid on the claim is an error, even when the claim already shows it.",
			xr:     xr([]any{edited(db, "reason", "Not Found"), image}, listed...),
			claim:  claim([]any{edited(dbOnClaim, "reason", "Not Found"), imageOnClaim}, record),
			err:    true,
		},
		"SecondReasonInvalid": {
			reason: "Each copied condition's reason is checked, not only the first.",
			xr:     xr([]any{db, edited(image, "reason", "Not Found")}, listed...),
			claim:  claim([]any{dbOnClaim, edited(imageOnClaim, "reason", "Not Found")}, record),
			err:    true,
		},
		"InvalidStatusAlreadyOnClaim": {
			reason: "A status other than True, False or Unknown is an error.",
			xr:     xr([]any{edited(db, "status", "Maybe"), image}, listed...),
			claim:  claim([]any{edited(dbOnClaim, "status", "Maybe"), imageOnClaim}, record),
			err:    true,
		},
		"NegativeGeneration": {
			reason: "A negative generation is an invalid observedGeneration.",
			xr:     xr([]any{db, image}, listed...),
			claim: claimObjectRaw([]any{edited(dbOnClaim, "observedGeneration", int64(-1)),
				edited(imageOnClaim, "observedGeneration", int64(-1))}, record, int64(-1)),
			err: true,
		},
		"ListedNotStrings": {
			reason: "A list of types that is not a list of strings is an error.",
			xr: &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{
				"conditions": []any{db}, "claimConditionTypes": []any{int64(1)},
			}}},
			claim: claim(nil, nil),
			err:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			opts := []PropagateOption{}
			rec := RecordField(claimConditionsField)
			if tc.record != nil {
				opts, rec = append(opts, tc.record), tc.record
			}
			xrBefore, before := tc.xr.DeepCopy(), tc.claim.DeepCopy()
			if fast := settled(tc.xr, tc.claim, rec, &rawLists{}); fast != tc.fast {
				t.Errorf("%s\nsettled(...) = %v, want %v", tc.reason, fast, tc.fast)
			}
			if diff := cmp.Diff(xrBefore, tc.xr); diff != "" {
				t.Errorf("settled changed the XR: -before, +after:\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.claim); diff != "" {
				t.Errorf("settled changed the claim: -before, +after:\n%s", diff)
			}
			// The full path on a copy, and Propagate itself.
			full := tc.claim.DeepCopy()
			fullChanged, fullErr := fakeSetter().propagate(tc.xr, full, propagateOptions{record: rec}, nil)
			if fullChanged != tc.changed || (fullErr != nil) != tc.err {
				t.Errorf("%s\nfull path: changed %v, error %v; want changed %v, error %v", tc.reason, fullChanged, fullErr, tc.changed, tc.err)
			}
			changed, err := fakeSetter().Propagate(tc.xr, tc.claim, opts...)
			if changed != fullChanged || fmt.Sprint(err) != fmt.Sprint(fullErr) {
				t.Errorf("Propagate: changed %v, error %v; full path: changed %v, error %v", changed, err, fullChanged, fullErr)
			}
		})
	}
}

// claimObjectRaw returns a claim of the given generation with conds as its
// status.conditions, record (when not nil) as its record, and each of nulls
// as a status field set to null.
func claimObjectRaw(conds []any, record []any, generation int64, nulls ...string) *unstructured.Unstructured {
	status := map[string]any{"address": "10.0.0.1", "conditions": conds}
	if record != nil {
		status["claimConditions"] = record
	}
	for _, f := range nulls {
		status[f] = nil
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"kind":     "Database",
		"metadata": map[string]any{"name": "orders", "namespace": "team-a", "generation": generation},
		"status":   status,
	}}
}
