// Package extref will hold generic, GVR-addressed references: a
// spec.externalValues entry names any object by group, version, resource,
// namespace and name, and a field path in it, and the value found there is
// copied, optionally transformed or combined with others, into a field of the
// referencing object, under per-reference resolve and resolution policies and a
// source policy that limits what may be read.
//
// Design: ../shared/seeds/generic-resource-references.md (issue 7). Not
// implemented yet.
package extref
