package conditions

import (
	stdjson "encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/json"
)

// fuzzSeeds are objects, valid and not, as JSON.
var fuzzSeeds = []string{
	`{}`,
	`{"status":null}`,
	`{"status":"ok"}`,
	`{"status":{"conditions":null}}`,
	`{"status":{"conditions":{}}}`,
	`{"status":{"phase":"x","conditions":[]}}`,
	`{"metadata":{"name":"a","generation":2},"status":{"conditions":[{"type":"Ready","status":"True","reason":"Available","message":"","lastTransitionTime":"2026-01-02T03:04:05Z","observedGeneration":1}]}}`,
	`{"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Ready","status":"False"}]}}`,
	`{"status":{"conditions":[{"type":"A","status":"True","lastTransitionTime":"yesterday"}]}}`,
	`{"status":{"conditions":[{"type":"A","status":"True","observedGeneration":1.5}]}}`,
	`{"status":{"conditions":[{"type":"A","status":"True","observedGeneration":1e300}]}}`,
	`{"status":{"conditions":[7,"x",null,[]]}}`,
	`{"status":{"conditions":[{"type":"DatabaseReady","status":"False","reason":"NotFound","extra":{"k":[1,2]}}],"claimConditions":["DatabaseReady","Ready"],"claimConditionTypes":["ImageReady"]}}`,
	`{"status":{"claimConditions":"DatabaseReady"}}`,
	`{"status":{"claimConditions":[1]}}`,
	`[]`,
	`null`,
}

// decodePair decodes an XR and a claim, as decode does without plain.
func decodePair(xrData, claimData []byte) (xr, claim *unstructured.Unstructured, ok bool) {
	if xr, ok = decode(xrData, false); ok {
		claim, ok = decode(claimData, false)
	}
	return xr, claim, ok
}

// decode turns data into unstructured content, with the number types of
// apimachinery's decoder (int64 and float64) or, with plain, encoding/json's
// (float64 only). It reports false for data that is not a JSON object.
func decode(data []byte, plain bool) (*unstructured.Unstructured, bool) {
	var obj map[string]any
	var err error
	if plain {
		err = stdjson.Unmarshal(data, &obj)
	} else {
		err = json.Unmarshal(data, &obj)
	}
	if err != nil {
		return nil, false
	}
	return &unstructured.Unstructured{Object: obj}, true
}

// FuzzFromUnstructured reads conditions from arbitrary JSON: it must not
// panic, and what it reads must be stable: setting a condition it read, when
// valid, changes nothing.
func FuzzFromUnstructured(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, plain bool) {
		u, ok := decode(data, plain)
		if !ok {
			return
		}
		conds, err := FromUnstructured(u)
		if err != nil {
			return
		}
		for _, c := range conds {
			if Validate(c) != nil {
				continue
			}
			changed, err := SetUnstructured(u, c)
			if err != nil || changed {
				t.Fatalf("SetUnstructured of condition %v just read: changed %v, error %v", c, changed, err)
			}
		}
	})
}

// FuzzSetUnstructured sets a condition on arbitrary JSON: it must not panic;
// an error leaves the object as it was; success leaves JSON-compatible
// content that reads back with the condition set.
func FuzzSetUnstructured(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), false, "Ready", "True", "Available", "ok", int64(1))
		f.Add([]byte(s), true, "DatabaseReady", "False", "NotFound", "", int64(0))
	}
	f.Add([]byte(fuzzSeeds[6]), false, "Ready", "Maybe", "", "", int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, plain bool, typ, status, reason, message string, gen int64) {
		u, ok := decode(data, plain)
		if !ok {
			return
		}
		before := u.DeepCopy()
		c := metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: message, ObservedGeneration: gen}
		changed, err := fakeSetter().SetUnstructured(u, c)
		if err != nil {
			if changed {
				t.Fatalf("SetUnstructured: changed and error %v", err)
			}
			if diff := cmp.Diff(before, u); diff != "" {
				t.Fatalf("SetUnstructured failed (%v) but changed the object: -before, +after:\n%s", err, diff)
			}
			return
		}
		if !changed {
			if diff := cmp.Diff(before, u); diff != "" {
				t.Fatalf("SetUnstructured reported no change but changed the object: -before, +after:\n%s", diff)
			}
		}
		_ = runtime.DeepCopyJSON(u.Object) // panics on content JSON cannot hold
		conds, err := FromUnstructured(u)
		if err != nil {
			t.Fatalf("FromUnstructured after SetUnstructured: %v", err)
		}
		// Stored as the API server would store it (Normalize).
		want := Normalize(c)
		got := Get(conds, want.Type)
		if got == nil || !sameState(got, &want) {
			t.Fatalf("after SetUnstructured(%v): want %v, got %v", c, want, got)
		}
		if again, err := fakeSetter().SetUnstructured(u, c); err != nil || again {
			t.Fatalf("SetUnstructured a second time: changed %v, error %v", again, err)
		}
	})
}

