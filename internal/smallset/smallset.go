// Package smallset is a set of comparable values that is usually small: a
// list it scans while it is short, and a map beside it once it is long, so
// that a short set costs no allocation beyond its list and a long one (the
// many condition types a hostile object may hold) costs linear time. It
// keeps the order in which values were added. It imports the standard
// library only.
package smallset

import "slices"

// Long is the length above which a Set keeps a map.
const Long = 32

// A Set holds distinct values in the order they were added. The zero value
// is an empty set. A Set is a value: a copy shares its list and map with the
// original, so after Add only the Set that was added to may be used.
type Set[T comparable] struct {
	list []T
	m    map[T]struct{}
}

// Of returns a set of the values of l, which it keeps: Add appends to l.
// The values of l should be distinct; List returns l as it is.
func Of[T comparable](l []T) Set[T] {
	s := Set[T]{list: l}
	if len(l) > Long {
		s.index()
	}
	return s
}

func (s *Set[T]) index() {
	s.m = make(map[T]struct{}, 2*len(s.list))
	for _, v := range s.list {
		s.m[v] = struct{}{}
	}
}

// Has reports whether s holds v.
func (s *Set[T]) Has(v T) bool {
	if s.m != nil {
		_, ok := s.m[v]
		return ok
	}
	return slices.Contains(s.list, v)
}

// Add adds v unless s holds it, and reports whether it did.
func (s *Set[T]) Add(v T) bool {
	if s.Has(v) {
		return false
	}
	s.list = append(s.list, v)
	if s.m != nil {
		s.m[v] = struct{}{}
	} else if len(s.list) > Long {
		s.index()
	}
	return true
}

// List returns the values of s in the order they were added. The caller
// must not change it.
func (s Set[T]) List() []T { return s.list }

// Len is the number of values of s.
func (s Set[T]) Len() int { return len(s.list) }
