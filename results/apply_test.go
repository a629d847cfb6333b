package results

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/conditions"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// event is what the recording sink keeps of an event.
type event struct {
	Regarding, Related string
	Type, Reason       string
	Action, Note       string
}

// sink is an events.EventRecorder that records what it is given.
type sink struct {
	mu     sync.Mutex
	events []event
}

func (s *sink) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, event{
		Regarding: objectName(regarding), Related: objectName(related),
		Type: eventtype, Reason: reason, Action: action, Note: fmt.Sprintf(note, args...),
	})
}

func objectName(o runtime.Object) string {
	if o == nil {
		return ""
	}
	u := o.(*unstructured.Unstructured)
	return u.GetKind() + "/" + u.GetName()
}

var (
	now     = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	earlier = metav1.NewTime(now.Add(-time.Hour))
	later   = metav1.NewTime(now)
)

// composite returns an XR with the given generation, conditions,
// status.claimConditionTypes and record of result-set types (nil: absent).
func composite(gen int64, conds []metav1.Condition, claimConditions, record []string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("example.ctrlkit.dev/v1alpha1")
	u.SetKind("XApp")
	u.SetName("xapp")
	u.SetGeneration(gen)
	for _, c := range conds {
		if _, err := conditions.SetUnstructured(u, c); err != nil {
			panic(err)
		}
	}
	if claimConditions != nil {
		_ = unstructured.SetNestedStringSlice(u.Object, claimConditions, "status", "claimConditionTypes")
	}
	if record != nil {
		_ = unstructured.SetNestedStringSlice(u.Object, record, "status", "resultConditions")
	}
	return u
}

func claimOf(gen int64, conds []metav1.Condition, record []string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("example.ctrlkit.dev/v1alpha1")
	u.SetKind("App")
	u.SetNamespace("default")
	u.SetName("app")
	u.SetGeneration(gen)
	for _, c := range conds {
		if _, err := conditions.SetUnstructured(u, c); err != nil {
			panic(err)
		}
	}
	if record != nil {
		_ = unstructured.SetNestedStringSlice(u.Object, record, "status", "claimConditions")
	}
	return u
}

func cond(typ string, s metav1.ConditionStatus, reason, msg string, gen int64, t metav1.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg, ObservedGeneration: gen, LastTransitionTime: t}
}

func rspOf(rs ...*resultsv1.Result) *resultsv1.Response {
	return &resultsv1.Response{Results: rs}
}

// status is what a test compares of an object after Apply.
type status struct {
	Conditions      []metav1.Condition
	ClaimConditions []string // status.claimConditionTypes, else status.claimConditions (a claim's record)
	Record          []string // status.resultConditions
}

func statusOf(t *testing.T, u *unstructured.Unstructured) status {
	t.Helper()
	if u == nil {
		return status{}
	}
	conds, err := conditions.FromUnstructured(u)
	require.NoError(t, err)
	claimConditions, found, err := unstructured.NestedStringSlice(u.Object, "status", "claimConditionTypes")
	require.NoError(t, err)
	if !found {
		claimConditions, _, err = unstructured.NestedStringSlice(u.Object, "status", "claimConditions")
		require.NoError(t, err)
	}
	record, _, err := unstructured.NestedStringSlice(u.Object, "status", "resultConditions")
	require.NoError(t, err)
	return status{Conditions: conds, ClaimConditions: claimConditions, Record: record}
}

var timeComparer = cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })

