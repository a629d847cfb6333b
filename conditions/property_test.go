package conditions

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Property tests: each runs many random cases from a fixed seed, so a
// failure is reproducible. The alphabets are small so that types collide.

const propertyRuns = 2000

var (
	propTypes    = []string{"Ready", "Synced", "DatabaseReady", "ImageReady", "AppReady", "Stalled"}
	propStatuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}
	propReasons  = []string{"Available", "NotFound", "Creating"}
)

func randomCondition(r *rand.Rand, t string) metav1.Condition {
	c := metav1.Condition{
		Type:               t,
		Status:             propStatuses[r.IntN(len(propStatuses))],
		Reason:             propReasons[r.IntN(len(propReasons))],
		Message:            []string{"", "a message"}[r.IntN(2)],
		ObservedGeneration: int64(r.IntN(3)),
	}
	if r.IntN(2) == 0 {
		c.LastTransitionTime = metav1.NewTime(t0.Add(time.Duration(r.IntN(100)) * time.Second))
	}
	return c
}

// randomList returns conditions of distinct random types, each with a
// lastTransitionTime, as a stored list has.
func randomList(r *rand.Rand) []metav1.Condition {
	types := slices.Clone(propTypes)
	r.Shuffle(len(types), func(i, j int) { types[i], types[j] = types[j], types[i] })
	out := make([]metav1.Condition, r.IntN(len(types)+1))
	for i := range out {
		out[i] = randomCondition(r, types[i])
		if out[i].LastTransitionTime.IsZero() {
			out[i].LastTransitionTime = t0
		}
	}
	return out
}

func TestPropertySetTwiceIsSetOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := fakeSetter()
	for range propertyRuns {
		conds := randomList(r)
		c := randomCondition(r, propTypes[r.IntN(len(propTypes))])
		s.Set(&conds, c)
		once := slices.Clone(conds)
		if s.Set(&conds, c) {
			t.Fatalf("Set(%v, %v) a second time reported a change", once, c)
		}
		if diff := cmp.Diff(once, conds, timeComparer); diff != "" {
			t.Fatalf("Set twice differs from Set once: -once, +twice:\n%s", diff)
		}
	}
}

func TestPropertySetOrderDoesNotMatter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := fakeSetter()
	for range propertyRuns {
		initial := randomList(r)
		// Conditions of distinct types, applied in two orders.
		sets := randomList(r)
		for i := range sets {
			if r.IntN(2) == 0 {
				sets[i].LastTransitionTime = metav1.Time{}
			}
		}
		shuffled := slices.Clone(sets)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

		a, b := slices.Clone(initial), slices.Clone(initial)
		for _, c := range sets {
			s.Set(&a, c)
		}
		for _, c := range shuffled {
			s.Set(&b, c)
		}
		if !Equal(a, b) {
			t.Fatalf("Sets in two orders differ:\n%v\n%v", a, b)
		}
		// Transition times agree too.
		for i := range a {
			if got := Get(b, a[i].Type); !got.LastTransitionTime.Equal(&a[i].LastTransitionTime) {
				t.Fatalf("Sets in two orders give %s different lastTransitionTimes: %v, %v", a[i].Type, a[i].LastTransitionTime, got.LastTransitionTime)
			}
		}
	}
}

func TestPropertyRemoveThenSetIsSet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := fakeSetter()
	for range propertyRuns {
		initial := randomList(r)
		c := randomCondition(r, propTypes[r.IntN(len(propTypes))])
		a, b := slices.Clone(initial), slices.Clone(initial)
		Remove(&a, c.Type)
		s.Set(&a, c)
		s.Set(&b, c)
		if !Equal(a, b) {
			t.Fatalf("Remove then Set differs from Set:\n%v\n%v", a, b)
		}
	}
}

func TestPropertyChangedIffStateDiffers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	s := fakeSetter()
	for range propertyRuns {
		conds := randomList(r)
		c := randomCondition(r, propTypes[r.IntN(len(propTypes))])
		old := Get(conds, c.Type)
		want := old == nil || !sameState(old, &c)
		before := slices.Clone(conds)
		if got := s.Set(&conds, c); got != want {
			t.Fatalf("Set(%v, %v) = %v, want %v", before, c, got, want)
		}
		if !want {
			if diff := cmp.Diff(before, conds, timeComparer); diff != "" {
				t.Fatalf("Set reported no change but changed the list: -want, +got:\n%s", diff)
			}
		}
	}
}