// FuzzPropagate propagates between arbitrary JSON objects: it must not panic;
// an error leaves the claim as it was; success settles in one pass.
func FuzzPropagate(f *testing.F) {
	for _, x := range fuzzSeeds {
		f.Add([]byte(x), []byte(fuzzSeeds[6]))
		f.Add([]byte(fuzzSeeds[12]), []byte(x))
	}
	f.Fuzz(func(t *testing.T, xrData, claimData []byte) {
		xr, claim, ok := decodePair(xrData, claimData)
		if !ok {
			return
		}
		xrBefore, before := xr.DeepCopy(), claim.DeepCopy()
		changed, err := fakeSetter().Propagate(xr, claim)
		if diff := cmp.Diff(xrBefore, xr); diff != "" {
			t.Fatalf("Propagate changed the XR: -before, +after:\n%s", diff)
		}
		if err != nil || !changed {
			if diff := cmp.Diff(before, claim); diff != "" {
				t.Fatalf("Propagate (changed %v, error %v) changed the claim: -before, +after:\n%s", changed, err, diff)
			}
			return
		}
		_ = runtime.DeepCopyJSON(claim.Object)
		if again, err := fakeSetter().Propagate(xr, claim); err != nil || again {
			t.Fatalf("Propagate a second time: changed %v, error %v", again, err)
		}
	})
}

// FuzzParseTime checks that parseTime reads every string as time.Parse with
// time.RFC3339 does: the same time in the same location, or an error.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{
		"2006-01-02T15:04:05Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z",
		"2023-04-31T00:00:00Z", "2023-13-01T00:00:00Z", "2023-01-01T24:00:00Z",
		"2023-01-01T00:60:00Z", "2023-01-01T00:00:60Z", "0000-01-01T00:00:00Z",
		"2023-01-01T00:00:00+01:00", "2023-01-01T00:00:00.5Z", "2023-01-0aT00:00:00Z",
		"1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "", "2023-01-01 00:00:00Z",
		"0000-01-01T0:00:00+00:10",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := parseTime(s)
		want, wantErr := time.Parse(time.RFC3339, s)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("parseTime(%q): error %v, time.Parse: error %v", s, gotErr, wantErr)
		}
		// A time.Parse with an offset makes a new *time.Location each
		// time: compare the instant and how it prints, zone included.
		if !got.Equal(want) || got.String() != want.String() {
			t.Fatalf("parseTime(%q) = %v, time.Parse = %v", s, got, want)
		}
	})
}

