package scopes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// The unit tests of PatchWorkloadRefs use controller-runtime's fake client;
// what it does not model (conflicts between real writers, schemas that prune
// fields) is tested against the real API server in apiserver_test.go.

// countingFake counts the reads and patches sent to a fake client, and
// answers the first conflicts patches with a conflict.
type countingFake struct {
	client.Client
	conflicts     int64
	gets, patches atomic.Int64
}

func (c *countingFake) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.gets.Add(1)
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *countingFake) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if c.patches.Add(1) <= c.conflicts {
		return apierrors.NewConflict(schema.GroupResource{Group: "core.oam.dev", Resource: "healthscopes"}, obj.GetName(), errors.New("the object has been modified"))
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

// fakeScopes returns a fake client holding the HealthScope default/hs with
// spec, and its ScopeDefinition, whose path is spec.workloadRefs.
func fakeScopes(t *testing.T, spec string) client.Client {
	t.Helper()
	return fake.NewClientBuilder().WithRESTMapper(testMapper()).WithObjects(
		scopeOf(t, spec),
		definition("ScopeDefinition", "healthscopes.core.oam.dev", `{"workloadRefPath":"spec.workloadRefs"}`),
	).Build()
}

var hsRef = ScopeRef{APIVersion: "core.oam.dev/v1alpha2", Kind: "HealthScope", Namespace: "default", Name: "hs"}

func TestBackoffDefaults(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     Backoff
		want   Backoff
	}{
		"Zero":         {reason: "A zero Backoff is DefaultBackoff.", want: DefaultBackoff},
		"Negative":     {reason: "No field means no bound.", in: Backoff{Initial: -1, Max: -1, Attempts: -1}, want: Backoff{Initial: 10 * time.Millisecond, Max: 500 * time.Millisecond, Attempts: 10}},
		"MaxBelowInit": {reason: "Max is at least Initial.", in: Backoff{Initial: time.Second, Max: time.Millisecond}, want: Backoff{Initial: time.Second, Max: time.Second, Attempts: 10}},
		"Kept":         {in: Backoff{Initial: time.Millisecond, Max: time.Minute, Attempts: 7}, want: Backoff{Initial: time.Millisecond, Max: time.Minute, Attempts: 7}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.in.withDefaults()); diff != "" {
				t.Errorf("%s\nBackoff%+v: -want, +got:\n%s", tc.reason, tc.in, diff)
			}
		})
	}
}

// TestBackoffGivesUpWithContext: conflicts are retried until ctx is done
// when that comes before the attempts run out, and the error says so and
// carries the last conflict.
func TestBackoffGivesUpWithContext(t *testing.T) {
	c := &countingFake{Client: fakeScopes(t, `{"workloadRefs":[`+dbJSON+`]}`), conflicts: 1 << 40}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := PatchWorkloadRefs(ctx, c, testMapper(), hsRef, Change{Add: []WorkloadRef{web}}, Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond, Attempts: 1 << 30})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want %v", err, context.DeadlineExceeded)
	}
	if !apierrors.IsConflict(err) {
		t.Errorf("the last conflict is wrapped: %v", err)
	}
	if n := c.patches.Load(); n <= 10 {
		t.Errorf("retried until the deadline: want more than 10 patches, got %d", n)
	}
}

