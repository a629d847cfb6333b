package extref

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDependsOn checks dependsOn: it succeeds when its object exists and
// is not being deleted, with ready when its Ready condition is True, and
// otherwise fails with ErrDependency and the reason WaitingForDependency,
// naming what it waits for and never a value of the object; the source
// policy is checked first, and a dependsOn writes nothing.
func TestDependsOn(t *testing.T) {
	withConditions := func(name string, conds ...map[string]any) *unstructured.Unstructured {
		u := configMap("team-a", name, map[string]any{"k": "v"})
		list := make([]any, len(conds))
		for i, c := range conds {
			list[i] = c
		}
		u.Object["status"] = map[string]any{"conditions": list}
		return u
	}
	deleting := configMap("team-a", "deleting", nil)
	deleting.Object["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:00:00Z"
	stale := withConditions("stale", map[string]any{"type": "Ready", "status": "True", "observedGeneration": int64(2)})
	stale.SetGeneration(3)
	current := withConditions("current", map[string]any{"type": "Ready", "status": "True", "observedGeneration": int64(3)})
	current.SetGeneration(3)
	reader := newReader(
		stale, current,
		configMap("team-a", "plain", nil),
		deleting,
		withConditions("ready", map[string]any{"type": "Synced", "status": "False"}, map[string]any{"type": "Ready", "status": "True"}),
		withConditions("unready", map[string]any{"type": "Ready", "status": "False", "reason": "hunter2", "message": "hunter2"}),
		secret("team-a", "db", map[string]string{"password": "hunter2"}),
	)
	dep := func(name, extra string) string {
		return "- dependsOn: {version: v1, resource: configmaps, name: " + name + extra + "}\n"
	}
	cases := map[string]struct {
		reason     string
		spec       string
		wantErr    []error
		want       string // in the error
		wantReason string
	}{
		"Exists": {
			reason:     "An object that exists is all a dependsOn asks for.",
			spec:       dep("plain", ""),
			wantReason: ReasonResolved,
		},
		"Missing": {
			reason:     "A missing object is waited for.",
			spec:       dep("missing", ""),
			wantErr:    []error{ErrDependency, ErrSourceNotFound},
			want:       `cannot resolve spec.externalValues[0].dependsOn (configmaps team-a/missing): waiting for dependency: source not found: ConfigMap "missing" does not exist`,
			wantReason: ReasonWaitingForDependency,
		},
		"BeingDeleted": {
			reason:     "An object being deleted is as good as gone.",
			spec:       dep("deleting", ""),
			wantErr:    []error{ErrDependency},
			want:       "configmaps deleting is being deleted",
			wantReason: ReasonWaitingForDependency,
		},
		"Ready": {
			reason:     "With ready, a Ready condition that is True.",
			spec:       dep("ready", ", ready: true"),
			wantReason: ReasonResolved,
		},
		"NotReady": {
			reason:     "With ready, a Ready condition that is False is waited for; its reason and message are not quoted.",
			spec:       dep("unready", ", ready: true"),
			wantErr:    []error{ErrDependency, ErrNotReady},
			want:       "configmaps unready is not Ready (its Ready condition is False)",
			wantReason: ReasonWaitingForDependency,
		},
		"ReadyStale": {
			reason:     "A Ready condition of an earlier generation than the object's is stale, as package conditions has it.",
			spec:       dep("stale", ", ready: true"),
			wantErr:    []error{ErrDependency, ErrNotReady},
			want:       "its Ready condition is of generation 2, the object's is 3",
			wantReason: ReasonWaitingForDependency,
		},
		"ReadyCurrent": {
			reason:     "A Ready condition of the object's generation counts.",
			spec:       dep("current", ", ready: true"),
			wantReason: ReasonResolved,
		},
		"NoConditions": {
			reason:     "With ready, no Ready condition is not Ready.",
			spec:       dep("plain", ", ready: true"),
			wantErr:    []error{ErrDependency, ErrNotReady},
			want:       "it has no Ready condition",
			wantReason: ReasonWaitingForDependency,
		},
		"ExistsWithoutReady": {
			reason:     "Without ready, a Ready condition that is False does not matter.",
			spec:       dep("unready", ""),
			wantReason: ReasonResolved,
		},
		"PolicyFirst": {
			reason:     "The source policy is checked before the object is looked at: a Secret is denied whether it exists or not, in the same words.",
			spec:       "- dependsOn: {version: v1, resource: secrets, name: db}\n- dependsOn: {version: v1, resource: secrets, name: nothing}\n",
			wantErr:    []error{ErrDependency, ErrDenied},
			want:       "secrets team-a/db",
			wantReason: ReasonResolutionDenied,
		},
		"MixedFailures": {
			reason:     "A failure that is not a dependency's gives ResolutionFailed.",
			spec:       dep("missing", "") + "- fromObject: {version: v1, resource: configmaps, name: plain, fieldPath: data.k}\n  toFieldPath: spec.x\n",
			wantErr:    []error{ErrDependency, ErrFieldNotFound},
			wantReason: ReasonResolutionFailed,
		},
		"NoDestination": {
			reason:     "A dependsOn writes nothing.",
			spec:       dep("plain", "") + "  toFieldPath: spec.x\n",
			wantErr:    []error{ErrInvalid},
			want:       "dependsOn writes nothing",
			wantReason: ReasonResolutionFailed,
		},
		"NotWithAnotherSource": {
			reason:     "dependsOn is a source of its own.",
			spec:       dep("plain", "") + "  fromObject: {version: v1, resource: configmaps, name: plain, fieldPath: data.k}\n  toFieldPath: spec.x\n",
			wantErr:    []error{ErrInvalid},
			want:       "exactly one of fromObject, combine, variables and dependsOn must be set, found 2",
			wantReason: ReasonResolutionFailed,
		},
		"NotMerged": {
			reason:     "A dependsOn has no target to merge into.",
			spec:       dep("plain", "") + "  policy: {toFieldPath: MergeObjects}\n",
			wantErr:    []error{ErrInvalid},
			want:       "dependsOn has none",
			wantReason: ReasonResolutionFailed,
		},
		"UnknownField": {
			reason:     "dependsOn's fields are checked.",
			spec:       dep("plain", ", fieldPath: data.k"),
			wantErr:    []error{ErrInvalid},
			want:       `unknown field "fieldPath"`,
			wantReason: ReasonResolutionFailed,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := widget(t, "team-a", "w", "externalValues:\n"+tc.spec)
			before := w.DeepCopy()
			out, err := NewResolver(reader, testMapper(), SourcePolicy{}).Resolve(t.Context(), w)
			for _, want := range tc.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("%s\nResolve(...): want an error wrapping %v, got %v", tc.reason, want, err)
				}
			}
			if tc.wantErr == nil && err != nil {
				t.Fatalf("%s\nResolve(...): %v", tc.reason, err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s\nResolve(...): want an error holding %q, got %v", tc.reason, tc.want, err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("%s\nResolve(...): the error quotes the object: %v", tc.reason, err)
				}
			}
			if c := Condition(out, err, 1); c.Reason != tc.wantReason {
				t.Errorf("%s\nCondition(...): reason %s, want %s", tc.reason, c.Reason, tc.wantReason)
			}
			if out.Changed || !equalObjects(before, w) {
				t.Errorf("%s\nResolve(...) changed the referencer", tc.reason)
			}
		})
	}
}