// TestPropertyUnstructuredAgreesWithTyped checks that SetUnstructured and
// RemoveUnstructured have exactly the semantics of Set and Remove.
func TestPropertyUnstructuredAgreesWithTyped(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	s := fakeSetter()
	for range propertyRuns {
		conds := randomList(r)
		u := object(map[string]any{"phase": "x", "conditions": entries(conds...)})
		c := randomCondition(r, propTypes[r.IntN(len(propTypes))])

		var wantChanged, gotChanged bool
		var err error
		if r.IntN(4) == 0 {
			wantChanged = Remove(&conds, c.Type)
			gotChanged, err = RemoveUnstructured(u, c.Type)
		} else {
			wantChanged = s.Set(&conds, c)
			gotChanged, err = s.SetUnstructured(u, c)
		}
		if err != nil {
			t.Fatal(err)
		}
		if gotChanged != wantChanged {
			t.Fatalf("unstructured changed = %v, typed changed = %v", gotChanged, wantChanged)
		}
		got, err := FromUnstructured(u)
		if err != nil {
			t.Fatal(err)
		}
		if len(conds) == 0 {
			conds = nil
		}
		if diff := cmp.Diff(conds, got, timeComparer); diff != "" {
			t.Fatalf("unstructured and typed differ: -typed, +unstructured:\n%s", diff)
		}
		if u.Object["status"].(map[string]any)["phase"] != "x" {
			t.Fatalf("another status field was lost: %v", u.Object["status"])
		}
	}
}

// TestPropertyPropagateSettles checks that Propagate reaches a fixed point in
// one pass, never touches the claim's unrecorded conditions unless the XR
// lists their type, and shows exactly the listed types the XR has.
func TestPropertyPropagateSettles(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	s := fakeSetter()
	randomTypes := func() []any {
		var out []any
		for _, t := range propTypes {
			if r.IntN(2) == 0 {
				out = append(out, t)
			}
		}
		return out
	}
	for range propertyRuns {
		xrConds := randomList(r)
		listed := randomTypes()
		xr := xrObject(xrConds, listed, nil)
		claimConds := randomList(r)
		var recorded []any
		if r.IntN(2) == 0 {
			recorded = randomTypes()
		}
		claim := claimObject(claimConds, recorded)

		if _, err := s.Propagate(xr, claim); err != nil {
			t.Fatal(err)
		}
		if again, err := s.Propagate(xr, claim); err != nil || again {
			t.Fatalf("a second Propagate reported %v, %v", again, err)
		}
		got, err := FromUnstructured(claim)
		if err != nil {
			t.Fatal(err)
		}
		for _, tp := range propTypes {
			isListed := slices.Contains(listed, any(tp))
			x := Get(xrConds, tp)
			c := Get(got, tp)
			before := Get(claimConds, tp)
			switch {
			case IsReserved(tp):
				if diff := cmp.Diff(before, c, timeComparer); diff != "" {
					t.Fatalf("reserved %s changed: -want, +got:\n%s", tp, diff)
				}
			case isListed && x != nil:
				// The claim's generation, or none when the claim's condition
				// had none and nothing else changed.
				kept := before != nil && before.ObservedGeneration == 0 && c != nil && c.ObservedGeneration == 0 &&
					before.Status == c.Status && before.Reason == c.Reason && before.Message == c.Message
				if c == nil || c.Status != x.Status || c.Reason != x.Reason || c.Message != x.Message || c.ObservedGeneration != 2 && !kept {
					t.Fatalf("%s: want the XR's %v on the claim, got %v", tp, x, c)
				}
			case slices.Contains(recorded, any(tp)):
				if c != nil {
					t.Fatalf("%s: recorded but not propagated, so it should be gone, got %v", tp, c)
				}
			default:
				if diff := cmp.Diff(before, c, timeComparer); diff != "" {
					t.Fatalf("unrecorded %s changed: -want, +got:\n%s", tp, diff)
				}
			}
		}
	}
}

// TestPropertySummarizeIsValid checks that a summary of any conditions, even
// invalid ones, passes Validate, and that True means every summarized
// normal-polarity condition is True and no negative-polarity one is True.
func TestPropertySummarizeIsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	statuses := []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown, "", "Maybe"}
	reasons := []string{"Available", "", "not valid", "NotFound"}
	for range propertyRuns {
		conds := randomList(r)
		for i := range conds {
			conds[i].Status = statuses[r.IntN(len(statuses))]
			conds[i].Reason = reasons[r.IntN(len(reasons))]
		}
		negative := NegativePolarity{"Stalled"}
		got := Summarize(TypeReady, conds, negative, ObservedGeneration(r.IntN(3)))
		got.LastTransitionTime = t0
		if err := Validate(got); err != nil {
			t.Fatalf("Summarize(%v) = %v: %v", conds, got, err)
		}
		if got.Status != metav1.ConditionTrue {
			continue
		}
		for _, c := range conds {
			switch {
			case c.Type == TypeReady:
			case c.Type == "Stalled" && c.Status != metav1.ConditionFalse:
				t.Fatalf("Summarize(%v) is True with %v", conds, c)
			case c.Type != "Stalled" && c.Status != metav1.ConditionTrue:
				t.Fatalf("Summarize(%v) is True with %v", conds, c)
			}
		}
	}
}
