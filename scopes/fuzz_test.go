package scopes

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// FuzzAddRemove adds and then removes a reference in arbitrary JSON documents
// at arbitrary paths. Neither may panic; a failure must leave the document as
// it was; a success may change nothing outside the path; adding twice and
// removing twice change nothing the second time; and removing what was added
// to a list restores the list.
func FuzzAddRemove(f *testing.F) {
	seeds := []struct{ doc, path string }{
		{`{"spec":{"workloadRefs":[]}}`, "spec.workloadRefs"},
		{`{"metadata":{"name":"hs","labels":{"a":"b"}},"spec":{}}`, "spec.workloadRefs"},
		{`{"metadata":{"name":"hs"}}`, "spec.workloadRefs"},
		{`{}`, "spec.workloadRefs"},
		{`{"spec":null}`, "spec.workloadRefs"},
		{`{"spec":{"workloadRefs":null,"x":[1,2]}}`, "spec.workloadRefs"},
		{`{"spec":{"workloadRefs":"a.b.c"}}`, "spec.workloadRefs"},
		{`{"spec":{"workloadRefs":7}}`, "spec.workloadRefs"},
		{`{"spec":"x"}`, "spec.workloadRefs"},
		{`{"spec":{"workloadRef":{"apiVersion":"v1","kind":"Service","name":"a"}}}`, "spec.workloadRef"},
		{`{"spec":{"TargetEndpoints":["a.b.c",{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}]}}`, "spec.TargetEndpoints"},
		{`{"spec":{"groups":[{"refs":[]},{"name":"b"}]}}`, "spec.groups[1].refs"},
		{`{"spec":{"groups":[]}}`, "spec.groups[0].refs"},
		{`{"spec":{"a.b":{}}}`, "spec[a.b].refs"},
		{`{"a":[[{"x":null}]]}`, "a[0][0].x"},
		{`{"spec":{}}`, "spec..x"},
		{`{"spec":{}}`, "spec[*]"},
		{`[]`, "spec"},
		{`{"spec":{"a":1}}`, "spec"},
		{`{"metadata":{"annotations":{"a":"b"}}}`, "metadata.annotations"},
		{`{"metadata":{}}`, "metadata.ownerReferences"},
		{`{"status":{}}`, "status.refs"},
		{`{"spec":{"refs":[{"apiVersion":"","kind":"","name":""}]}}`, "spec.refs"},
		{`{"spec":{"refs":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","namespace":"other"},{"apiVersion":"apps/v1","kind":"Deployment","name":"db","namespace":7}]}}`, "spec.refs"},
	}
	for _, s := range seeds {
		f.Add([]byte(s.doc), s.path, "apps/v1", "Deployment", "web", "")
	}
	f.Add([]byte(`{"spec":{"refs":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"old"}]}}`), "spec.refs", "apps/v1", "Deployment", "web", "new")
	f.Add([]byte(`{"spec":{}}`), "spec.refs", "", "Deployment", "web", "")

	f.Fuzz(func(t *testing.T, data []byte, path, apiVersion, kind, name, uid string) {
		var content map[string]any
		if err := utiljson.Unmarshal(data, &content); err != nil || content == nil {
			return
		}
		ref := WorkloadRef{APIVersion: apiVersion, Kind: kind, Name: name}
		if uid != "" {
			ref.UID = types.UID(uid)
		}
		before := runtime.DeepCopyJSON(content)
		segs, parseErr := fieldpath.Parse(path)

		// Remove from the original document.
		scope := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(before)}
		changed, err := RemoveWorkloadRef(scope, path, ref)
		if err != nil || !changed {
			if diff := cmp.Diff(before, scope.Object); diff != "" {
				t.Fatalf("RemoveWorkloadRef(%s) changed the document although it reported %t, %v: -before, +after:\n%s", path, changed, err, diff)
			}
		} else {
			checkOnlyPath(t, before, scope.Object, segs)
		}

		// Add to it.
		scope = &unstructured.Unstructured{Object: runtime.DeepCopyJSON(before)}
		changed, err = AddWorkloadRef(scope, path, ref)
		if err != nil || !changed {
			if diff := cmp.Diff(before, scope.Object); diff != "" {
				t.Fatalf("AddWorkloadRef(%s) changed the document although it reported %t, %v: -before, +after:\n%s", path, changed, err, diff)
			}
		}
		if err != nil {
			return
		}
		if parseErr != nil {
			t.Fatalf("AddWorkloadRef accepted the path %q that fieldpath rejects: %v", path, parseErr)
		}
		if err := CheckRefPath(path); err != nil {
			t.Fatalf("AddWorkloadRef accepted the path %q that CheckRefPath refuses: %v", path, err)
		}
		for _, f := range []string{"metadata", "status", "apiVersion", "kind"} {
			if diff := cmp.Diff(before[f], scope.Object[f]); diff != "" {
				t.Fatalf("AddWorkloadRef(%s) changed %s: -before, +after:\n%s", path, f, diff)
			}
		}
		if v, _ := fieldpath.Pave(scope.Object).GetValue(path); v != nil {
			if _, ok := v.([]any); !ok {
				t.Fatalf("AddWorkloadRef(%s) left %T at the path, not a list", path, v)
			}
		}
		added := scope.Object
		checkOnlyPath(t, before, added, segs)
		if !holds(added, path, ref) {
			t.Fatalf("AddWorkloadRef(%s, %v) succeeded but the document does not hold the reference: %v", path, ref, added)
		}
		if again, err := AddWorkloadRef(scope, path, ref); err != nil || again {
			t.Fatalf("AddWorkloadRef a second time: want no change and no error, got %t, %v", again, err)
		}

		// Remove what was added.
		scope = &unstructured.Unstructured{Object: runtime.DeepCopyJSON(added)}
		changed, err = RemoveWorkloadRef(scope, path, ref)
		if err != nil || !changed {
			t.Fatalf("RemoveWorkloadRef after a successful add: want a change and no error, got %t, %v", changed, err)
		}
		checkOnlyPath(t, added, scope.Object, segs)
		if holds(scope.Object, path, ref) {
			t.Fatalf("RemoveWorkloadRef succeeded but the document still holds the reference: %v", scope.Object)
		}
		if again, err := RemoveWorkloadRef(scope, path, ref); err != nil || again {
			t.Fatalf("RemoveWorkloadRef a second time: want no change and no error, got %t, %v", again, err)
		}
		// A list that did not hold the reference is restored, in order.
		if old, err := fieldpath.Pave(before).GetValue(path); err == nil {
			if list, ok := old.([]any); ok && indexOf(list, ref) < 0 {
				got, _ := fieldpath.Pave(scope.Object).GetValue(path)
				if diff := cmp.Diff(old, got); diff != "" {
					t.Fatalf("add then remove at %s: -before, +after:\n%s", path, diff)
				}
			}
		}
	})
}