// FuzzSettled holds settled to Propagate's full path: whenever settled
// reports a claim settled, the full path must leave it unchanged and return
// no error. To compare pairs near a settled one, the claim is first brought
// up to date by the full path (when settle is set), then one field of one
// condition of either object is set to value, to a number, or deleted.
func FuzzSettled(f *testing.F) {
	xr := `{"metadata":{"generation":4},"status":{"conditions":[` +
		`{"type":"Ready","status":"True","reason":"Available","lastTransitionTime":"2026-01-02T03:04:05Z"},` +
		`{"type":"DatabaseReady","status":"False","reason":"NotFound","message":"no database","lastTransitionTime":"2026-01-02T03:04:05Z","observedGeneration":4},` +
		`{"type":"ImageReady","status":"True","reason":"Available","observedGeneration":3}],` +
		`"claimConditions":["DatabaseReady","Ready"],"claimConditionTypes":["ImageReady"]}}`
	claim := `{"metadata":{"generation":2},"status":{"conditions":[{"type":"Synced","status":"True","reason":"ReconcileSuccess"}]}}`
	for i, v := range []string{"", "2026-01-02T03:04:05Z", "2026-01-02T04:04:05+01:00", "2026-01-02T03:04:05.5Z", "yesterday",
		"True", "true", "Not Found", "Ready_", "_Ready", "example.com/DatabaseReady", "Synced", "ImageReady"} {
		for key := range uint8(24) {
			for at := range uint8(3) {
				f.Add([]byte(xr), []byte(claim), true, false, at, key, v, i%3 != 0)
				f.Add([]byte(xr), []byte(claim), true, true, at, key, v, i%3 != 1)
			}
		}
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(xr), []byte(s), true, false, uint8(0), uint8(0), "", true)
		f.Add([]byte(s), []byte(fuzzSeeds[6]), false, true, uint8(1), uint8(3), "x", false)
	}
	keys := []string{keyType, keyStatus, keyReason, keyMessage, keyLastTransitionTime, keyObservedGeneration}
	f.Fuzz(func(t *testing.T, xrData, claimData []byte, settle, onXR bool, at, key uint8, value string, record bool) {
		xr, claim, ok := decodePair(xrData, claimData)
		if !ok {
			return
		}
		p := propagateOptions{record: claimConditionsField}
		if !record {
			p.record = RecordField{}
		}
		if settle {
			_, _ = fakeSetter().propagate(xr, claim, p, nil)
		}
		edit := claim
		if onXR {
			edit = xr
		}
		if status, list, err := conditionList(edit.Object); err == nil && len(list) > 0 {
			i := int(at) % len(list)
			if e, ok := list[i].(map[string]any); ok {
				e = maps.Clone(e)
				k := keys[int(key)%len(keys)]
				switch key / uint8(len(keys)) % 4 {
				case 0:
					e[k] = value
				case 1:
					delete(e, k)
				case 2:
					e[k] = int64(len(value)) - 1
				case 3:
					e[k] = float64(len(value)) / 2
				}
				list = slices.Clone(list)
				list[i] = e
				status = maps.Clone(status)
				status["conditions"] = list
				edit.Object["status"] = status
			}
		}

		xrBefore, before := xr.DeepCopy(), claim.DeepCopy()
		fast := settled(xr, claim, p.record, &rawLists{})
		if diff := cmp.Diff(xrBefore, xr); diff != "" {
			t.Fatalf("settled changed the XR: -before, +after:\n%s", diff)
		}
		if diff := cmp.Diff(before, claim); diff != "" {
			t.Fatalf("settled changed the claim: -before, +after:\n%s", diff)
		}
		if !fast {
			return
		}
		if changed, err := fakeSetter().propagate(xr, claim, p, nil); changed || err != nil {
			t.Fatalf("settled reported a settled claim, but the full path changed it (%v) or failed (%v)", changed, err)
		}
	})
}

// FuzzNormalize checks that Normalize is idempotent, gives what a JSON round
// trip (the API server's storage) keeps as it is, within MaxMessageLength,
// and that Set of a condition read back after that round trip changes
// nothing.
func FuzzNormalize(f *testing.F) {
	f.Add("Ready", "Available", "all good", 3)
	f.Add("Ready", "Bad\xff", "cannot reach \xff\xfe", 1)
	f.Add("Type\xed\xa0\x80", "R", "\xe2\x82", 32768)
	f.Fuzz(func(t *testing.T, typ, reason, msg string, repeat int) {
		if repeat > 1 && repeat <= 2*MaxMessageLength && len(msg) > 0 && len(msg)*repeat <= 4*MaxMessageLength {
			msg = strings.Repeat(msg, repeat)
		}
		c := metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: reason, Message: msg}
		n := Normalize(c)
		if again := Normalize(n); again != n {
			t.Fatalf("Normalize is not idempotent: %+v, then %+v", n, again)
		}
		if len(n.Message) > MaxMessageLength {
			t.Fatalf("Normalize: a message of %d bytes, want at most %d", len(n.Message), MaxMessageLength)
		}
		b, err := stdjson.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		var back metav1.Condition
		if err := stdjson.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		back.LastTransitionTime = n.LastTransitionTime
		if back != n {
			t.Fatalf("a JSON round trip changes the normalized condition: %+v, then %+v", n, back)
		}

		var conds []metav1.Condition
		if !Set(&conds, c) {
			t.Fatal("Set of a new condition reported no change")
		}
		b, err = stdjson.Marshal(conds)
		if err != nil {
			t.Fatal(err)
		}
		var stored []metav1.Condition
		if err := stdjson.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
		if Set(&stored, c) {
			t.Fatalf("Set of %+v again after a round trip reported a change", c)
		}
	})
}

