package smallset

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSet(t *testing.T) {
	long := make([]string, 0, Long+2)
	for i := range Long + 2 {
		long = append(long, fmt.Sprint(i))
	}
	cases := map[string]struct {
		reason    string
		start     []string
		add       []string
		want      []string
		wantAdded []bool
		wantMap   bool
	}{
		"Empty":     {reason: "The zero value is empty.", want: nil},
		"Distinct":  {reason: "Values are kept in the order added.", add: []string{"b", "a"}, want: []string{"b", "a"}, wantAdded: []bool{true, true}},
		"Duplicate": {reason: "A value already held is not added again.", start: []string{"a"}, add: []string{"a", "b", "b"}, want: []string{"a", "b"}, wantAdded: []bool{false, true, false}},
		"LongOf":    {reason: "A long list is indexed at once.", start: long[:Long+1], add: []string{"0", long[Long+1]}, want: long, wantAdded: []bool{false, true}, wantMap: true},
		"GrowsLong": {reason: "A list that grows long is indexed.", start: long[:Long:Long], add: []string{long[Long], long[Long]}, want: long[:Long+1], wantAdded: []bool{true, false}, wantMap: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := Of(tc.start)
			var added []bool
			for _, v := range tc.add {
				added = append(added, s.Add(v))
			}
			if diff := cmp.Diff(tc.wantAdded, added); diff != "" {
				t.Errorf("%s\nAdd: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, s.List()); diff != "" {
				t.Errorf("%s\nList: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(len(tc.want), s.Len()); diff != "" {
				t.Errorf("%s\nLen: -want, +got:\n%s", tc.reason, diff)
			}
			for _, v := range tc.want {
				if !s.Has(v) {
					t.Errorf("%s\nHas(%q): want true, got false", tc.reason, v)
				}
			}
			if s.Has("absent") {
				t.Errorf("%s\nHas(%q): want false, got true", tc.reason, "absent")
			}
			if diff := cmp.Diff(tc.wantMap, s.m != nil); diff != "" {
				t.Errorf("%s\nkeeps a map: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSmallSetAllocatesNothing(t *testing.T) {
	list := make([]string, 0, 4)
	allocs := testing.AllocsPerRun(100, func() {
		s := Of(list[:0])
		s.Add("a")
		s.Add("b")
		s.Add("a")
		_ = s.Has("c")
	})
	if allocs != 0 {
		t.Errorf("allocations of a short set within its list's capacity: want 0, got %v", allocs)
	}
}
