package conditions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

var (
	// t0 is when the conditions in these tests were first set; now is the
	// fake clock's time.
	t0  = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	now = time.Date(2026, 2, 3, 4, 5, 6, 789, time.UTC)
	// nowStamp is now as Set stamps it: at second precision.
	nowStamp = metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
	given    = metav1.NewTime(time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC))
)

func fakeSetter() Setter { return NewSetter(WithClock(clocktesting.NewFakePassiveClock(now))) }

func cond(t string, s metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: reason, Message: reason + " message", LastTransitionTime: t0, ObservedGeneration: 1}
}

func with(c metav1.Condition, f func(*metav1.Condition)) metav1.Condition {
	f(&c)
	return c
}

// timeComparer compares metav1.Time by instant.
var timeComparer = cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })

func TestSet(t *testing.T) {
	ready := cond("Ready", metav1.ConditionTrue, "Available")
	synced := cond("Synced", metav1.ConditionTrue, "ReconcileSuccess")
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")

	type args struct {
		conds []metav1.Condition
		c     metav1.Condition
	}
	type want struct {
		conds   []metav1.Condition
		changed bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"AppendToEmpty": {
			reason: "A new type is appended, stamped with the clock's time at second precision.",
			args:   args{c: with(db, func(c *metav1.Condition) { c.LastTransitionTime = metav1.Time{} })},
			want: want{
				conds:   []metav1.Condition{with(db, func(c *metav1.Condition) { c.LastTransitionTime = nowStamp })},
				changed: true,
			},
		},
		"AppendKeepsGivenTime": {
			reason: "A new type with a lastTransitionTime keeps it.",
			args:   args{conds: []metav1.Condition{ready}, c: with(db, func(c *metav1.Condition) { c.LastTransitionTime = given })},
			want: want{
				conds:   []metav1.Condition{ready, with(db, func(c *metav1.Condition) { c.LastTransitionTime = given })},
				changed: true,
			},
		},
		"NoChange": {
			reason: "The same condition again changes nothing, whatever its lastTransitionTime.",
			args:   args{conds: []metav1.Condition{ready, db}, c: with(db, func(c *metav1.Condition) { c.LastTransitionTime = given })},
			want:   want{conds: []metav1.Condition{ready, db}},
		},
		"StatusChangeStampsClock": {
			reason: "A status change moves lastTransitionTime to the clock's now, and the entry keeps its position.",
			args: args{
				conds: []metav1.Condition{db, ready, synced},
				c: with(ready, func(c *metav1.Condition) {
					c.Status, c.Reason, c.LastTransitionTime = metav1.ConditionFalse, "Creating", metav1.Time{}
				}),
			},
			want: want{
				conds: []metav1.Condition{db, with(ready, func(c *metav1.Condition) {
					c.Status, c.Reason, c.LastTransitionTime = metav1.ConditionFalse, "Creating", nowStamp
				}), synced},
				changed: true,
			},
		},
		"StatusChangeTakesGivenTime": {
			reason: "A status change with a lastTransitionTime takes it.",
			args: args{
				conds: []metav1.Condition{ready},
				c:     with(ready, func(c *metav1.Condition) { c.Status, c.LastTransitionTime = metav1.ConditionUnknown, given }),
			},
			want: want{
				conds:   []metav1.Condition{with(ready, func(c *metav1.Condition) { c.Status, c.LastTransitionTime = metav1.ConditionUnknown, given })},
				changed: true,
			},
		},
		"MessageChangeKeepsTime": {
			reason: "Only the message changed: lastTransitionTime stays (Crossplane resets it here).",
			args: args{
				conds: []metav1.Condition{ready, db},
				c:     with(db, func(c *metav1.Condition) { c.Message, c.LastTransitionTime = "still missing", metav1.Time{} }),
			},
			want: want{
				conds:   []metav1.Condition{ready, with(db, func(c *metav1.Condition) { c.Message = "still missing" })},
				changed: true,
			},
		},
		"ReasonChangeKeepsTime": {
			reason: "Only the reason changed: lastTransitionTime stays, even when another is given.",
			args: args{
				conds: []metav1.Condition{db},
				c:     with(db, func(c *metav1.Condition) { c.Reason, c.LastTransitionTime = "Unauthorized", given }),
			},
			want: want{
				conds:   []metav1.Condition{with(db, func(c *metav1.Condition) { c.Reason = "Unauthorized" })},
				changed: true,
			},
		},
		"ObservedGenerationChange": {
			reason: "A new observedGeneration is a change; lastTransitionTime stays.",
			args: args{
				conds: []metav1.Condition{db},
				c:     with(db, func(c *metav1.Condition) { c.ObservedGeneration = 2 }),
			},
			want: want{
				conds:   []metav1.Condition{with(db, func(c *metav1.Condition) { c.ObservedGeneration = 2 })},
				changed: true,
			},
		},
		"TypesAreCaseSensitive": {
			reason: "ready is not Ready.",
			args:   args{conds: []metav1.Condition{ready}, c: with(ready, func(c *metav1.Condition) { c.Type = "ready" })},
			want: want{
				conds:   []metav1.Condition{ready, with(ready, func(c *metav1.Condition) { c.Type = "ready" })},
				changed: true,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			conds := append([]metav1.Condition(nil), tc.args.conds...)
			changed := fakeSetter().Set(&conds, tc.args.c)
			if diff := cmp.Diff(tc.want.changed, changed); diff != "" {
				t.Errorf("%s\nSet(...): -want changed, +got changed:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.conds, conds, timeComparer); diff != "" {
				t.Errorf("%s\nSet(...): -want conditions, +got conditions:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSetNil(t *testing.T) {
	if Set(nil, cond("Ready", metav1.ConditionTrue, "Available")) {
		t.Errorf("Set(nil, ...): want false, got true")
	}
}

func TestSetRealClock(t *testing.T) {
	before := time.Now().Truncate(time.Second)
	var conds []metav1.Condition
	Set(&conds, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available"})
	got := conds[0].LastTransitionTime.Time
	if got.Before(before) || got.After(time.Now()) || got.Nanosecond() != 0 {
		t.Errorf("Set(...): lastTransitionTime %v: want now (from %v) at second precision", got, before)
	}
}

func TestRemove(t *testing.T) {
	ready := cond("Ready", metav1.ConditionTrue, "Available")
	synced := cond("Synced", metav1.ConditionTrue, "ReconcileSuccess")
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")

	cases := map[string]struct {
		reason      string
		conds       []metav1.Condition
		t           string
		wantConds   []metav1.Condition
		wantRemoved bool
	}{
		"Middle": {
			reason:      "Removing keeps the order of the others.",
			conds:       []metav1.Condition{ready, db, synced},
			t:           "DatabaseReady",
			wantConds:   []metav1.Condition{ready, synced},
			wantRemoved: true,
		},
		"Last": {
			reason:      "The last entry can be removed.",
			conds:       []metav1.Condition{ready, db},
			t:           "DatabaseReady",
			wantConds:   []metav1.Condition{ready},
			wantRemoved: true,
		},
		"Only": {
			reason:      "Removing the only entry leaves an empty list.",
			conds:       []metav1.Condition{db},
			t:           "DatabaseReady",
			wantConds:   []metav1.Condition{},
			wantRemoved: true,
		},
		"Absent": {
			reason:    "Removing a type that is not there changes nothing.",
			conds:     []metav1.Condition{ready},
			t:         "DatabaseReady",
			wantConds: []metav1.Condition{ready},
		},
		"Empty": {
			reason: "An empty list stays empty.",
			t:      "Ready",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			conds := append([]metav1.Condition(nil), tc.conds...)
			if tc.conds != nil && conds == nil {
				conds = []metav1.Condition{}
			}
			removed := Remove(&conds, tc.t)
			if diff := cmp.Diff(tc.wantRemoved, removed); diff != "" {
				t.Errorf("%s\nRemove(...): -want removed, +got removed:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantConds, conds, timeComparer); diff != "" {
				t.Errorf("%s\nRemove(...): -want conditions, +got conditions:\n%s", tc.reason, diff)
			}
		})
	}

	if Remove(nil, "Ready") {
		t.Errorf("Remove(nil, ...): want false, got true")
	}
}

func TestRemoveClearsVacatedElement(t *testing.T) {
	conds := []metav1.Condition{cond("A", metav1.ConditionTrue, "R"), cond("B", metav1.ConditionTrue, "R")}
	backing := conds
	Remove(&conds, "A")
	if diff := cmp.Diff(metav1.Condition{}, backing[1]); diff != "" {
		t.Errorf("Remove(...): the vacated element should be cleared: -want, +got:\n%s", diff)
	}
}

func TestGetAndIs(t *testing.T) {
	conds := []metav1.Condition{
		cond("T", metav1.ConditionTrue, "R"),
		cond("F", metav1.ConditionFalse, "R"),
		cond("U", metav1.ConditionUnknown, "R"),
		cond("Bogus", "Maybe", "R"),
	}
	type want struct {
		found                      bool
		isTrue, isFalse, isUnknown bool
	}
	cases := map[string]struct {
		reason string
		t      string
		want   want
	}{
		"True":    {reason: "A True condition is true.", t: "T", want: want{found: true, isTrue: true}},
		"False":   {reason: "A False condition is false.", t: "F", want: want{found: true, isFalse: true}},
		"Unknown": {reason: "An Unknown condition is unknown.", t: "U", want: want{found: true, isUnknown: true}},
		"Invalid": {reason: "A condition with an invalid status is unknown.", t: "Bogus", want: want{found: true, isUnknown: true}},
		"Missing": {reason: "A missing condition is unknown.", t: "Missing", want: want{isUnknown: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := Get(conds, tc.t)
			got := want{found: c != nil, isTrue: IsTrue(conds, tc.t), isFalse: IsFalse(conds, tc.t), isUnknown: IsUnknown(conds, tc.t)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if c != nil && c.Type != tc.t {
				t.Errorf("%s\nGet(..., %q): got type %q", tc.reason, tc.t, c.Type)
			}
		})
	}

	// Get points into the list.
	Get(conds, "T").Message = "changed"
	if conds[0].Message != "changed" {
		t.Errorf("Get(...): the result should point into the list")
	}
}

func TestEqual(t *testing.T) {
	ready := cond("Ready", metav1.ConditionTrue, "Available")
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")
	cases := map[string]struct {
		reason string
		a, b   []metav1.Condition
		want   bool
	}{
		"BothEmpty": {reason: "nil and empty lists are equal.", a: nil, b: []metav1.Condition{}, want: true},
		"Same":      {reason: "Identical lists are equal.", a: []metav1.Condition{ready, db}, b: []metav1.Condition{ready, db}, want: true},
		"Order":     {reason: "Order does not matter.", a: []metav1.Condition{ready, db}, b: []metav1.Condition{db, ready}, want: true},
		"Time": {
			reason: "lastTransitionTime does not matter.",
			a:      []metav1.Condition{ready},
			b:      []metav1.Condition{with(ready, func(c *metav1.Condition) { c.LastTransitionTime = given })},
			want:   true,
		},
		"Status":  {reason: "Status matters.", a: []metav1.Condition{ready}, b: []metav1.Condition{with(ready, func(c *metav1.Condition) { c.Status = "False" })}},
		"Reason":  {reason: "Reason matters.", a: []metav1.Condition{ready}, b: []metav1.Condition{with(ready, func(c *metav1.Condition) { c.Reason = "X" })}},
		"Message": {reason: "Message matters.", a: []metav1.Condition{ready}, b: []metav1.Condition{with(ready, func(c *metav1.Condition) { c.Message = "X" })}},
		"ObservedGeneration": {
			reason: "observedGeneration matters.",
			a:      []metav1.Condition{ready},
			b:      []metav1.Condition{with(ready, func(c *metav1.Condition) { c.ObservedGeneration = 7 })},
		},
		"Length": {reason: "A missing condition matters.", a: []metav1.Condition{ready, db}, b: []metav1.Condition{ready}},
		"Type":   {reason: "Different types are different.", a: []metav1.Condition{ready}, b: []metav1.Condition{with(ready, func(c *metav1.Condition) { c.Type = "Synced" })}},
		"Duplicates": {
			reason: "A list with a repeated type is not equal to one with two types.",
			a:      []metav1.Condition{ready, ready},
			b:      []metav1.Condition{ready, db},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Equal(tc.a, tc.b); got != tc.want {
				t.Errorf("%s\nEqual(a, b): want %v, got %v", tc.reason, tc.want, got)
			}
			if got := Equal(tc.b, tc.a); got != tc.want {
				t.Errorf("%s\nEqual(b, a): want %v, got %v", tc.reason, tc.want, got)
			}
		})
	}
}

func TestIsReserved(t *testing.T) {
	cases := map[string]struct {
		t    string
		want bool
	}{
		"Ready":         {t: "Ready", want: true},
		"Synced":        {t: "Synced", want: true},
		"Healthy":       {t: "Healthy", want: true},
		"Composite":     {t: "CompositeSynced", want: true},
		"OtherCase":     {t: "ready"},
		"Custom":        {t: "DatabaseReady"},
		"PrefixedReady": {t: "example.com/Ready"},
		"Empty":         {t: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsReserved(tc.t); got != tc.want {
				t.Errorf("IsReserved(%q): want %v, got %v", tc.t, tc.want, got)
			}
		})
	}
}

func TestSetAllocations(t *testing.T) {
	conds := make([]metav1.Condition, 10)
	for i := range conds {
		conds[i] = cond(string(rune('A'+i))+"Ready", metav1.ConditionTrue, "Available")
	}
	same := conds[9]
	s := fakeSetter()
	if n := testing.AllocsPerRun(100, func() { s.Set(&conds, same) }); n != 0 {
		t.Errorf("Set with no change: want 0 allocations, got %v", n)
	}
	if n := testing.AllocsPerRun(100, func() { Set(&conds, same) }); n != 0 {
		t.Errorf("package-level Set with no change: want 0 allocations, got %v", n)
	}
	if n := testing.AllocsPerRun(100, func() { Equal(conds, conds) }); n != 0 {
		t.Errorf("Equal: want 0 allocations, got %v", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Validate(same) }); n != 0 {
		t.Errorf("Validate of a valid condition: want 0 allocations, got %v", n)
	}
}
