package conditions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// database is a typed object as a CRD's Go types would declare it.
type database struct {
	metav1.ObjectMeta
	Status struct {
		Conditions []metav1.Condition
	}
	sets int // calls of SetConditions
}

func (d *database) GetConditions() []metav1.Condition { return d.Status.Conditions }
func (d *database) SetConditions(c []metav1.Condition) {
	d.sets++
	d.Status.Conditions = c
}

var _ Object = &database{}

func TestSetObject(t *testing.T) {
	ready := cond("Ready", metav1.ConditionTrue, "Available")
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")
	cases := map[string]struct {
		reason      string
		conds       []metav1.Condition
		c           metav1.Condition
		wantConds   []metav1.Condition
		wantChanged bool
		wantSets    int
	}{
		"Append": {
			reason:      "A new type is appended and stored with SetConditions.",
			conds:       []metav1.Condition{ready},
			c:           db,
			wantConds:   []metav1.Condition{ready, db},
			wantChanged: true,
			wantSets:    1,
		},
		"Update": {
			reason:      "A changed condition is updated in place and stored.",
			conds:       []metav1.Condition{db, ready},
			c:           with(db, func(c *metav1.Condition) { c.Status, c.LastTransitionTime = metav1.ConditionTrue, metav1.Time{} }),
			wantConds:   []metav1.Condition{with(db, func(c *metav1.Condition) { c.Status, c.LastTransitionTime = metav1.ConditionTrue, nowStamp }), ready},
			wantChanged: true,
			wantSets:    1,
		},
		"NoChange": {
			reason:    "No change means no call of SetConditions.",
			conds:     []metav1.Condition{db, ready},
			c:         db,
			wantConds: []metav1.Condition{db, ready},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &database{}
			o.Status.Conditions = append([]metav1.Condition(nil), tc.conds...)
			changed := fakeSetter().SetObject(o, tc.c)
			if diff := cmp.Diff(tc.wantChanged, changed); diff != "" {
				t.Errorf("%s\nSetObject(...): -want changed, +got changed:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantConds, o.Status.Conditions, timeComparer); diff != "" {
				t.Errorf("%s\nSetObject(...): -want conditions, +got conditions:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantSets, o.sets); diff != "" {
				t.Errorf("%s\nSetObject(...): -want SetConditions calls, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRemoveObject(t *testing.T) {
	ready := cond("Ready", metav1.ConditionTrue, "Available")
	db := cond("DatabaseReady", metav1.ConditionFalse, "NotFound")
	cases := map[string]struct {
		reason      string
		conds       []metav1.Condition
		t           string
		wantConds   []metav1.Condition
		wantRemoved bool
		wantSets    int
	}{
		"Remove": {
			reason:      "A present type is removed and the list stored.",
			conds:       []metav1.Condition{db, ready},
			t:           "DatabaseReady",
			wantConds:   []metav1.Condition{ready},
			wantRemoved: true,
			wantSets:    1,
		},
		"Absent": {
			reason:    "An absent type means no call of SetConditions.",
			conds:     []metav1.Condition{ready},
			t:         "DatabaseReady",
			wantConds: []metav1.Condition{ready},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &database{}
			o.Status.Conditions = append([]metav1.Condition(nil), tc.conds...)
			removed := RemoveObject(o, tc.t)
			if diff := cmp.Diff(tc.wantRemoved, removed); diff != "" {
				t.Errorf("%s\nRemoveObject(...): -want removed, +got removed:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantConds, o.Status.Conditions, timeComparer); diff != "" {
				t.Errorf("%s\nRemoveObject(...): -want conditions, +got conditions:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantSets, o.sets); diff != "" {
				t.Errorf("%s\nRemoveObject(...): -want SetConditions calls, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSetObjectAllocations(t *testing.T) {
	o := &database{}
	for i := range 10 {
		Set(&o.Status.Conditions, cond(string(rune('A'+i))+"Ready", metav1.ConditionTrue, "Available"))
	}
	same := o.Status.Conditions[5]
	if n := testing.AllocsPerRun(100, func() { SetObject(o, same) }); n != 0 {
		t.Errorf("SetObject with no change: want 0 allocations, got %v", n)
	}
}
