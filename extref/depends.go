package extref

import (
	"errors"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/fieldpath"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// dependsOn: an external value that reads no value and writes nothing, but
// fails until its object exists, is not being deleted, and (with ready) has
// a Ready condition that is True. Its failures wrap ErrDependency, and a
// resolution whose only failures are such reports ReasonWaitingForDependency.

// A dependency is the part of a checked dependsOn that is not a source.
type dependency struct {
	ready bool
}

// Paths a dependency reads of its object: the deletion timestamp (absent
// while the object is not being deleted), and its conditions. They are
// compiled here, not from the spec: the conditions hold observedGeneration,
// which a source path may not reach, but a dependency reads only their
// types and statuses.
var (
	deletionPath   = fieldpath.MustCompile("metadata.deletionTimestamp")
	conditionsPath = fieldpath.MustCompile("status.conditions")
)

// dependsOn checks d and makes e the external value that waits for it.
func (e *entry) dependsOn(d v1alpha1.Dependency, sh *sharing) *compileError {
	src, err := sh.source(v1alpha1.ObjectFieldRef{Group: d.Group, Version: d.Version, Resource: d.Resource, Name: d.Name, Namespace: d.Namespace, FieldPath: deletionPath.String()})
	if err != nil {
		if err.path == ".fieldPath" {
			err.path = ""
		}
		return err
	}
	e.sources = []sourceRef{src}
	if d.Ready {
		k := &sourceKind{ref: src.kind.ref, path: conditionsPath}
		k.ref.FieldPath = conditionsPath.String()
		e.sources = append(e.sources, sourceRef{name: src.name, kind: k})
	}
	e.dep = &dependency{ready: d.Ready}
	return nil
}

// boolean returns field f of m as a bool; absent or null is false.
func (d *decoder) boolean(m map[string]any, f string) bool {
	v := m[f]
	if v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		d.field(f)
		d.fail("want a boolean, got %s", jsonvalue.Describe(v))
		d.pop()
	}
	return b
}

// depend resolves dependsOn value i, checked as e: it succeeds when the
// object exists, is not being deleted and, with ready, is Ready. A failure
// names what it waits for, never a value of the object.
func (rs *resolution) depend(i int, e *entry, out *Outcome, fail func(*ReferenceError)) {
	at := rs.r.path + "[" + strconv.Itoa(i) + "].dependsOn"
	src := e.sources[0]
	wait := func(rerr *ReferenceError, err error) {
		rerr.Path = at
		rerr.Source.FieldPath = ""
		rerr.Err = fmt.Errorf("%w: %w", ErrDependency, err)
		fail(rerr)
	}
	// The deletion timestamp: absent (ErrFieldNotFound) while the object
	// exists and is not being deleted.
	_, _, rerr := rs.read(src.ref(), src.kind.path)
	switch {
	case rerr == nil:
		rerr = &ReferenceError{Source: rs.dependencySource(src)}
		wait(rerr, fmt.Errorf("%s %s is being deleted", src.kind.ref.Resource, src.name))
		return
	case !errors.Is(rerr.Err, ErrFieldNotFound):
		wait(rerr, rerr.Err)
		return
	}
	if e.dep.ready {
		c := e.sources[1]
		v, _, rerr := rs.read(c.ref(), c.kind.path)
		if rerr != nil && !errors.Is(rerr.Err, ErrFieldNotFound) {
			wait(rerr, rerr.Err)
			return
		}
		if why := notReady(v, rs.generation(c.ref())); why != "" {
			wait(&ReferenceError{Source: rs.dependencySource(src)}, fmt.Errorf("%w: %s %s %s", ErrNotReady, src.kind.ref.Resource, src.name, why))
			return
		}
	}
	out.Resolved++
}

// dependencySource is the Source of src for an error, its namespace defaulted.
func (rs *resolution) dependencySource(src sourceRef) *Source {
	r := src.ref()
	ns := r.Namespace
	if ns == "" {
		ns = rs.namespace
	}
	return &Source{Group: r.Group, Version: r.Version, Resource: r.Resource, Namespace: ns, Name: r.Name}
}

// generation returns the metadata.generation of the object of ref, which
// the resolution has read, or 0.
func (rs *resolution) generation(ref v1alpha1.ObjectFieldRef) int64 {
	m := rs.mapping(schema.GroupVersionResource{Group: ref.Group, Version: ref.Version, Resource: ref.Resource})
	if m.err != nil {
		return 0
	}
	ns := ref.Namespace
	if m.namespaced && ns == "" {
		ns = rs.namespace
	}
	res, ok := rs.objects.get(objectKey{gvk: m.gvk, namespace: ns, name: ref.Name})
	if !ok || res.content == nil {
		return 0
	}
	md, _ := res.content["metadata"].(map[string]any)
	g, _ := jsonvalue.Int64(md["generation"])
	return g
}

// notReady returns why conditions (an object's status.conditions, or nil)
// do not say Ready, or "" when they do: a condition of type Ready whose
// status is True and which, when it says of which generation it is, is of
// the object's generation (package conditions' rule for a stale
// condition). It says which, never what the condition's reason or message
// hold.
func notReady(conditions any, generation int64) string {
	list, _ := conditions.([]any)
	for _, c := range list {
		m, _ := c.(map[string]any)
		if m["type"] != "Ready" {
			continue
		}
		switch s, _ := m["status"].(string); s {
		case "True":
			if og, _ := jsonvalue.Int64(m["observedGeneration"]); generation > 0 && og > 0 && og < generation {
				return "is not Ready (its Ready condition is of generation " + strconv.FormatInt(og, 10) + ", the object's is " + strconv.FormatInt(generation, 10) + ")"
			}
			return ""
		case "False", "Unknown":
			return "is not Ready (its Ready condition is " + s + ")"
		default:
			return "is not Ready (its Ready condition has no valid status)"
		}
	}
	return "is not Ready (it has no Ready condition)"
}
