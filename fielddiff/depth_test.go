package fielddiff_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/fielddiff/internal/testpb"
)

// selfPointer is a pointer to its own type: a chain of them holds no
// container at all.
type selfPointer *selfPointer

func pointerChain(n int) selfPointer {
	var p selfPointer
	for range n {
		next := new(selfPointer)
		*next = p
		p = selfPointer(next)
	}
	return p
}

type linked struct {
	Next *linked `json:"next,omitempty"`
	Leaf string  `json:"leaf,omitempty"`
}

func linkedChain(n int, leaf string) *linked {
	l := &linked{Leaf: leaf}
	for range n {
		l = &linked{Next: l}
	}
	return l
}

type boxed struct {
	X any `json:"x"`
}

func boxChain(n int) boxed {
	b := boxed{X: "leaf"}
	for range n {
		b = boxed{X: b}
	}
	return b
}

func mapChain(n int, leaf string) map[string]any {
	m := map[string]any{"a": leaf}
	for range n {
		m = map[string]any{"a": m}
	}
	return m
}

func listChain(n int, leaf string) []any {
	l := []any{leaf}
	for range n {
		l = []any{l}
	}
	return l
}

func arrayChain(n int) any {
	var v any = "leaf"
	for range n {
		v = [1]any{v}
	}
	return v
}

func clusterChain(n int, leaf string) *testpb.Cluster {
	c := &testpb.Cluster{Name: leaf}
	for range n {
		c = &testpb.Cluster{DefaultPool: &testpb.NodePool{Parent: c}}
	}
	return c
}

func structValueChain(n int, leaf string) *structpb.Value {
	v := structpb.NewStringValue(leaf)
	for i := range n {
		if i%2 == 0 {
			v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
		} else {
			v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": v}})
		}
	}
	return v
}

// TestDeepValues diffs values nested far past MaxDepth, on every backend and
// through every kind of nesting: each returns ErrTooDeep instead of
// exhausting the stack (a crash no recover catches).
func TestDeepValues(t *testing.T) {
	const deep = 1_000_000
	cases := map[string]struct {
		desired, actual func() any
	}{
		"PointerChain": {
			desired: func() any { return pointerChain(deep) },
			actual:  func() any { return pointerChain(deep) },
		},
		"LinkedStructs": {
			desired: func() any { return linkedChain(deep, "a") },
			actual:  func() any { return linkedChain(deep, "b") },
		},
		"Interfaces": {
			desired: func() any { return boxChain(deep) },
			actual:  func() any { return boxChain(deep) },
		},
		"Maps": {
			desired: func() any { return mapChain(deep, "a") },
			actual:  func() any { return mapChain(deep, "b") },
		},
		"Lists": {
			desired: func() any { return listChain(deep, "a") },
			actual:  func() any { return listChain(deep, "b") },
		},
		"Arrays": {
			desired: func() any { return arrayChain(deep) },
			actual:  func() any { return arrayChain(deep) },
		},
		"ProtoMessages": {
			desired: func() any { return clusterChain(deep/10, "a") },
			actual:  func() any { return clusterChain(deep/10, "b") },
		},
		"ProtoStructValues": {
			desired: func() any { return &testpb.Cluster{Extra: structValueChain(deep/10, "a")} },
			actual:  func() any { return &testpb.Cluster{Extra: structValueChain(deep/10, "b")} },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			desired, actual := tc.desired(), tc.actual()
			_, _, err := fielddiff.FirstChangedField(desired, actual, fielddiff.Prefix("spec"))
			if !errors.Is(err, fielddiff.ErrTooDeep) {
				t.Fatalf("FirstChangedField: want %v, got error %v", fielddiff.ErrTooDeep, err)
			}
			if len(err.Error()) > 500 {
				t.Errorf("FirstChangedField: error of %d bytes, want a short one: %.200s…", len(err.Error()), err)
			}
			if _, err := fielddiff.ChangedFields(desired, actual, fielddiff.NilEqualsEmpty()); !errors.Is(err, fielddiff.ErrTooDeep) {
				t.Fatalf("ChangedFields: want %v, got error %v", fielddiff.ErrTooDeep, err)
			}
		})
	}
}

// TestDepthLimit checks the limit itself: MaxDepth levels compare, one more
// is refused.
func TestDepthLimit(t *testing.T) {
	// A map chain of n+1 maps is n+1 levels.
	for _, tc := range []struct {
		levels  int
		wantErr bool
	}{
		{levels: fielddiff.MaxDepth, wantErr: false},
		{levels: fielddiff.MaxDepth + 1, wantErr: true},
	} {
		a, b := mapChain(tc.levels-1, "a"), mapChain(tc.levels-1, "b")
		got, err := fielddiff.ChangedFields(a, b)
		if tc.wantErr {
			if !errors.Is(err, fielddiff.ErrTooDeep) {
				t.Errorf("%d levels: want %v, got %v", tc.levels, fielddiff.ErrTooDeep, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%d levels: %v", tc.levels, err)
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "a.a.a.") {
			t.Errorf("%d levels: want one a.a.…, got %d paths", tc.levels, len(got))
		}
	}
}

// FuzzDepth nests a leaf in wrappers chosen by kinds, repeated to reach
// about levels levels, and diffs two such values that differ in the leaf.
// Nothing may crash; a value within MaxDepth compares, a deeper one wraps
// ErrTooDeep.
func FuzzDepth(f *testing.F) {
	f.Add(uint32(10), "m")
	f.Add(uint32(fielddiff.MaxDepth), "l")
	f.Add(uint32(fielddiff.MaxDepth+1), "a")
	f.Add(uint32(1_000_000), "p")
	f.Add(uint32(200_000), "mlbp")
	f.Fuzz(func(t *testing.T, levels uint32, kinds string) {
		if kinds == "" {
			t.Skip()
		}
		levels = min(levels, 200_000)
		build := func(leaf string) (any, int) {
			var v any = leaf
			n := 0
			for i := 0; n < int(levels); i++ {
				switch kinds[i%len(kinds)] % 5 {
				case 0: // a JSON object: one level
					v, n = map[string]any{"k": v}, n+1
				case 1: // a JSON list: one level
					v, n = []any{v}, n+1
				case 2: // an array and its interface element: two levels
					v, n = [1]any{v}, n+2
				case 3: // a struct and its interface field: two levels
					v, n = boxed{X: v}, n+2
				default: // a pointer and the interface it points to: two levels
					p := new(any)
					*p = v
					v, n = p, n+2
				}
			}
			return v, n
		}
		a, n := build("a")
		b, _ := build("b")
		got, err := fielddiff.ChangedFields(a, b)
		if n > fielddiff.MaxDepth {
			if !errors.Is(err, fielddiff.ErrTooDeep) {
				t.Fatalf("%d levels: want %v, got %v", n, fielddiff.ErrTooDeep, err)
			}
			return
		}
		if err != nil || len(got) != 1 {
			t.Fatalf("%d levels: want one change; got %d paths, %v", n, len(got), err)
		}
	})
}
