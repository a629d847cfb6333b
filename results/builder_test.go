package results

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

func TestBuilder(t *testing.T) {
	errDenied := errors.New("You are unauthorized to access this resource.")
	cases := map[string]struct {
		reason string
		build  func() *resultsv1.Result
		want   *resultsv1.Result
	}{
		"SeedFatal": {
			reason: "The seed's builder sketch: a fatal result for the claim that sets a False condition.",
			build: func() *resultsv1.Result {
				return Fatal(errDenied).TargetCompositeAndClaim().ConditionFalse("DatabaseReady", "Unauthorized").Build()
			},
			want: &resultsv1.Result{
				Severity:  resultsv1.Severity_SEVERITY_FATAL,
				Message:   "You are unauthorized to access this resource.",
				Target:    resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM,
				Condition: &resultsv1.Condition{Type: "DatabaseReady", Status: resultsv1.Status_STATUS_FALSE, Reason: "Unauthorized"},
			},
		},
		"Warning": {
			reason: "Warning takes the error's message and leaves the target unspecified.",
			build:  func() *resultsv1.Result { return Warning(errors.New("quota almost used")).Build() },
			want:   &resultsv1.Result{Severity: resultsv1.Severity_SEVERITY_WARNING, Message: "quota almost used"},
		},
		"NormalTrue": {
			reason: "Normal with a True condition aimed at the composite only.",
			build: func() *resultsv1.Result {
				return Normal("ready").ConditionTrue("AppReady", "Available").TargetComposite().Build()
			},
			want: &resultsv1.Result{
				Severity:  resultsv1.Severity_SEVERITY_NORMAL,
				Message:   "ready",
				Target:    resultsv1.Target_TARGET_COMPOSITE_ONLY,
				Condition: &resultsv1.Condition{Type: "AppReady", Status: resultsv1.Status_STATUS_TRUE, Reason: "Available"},
			},
		},
		"NormalfUnknownReasonClaimMessage": {
			reason: "Normalf formats; WithReason and WithClaimMessage set the optional fields; the last condition wins.",
			build: func() *resultsv1.Result {
				return Normalf("%d of %d replicas", 1, 3).
					ConditionFalse("AppReady", "Creating").
					ConditionUnknown("AppReady", "Scaling").
					WithReason("Scaling").
					WithClaimMessage("Scaling up.").
					TargetCompositeAndClaim().
					Build()
			},
			want: &resultsv1.Result{
				Severity:     resultsv1.Severity_SEVERITY_NORMAL,
				Message:      "1 of 3 replicas",
				Target:       resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM,
				Condition:    &resultsv1.Condition{Type: "AppReady", Status: resultsv1.Status_STATUS_UNKNOWN, Reason: "Scaling"},
				Reason:       proto.String("Scaling"),
				ClaimMessage: proto.String("Scaling up."),
			},
		},
		"FatalNilError": {
			reason: "A nil error gives an empty message rather than a panic; Validate rejects it later.",
			build:  func() *resultsv1.Result { return Fatal(nil).Build() },
			want:   &resultsv1.Result{Severity: resultsv1.Severity_SEVERITY_FATAL},
		},
		"NilBuilder": {
			reason: "Every method of a nil *Builder is a no-op and Build returns nil.",
			build: func() *resultsv1.Result {
				var b *Builder
				return b.TargetCompositeAndClaim().ConditionTrue("A", "B").WithReason("R").WithClaimMessage("m").Build()
			},
			want: nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.build()
			if diff := cmp.Diff(tc.want, got, protocmp.Transform()); diff != "" {
				t.Errorf("%s\nBuild(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestBuildReturnsACopy(t *testing.T) {
	b := Normal("one")
	first := b.Build()
	b.WithReason("Later")
	if first.Reason != nil {
		t.Errorf("a result returned by Build changed when the builder did: reason %q", first.GetReason())
	}
}

func TestAddResult(t *testing.T) {
	valid := Normal("hello").Build()
	cases := map[string]struct {
		reason  string
		rsp     *resultsv1.Response
		r       *resultsv1.Result
		want    *resultsv1.Response
		wantErr error
	}{
		"Valid": {
			reason: "A valid result is appended.",
			rsp:    &resultsv1.Response{Results: []*resultsv1.Result{valid}},
			r:      Warning(errors.New("w")).Build(),
			want: &resultsv1.Response{Results: []*resultsv1.Result{
				valid, {Severity: resultsv1.Severity_SEVERITY_WARNING, Message: "w"},
			}},
		},
		"Reserved": {
			reason:  "A result that would set Ready is rejected with ErrReservedType, and not added.",
			rsp:     &resultsv1.Response{},
			r:       Normal("x").ConditionTrue("Ready", "Available").Build(),
			want:    &resultsv1.Response{},
			wantErr: ErrReservedType,
		},
		"NilResponse": {
			reason:  "A nil response is an error, not a panic.",
			r:       valid,
			wantErr: ErrInvalidResult,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := AddResult(tc.rsp, tc.r)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("%s\nAddResult(): want error %v, got %v", tc.reason, tc.wantErr, err)
			}
			if diff := cmp.Diff(tc.want, tc.rsp, protocmp.Transform()); diff != "" {
				t.Errorf("%s\nresponse after AddResult(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	cond := func(typ string, s resultsv1.Status, reason string) *resultsv1.Condition {
		return &resultsv1.Condition{Type: typ, Status: s, Reason: reason}
	}
	cases := map[string]struct {
		reason       string
		r            *resultsv1.Result
		wantReserved bool
		// wantProblems are substrings of the error; none means valid.
		wantProblems []string
	}{
		"FatalWithCondition": {
			reason: "The seed's fatal result is valid.",
			r:      Fatal(errors.New("The image provided does not exist.")).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().Build(),
		},
		"NormalConditionOnly": {
			reason: "A normal result may set a condition without a message.",
			r:      Normal("").ConditionTrue("DatabaseReady", "Available").Build(),
		},
		"QualifiedType": {
			reason: "A prefixed condition type is fine.",
			r:      Normal("").ConditionTrue("example.com/DatabaseReady", "Available").Build(),
		},
		"ClaimMessage": {
			reason: "A claim message on a result for the claim is fine.",
			r:      Fatal(errors.New("x509: certificate signed by unknown authority")).WithClaimMessage("Internal error.").TargetCompositeAndClaim().Build(),
		},
		"Nil": {
			reason:       "A nil result is invalid.",
			r:            nil,
			wantProblems: []string{"nil result"},
		},
		"Ready": {
			reason:       "Ready is reserved for the control plane.",
			r:            Normal("x").ConditionTrue("Ready", "Available").Build(),
			wantReserved: true,
			wantProblems: []string{`condition type "Ready" is reserved for the control plane`},
		},
		"Healthy": {
			reason:       "Healthy is one of Crossplane's system condition types.",
			r:            Normal("fine").ConditionTrue("Healthy", "Fine").Build(),
			wantReserved: true,
			wantProblems: []string{`condition type "Healthy" is reserved for the control plane`},
		},
		"Synced": {
			reason:       "Synced is reserved for the control plane.",
			r:            Fatal(errors.New("boom")).ConditionFalse("Synced", "Broken").Build(),
			wantReserved: true,
			wantProblems: []string{`condition type "Synced" is reserved for the control plane`},
		},
		"LowerCaseReadyIsNotReserved": {
			reason: "Condition types are case-sensitive: ready is not Ready.",
			r:      Normal("x").ConditionTrue("ready", "Available").Build(),
		},
		"UnspecifiedSeverity": {
			reason:       "A result needs a severity.",
			r:            &resultsv1.Result{Message: "x"},
			wantProblems: []string{"severity UNSPECIFIED: must be FATAL, WARNING or NORMAL"},
		},
		"UnknownSeverityAndTarget": {
			reason:       "Values beyond the enums are rejected, each named.",
			r:            &resultsv1.Result{Severity: 9, Target: 7, Message: "x"},
			wantProblems: []string{"severity 9", "target 7"},
		},
		"FatalNoMessage": {
			reason:       "A fatal result must say what went wrong.",
			r:            Fatal(nil).Build(),
			wantProblems: []string{"a fatal result needs a message"},
		},
		"WarningNoMessage": {
			reason:       "So must a warning.",
			r:            Warning(nil).ConditionFalse("A", "B").Build(),
			wantProblems: []string{"a warning result needs a message"},
		},
		"NormalEmpty": {
			reason:       "A normal result that says nothing is a mistake.",
			r:            Normal("").Build(),
			wantProblems: []string{"needs a message, a condition or both"},
		},
		"BadEventReason": {
			reason:       "The event reason is PascalCase.",
			r:            Normal("x").WithReason("not found").Build(),
			wantProblems: []string{`event reason "not found": must be PascalCase`},
		},
		"LongEventReason": {
			reason:       "The API server limits event reasons to 128 characters.",
			r:            Normal("x").WithReason(strings.Repeat("A", 129)).Build(),
			wantProblems: []string{"event reason: must be at most 128 characters, not 129"},
		},
		"ClaimMessageWithoutClaim": {
			reason:       "A claim message on a result that does not reach the claim would be lost.",
			r:            Normal("x").WithClaimMessage("y").Build(),
			wantProblems: []string{"claim_message is set but the result does not target the claim"},
		},
		"ConditionStatusUnspecified": {
			reason:       "A condition needs a status.",
			r:            &resultsv1.Result{Severity: resultsv1.Severity_SEVERITY_NORMAL, Condition: cond("AppReady", 0, "Creating")},
			wantProblems: []string{`condition "AppReady": status UNSPECIFIED: must be TRUE, FALSE or UNKNOWN`},
		},
		"ConditionBadTypeAndReason": {
			reason: "conditions.Validate's rules apply to type and reason, all reported at once.",
			r:      Normal("x").ConditionFalse("App Ready", "").Build(),
			wantProblems: []string{
				`invalid condition: `, `name part (a string of 9 bytes)`, "reason: must not be empty",
			},
		},
		"ConditionMessageTooLong": {
			reason:       "The result's message becomes the condition's, so it obeys the condition's limit.",
			r:            Warning(errors.New(strings.Repeat("x", 32769))).ConditionFalse("A", "B").Build(),
			wantProblems: []string{"message: must be at most 32768 bytes"},
		},
		"ClaimMessageTooLong": {
			reason:       "So does the claim message.",
			r:            Warning(errors.New("x")).ConditionFalse("A", "B").TargetCompositeAndClaim().WithClaimMessage(strings.Repeat("x", 32769)).Build(),
			wantProblems: []string{"claim_message: invalid condition"},
		},
		"ReservedAndMore": {
			reason:       "A reserved type does not hide the other problems.",
			r:            &resultsv1.Result{Severity: resultsv1.Severity_SEVERITY_FATAL, Condition: cond("Ready", 0, "bad reason")},
			wantReserved: true,
			wantProblems: []string{"a fatal result needs a message", "reserved", "status UNSPECIFIED", `reason (a string of 10 bytes)`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := Validate(tc.r)
			if len(tc.wantProblems) == 0 {
				if err != nil {
					t.Errorf("%s\nValidate(): want no error, got %v", tc.reason, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("%s\nValidate(): want an error naming %q, got none", tc.reason, tc.wantProblems)
			}
			if !errors.Is(err, ErrInvalidResult) {
				t.Errorf("%s\nValidate(): %v does not wrap ErrInvalidResult", tc.reason, err)
			}
			if got := errors.Is(err, ErrReservedType); got != tc.wantReserved {
				t.Errorf("%s\nerrors.Is(%v, ErrReservedType): want %t, got %t", tc.reason, err, tc.wantReserved, got)
			}
			for _, p := range tc.wantProblems {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("%s\nValidate(): error %q does not contain %q", tc.reason, err, p)
				}
			}
		})
	}
}

func TestValidateDoesNotAllocate(t *testing.T) {
	r := Fatal(errors.New("boom")).ConditionFalse("ImageReady", "NotFound").WithReason("ImageNotFound").TargetCompositeAndClaim().WithClaimMessage("x").Build()
	if n := testing.AllocsPerRun(100, func() { _ = Validate(r) }); n != 0 {
		t.Errorf("Validate of a valid result: want 0 allocations, got %v", n)
	}
}