// checkOnlyPath fails t when after differs from before anywhere but at the
// end of segs (where anything may have changed) and on the way to it (where
// a missing field or a null may have become an object). Arrays on the way
// must keep their length and every other element.
func checkOnlyPath(t *testing.T, before, after any, segs fieldpath.Segments) {
	t.Helper()
	if err := onlyPath(before, after, segs, ""); err != nil {
		t.Fatalf("a value outside the path %s changed: %v\nbefore: %v\nafter:  %v", segs, err, before, after)
	}
}

func onlyPath(before, after any, segs fieldpath.Segments, at string) error {
	if len(segs) == 0 {
		return nil
	}
	s := segs[0]
	switch s.Type {
	case fieldpath.SegmentField:
		am, ok := after.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is %T after, not an object", at, after)
		}
		bm, ok := before.(map[string]any)
		if !ok {
			if before != nil {
				return fmt.Errorf("%s was %T and was replaced", at, before)
			}
			if len(am) != 1 {
				return fmt.Errorf("%s was created with %d fields, not just %q", at, len(am), s.Field)
			}
			return onlyPath(nil, am[s.Field], segs[1:], at+"."+s.Field)
		}
		for k, bv := range bm {
			if k == s.Field {
				continue
			}
			av, ok := am[k]
			if !ok {
				return fmt.Errorf("%s.%s was deleted", at, k)
			}
			if diff := cmp.Diff(bv, av); diff != "" {
				return fmt.Errorf("%s.%s changed: %s", at, k, diff)
			}
		}
		for k := range am {
			if _, ok := bm[k]; !ok && k != s.Field {
				return fmt.Errorf("%s.%s was added", at, k)
			}
		}
		return onlyPath(bm[s.Field], am[s.Field], segs[1:], at+"."+s.Field)
	case fieldpath.SegmentIndex:
		ba, ok := before.([]any)
		if !ok {
			return fmt.Errorf("%s was %T, and an array was made of it", at, before)
		}
		aa, ok := after.([]any)
		if !ok || len(aa) != len(ba) {
			return fmt.Errorf("%s was an array of %d, and is %T %v", at, len(ba), after, after)
		}
		for i := range ba {
			if uint(i) == s.Index {
				continue
			}
			if diff := cmp.Diff(ba[i], aa[i]); diff != "" {
				return fmt.Errorf("%s[%d] changed: %s", at, i, diff)
			}
		}
		return onlyPath(ba[s.Index], aa[s.Index], segs[1:], fmt.Sprintf("%s[%d]", at, s.Index))
	default:
		return fmt.Errorf("segment %v is a wildcard, which a write cannot use", s)
	}
}

