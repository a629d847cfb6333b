package scopes

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// doc parses JSON as the Kubernetes decoder would (int64 numbers).
func doc(t testing.TB, s string) map[string]any {
	t.Helper()
	if s == "" {
		return nil
	}
	var m map[string]any
	require.NoError(t, utiljson.Unmarshal([]byte(s), &m), "test document %s", s)
	return m
}

func scopeOf(t testing.TB, spec string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: doc(t, `{"apiVersion":"core.oam.dev/v1alpha2","kind":"HealthScope","metadata":{"name":"hs","namespace":"default"}}`)}
	if spec != "" {
		u.Object["spec"] = doc(t, `{"spec":`+spec+`}`)["spec"]
	}
	return u
}

var (
	web = WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	db  = WorkloadRef{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db"}
)

const (
	webJSON = `{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}`
	dbJSON  = `{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db"}`
	apiJSON = `{"apiVersion":"oam.dev/v1alpha2","kind":"example-workload","name":"api"}`
)

// errorWant describes an expected error: a sentinel it wraps and words its
// message holds.
type errorWant struct {
	is       []error
	contains []string
}

func checkError(t *testing.T, want *errorWant, err error) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("want an error wrapping %v, got none", want.is)
	}
	for _, s := range want.is {
		if !errors.Is(err, s) {
			t.Errorf("error %q does not wrap %q", err, s)
		}
	}
	for _, s := range want.contains {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

// manyRefs returns a JSON list of n references to Deployments d0000, d0001
// and so on, with each entry of extra inserted before the generated entry of
// its index (at n: at the end). It builds lists longer than fieldpath's
// default index limit, 1024.
func manyRefs(n int, extra map[int]string) string {
	var b strings.Builder
	b.WriteByte('[')
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	for i := 0; i <= n; i++ {
		if e, ok := extra[i]; ok {
			sep()
			b.WriteString(e)
		}
		if i < n {
			sep()
			fmt.Fprintf(&b, `{"apiVersion":"apps/v1","kind":"Deployment","name":"d%04d"}`, i)
		}
	}
	b.WriteByte(']')
	return b.String()
}

func TestAddWorkloadRef(t *testing.T) {
	type args struct {
		spec string // the scope's spec as JSON; "" for none
		path string
		ref  WorkloadRef
	}
	type want struct {
		spec    string // the spec afterwards; "" for none
		changed bool
		err     *errorWant
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"MissingField": {
			reason: "A missing list is created (OAM's runtime needed examples to ship workloadRefs: []).",
			args:   args{spec: `{"probe":1}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"probe":1,"workloadRefs":[` + webJSON + `]}`, changed: true},
		},
		"MissingSpec": {
			reason: "Missing objects on the way are created.",
			args:   args{path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[` + webJSON + `]}`, changed: true},
		},
		"Null": {
			reason: "A null list is replaced (OAM's runtime panicked).",
			args:   args{spec: `{"workloadRefs":null}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[` + webJSON + `]}`, changed: true},
		},
		"NullParent": {
			reason: "A null object on the way is replaced by an object.",
			args:   args{spec: `null`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[` + webJSON + `]}`, changed: true},
		},
		"EmptyList": {
			args: args{spec: `{"workloadRefs":[]}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":[` + webJSON + `]}`, changed: true},
		},
		"Append": {
			reason: "A new reference is appended; the others keep their order.",
			args:   args{spec: `{"workloadRefs":[` + dbJSON + `,` + apiJSON + `]}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[` + dbJSON + `,` + apiJSON + `,` + webJSON + `]}`, changed: true},
		},
		"Duplicate": {
			reason: "A reference to the same workload is not added twice.",
			args:   args{spec: `{"workloadRefs":[` + dbJSON + `,` + webJSON + `]}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[` + dbJSON + `,` + webJSON + `]}`},
		},
		"DuplicateWithExtraFields": {
			reason: "Identity is apiVersion, kind and name; fields the scope's schema adds are kept.",
			args:   args{spec: `{"workloadRefs":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","weight":3}]}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","weight":3}]}`},
		},
		"OtherVersionIsAnotherRef": {
			reason: "Identity includes the apiVersion, as the WorkloadRef doc says.",
			args:   args{spec: `{"workloadRefs":[{"apiVersion":"apps/v1beta2","kind":"Deployment","name":"web"}]}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[{"apiVersion":"apps/v1beta2","kind":"Deployment","name":"web"},` + webJSON + `]}`, changed: true},
		},
		"NewWithUID": {
			args: args{spec: `{"workloadRefs":[]}`, path: "spec.workloadRefs", ref: WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u1"}},
			want: want{spec: `{"workloadRefs":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"u1"}]}`, changed: true},
		},
		"StaleUID": {
			reason: "A workload deleted and created again under its name gets its new UID.",
			args: args{spec: `{"workloadRefs":[` + dbJSON + `,{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"u1"}]}`,
				path: "spec.workloadRefs", ref: WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u2"}},
			want: want{spec: `{"workloadRefs":[` + dbJSON + `,{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"u2"}]}`, changed: true},
		},
		"NoUIDInEntry": {
			reason: "An entry without uid is left alone: the scope's schema may prune the field, and adding it would write forever.",
			args:   args{spec: `{"workloadRefs":[` + webJSON + `]}`, path: "spec.workloadRefs", ref: WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u2"}},
			want:   want{spec: `{"workloadRefs":[` + webJSON + `]}`},
		},
		"ForeignEntries": {
			reason: "Entries that are not references are kept as they are.",
			args:   args{spec: `{"workloadRefs":["a.b.c",7,null,{"x":1}]}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":["a.b.c",7,null,{"x":1},` + webJSON + `]}`, changed: true},
		},
		"Object": {
			reason: "An object at the path is refused, not replaced: the path may name spec, or any object of the scope.",
			args:   args{spec: `{"workloadRef":` + dbJSON + `}`, path: "spec.workloadRef", ref: web},
			want: want{spec: `{"workloadRef":` + dbJSON + `}`, err: &errorWant{is: []error{ErrInvalidRefPath, ErrMalformed},
				contains: []string{"spec.workloadRef holds an object of 3 fields, not a list"}}},
		},
		"EmptyObject": {
			args: args{spec: `{"workloadRef":{}}`, path: "spec.workloadRef", ref: web},
			want: want{spec: `{"workloadRef":{}}`, err: &errorWant{is: []error{ErrInvalidRefPath}}},
		},
		"Spec": {
			reason: "AtPath(\"spec\") would have replaced the whole spec.",
			args:   args{spec: `{"probe":5}`, path: "spec", ref: web},
			want:   want{spec: `{"probe":5}`, err: &errorWant{is: []error{ErrInvalidRefPath}, contains: []string{"spec holds an object of 1 field, not a list"}}},
		},
		"Annotations": {
			reason: "metadata is refused whatever it holds: references would replace annotations or labels.",
			args:   args{spec: `{}`, path: "metadata.annotations", ref: web},
			want:   want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRefPath}, contains: []string{"metadata.annotations is in metadata"}}},
		},
		"OwnerReferences": {
			reason: "A list in metadata is refused too: the workload would become an owner of the scope.",
			args:   args{spec: `{}`, path: "metadata.ownerReferences", ref: web},
			want:   want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRefPath}, contains: []string{"in metadata"}}},
		},
		"Metadata": {
			args: args{spec: `{}`, path: "metadata", ref: web},
			want: want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRefPath}}},
		},
		"Status": {
			args: args{spec: `{}`, path: "status.workloads", ref: web},
			want: want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRefPath}, contains: []string{"in status"}}},
		},
		"Kind": {
			args: args{spec: `{}`, path: "kind", ref: web},
			want: want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRefPath}}},
		},
		"IndexFirst": {
			args: args{spec: `{}`, path: "[0]", ref: web},
			want: want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRefPath}, contains: []string{"starts with an index"}}},
		},
		"EmptyPath": {
			args: args{spec: `{}`, path: "", ref: web},
			want: want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRefPath}}},
		},
		"TargetEndpoints": {
			reason: "The design's DemoScope takes its references at spec.TargetEndpoints.",
			args:   args{spec: `{"TargetEndpoints":[]}`, path: "spec.TargetEndpoints", ref: web},
			want:   want{spec: `{"TargetEndpoints":[` + webJSON + `]}`, changed: true},
		},
		"IndexedPath": {
			reason: "A path may go through existing array elements.",
			args:   args{spec: `{"groups":[{"name":"a"},{"name":"b","refs":[` + dbJSON + `]}]}`, path: "spec.groups[1].refs", ref: web},
			want:   want{spec: `{"groups":[{"name":"a"},{"name":"b","refs":[` + dbJSON + `,` + webJSON + `]}]}`, changed: true},
		},
		"IndexedPathMissingField": {
			args: args{spec: `{"groups":[{"name":"a"}]}`, path: "spec.groups[0].refs", ref: web},
			want: want{spec: `{"groups":[{"name":"a","refs":[` + webJSON + `]}]}`, changed: true},
		},
		"BracketPath": {
			args: args{spec: `{"refs.v1":null}`, path: "spec[refs.v1]", ref: web},
			want: want{spec: `{"refs.v1":[` + webJSON + `]}`, changed: true},
		},
		"LongList": {
			reason: "A list may grow past fieldpath's default index limit (1024).",
			args:   args{spec: `{"workloadRefs":` + manyRefs(1100, nil) + `}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":` + manyRefs(1100, map[int]string{1100: webJSON}) + `}`, changed: true},
		},
		"MissingElement": {
			reason: "Add never pads an array to reach an element the path names.",
			args:   args{spec: `{"groups":[{"name":"a"}]}`, path: "spec.groups[3].refs", ref: web},
			want:   want{spec: `{"groups":[{"name":"a"}]}`, err: &errorWant{is: []error{fieldpath.ErrNotFound}, contains: []string{"spec.groups[3].refs", "no element 3"}}},
		},
		"HugeIndex": {
			reason: "A definition's path cannot make Add allocate: an index above fieldpath's limit is refused before anything is read.",
			args:   args{spec: `{"groups":[]}`, path: "spec.groups[100000000].refs", ref: web},
			want:   want{spec: `{"groups":[]}`, err: &errorWant{is: []error{ErrInvalidRefPath, fieldpath.ErrInvalidPath}, contains: []string{"index 100000000 is above the limit"}}},
		},
		"MissingArray": {
			args: args{spec: `{}`, path: "spec.groups[0].refs", ref: web},
			want: want{spec: `{}`, err: &errorWant{is: []error{fieldpath.ErrNotFound}, contains: []string{"groups"}}},
		},
		"String": {
			reason: "A value that is not a list is an error naming the path and the type.",
			args:   args{spec: `{"workloadRefs":"a.b.c"}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":"a.b.c"}`, err: &errorWant{is: []error{ErrMalformed, ErrInvalidRefPath},
				contains: []string{`HealthScope default/hs`, `spec.workloadRefs holds a string of 5 bytes, not a list`, `apps/v1 Deployment "web"`}}},
		},
		"Number": {
			args: args{spec: `{"workloadRefs":3}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":3}`, err: &errorWant{is: []error{ErrMalformed}, contains: []string{"spec.workloadRefs holds a number, not a list"}}},
		},
		"Boolean": {
			args: args{spec: `{"workloadRefs":true}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":true}`, err: &errorWant{is: []error{ErrMalformed}, contains: []string{"spec.workloadRefs holds a boolean, not a list"}}},
		},
		"WrongTypeOnTheWay": {
			args: args{spec: `"oops"`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `"oops"`, err: &errorWant{is: []error{ErrMalformed, fieldpath.ErrWrongType}, contains: []string{`spec is a string of 4 bytes, not an object`}}},
		},
		"InvalidPath": {
			args: args{spec: `{}`, path: "spec..refs", ref: web},
			want: want{spec: `{}`, err: &errorWant{is: []error{fieldpath.ErrInvalidPath}, contains: []string{"position"}}},
		},
		"WildcardPath": {
			args: args{spec: `{"refs":[]}`, path: "spec.refs[*]", ref: web},
			want: want{spec: `{"refs":[]}`, err: &errorWant{is: []error{fieldpath.ErrInvalidPath}}},
		},
		"InvalidRef": {
			args: args{spec: `{}`, path: "spec.workloadRefs", ref: WorkloadRef{Kind: "Deployment"}},
			want: want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRef}, contains: []string{"apiVersion or name"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			scope := scopeOf(t, tc.args.spec)
			changed, err := AddWorkloadRef(scope, tc.args.path, tc.args.ref)
			checkError(t, tc.want.err, err)
			if diff := cmp.Diff(scopeOf(t, tc.want.spec).Object, scope.Object); diff != "" {
				t.Errorf("%s\nAddWorkloadRef(...): -want scope, +got scope:\n%s", tc.reason, diff)
			}
			if changed != tc.want.changed {
				t.Errorf("%s\nAddWorkloadRef(...): want changed %t, got %t", tc.reason, tc.want.changed, changed)
			}
		})
	}
}