func TestApply(t *testing.T) {
	const (
		T  = metav1.ConditionTrue
		F  = metav1.ConditionFalse
		U  = metav1.ConditionUnknown
		xr = "XApp/xapp"
		cl = "App/app"
	)
	errImage := errors.New("The image provided does not exist or you are not authorized to use it.")
	errVault := errors.New("cannot read secret db-creds from vault.internal:8200: x509: certificate signed by unknown authority")
	const friendly = "Internal error, the platform team has been alerted."

	type want struct {
		out       Outcome // without Fatal
		fatal     []error // sentinels Outcome.Fatal must wrap; none: nil
		fatalText string  // a substring of Outcome.Fatal
		xr        status
		claim     status
		events    []event
	}
	cases := map[string]struct {
		reason string
		opts   []ApplierOption
		step   string
		rsp    *resultsv1.Response
		xr     *unstructured.Unstructured
		claim  *unstructured.Unstructured
		want   want
	}{
		"NormalEvent": {
			reason: "A normal result without a condition records a Normal ComposeResources event on the XR and changes nothing.",
			rsp:    rspOf(Normal("composed 3 resources").Build()),
			xr:     composite(1, nil, nil, nil),
			want: want{
				events: []event{{Regarding: xr, Type: "Normal", Reason: "ComposeResources", Action: EventAction, Note: "composed 3 resources"}},
			},
		},
		"WarningWithReason": {
			reason: "A warning records a Warning event with its own reason; without a claim, a claim target only affects the XR.",
			rsp:    rspOf(Warning(errors.New("quota at 90%")).WithReason("QuotaLow").TargetCompositeAndClaim().Build()),
			xr:     composite(1, nil, nil, nil),
			want: want{
				events: []event{{Regarding: xr, Type: "Warning", Reason: "QuotaLow", Action: EventAction, Note: "quota at 90%"}},
			},
		},
		"ConditionCompositeOnly": {
			reason: "A condition for the composite only is set with the XR's generation and recorded as owned, not listed for the claim; an empty message records no event.",
			rsp:    rspOf(Normal("").ConditionTrue("DatabaseReady", "Available").Build()),
			xr:     composite(4, nil, nil, nil),
			claim:  claimOf(2, nil, nil),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{cond("DatabaseReady", T, "Available", "", 4, later)},
					Record:     []string{"DatabaseReady"},
				},
				claim: status{},
			},
		},
		"ConditionToClaim": {
			reason: "A condition for the claim is listed in claimConditions and carried to the claim with the claim's generation; the event goes to both.",
			rsp:    rspOf(Normal("The database is available.").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build()),
			xr:     composite(4, nil, nil, nil),
			claim:  claimOf(2, nil, nil),
			want: want{
				out: Outcome{CompositeChanged: true, ClaimChanged: true},
				xr: status{
					Conditions:      []metav1.Condition{cond("DatabaseReady", T, "Available", "The database is available.", 4, later)},
					ClaimConditions: []string{"DatabaseReady"},
					Record:          []string{"DatabaseReady"},
				},
				claim: status{
					Conditions:      []metav1.Condition{cond("DatabaseReady", T, "Available", "The database is available.", 2, later)},
					ClaimConditions: []string{"DatabaseReady"},
				},
				events: []event{
					{Regarding: xr, Type: "Normal", Reason: "ComposeResources", Action: EventAction, Note: "The database is available."},
					{Regarding: cl, Related: xr, Type: "Normal", Reason: "ComposeResources", Action: EventAction, Note: "The database is available."},
				},
			},
		},
		"SeedImageNotFound": {
			reason: "The seed's first scenario: DatabaseReady True, then a fatal ImageReady False for the claim; Synced goes False. Every condition is set, the one after the fatal result too, as Crossplane sets a response's conditions.",
			rsp: rspOf(
				Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
				Fatal(errImage).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().Build(),
				Normal("").ConditionFalse("AppReady", "Creating").TargetCompositeAndClaim().Build(),
			),
			xr:    composite(1, nil, nil, nil),
			claim: claimOf(1, nil, nil),
			want: want{
				out:       Outcome{CompositeChanged: true, ClaimChanged: true},
				fatal:     []error{ErrFatal},
				fatalText: "cannot compose resources: the function returned a fatal result: " + errImage.Error(),
				xr: status{
					Conditions: []metav1.Condition{
						cond("DatabaseReady", T, "Available", "", 1, later),
						cond("ImageReady", F, "NotFound", errImage.Error(), 1, later),
						cond("AppReady", F, "Creating", "", 1, later),
						cond("Synced", F, "ReconcileError", "cannot compose resources: the function returned a fatal result: "+errImage.Error(), 1, later),
					},
					ClaimConditions: []string{"DatabaseReady", "ImageReady", "AppReady"},
					Record:          []string{"DatabaseReady", "ImageReady", "AppReady"},
				},
				claim: status{
					Conditions: []metav1.Condition{
						cond("DatabaseReady", T, "Available", "", 1, later),
						cond("ImageReady", F, "NotFound", errImage.Error(), 1, later),
						cond("AppReady", F, "Creating", "", 1, later),
					},
					ClaimConditions: []string{"DatabaseReady", "ImageReady", "AppReady"},
				},
				events: []event{
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: "cannot compose resources: the function returned a fatal result: " + errImage.Error()},
					{Regarding: cl, Related: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: errImage.Error()},
				},
			},
		},
		"InternalError": {
			reason: "A fatal result with a claim message, from a named step: the XR's Synced and event carry the detail as Crossplane words it, the condition and the claim's event the friendly message.",
			step:   "check",
			rsp: rspOf(
				Fatal(errVault).ConditionFalse("DatabaseReady", "InternalError").TargetCompositeAndClaim().WithClaimMessage(friendly).Build(),
			),
			xr:    composite(1, nil, nil, nil),
			claim: claimOf(1, nil, nil),
			want: want{
				out:       Outcome{CompositeChanged: true, ClaimChanged: true},
				fatal:     []error{ErrFatal},
				fatalText: "x509",
				xr: status{
					Conditions: []metav1.Condition{
						cond("DatabaseReady", F, "InternalError", friendly, 1, later),
						cond("Synced", F, "ReconcileError", `cannot compose resources: pipeline step "check" returned a fatal result: `+errVault.Error(), 1, later),
						// The claim message, for conditions.PropagateSynced.
						cond("CompositeSynced", F, "ReconcileError", friendly, 1, later),
					},
					ClaimConditions: []string{"DatabaseReady"},
					Record:          []string{"DatabaseReady"},
				},
				claim: status{
					Conditions:      []metav1.Condition{cond("DatabaseReady", F, "InternalError", friendly, 1, later)},
					ClaimConditions: []string{"DatabaseReady"},
				},
				events: []event{
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `cannot compose resources: pipeline step "check" returned a fatal result: ` + errVault.Error()},
					{Regarding: cl, Related: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: friendly},
				},
			},
		},
		"FatalMarksWhatItDidNotSetUnknown": {
			reason: "A fatal run removes nothing: AppReady, owned from the last run, becomes Unknown (FatalError) as in Crossplane, and stays listed for the claim; the record keeps it. BackupReady, which no result owns, is untouched.",
			rsp: rspOf(
				Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
				Fatal(errImage).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().Build(),
			),
			xr: composite(2, []metav1.Condition{
				cond("DatabaseReady", T, "Available", "", 1, earlier),
				cond("ImageReady", T, "Available", "", 1, earlier),
				cond("AppReady", T, "Available", "", 1, earlier),
				cond("BackupReady", T, "Available", "", 1, earlier),
			}, []string{"DatabaseReady", "ImageReady", "AppReady"}, []string{"DatabaseReady", "ImageReady", "AppReady"}),
			want: want{
				out:   Outcome{CompositeChanged: true},
				fatal: []error{ErrFatal},
				xr: status{
					Conditions: []metav1.Condition{
						cond("DatabaseReady", T, "Available", "", 2, earlier),
						cond("ImageReady", F, "NotFound", errImage.Error(), 2, later),
						cond("AppReady", U, "FatalError", MessageFatalError, 2, later),
						cond("BackupReady", T, "Available", "", 1, earlier),
						cond("Synced", F, "ReconcileError", "cannot compose resources: the function returned a fatal result: "+errImage.Error(), 2, later),
					},
					ClaimConditions: []string{"DatabaseReady", "ImageReady", "AppReady"},
					Record:          []string{"DatabaseReady", "ImageReady", "AppReady"},
				},
				events: []event{{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: "cannot compose resources: the function returned a fatal result: " + errImage.Error()}},
			},
		},
		"FatalWithoutRecordMarksEveryOtherUnknown": {
			reason: "With ownership off, a fatal run sets every condition it did not set to Unknown but the system's, as Crossplane does.",
			opts:   []ApplierOption{WithRecordField(nil)},
			rsp:    rspOf(Fatal(errImage).Build()),
			xr: composite(2, []metav1.Condition{
				cond("Ready", T, "Available", "", 1, earlier),
				cond("AppReady", T, "Available", "", 1, earlier),
			}, nil, nil),
			want: want{
				out:       Outcome{CompositeChanged: true},
				fatal:     []error{ErrFatal},
				fatalText: errImage.Error(),
				xr: status{
					Conditions: []metav1.Condition{
						cond("Ready", T, "Available", "", 1, earlier),
						cond("AppReady", U, "FatalError", MessageFatalError, 2, later),
						cond("Synced", F, "ReconcileError", "cannot compose resources: the function returned a fatal result: "+errImage.Error(), 2, later),
					},
				},
				events: []event{{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: "cannot compose resources: the function returned a fatal result: " + errImage.Error()}},
			},
		},
		"RemovesWhatItNoLongerSets": {
			reason: "A run that is not fatal removes the types it owned and did not set, from the XR, claimConditions and so the claim; other controllers' conditions and claim types stay.",
			rsp:    rspOf(Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build()),
			xr: composite(3, []metav1.Condition{
				cond("Ready", F, "Creating", "", 3, earlier),
				cond("DatabaseReady", T, "Available", "", 3, earlier),
				cond("ImageReady", F, "NotFound", "gone", 3, earlier),
				cond("BackupReady", T, "Available", "set by another controller", 3, earlier),
			}, []string{"BackupReady", "DatabaseReady", "ImageReady"}, []string{"DatabaseReady", "ImageReady"}),
			claim: claimOf(1, []metav1.Condition{
				cond("Ready", F, "Waiting", "", 1, earlier),
				cond("DatabaseReady", T, "Available", "", 1, earlier),
				cond("ImageReady", F, "NotFound", "gone", 1, earlier),
				cond("BackupReady", T, "Available", "set by another controller", 1, earlier),
			}, []string{"DatabaseReady", "ImageReady", "BackupReady"}),
			want: want{
				out: Outcome{CompositeChanged: true, ClaimChanged: true},
				xr: status{
					Conditions: []metav1.Condition{
						cond("Ready", F, "Creating", "", 3, earlier),
						cond("DatabaseReady", T, "Available", "", 3, earlier),
						cond("BackupReady", T, "Available", "set by another controller", 3, earlier),
					},
					ClaimConditions: []string{"BackupReady", "DatabaseReady"},
					Record:          []string{"DatabaseReady"},
				},
				claim: status{
					Conditions: []metav1.Condition{
						cond("Ready", F, "Waiting", "", 1, earlier),
						cond("DatabaseReady", T, "Available", "", 1, earlier),
						cond("BackupReady", T, "Available", "set by another controller", 1, earlier),
					},
					ClaimConditions: []string{"BackupReady", "DatabaseReady"},
				},
			},
		},
		"RetargetedToCompositeOnly": {
			reason: "A type that was for the claim and is now for the composite only leaves claimConditions and the claim, but stays on the XR.",
			rsp:    rspOf(Normal("").ConditionFalse("AppReady", "Creating").Build()),
			xr: composite(1, []metav1.Condition{cond("AppReady", F, "Creating", "", 1, earlier)},
				[]string{"AppReady"}, []string{"AppReady"}),
			claim: claimOf(1, []metav1.Condition{cond("AppReady", F, "Creating", "", 1, earlier)}, []string{"AppReady"}),
			want: want{
				out: Outcome{CompositeChanged: true, ClaimChanged: true},
				xr: status{
					Conditions: []metav1.Condition{cond("AppReady", F, "Creating", "", 1, earlier)},
					Record:     []string{"AppReady"},
				},
				claim: status{},
			},
		},
		"LastResultWins": {
			reason: "Two results for one type: the last sets the condition and decides the target.",
			rsp: rspOf(
				Normal("").ConditionFalse("AppReady", "Creating").TargetCompositeAndClaim().Build(),
				Normal("up").ConditionTrue("AppReady", "Available").WithReason("AppUp").Build(),
			),
			xr: composite(1, nil, nil, nil),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{cond("AppReady", T, "Available", "up", 1, later)},
					Record:     []string{"AppReady"},
				},
				events: []event{{Regarding: xr, Type: "Normal", Reason: "AppUp", Action: EventAction, Note: "up"}},
			},
		},
		"ClaimMessageWithoutClaimTarget": {
			reason: "A claim message on a result for the composite only is not used: the XR's condition and event carry the result's message, and the claim gets neither.",
			rsp:    rspOf(Warning(errVault).ConditionFalse("DatabaseReady", "InternalError").TargetComposite().WithClaimMessage(friendly).Build()),
			xr:     composite(1, nil, nil, nil),
			claim:  claimOf(1, nil, nil),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{cond("DatabaseReady", F, "InternalError", errVault.Error(), 1, later)},
					Record:     []string{"DatabaseReady"},
				},
				events: []event{{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: errVault.Error()}},
			},
		},
		"StatusUnchangedKeepsTransitionTime": {
			reason: "A new message or generation with the same status keeps lastTransitionTime; a new status stamps the clock's time.",
			rsp: rspOf(
				Normal("").ConditionFalse("AppReady", "Creating").Build(),
				Normal("").ConditionUnknown("ImageReady", "Checking").Build(),
			),
			xr: composite(5, []metav1.Condition{
				cond("AppReady", F, "Creating", "old message", 4, earlier),
				cond("ImageReady", T, "Available", "", 4, earlier),
			}, nil, []string{"AppReady", "ImageReady"}),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{
						cond("AppReady", F, "Creating", "", 5, earlier),
						cond("ImageReady", U, "Checking", "", 5, later),
					},
					Record: []string{"AppReady", "ImageReady"},
				},
			},
		},
		"Settled": {
			reason: "Applying what the XR and claim already show changes nothing: the caller writes nothing.",
			rsp: rspOf(
				Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
				Normal("").ConditionFalse("AppReady", "Creating").Build(),
			),
			xr: composite(2, []metav1.Condition{
				cond("Synced", T, "ReconcileSuccess", "", 2, earlier),
				cond("DatabaseReady", T, "Available", "", 2, earlier),
				cond("AppReady", F, "Creating", "", 2, earlier),
			}, []string{"DatabaseReady"}, []string{"DatabaseReady", "AppReady"}),
			claim: claimOf(1, []metav1.Condition{cond("DatabaseReady", T, "Available", "", 1, earlier)}, []string{"DatabaseReady"}),
			want: want{
				xr: status{
					Conditions: []metav1.Condition{
						cond("Synced", T, "ReconcileSuccess", "", 2, earlier),
						cond("DatabaseReady", T, "Available", "", 2, earlier),
						cond("AppReady", F, "Creating", "", 2, earlier),
					},
					ClaimConditions: []string{"DatabaseReady"},
					Record:          []string{"DatabaseReady", "AppReady"},
				},
				claim: status{
					Conditions:      []metav1.Condition{cond("DatabaseReady", T, "Available", "", 1, earlier)},
					ClaimConditions: []string{"DatabaseReady"},
				},
			},
		},
		"SettledWithoutListFields": {
			reason: "An XR with neither status.claimConditionTypes nor status.claimConditions (Crossplane v2's modern XRs have neither in their schema) that shows what results set changes nothing: the list is written only along with another change.",
			rsp: rspOf(
				Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
			),
			xr: composite(2, []metav1.Condition{cond("DatabaseReady", T, "Available", "", 2, earlier)}, nil, nil),
			want: want{
				xr: status{Conditions: []metav1.Condition{cond("DatabaseReady", T, "Available", "", 2, earlier)}},
			},
		},
		"ListWithoutFieldsReachesTheClaim": {
			reason: "On an XR with neither list field, a type listed by a run that changes nothing else on the XR still reaches the claim; the XR is left as it is.",
			rsp: rspOf(
				Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
			),
			xr:    composite(2, []metav1.Condition{cond("DatabaseReady", T, "Available", "", 2, earlier)}, nil, nil),
			claim: claimOf(1, nil, nil),
			want: want{
				out: Outcome{ClaimChanged: true},
				xr:  status{Conditions: []metav1.Condition{cond("DatabaseReady", T, "Available", "", 2, earlier)}},
				claim: status{
					Conditions:      []metav1.Condition{cond("DatabaseReady", T, "Available", "", 1, earlier)},
					ClaimConditions: []string{"DatabaseReady"},
				},
			},
		},
		"ListWithoutFieldsAlongWithAChange": {
			reason: "On an XR with neither list field, a run that changes a condition writes the list (and the record) with it.",
			rsp: rspOf(
				Normal("").ConditionFalse("DatabaseReady", "Creating").TargetCompositeAndClaim().Build(),
			),
			xr: composite(2, []metav1.Condition{cond("DatabaseReady", T, "Available", "", 2, earlier)}, nil, nil),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions:      []metav1.Condition{cond("DatabaseReady", F, "Creating", "", 2, later)},
					ClaimConditions: []string{"DatabaseReady"},
					Record:          []string{"DatabaseReady"},
				},
			},
		},
		"ListFieldKeptIsWritten": {
			reason: "On an XR that has the list field, a run that only lists a type for the claim writes the list.",
			rsp: rspOf(
				Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
			),
			xr: composite(2, []metav1.Condition{cond("DatabaseReady", T, "Available", "", 2, earlier)}, []string{}, nil),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions:      []metav1.Condition{cond("DatabaseReady", T, "Available", "", 2, earlier)},
					ClaimConditions: []string{"DatabaseReady"},
					Record:          []string{"DatabaseReady"},
				},
			},
		},
		"SettledWithoutObservedGeneration": {
			reason: "Conditions that lack only observedGeneration (Crossplane's schemas before v2.0 prune it) need no write, Synced=False of a fatal run included.",
			rsp: rspOf(
				Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
				Fatal(errors.New("boom")).Build(),
			),
			step: "app",
			xr: composite(3, []metav1.Condition{
				cond("Synced", F, ReasonReconcileError, `cannot compose resources: pipeline step "app" returned a fatal result: boom`, 0, earlier),
				cond("DatabaseReady", T, "Available", "", 0, earlier),
			}, []string{"DatabaseReady"}, nil),
			claim: claimOf(1, []metav1.Condition{cond("DatabaseReady", T, "Available", "", 0, earlier)}, nil),
			want: want{
				xr: status{
					Conditions: []metav1.Condition{
						cond("Synced", F, ReasonReconcileError, `cannot compose resources: pipeline step "app" returned a fatal result: boom`, 0, earlier),
						cond("DatabaseReady", T, "Available", "", 0, earlier),
					},
					ClaimConditions: []string{"DatabaseReady"},
				},
				claim: status{Conditions: []metav1.Condition{cond("DatabaseReady", T, "Available", "", 0, earlier)}},
				fatal: []error{ErrFatal},
				events: []event{{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction,
					Note: `cannot compose resources: pipeline step "app" returned a fatal result: boom`}},
			},
		},
		"ChangeWithoutObservedGeneration": {
			reason: "A condition without observedGeneration that changes otherwise is written whole, with the XR's generation.",
			rsp:    rspOf(Normal("").ConditionFalse("DatabaseReady", "Creating").Build()),
			xr:     composite(3, []metav1.Condition{cond("DatabaseReady", T, "Available", "", 0, earlier)}, nil, nil),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{cond("DatabaseReady", F, "Creating", "", 3, later)},
					Record:     []string{"DatabaseReady"},
				},
			},
		},
		"OlderObservedGeneration": {
			reason: "A condition of an older generation takes the XR's, though nothing else changed.",
			rsp:    rspOf(Normal("").ConditionTrue("DatabaseReady", "Available").Build()),
			xr:     composite(3, []metav1.Condition{cond("DatabaseReady", T, "Available", "", 2, earlier)}, nil, []string{"DatabaseReady"}),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{cond("DatabaseReady", T, "Available", "", 3, earlier)},
					Record:     []string{"DatabaseReady"},
				},
			},
		},
		"SystemTypes": {
			reason: "A condition of any of Crossplane's five system types is not applied and a Warning event names it; the rest of the run applies.",
			step:   "check",
			rsp: &resultsv1.Response{
				Results: []*resultsv1.Result{
					Normal("").ConditionTrue("DatabaseReady", "Available").Build(),
					Normal("all good").ConditionTrue("Ready", "Available").Build(),
					Normal("").ConditionTrue("AppReady", "Available").Build(),
				},
				Conditions: []*resultsv1.ResponseCondition{
					{Type: "Synced", Status: resultsv1.Status_STATUS_TRUE, Reason: "Fine"},
					{Type: "Healthy", Status: resultsv1.Status_STATUS_TRUE, Reason: "Fine"},
					{Type: "Responsive", Status: resultsv1.Status_STATUS_TRUE, Reason: "Fine"},
					{Type: "UpToDate", Status: resultsv1.Status_STATUS_TRUE, Reason: "Fine"},
				},
			},
			xr: composite(1, []metav1.Condition{cond("Ready", F, "Creating", "", 1, earlier)}, nil, nil),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{
						cond("Ready", F, "Creating", "", 1, earlier),
						cond("DatabaseReady", T, "Available", "", 1, later),
						cond("AppReady", T, "Available", "", 1, later),
					},
					Record: []string{"DatabaseReady", "AppReady"},
				},
				events: []event{
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": condition type "Ready" is reserved for the control plane; not applied`},
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": condition type "Synced" is reserved for the control plane; not applied`},
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": condition type "Healthy" is reserved for the control plane; not applied`},
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": condition type "Responsive" is reserved for the control plane; not applied`},
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": condition type "UpToDate" is reserved for the control plane; not applied`},
					{Regarding: xr, Type: "Normal", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": all good`},
				},
			},
		},
		"CrossplaneInputs": {
			reason: "Inputs Crossplane accepts do not fail the run: unspecified severity is a warning on the XR alone, unspecified status is Unknown, an empty reason is Unspecified, an empty warning still records an event, a non-PascalCase event reason is kept; warning and normal events name the step.",
			step:   "check",
			rsp: &resultsv1.Response{
				Results: []*resultsv1.Result{
					{Severity: resultsv1.Severity_SEVERITY_UNSPECIFIED, Message: "new severity", Target: resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM},
					{Severity: resultsv1.Severity_SEVERITY_WARNING, Target: resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM},
					{Severity: resultsv1.Severity_SEVERITY_NORMAL, Message: "done", Reason: proto.String("not pascal case!")},
					{Severity: resultsv1.Severity_SEVERITY_NORMAL, Target: resultsv1.Target(7),
						Condition: &resultsv1.Condition{Type: "AppReady", Reason: ""}},
				},
				Conditions: []*resultsv1.ResponseCondition{
					{Type: "ImageReady", Status: resultsv1.Status(9), Reason: "Checking", Message: proto.String("")},
					{Type: "bad type!", Status: resultsv1.Status_STATUS_TRUE, Reason: "Fine"},
					{Type: "DatabaseReady", Status: resultsv1.Status_STATUS_TRUE, Reason: "not pascal"},
				},
			},
			xr:    composite(1, nil, nil, nil),
			claim: claimOf(1, nil, nil),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{
						cond("AppReady", U, "Unspecified", "", 1, later),
						cond("ImageReady", U, "Checking", "", 1, later),
					},
					Record: []string{"AppReady", "ImageReady"},
				},
				events: []event{
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": invalid condition: type: name part (a string of 9 bytes) must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit (e.g. "Ready", "example.com/DatabaseReady"); not applied`},
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": invalid condition: reason (a string of 10 bytes): must start with a letter, contain only letters, digits, '_', ',' and ':', and end with a letter, digit or '_' (e.g. "NotFound"); not applied`},
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check" returned a result of unknown severity (assuming warning): new severity`},
					{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `Pipeline step "check": (a warning without a message)`},
					{Regarding: cl, Related: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: `(a warning without a message)`},
					{Regarding: xr, Type: "Normal", Reason: "not pascal case!", Action: EventAction, Note: `Pipeline step "check": done`},
				},
			},
		},
		"ResponseConditionsAfterFatal": {
			reason: "A response's conditions are set even when a result is fatal; the results after the fatal one record nothing.",
			rsp: &resultsv1.Response{
				Results: []*resultsv1.Result{
					Fatal(errImage).Build(),
					Warning(errors.New("after the fatal result")).Build(),
				},
				Conditions: []*resultsv1.ResponseCondition{
					{Type: "ImageReady", Status: resultsv1.Status_STATUS_FALSE, Reason: "NotFound", Message: proto.String("no such image"), Target: resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM},
				},
			},
			xr: composite(1, nil, nil, nil),
			want: want{
				out:       Outcome{CompositeChanged: true},
				fatal:     []error{ErrFatal},
				fatalText: errImage.Error(),
				xr: status{
					Conditions: []metav1.Condition{
						cond("ImageReady", F, "NotFound", "no such image", 1, later),
						cond("Synced", F, "ReconcileError", "cannot compose resources: the function returned a fatal result: "+errImage.Error(), 1, later),
					},
					ClaimConditions: []string{"ImageReady"},
					Record:          []string{"ImageReady"},
				},
				events: []event{{Regarding: xr, Type: "Warning", Reason: "ComposeResources", Action: EventAction, Note: "cannot compose resources: the function returned a fatal result: " + errImage.Error()}},
			},
		},
		"OwnershipOff": {
			reason: "With an empty record field nothing is recorded and nothing removed.",
			opts:   []ApplierOption{WithRecordField(nil)},
			rsp:    rspOf(Normal("").ConditionTrue("DatabaseReady", "Available").Build()),
			xr:     composite(1, []metav1.Condition{cond("ImageReady", T, "Available", "", 1, earlier)}, nil, []string{"ImageReady"}),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr: status{
					Conditions: []metav1.Condition{
						cond("ImageReady", T, "Available", "", 1, earlier),
						cond("DatabaseReady", T, "Available", "", 1, later),
					},
					Record: []string{"ImageReady"},
				},
			},
		},
		"NilResponse": {
			reason: "A nil response is a run without results: what the pipeline owned goes away.",
			rsp:    nil,
			xr:     composite(1, []metav1.Condition{cond("ImageReady", T, "Available", "", 1, earlier)}, []string{"ImageReady"}, []string{"ImageReady"}),
			want: want{
				out: Outcome{CompositeChanged: true},
				xr:  status{},
			},
		},
		"LongEventMessage": {
			reason: "An event message longer than the API server allows is shortened on a rune boundary.",
			rsp:    rspOf(Normal(strings.Repeat("é", 600)).Build()),
			xr:     composite(1, nil, nil, nil),
			want: want{
				events: []event{{Regarding: xr, Type: "Normal", Reason: "ComposeResources", Action: EventAction, Note: strings.Repeat("é", 510) + "..."}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := &sink{}
			a := NewApplier(rec, append([]ApplierOption{WithClock(clocktesting.NewFakePassiveClock(now))}, tc.opts...)...)
			var opts []ApplyOption
			if tc.step != "" {
				opts = append(opts, Step(tc.step))
			}
			out, err := a.Apply(tc.rsp, tc.xr, tc.claim, opts...)
			require.NoError(t, err)

			fatal := out.Fatal
			out.Fatal = nil
			if diff := cmp.Diff(tc.want.out, out); diff != "" {
				t.Errorf("%s\nApply(): -want, +got:\n%s", tc.reason, diff)
			}
			if (fatal == nil) != (len(tc.want.fatal) == 0) {
				t.Errorf("%s\nApply(): Outcome.Fatal: want one wrapping %v, got %v", tc.reason, tc.want.fatal, fatal)
			}
			for _, s := range tc.want.fatal {
				if !errors.Is(fatal, s) {
					t.Errorf("%s\nApply(): Outcome.Fatal %v does not wrap %v", tc.reason, fatal, s)
				}
			}
			if fatal != nil && !strings.Contains(fatal.Error(), tc.want.fatalText) {
				t.Errorf("%s\nApply(): Outcome.Fatal %q does not contain %q", tc.reason, fatal, tc.want.fatalText)
			}
			if diff := cmp.Diff(tc.want.xr, statusOf(t, tc.xr), timeComparer); diff != "" {
				t.Errorf("%s\nXR status after Apply(): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.claim, statusOf(t, tc.claim), timeComparer); diff != "" {
				t.Errorf("%s\nclaim status after Apply(): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.events, rec.events); diff != "" {
				t.Errorf("%s\nevents: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestApplyBadInput(t *testing.T) {
	malformedConditions := composite(1, nil, nil, nil)
	require.NoError(t, unstructured.SetNestedField(malformedConditions.Object, "not a list", "status", "conditions"))
	malformedClaimConditions := composite(1, nil, nil, nil)
	require.NoError(t, unstructured.SetNestedField(malformedClaimConditions.Object, []any{"A", int64(1)}, "status", "claimConditions"))
	malformedRecord := composite(1, nil, nil, nil)
	require.NoError(t, unstructured.SetNestedField(malformedRecord.Object, "A", "status", "resultConditions"))
	malformedClaim := claimOf(1, nil, nil)
	require.NoError(t, unstructured.SetNestedField(malformedClaim.Object, []any{"x"}, "status", "conditions"))

	cases := map[string]struct {
		reason  string
		xr      *unstructured.Unstructured
		claim   *unstructured.Unstructured
		wantErr error
		wantMsg string
	}{
		"NilXR": {
			reason:  "A nil XR is an error, not a panic.",
			wantErr: conditions.ErrNilObject,
			wantMsg: "the composite resource is nil object",
		},
		"MalformedConditions": {
			reason:  "An XR whose conditions are not a list is malformed.",
			xr:      malformedConditions,
			wantErr: ErrMalformed,
			wantMsg: "XApp xapp",
		},
		"MalformedClaimConditions": {
			reason:  "A claimConditions with a number in it is malformed; the error names the entry.",
			xr:      malformedClaimConditions,
			wantErr: ErrMalformed,
			wantMsg: "XApp xapp: status.claimConditions: entry 1: want a string, not int64",
		},
		"MalformedRecord": {
			reason:  "A record that is not a list is malformed.",
			xr:      malformedRecord,
			wantErr: ErrMalformed,
			wantMsg: "status.resultConditions: want a list of strings, not string",
		},
		"MalformedClaim": {
			reason:  "A claim whose conditions are malformed stops Apply before anything changes.",
			xr:      composite(1, nil, nil, nil),
			claim:   malformedClaim,
			wantErr: ErrMalformed,
			wantMsg: "App default/app",
		},
	}
	rsp := rspOf(Fatal(errors.New("boom")).ConditionFalse("A", "B").TargetCompositeAndClaim().Build())
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var before, beforeClaim *unstructured.Unstructured
			if tc.xr != nil {
				before = tc.xr.DeepCopy()
			}
			if tc.claim != nil {
				beforeClaim = tc.claim.DeepCopy()
			}
			rec := &sink{}
			out, err := NewApplier(rec).Apply(rsp, tc.xr, tc.claim)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s\nApply(): want an error wrapping %v, got %v", tc.reason, tc.wantErr, err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("%s\nApply(): error %q does not contain %q", tc.reason, err, tc.wantMsg)
			}
			if diff := cmp.Diff(Outcome{}, out); diff != "" {
				t.Errorf("%s\nApply(): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before, tc.xr); diff != "" {
				t.Errorf("%s\nApply() changed the XR: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(beforeClaim, tc.claim); diff != "" {
				t.Errorf("%s\nApply() changed the claim: -want, +got:\n%s", tc.reason, diff)
			}
			if len(rec.events) != 0 {
				t.Errorf("%s\nApply() recorded events: %v", tc.reason, rec.events)
			}
		})
	}
}

func TestApplyTwiceIsSettled(t *testing.T) {
	rsp := rspOf(
		Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
		Normal("").ConditionTrue("ImageReady", "Available").TargetCompositeAndClaim().Build(),
		Normal("Waiting for the deployment to be available.").ConditionFalse("AppReady", "Creating").TargetCompositeAndClaim().Build(),
	)
	xr, claim := composite(1, nil, nil, nil), claimOf(1, nil, nil)
	a := NewApplier(nil, WithClock(clocktesting.NewFakePassiveClock(now)))
	first, err := a.Apply(rsp, xr, claim)
	require.NoError(t, err)
	if !first.CompositeChanged || !first.ClaimChanged {
		t.Errorf("first Apply(): want both true, got CompositeChanged %t, ClaimChanged %t", first.CompositeChanged, first.ClaimChanged)
	}

	xrBefore, claimBefore := xr.DeepCopy(), claim.DeepCopy()
	second, err := NewApplier(nil, WithClock(clocktesting.NewFakePassiveClock(now.Add(time.Hour)))).Apply(rsp, xr, claim)
	require.NoError(t, err)
	requireSettled(t, "second Apply() of the same results", second, xrBefore, xr, claimBefore, claim)
}

// TestApplyPrunedListsIsSettled: on an XR whose schema has neither list
// of the claim's types (the API server prunes both after the first write),
// a second Apply of the same results changes nothing, in memory either.
func TestApplyPrunedListsIsSettled(t *testing.T) {
	rsp := rspOf(Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build())
	xr, claim := composite(1, nil, nil, nil), claimOf(1, nil, nil)
	a := NewApplier(nil, WithClock(clocktesting.NewFakePassiveClock(now)))
	first, err := a.Apply(rsp, xr, claim)
	require.NoError(t, err)
	require.True(t, first.CompositeChanged)
	for _, f := range []string{"claimConditionTypes", "claimConditions", "resultConditions"} {
		_, found, _ := unstructured.NestedFieldNoCopy(xr.Object, "status", f)
		require.True(t, found, "first Apply() wrote no status.%s", f)
		unstructured.RemoveNestedField(xr.Object, "status", f) // what the API server prunes
	}

	xrBefore, claimBefore := xr.DeepCopy(), claim.DeepCopy()
	second, err := a.Apply(rsp, xr, claim)
	require.NoError(t, err)
	requireSettled(t, "second Apply() on a pruned XR", second, xrBefore, xr, claimBefore, claim)
}

// requireSettled fails t unless an Apply described by what reported no
// change and changed neither the XR nor the claim from their copies before.
func requireSettled(t *testing.T, what string, got Outcome, xrBefore, xr, claimBefore, claim *unstructured.Unstructured) {
	t.Helper()
	if diff := cmp.Diff(Outcome{}, got); diff != "" {
		t.Errorf("%s: -want, +got:\n%s", what, diff)
	}
	if diff := cmp.Diff(xrBefore, xr); diff != "" {
		t.Errorf("%s changed the XR: -want, +got:\n%s", what, diff)
	}
	if diff := cmp.Diff(claimBefore, claim); diff != "" {
		t.Errorf("%s changed the claim: -want, +got:\n%s", what, diff)
	}
}

// TestApplyReorderedIsSettled: the same results in another order (a function
// that ranges over a map) change nothing, status.resultConditions included.
func TestApplyReorderedIsSettled(t *testing.T) {
	a := Normal("").ConditionTrue("AReady", "Available").TargetComposite().Build()
	b := Normal("").ConditionTrue("BReady", "Available").TargetCompositeAndClaim().Build()
	c := Normal("").ConditionTrue("CReady", "Available").TargetComposite().Build()
	xr, claim := composite(1, nil, nil, nil), claimOf(1, nil, nil)
	applier := NewApplier(nil, WithClock(clocktesting.NewFakePassiveClock(now)))
	_, err := applier.Apply(rspOf(a, b), xr, claim)
	require.NoError(t, err)

	xrBefore, claimBefore := xr.DeepCopy(), claim.DeepCopy()
	got, err := applier.Apply(rspOf(b, a), xr, claim)
	require.NoError(t, err)
	requireSettled(t, "Apply() of the same results reordered", got, xrBefore, xr, claimBefore, claim)

	// A new type is appended after the kept ones; a dropped one goes.
	_, err = applier.Apply(rspOf(c, b), xr, claim)
	require.NoError(t, err)
	owned, _, err := unstructured.NestedStringSlice(xr.Object, "status", "resultConditions")
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"BReady", "CReady"}, owned); diff != "" {
		t.Errorf("Apply() of new results: status.resultConditions: -want, +got:\n%s", diff)
	}
}

// TestApplyBoundsConditions: a response that sets more than MaxConditions
// conditions has the first MaxConditions applied and one Warning event say
// how many it set, so that a hostile response neither grows the XR's status
// without bound nor costs a reconcile the square of its length.
func TestApplyBoundsConditions(t *testing.T) {
	rsp := &resultsv1.Response{}
	for i := range MaxConditions + 100 {
		rsp.Results = append(rsp.Results, Normal("").ConditionTrue(fmt.Sprintf("C%04d", i), "Available").TargetCompositeAndClaim().Build())
	}
	rsp.Conditions = append(rsp.Conditions, &resultsv1.ResponseCondition{Type: "Extra", Status: resultsv1.Status_STATUS_TRUE, Reason: "Available"})
	xr, claim := composite(1, nil, nil, nil), claimOf(1, nil, nil)
	rec := &sink{}
	_, err := NewApplier(rec, WithClock(clocktesting.NewFakePassiveClock(now))).Apply(rsp, xr, claim, Step("many"))
	require.NoError(t, err)

	got, err := conditions.FromUnstructured(xr)
	require.NoError(t, err)
	if diff := cmp.Diff(MaxConditions, len(got)); diff != "" {
		t.Errorf("conditions on the XR: -want, +got:\n%s", diff)
	}
	if c := conditions.Get(got, fmt.Sprintf("C%04d", MaxConditions-1)); c == nil {
		t.Errorf("the last condition within the limit was not applied")
	}
	want := []event{{
		Regarding: "XApp/xapp", Type: "Warning", Reason: ReasonComposeResources, Action: EventAction,
		Note: fmt.Sprintf(`Pipeline step "many": the response sets %d conditions; only the first %d were applied`, MaxConditions+101, MaxConditions),
	}}
	if diff := cmp.Diff(want, rec.events); diff != "" {
		t.Errorf("events: -want, +got:\n%s", diff)
	}
}

// TestApplyBoundsEvents: a response of more results than MaxEvents records
// MaxEvents events and one that says how many were not recorded; a fatal
// result beyond them still ends the run.
func TestApplyBoundsEvents(t *testing.T) {
	rsp := &resultsv1.Response{}
	for i := range MaxEvents + 49 {
		rsp.Results = append(rsp.Results, Warning(fmt.Errorf("warning %d", i)).Build())
	}
	rsp.Results = append(rsp.Results, Fatal(errors.New("boom")).Build())
	xr := composite(1, nil, nil, nil)
	rec := &sink{}
	out, err := NewApplier(rec, WithClock(clocktesting.NewFakePassiveClock(now))).Apply(rsp, xr, nil, Step("noisy"))
	require.NoError(t, err)
	if !errors.Is(out.Fatal, ErrFatal) {
		t.Errorf("Outcome.Fatal: want an error wrapping ErrFatal, got %v", out.Fatal)
	}
	if diff := cmp.Diff(MaxEvents+1, len(rec.events)); diff != "" {
		t.Fatalf("events recorded: -want, +got:\n%s", diff)
	}
	want := event{
		Regarding: "XApp/xapp", Type: "Warning", Reason: ReasonComposeResources, Action: EventAction,
		Note: fmt.Sprintf(`Pipeline step "noisy": 50 more events were not recorded: one run records at most %d`, MaxEvents),
	}
	if diff := cmp.Diff(want, rec.events[MaxEvents]); diff != "" {
		t.Errorf("the last event: -want, +got:\n%s", diff)
	}
}

// TestApplyLongLists: an XR whose lists of claim condition types and of
// result-set types hold 100,000 names each is applied in linear time, with
// the same outcome as a short one: the names no result sets any more go.
func TestApplyLongLists(t *testing.T) {
	long := make([]string, 100_000)
	for i := range long {
		long[i] = fmt.Sprintf("C%06d", i)
	}
	xr, claim := composite(1, nil, long, long), claimOf(1, nil, nil)
	rsp := rspOf(Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build())
	start := time.Now()
	_, err := NewApplier(nil, WithClock(clocktesting.NewFakePassiveClock(now))).Apply(rsp, xr, claim)
	took := time.Since(start)
	require.NoError(t, err)
	if took > 10*time.Second {
		t.Errorf("Apply() took %s, want well under 10s", took)
	}
	want := status{
		Conditions:      []metav1.Condition{cond("DatabaseReady", metav1.ConditionTrue, "Available", "", 1, later)},
		ClaimConditions: []string{"DatabaseReady"},
		Record:          []string{"DatabaseReady"},
	}
	if diff := cmp.Diff(want, statusOf(t, xr), timeComparer); diff != "" {
		t.Errorf("XR status: -want, +got:\n%s", diff)
	}
}

// TestApplyBoundsMessages: the messages of the conditions one response sets
// take about MaxMessagesLength bytes in all: those past it are shortened,
// and one Warning event says how many, so that the XR's status stays
// writable.
func TestApplyBoundsMessages(t *testing.T) {
	long := strings.Repeat("x", conditions.MaxMessageLength)
	rsp := &resultsv1.Response{}
	n := MaxMessagesLength/conditions.MaxMessageLength + 2
	for i := range n {
		rsp.Results = append(rsp.Results, Normal(long).ConditionTrue(fmt.Sprintf("C%d", i), "Available").Build())
	}
	xr := composite(1, nil, nil, nil)
	rec := &sink{}
	_, err := NewApplier(rec, WithClock(clocktesting.NewFakePassiveClock(now))).Apply(rsp, xr, nil)
	require.NoError(t, err)
	total := 0
	for _, c := range statusOf(t, xr).Conditions {
		total += len(c.Message)
	}
	// The messages that fit, then two with nothing left: "...".
	if diff := cmp.Diff(MaxMessagesLength+2*len("..."), total); diff != "" {
		t.Errorf("bytes of the conditions' messages: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff("...", statusOf(t, xr).Conditions[n-1].Message); diff != "" {
		t.Errorf("the last message: -want, +got:\n%s", diff)
	}
	want := fmt.Sprintf("the messages of the response's conditions take more than %d bytes in all; 2 were shortened", MaxMessagesLength)
	if got := rec.events[0].Note; got != want {
		t.Errorf("the first event: want %q, got %q", want, got)
	}
}

// TestApplyCarriesClaimMessage: a fatal result that targets the claim with a
// claim message leaves that message on the XR as a False CompositeSynced of
// the XR's generation, for conditions.PropagateSynced; any other run takes
// it away; a function cannot set the type itself.
func TestApplyCarriesClaimMessage(t *testing.T) {
	const friendly = "Internal error, the platform team has been alerted."
	const F = metav1.ConditionFalse
	secret := errors.New("cannot read secret: x509: certificate signed by unknown authority")
	cases := map[string]struct {
		reason string
		rsp    *resultsv1.Response
		want   *metav1.Condition
	}{
		"FatalWithClaimMessage": {
			reason: "The claim message is carried.",
			rsp:    rspOf(Fatal(secret).TargetCompositeAndClaim().WithClaimMessage(friendly).Build()),
			want:   &metav1.Condition{Type: "CompositeSynced", Status: F, Reason: "ReconcileError", Message: friendly, ObservedGeneration: 3},
		},
		"FatalForTheClaimWithoutClaimMessage": {
			reason: "Without a claim message nothing is carried: the result's message is the XR's, and PropagateSynced writes its generic sentence.",
			rsp:    rspOf(Fatal(secret).TargetCompositeAndClaim().Build()),
		},
		"FatalForTheComposite": {
			reason: "A fatal result for the XR alone carries nothing.",
			rsp:    rspOf(Fatal(secret).Build()),
		},
		"NotFatal": {
			reason: "A run that is not fatal takes the carried message away.",
			rsp:    rspOf(Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build()),
		},
		"FunctionSetsTheType": {
			reason: "CompositeSynced is the control plane's: a function's is not applied.",
			rsp: &resultsv1.Response{Conditions: []*resultsv1.ResponseCondition{{
				Type: "CompositeSynced", Status: resultsv1.Status_STATUS_FALSE, Reason: "Fake", Message: proto.String("fake"), Target: resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM,
			}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// The XR carries a claim message from an earlier fatal run.
			xr := composite(3, []metav1.Condition{cond("CompositeSynced", F, "ReconcileError", "Image not found.", 3, later)}, nil, nil)
			_, err := NewApplier(nil).Apply(tc.rsp, xr, claimOf(1, nil, nil))
			require.NoError(t, err)
			conds, err := conditions.FromUnstructured(xr)
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, conditions.Get(conds, conditions.TypeCompositeSynced), ignoreTime); diff != "" {
				t.Errorf("%s\nCompositeSynced on the XR: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

var ignoreTime = cmp.Comparer(func(a, b metav1.Time) bool { return true })

// TestFatalLeavesProgressAlone: a fatal run on an XR without a record marks
// every condition it did not set Unknown, as Crossplane does, but not
// kstatus's Reconciling and Stalled, which the XR's own controller sets: a
// controller that sets Stalled after every fatal run would otherwise see it
// flip to Unknown and back, and write the XR on every reconcile.
func TestFatalLeavesProgressAlone(t *testing.T) {
	const T = metav1.ConditionTrue
	stalled := cond("Stalled", T, "ReconcileError", "stuck", 2, later)
	reconciling := cond("Reconciling", T, "Working", "busy", 2, later)
	other := cond("BackupReady", T, "Available", "", 2, later)
	xr := composite(2, []metav1.Condition{stalled, reconciling, other}, nil, nil)
	unstructured.RemoveNestedField(xr.Object, "status", "resultConditions")
	_, err := NewApplier(nil).Apply(rspOf(Fatal(errors.New("boom")).Build()), xr, nil)
	require.NoError(t, err)
	conds, err := conditions.FromUnstructured(xr)
	require.NoError(t, err)
	for _, want := range []metav1.Condition{stalled, reconciling} {
		if diff := cmp.Diff(&want, conditions.Get(conds, want.Type), ignoreTime); diff != "" {
			t.Errorf("%s: -want, +got:\n%s", want.Type, diff)
		}
	}
	if c := conditions.Get(conds, "BackupReady"); c == nil || c.Status != metav1.ConditionUnknown || c.Reason != ReasonFatalError {
		t.Errorf("BackupReady: %+v, want Unknown %s", c, ReasonFatalError)
	}
}

// TestWithPropagateOptions: the Applier passes the options to
// conditions.Propagate. With an empty RecordField the claim keeps no record
// of the types carried to it (for a claim schema with no field for it), and
// still gets the conditions.
func TestWithPropagateOptions(t *testing.T) {
	rsp := rspOf(Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build())
	for name, tc := range map[string]struct {
		opts       []ApplierOption
		wantRecord bool
	}{
		"Default":       {wantRecord: true},
		"NoClaimRecord": {opts: []ApplierOption{WithPropagateOptions(conditions.RecordField{})}},
	} {
		t.Run(name, func(t *testing.T) {
			xr, claim := composite(1, nil, nil, nil), claimOf(1, nil, nil)
			_, err := NewApplier(nil, append(tc.opts, WithClock(clocktesting.NewFakePassiveClock(now)))...).Apply(rsp, xr, claim)
			require.NoError(t, err)
			conds, err := conditions.FromUnstructured(claim)
			require.NoError(t, err)
			if !conditions.IsTrue(conds, "DatabaseReady") {
				t.Errorf("the claim's conditions: %v, want DatabaseReady True", conds)
			}
			_, recorded, _ := unstructured.NestedStringSlice(claim.Object, "status", "claimConditions")
			if recorded != tc.wantRecord {
				t.Errorf("status.claimConditions present: %t, want %t", recorded, tc.wantRecord)
			}
		})
	}
}