// FuzzReadDefinitions reads references and definition fields from arbitrary
// JSON documents: no panic, and what is returned is valid.
func FuzzReadDefinitions(f *testing.F) {
	f.Add([]byte(`{"spec":{"workloadRefPath":"spec.workloadRefs","allowComponentOverlap":false}}`), "spec.workloadRefs")
	f.Add([]byte(`{"spec":{"workloadRefsPath":7,"childResourceKinds":[{"apiVersion":"apps/v1","kind":"Deployment","selector":{"a":"b"}}]}}`), "spec.x")
	f.Add([]byte(`{"spec":{"childResourceKinds":[{"apiVersion":"a/b/c","kind":""}],"workloadRefs":[{"apiVersion":"v1","kind":"S","name":"n","uid":"u"}]}}`), "spec.workloadRefs")
	f.Add([]byte(`{"spec":{"workloadRef":{"apiVersion":"v1","kind":"S","name":"n"}}}`), "spec.workloadRef")
	f.Add([]byte(`{"spec":[{"refs":["x"]}]}`), "spec[0].refs")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		var content map[string]any
		if err := utiljson.Unmarshal(data, &content); err != nil || content == nil {
			return
		}
		u := &unstructured.Unstructured{Object: content}
		if p, ok := RefPath(u); ok && p == "" {
			t.Fatalf("RefPath: ok with an empty path")
		}
		_, _ = allowOverlap(u)
		if kinds, err := ChildResourceKinds(u); err == nil {
			for _, k := range kinds {
				if _, err := k.gvk(); err != nil {
					t.Fatalf("ChildResourceKinds returned an invalid kind %+v: %v", k, err)
				}
			}
		}
		refs, err := WorkloadRefs(u, path)
		if err != nil {
			return
		}
		for _, r := range refs {
			if err := r.validate(); err != nil {
				t.Fatalf("WorkloadRefs returned an invalid reference: %v", err)
			}
			if !holds(content, path, r) {
				t.Fatalf("WorkloadRefs returned %v, which the scope does not hold at %s", r, path)
			}
		}
	})
}

// FuzzCheckRefPath holds CheckRefPath's answer for the plain dotted form,
// decided without parsing, to the answer of the parsing path.
func FuzzCheckRefPath(f *testing.F) {
	for _, p := range []string{
		"spec.workloadRefs", "spec", "status.refs", "metadata.annotations", "kind", "apiVersion",
		"*", "spec.*", "*.refs", "spec..refs", ".spec", "spec.", "", "spec[0]", "spec.refs[0]",
		"spec['a.b']", "[0].a", "a]b", "spec.a-b_c/d", "status", "statusx.refs", "a.b.c.d.e.f",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		fast, slow := CheckRefPath(path), checkRefPath(path)
		if (fast == nil) != (slow == nil) {
			t.Fatalf("CheckRefPath(%q) = %v; the parsing path says %v", path, fast, slow)
		}
		if first, ok := plainFields(path); ok {
			segs, err := fieldpath.Parse(path)
			if err != nil || len(segs) == 0 || segs[0].Field != first {
				t.Fatalf("plainFields(%q) = %q, true; fieldpath.Parse gives %v, %v", path, first, segs, err)
			}
		}
	})
}