func TestAddWorkloadRefNilContent(t *testing.T) {
	scope := &unstructured.Unstructured{}
	changed, err := AddWorkloadRef(scope, "spec.workloadRefs", web)
	require.NoError(t, err)
	if !changed {
		t.Errorf("changed: want true, got false")
	}
	if diff := cmp.Diff(doc(t, `{"spec":{"workloadRefs":[`+webJSON+`]}}`), scope.Object); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
	_, err = AddWorkloadRef(nil, "spec.workloadRefs", web)
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("err = %v, want %v", err, ErrMalformed)
	}
}

func TestRemoveWorkloadRef(t *testing.T) {
	type args struct {
		spec string
		path string
		ref  WorkloadRef
	}
	type want struct {
		spec    string
		changed bool
		err     *errorWant
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Missing": {
			args: args{spec: `{}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{}`},
		},
		"MissingSpec": {
			args: args{path: "spec.workloadRefs", ref: web},
		},
		"MissingElement": {
			args: args{spec: `{"groups":[]}`, path: "spec.groups[2].refs", ref: web},
			want: want{spec: `{"groups":[]}`},
		},
		"Null": {
			args: args{spec: `{"workloadRefs":null}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":null}`},
		},
		"KeepsOrder": {
			reason: "Removal keeps the order of the others (OAM's runtime swapped elements).",
			args:   args{spec: `{"workloadRefs":[` + dbJSON + `,` + webJSON + `,` + apiJSON + `]}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[` + dbJSON + `,` + apiJSON + `]}`, changed: true},
		},
		"Duplicates": {
			reason: "Every entry that refers to the workload goes.",
			args:   args{spec: `{"workloadRefs":[` + webJSON + `,` + dbJSON + `,` + webJSON + `]}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[` + dbJSON + `]}`, changed: true},
		},
		"Last": {
			reason: "The list stays, empty.",
			args:   args{spec: `{"workloadRefs":[` + webJSON + `]}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":[]}`, changed: true},
		},
		"LongList": {
			reason: "Remove deletes past fieldpath's default index limit (1024): whatever Add wrote, Remove can delete, so a finalizer does not hang.",
			args:   args{spec: `{"workloadRefs":` + manyRefs(1100, map[int]string{1050: webJSON}) + `}`, path: "spec.workloadRefs", ref: web},
			want:   want{spec: `{"workloadRefs":` + manyRefs(1100, nil) + `}`, changed: true},
		},
		"LongListDuplicates": {
			args: args{spec: `{"workloadRefs":` + manyRefs(1100, map[int]string{3: webJSON, 1030: webJSON, 1100: webJSON}) + `}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":` + manyRefs(1100, nil) + `}`, changed: true},
		},
		"Absent": {
			args: args{spec: `{"workloadRefs":[` + dbJSON + `]}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":[` + dbJSON + `]}`},
		},
		"UIDIgnored": {
			reason: "Removal matches apiVersion, kind and name.",
			args:   args{spec: `{"workloadRefs":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"u1"}]}`, path: "spec.workloadRefs", ref: WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "u2"}},
			want:   want{spec: `{"workloadRefs":[]}`, changed: true},
		},
		"ForeignEntries": {
			args: args{spec: `{"workloadRefs":["a.b.c",` + webJSON + `,7]}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":["a.b.c",7]}`, changed: true},
		},
		"Object": {
			reason: "An object at the path is refused, even one that looks like a reference: it is not a list.",
			args:   args{spec: `{"workloadRef":` + webJSON + `,"x":1}`, path: "spec.workloadRef", ref: web},
			want:   want{spec: `{"workloadRef":` + webJSON + `,"x":1}`, err: &errorWant{is: []error{ErrInvalidRefPath}}},
		},
		"Metadata": {
			args: args{spec: `{}`, path: "metadata.finalizers", ref: web},
			want: want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRefPath}, contains: []string{"in metadata"}}},
		},
		"TargetEndpoints": {
			args: args{spec: `{"TargetEndpoints":[` + webJSON + `,` + dbJSON + `]}`, path: "spec.TargetEndpoints", ref: web},
			want: want{spec: `{"TargetEndpoints":[` + dbJSON + `]}`, changed: true},
		},
		"IndexedPath": {
			args: args{spec: `{"groups":[{"refs":[` + webJSON + `]},{"refs":[` + webJSON + `]}]}`, path: "spec.groups[1].refs", ref: web},
			want: want{spec: `{"groups":[{"refs":[` + webJSON + `]},{"refs":[]}]}`, changed: true},
		},
		"String": {
			args: args{spec: `{"workloadRefs":"web"}`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `{"workloadRefs":"web"}`, err: &errorWant{is: []error{ErrMalformed}, contains: []string{`spec.workloadRefs holds a string of 3 bytes, not a list`}}},
		},
		"WrongTypeOnTheWay": {
			args: args{spec: `[1]`, path: "spec.workloadRefs", ref: web},
			want: want{spec: `[1]`, err: &errorWant{is: []error{ErrMalformed, fieldpath.ErrWrongType}}},
		},
		"InvalidRef": {
			args: args{spec: `{}`, path: "spec.workloadRefs", ref: WorkloadRef{}},
			want: want{spec: `{}`, err: &errorWant{is: []error{ErrInvalidRef}, contains: []string{"apiVersion, kind or name"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			scope := scopeOf(t, tc.args.spec)
			changed, err := RemoveWorkloadRef(scope, tc.args.path, tc.args.ref)
			checkError(t, tc.want.err, err)
			if diff := cmp.Diff(scopeOf(t, tc.want.spec).Object, scope.Object); diff != "" {
				t.Errorf("%s\nRemoveWorkloadRef(...): -want scope, +got scope:\n%s", tc.reason, diff)
			}
			if changed != tc.want.changed {
				t.Errorf("%s\nRemoveWorkloadRef(...): want changed %t, got %t", tc.reason, tc.want.changed, changed)
			}
		})
	}
}