// FuzzPropagateSynced shows an arbitrary XR's Synced on an arbitrary claim:
// it must not panic; an error leaves the claim as it was; otherwise the
// claim's CompositeSynced is valid, never carries the XR's Synced message
// (unless the XR carried the same words for the claim), and a second call
// changes nothing.
func FuzzPropagateSynced(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), []byte(`{"metadata":{"name":"c","generation":1}}`), "False", "ReconcileError", "secret detail")
		f.Add([]byte(`{"kind":"XApp","metadata":{"name":"x"}}`), []byte(s), "Unknown", "", "")
	}
	f.Fuzz(func(t *testing.T, xrData, claimData []byte, status, reason, message string) {
		xr, claim, ok := decodePair(xrData, claimData)
		if !ok {
			return
		}
		if _, err := fakeSetter().SetUnstructured(xr, metav1.Condition{Type: TypeSynced, Status: metav1.ConditionStatus(status), Reason: reason, Message: message}); err != nil {
			return
		}
		before := claim.DeepCopy()
		changed, err := fakeSetter().PropagateSynced(xr, claim)
		if err != nil {
			if changed || !cmp.Equal(before.Object, claim.Object) {
				t.Fatalf("PropagateSynced: error %v, and the claim changed", err)
			}
			return
		}
		conds, err := FromUnstructured(claim)
		if err != nil {
			t.Fatalf("the claim does not read back: %v", err)
		}
		c := Get(conds, TypeCompositeSynced)
		if c == nil {
			t.Fatal("no CompositeSynced for an XR with Synced")
		}
		if err := Validate(*c); err != nil {
			t.Fatalf("CompositeSynced is invalid: %v", err)
		}
		xrConds, _ := FromUnstructured(xr)
		if carried := Get(xrConds, TypeCompositeSynced); len(message) > 8 && strings.Contains(c.Message, message) && (carried == nil || carried.Message != c.Message) {
			t.Fatalf("the claim shows the XR's message: %q", c.Message)
		}
		if changed, err := fakeSetter().PropagateSynced(xr, claim); changed || err != nil {
			t.Fatalf("second call: changed %v, error %v", changed, err)
		}
	})
}

// FuzzHealth judges arbitrary conditions: the result is always a valid
// condition and never quotes a message.
func FuzzHealth(f *testing.F) {
	f.Add("ImageReady", "False", "NotFound", "secret detail", "Ready", "Unknown", "", int64(1))
	f.Add("Synced", "False", "", "secret detail", "Healthy", "False", "NotSynced", int64(0))
	f.Fuzz(func(t *testing.T, typ, status, reason, message, srcType, srcStatus, srcReason string, gen int64) {
		gen = max(gen, 0) // a generation, as metadata.generation is
		conds := []metav1.Condition{{Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: message, ObservedGeneration: gen}}
		src := []Source{{Name: "Deployment d", Conditions: []metav1.Condition{{Type: srcType, Status: metav1.ConditionStatus(srcStatus), Reason: srcReason, Message: message}}}}
		h := Health(conds, src, ObservedGeneration(gen))
		if err := Validate(h); err != nil {
			t.Fatalf("Health %+v is invalid: %v", h, err)
		}
		if len(message) > 8 && strings.Contains(h.Message, message) && !strings.Contains(typ+srcType+reason+srcReason, message) {
			t.Fatalf("Health quotes a message: %q", h.Message)
		}
	})
}