func TestPatchWorkloadRefsBackoff(t *testing.T) {
	type want struct {
		changed  bool
		patches  int64
		conflict bool // the error is the last conflict
	}
	cases := map[string]struct {
		reason    string
		backoff   Backoff
		conflicts int64 // patches answered with a conflict
		want      want
	}{
		"NoConflict": {
			backoff: Backoff{Initial: 50 * time.Millisecond},
			want:    want{changed: true, patches: 1},
		},
		"Retries": {
			reason:    "Conflicts are retried up to Attempts.",
			backoff:   Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond, Attempts: 41},
			conflicts: 40,
			want:      want{changed: true, patches: 41},
		},
		"Zero": {
			backoff:   Backoff{},
			conflicts: 1,
			want:      want{changed: true, patches: 2},
		},
		"DefaultBound": {
			reason:    "The zero Backoff gives up after DefaultBackoff.Attempts; the last conflict is returned.",
			backoff:   Backoff{},
			conflicts: 1 << 40,
			want:      want{patches: int64(DefaultBackoff.Attempts), conflict: true},
		},
		"AttemptsBound": {
			reason:    "Attempts, when set, bound the attempts; the last conflict is returned.",
			backoff:   Backoff{Initial: time.Millisecond, Attempts: 3},
			conflicts: 5,
			want:      want{patches: 3, conflict: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &countingFake{Client: fakeScopes(t, `{"workloadRefs":[`+dbJSON+`]}`), conflicts: tc.conflicts}
			got, err := PatchWorkloadRefs(t.Context(), c, testMapper(), hsRef, Change{Add: []WorkloadRef{web}}, tc.backoff)
			if tc.want.conflict {
				if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), fmt.Sprintf("gave up after %d attempts", tc.want.patches)) {
					t.Errorf("%s\nwant the last conflict, after \"gave up after %d attempts\", got %v", tc.reason, tc.want.patches, err)
				}
			} else {
				require.NoError(t, err, tc.reason)
			}
			if diff := cmp.Diff(tc.want.changed, got.Changed); diff != "" {
				t.Errorf("%s: Changed: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.patches, c.patches.Load()); diff != "" {
				t.Errorf("%s\npatches sent: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.patches, c.gets.Load()-1); diff != "" {
				t.Errorf("%s\none read of the definition, and one of the scope per attempt: -want, +got:\n%s", tc.reason, diff)
			}

			scope := scopeOf(t, "")
			require.NoError(t, c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "hs"}, scope))
			wantRefs := []WorkloadRef{db}
			if tc.want.changed {
				wantRefs = append(wantRefs, web)
			}
			if diff := cmp.Diff(wantRefs, refsAt(t, scope, "spec.workloadRefs")); diff != "" {
				t.Errorf("%s\nthe scope's references: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func refsAt(t *testing.T, scope *unstructured.Unstructured, path string) []WorkloadRef {
	t.Helper()
	r, err := WorkloadRefs(scope, path)
	require.NoError(t, err)
	return r
}

// TestPatchWorkloadRefsNotInstalled covers scopes whose kind the RESTMapper
// does not know, and scopes that do not exist: a change that only removes
// succeeds without a write, an addition fails.
func TestPatchWorkloadRefsNotInstalled(t *testing.T) {
	gone := ScopeRef{APIVersion: "gone.ctrlkit.dev/v1", Kind: "GoneScope", Namespace: "default", Name: "x"}
	missing := hsRef
	missing.Name = "missing"
	type want struct {
		patched Patched
		noMatch bool  // the error is a no-match error
		err     error // the error wraps err
	}
	cases := map[string]struct {
		reason string
		scope  ScopeRef
		change Change
		opts   []PatchOption
		noDef  bool // the ScopeDefinition does not exist
		want   want
	}{
		"RemoveKindNotInstalled": {
			reason: "A kind that is not installed holds no references: removing needs no ScopeDefinition and writes nothing.",
			scope:  gone,
			change: Change{Remove: []WorkloadRef{web}},
		},
		"RemoveKindNotInstalledAtPath": {
			scope:  gone,
			change: Change{Remove: []WorkloadRef{web}},
			opts:   []PatchOption{AtPath("spec.refs")},
			want:   want{patched: Patched{Path: "spec.refs"}},
		},
		"EmptyChangeKindNotInstalled": {
			scope: gone,
		},
		"AddKindNotInstalled": {
			reason: "Adding to a kind that is not installed is an error.",
			scope:  gone,
			change: Change{Add: []WorkloadRef{web}},
			want:   want{noMatch: true},
		},
		"AddAndRemoveKindNotInstalled": {
			scope:  gone,
			change: Change{Add: []WorkloadRef{web}, Remove: []WorkloadRef{db}},
			want:   want{noMatch: true},
		},
		"AddKindNotInstalledAtPath": {
			scope:  gone,
			change: Change{Add: []WorkloadRef{web}},
			opts:   []PatchOption{AtPath("spec.refs")},
			want:   want{noMatch: true},
		},
		"RemoveScopeMissing": {
			reason: "A scope that does not exist holds no references.",
			scope:  missing,
			change: Change{Remove: []WorkloadRef{web}},
			want:   want{patched: Patched{Path: "spec.workloadRefs"}},
		},
		"RemoveDefinitionMissing": {
			reason: "Without a ScopeDefinition the path is unknown; removal succeeds without a write, as KubeVela's did, so a finalizer finishes.",
			scope:  hsRef,
			change: Change{Remove: []WorkloadRef{web}},
			noDef:  true,
			want:   want{patched: Patched{}},
		},
		"AddDefinitionMissing": {
			reason: "Adding without a ScopeDefinition is an error saying what was looked up.",
			scope:  hsRef,
			change: Change{Add: []WorkloadRef{web}},
			noDef:  true,
			want:   want{err: ErrDefinitionNotFound},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := []client.Object{scopeOf(t, `{"workloadRefs":[`+webJSON+`]}`)}
			if !tc.noDef {
				objs = append(objs, definition("ScopeDefinition", "healthscopes.core.oam.dev", `{"workloadRefPath":"spec.workloadRefs"}`))
			}
			c := &countingFake{Client: fake.NewClientBuilder().WithRESTMapper(testMapper()).WithObjects(objs...).Build()}
			got, err := PatchWorkloadRefs(t.Context(), c, testMapper(), tc.scope, tc.change, tc.opts...)
			switch {
			case tc.want.noMatch:
				if !meta.IsNoMatchError(err) {
					t.Errorf("%s\nwant a no-match error, got %v", tc.reason, err)
				}
				if err == nil || !strings.Contains(err.Error(), "cannot patch the workload references of "+tc.scope.String()) {
					t.Errorf("err = %v, want it to contain %q", err, "cannot patch the workload references of "+tc.scope.String())
				}
			case tc.want.err != nil:
				if !errors.Is(err, tc.want.err) {
					t.Errorf("%s: err = %v, want %v", tc.reason, err, tc.want.err)
				}
			default:
				require.NoError(t, err, tc.reason)
			}
			if diff := cmp.Diff(tc.want.patched, got); diff != "" {
				t.Errorf("%s: -want, +got:\n%s", tc.reason, diff)
			}
			if n := c.patches.Load(); n != 0 {
				t.Errorf("%s\npatches sent: want 0, got %d", tc.reason, n)
			}
		})
	}
}