// TestAddRemoveLongList adds 1100 references one by one, as an application
// controller would, and removes the one at index 1050: Remove must delete
// what Add wrote, past fieldpath's default index limit (1024).
func TestAddRemoveLongList(t *testing.T) {
	scope := scopeOf(t, "")
	var want []WorkloadRef
	for i := range 1100 {
		ref := WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: fmt.Sprintf("d%04d", i)}
		changed, err := AddWorkloadRef(scope, "spec.workloadRefs", ref)
		require.NoError(t, err)
		if !changed {
			t.Errorf("adding %s", ref)
		}
		if i != 1050 {
			want = append(want, ref)
		}
	}
	changed, err := RemoveWorkloadRef(scope, "spec.workloadRefs", WorkloadRef{APIVersion: "apps/v1", Kind: "Deployment", Name: "d1050"})
	require.NoError(t, err)
	if !changed {
		t.Errorf("changed: want true, got false")
	}
	got, err := WorkloadRefs(scope, "spec.workloadRefs")
	require.NoError(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("references after removing index 1050 of 1100: -want, +got:\n%s", diff)
	}
}

func TestWorkloadRefs(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   string
		path   string
		want   []WorkloadRef
		err    *errorWant
	}{
		"Missing": {spec: `{}`, path: "spec.workloadRefs"},
		"Null":    {spec: `{"workloadRefs":null}`, path: "spec.workloadRefs"},
		"List": {
			spec: `{"workloadRefs":[` + webJSON + `,{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db","uid":"u1"}]}`, path: "spec.workloadRefs",
			want: []WorkloadRef{web, {APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "u1"}},
		},
		"Object": {
			spec: `{"workloadRef":` + webJSON + `}`, path: "spec.workloadRef",
			err: &errorWant{is: []error{ErrInvalidRefPath}, contains: []string{"spec.workloadRef holds an object of 3 fields, not a list"}},
		},
		"ForeignEntries": {
			reason: "Entries that are not references are skipped, as Add and Remove keep them.",
			spec:   `{"workloadRefs":[` + webJSON + `,"a.b.c",{"apiVersion":"","kind":"","name":""},{"apiVersion":"v1","kind":"Service","name":3},7]}`, path: "spec.workloadRefs",
			want: []WorkloadRef{web},
		},
		"Metadata": {
			spec: `{}`, path: "metadata.annotations",
			err: &errorWant{is: []error{ErrInvalidRefPath}},
		},
		"Number": {
			spec: `{"workloadRefs":1.5}`, path: "spec.workloadRefs",
			err: &errorWant{is: []error{ErrMalformed}, contains: []string{"spec.workloadRefs holds a number, not a list"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := WorkloadRefs(scopeOf(t, tc.spec), tc.path)
			checkError(t, tc.err, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nWorkloadRefs(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRefPath(t *testing.T) {
	cases := map[string]struct {
		reason   string
		def      string
		wantPath string
		wantOK   bool
	}{
		"Design":      {def: `{"spec":{"workloadRefPath":"spec.workloadRefs"}}`, wantPath: "spec.workloadRefs", wantOK: true},
		"OAM":         {reason: "OAM's runtime shipped the field as workloadRefsPath.", def: `{"spec":{"workloadRefsPath":"spec.TargetEndpoints"}}`, wantPath: "spec.TargetEndpoints", wantOK: true},
		"Both":        {reason: "The design's name wins.", def: `{"spec":{"workloadRefPath":"spec.a","workloadRefsPath":"spec.b"}}`, wantPath: "spec.a", wantOK: true},
		"EmptyFirst":  {def: `{"spec":{"workloadRefPath":"","workloadRefsPath":"spec.b"}}`, wantPath: "spec.b", wantOK: true},
		"Neither":     {reason: "The scope does not opt in.", def: `{"spec":{"allowComponentOverlap":true}}`},
		"NoSpec":      {def: `{}`},
		"Null":        {def: `{"spec":{"workloadRefPath":null}}`},
		"WrongType":   {def: `{"spec":{"workloadRefPath":5}}`},
		"SpecIsAList": {def: `{"spec":[]}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path, ok := RefPath(&unstructured.Unstructured{Object: doc(t, tc.def)})
			if path != tc.wantPath || ok != tc.wantOK {
				t.Errorf("%s\nRefPath(%s): want %q, %t; got %q, %t", tc.reason, tc.def, tc.wantPath, tc.wantOK, path, ok)
			}
		})
	}
	if _, ok := RefPath(nil); ok {
		t.Errorf("RefPath(nil): want ok false")
	}
}

func TestChildResourceKinds(t *testing.T) {
	cases := map[string]struct {
		def  string
		want []ChildResourceKind
		err  *errorWant
	}{
		"None": {def: `{"spec":{}}`},
		"Kinds": {
			def: `{"spec":{"childResourceKinds":[{"apiVersion":"apps/v1","kind":"Deployment"},{"apiVersion":"v1","kind":"Service","selector":{"app":"web"}}]}}`,
			want: []ChildResourceKind{
				{APIVersion: "apps/v1", Kind: "Deployment"},
				{APIVersion: "v1", Kind: "Service", Selector: map[string]string{"app": "web"}},
			},
		},
		"NoKind": {
			def: `{"metadata":{"name":"w.x"},"kind":"WorkloadDefinition","spec":{"childResourceKinds":[{"apiVersion":"apps/v1"}]}}`,
			err: &errorWant{is: []error{ErrMalformed}, contains: []string{"spec.childResourceKinds[0] of WorkloadDefinition w.x"}},
		},
		"BadAPIVersion": {
			def: `{"spec":{"childResourceKinds":[{"apiVersion":"a/b/c","kind":"X"}]}}`,
			err: &errorWant{is: []error{ErrMalformed}},
		},
		"WrongType": {
			def: `{"spec":{"childResourceKinds":{"apiVersion":"apps/v1"}}}`,
			err: &errorWant{is: []error{ErrMalformed}, contains: []string{"spec.childResourceKinds"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ChildResourceKinds(&unstructured.Unstructured{Object: doc(t, tc.def)})
			checkError(t, tc.err, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ChildResourceKinds(%s): -want, +got:\n%s", tc.def, diff)
			}
		})
	}
}

func TestAllowOverlap(t *testing.T) {
	cases := map[string]struct {
		def  string
		want bool
		err  bool
	}{
		"Missing": {def: `{}`, want: true},
		"True":    {def: `{"spec":{"allowComponentOverlap":true}}`, want: true},
		"False":   {def: `{"spec":{"allowComponentOverlap":false}}`, want: false},
		"String":  {def: `{"spec":{"allowComponentOverlap":"false"}}`, err: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := allowOverlap(&unstructured.Unstructured{Object: doc(t, tc.def)})
			if (err != nil) != tc.err || (err == nil && got != tc.want) {
				t.Errorf("allowOverlap(%s): want %t (error %t), got %t, %v", tc.def, tc.want, tc.err, got, err)
			}
		})
	}
}

func TestChangeValidate(t *testing.T) {
	err := Change{Add: []WorkloadRef{web}, Remove: []WorkloadRef{db, web}}.validate()
	if !errors.Is(err, ErrInvalidRef) {
		t.Errorf("err = %v, want %v", err, ErrInvalidRef)
	}
	if err == nil || !strings.Contains(err.Error(), "both added and removed") {
		t.Errorf("err = %v, want it to contain %q", err, "both added and removed")
	}
	require.NoError(t, Change{Add: []WorkloadRef{web}, Remove: []WorkloadRef{db}}.validate())
}
