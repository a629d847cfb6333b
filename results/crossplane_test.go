package results

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/conditions"
	crossplanev1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// field is one decoded protobuf field: a varint, or bytes, or (for the
// fields listed in messages) a nested message.
type field struct {
	Num    protowire.Number
	Varint uint64
	Bytes  string
	Msg    []field
}

// decode reads b field by field with protowire, knowing nothing of either
// side's generated code. Fields in messages are decoded as nested messages.
func decode(t *testing.T, b []byte, messages map[protowire.Number]bool) []field {
	t.Helper()
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		require.GreaterOrEqual(t, n, 0, "bad tag")
		b = b[n:]
		f := field{Num: num}
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			require.GreaterOrEqual(t, n, 0, "bad varint")
			f.Varint, b = v, b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			require.GreaterOrEqual(t, n, 0, "bad bytes")
			if messages[num] {
				f.Msg = decode(t, v, nil)
			} else {
				f.Bytes = string(v)
			}
			b = b[n:]
		default:
			t.Fatalf("unexpected wire type %d for field %d", typ, num)
		}
		out = append(out, f)
	}
	return out
}

// encode writes fields with protowire: the other side of decode.
func encode(fs []field) []byte {
	var b []byte
	for _, f := range fs {
		switch {
		case f.Msg != nil:
			b = protowire.AppendTag(b, f.Num, protowire.BytesType)
			b = protowire.AppendBytes(b, encode(f.Msg))
		case f.Bytes != "":
			b = protowire.AppendTag(b, f.Num, protowire.BytesType)
			b = protowire.AppendString(b, f.Bytes)
		default:
			b = protowire.AppendTag(b, f.Num, protowire.VarintType)
			b = protowire.AppendVarint(b, f.Varint)
		}
	}
	return b
}

func v(num protowire.Number, x uint64) field    { return field{Num: num, Varint: x} }
func s(num protowire.Number, x string) field    { return field{Num: num, Bytes: x} }
func m(num protowire.Number, fs ...field) field { return field{Num: num, Msg: fs} }

const (
	msgImage    = "The image provided does not exist or you are not authorized to use it."
	msgInternal = "cannot read secret: x509: certificate signed by unknown authority"
	msgFriendly = "Internal error, the platform team has been alerted."
)

// TestToCrossplaneWire encodes our results in Crossplane's layout and reads
// the bytes back by hand against Crossplane's field numbers:
// RunFunctionResponse{results=3, conditions=6},
// Result{severity=1, message=2, reason=3, target=4},
// Condition{type=1, status=2, reason=3, message=4, target=5}.
func TestToCrossplaneWire(t *testing.T) {
	rsp := rspOf(
		Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
		Fatal(errors.New(msgImage)).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().Build(),
		Warning(errors.New("slow registry")).WithReason("RegistrySlow").TargetComposite().Build(),
		Fatal(errors.New(msgInternal)).ConditionUnknown("AppReady", "InternalError").TargetCompositeAndClaim().WithClaimMessage(msgFriendly).Build(),
	)
	b, err := proto.Marshal(ToCrossplane(rsp))
	require.NoError(t, err)

	want := []field{
		m(3, v(1, 1), s(2, msgImage), v(4, 2)),
		m(3, v(1, 2), s(2, "slow registry"), s(3, "RegistrySlow"), v(4, 1)),
		m(3, v(1, 1), s(2, msgInternal), v(4, 2)),
		m(6, s(1, "DatabaseReady"), v(2, 2), s(3, "Available"), v(5, 2)),
		m(6, s(1, "ImageReady"), v(2, 3), s(3, "NotFound"), s(4, msgImage), v(5, 2)),
		m(6, s(1, "AppReady"), v(2, 1), s(3, "InternalError"), s(4, msgFriendly), v(5, 2)),
	}
	if diff := cmp.Diff(want, decode(t, b, map[protowire.Number]bool{3: true, 6: true})); diff != "" {
		t.Errorf("wire fields of ToCrossplane(): -want, +got:\n%s", diff)
	}
}

// TestFromCrossplaneWire decodes bytes written by hand in Crossplane's layout,
// with fields this side does not declare (meta=1, desired=2, context=4),
// and converts them.
func TestFromCrossplaneWire(t *testing.T) {
	b := encode([]field{
		m(1, s(1, "tag-1"), s(2, "60s")),
		m(2, m(1, s(1, "not read"))),
		m(3, v(1, 3), s(2, "composed 2 resources")),
		m(3, v(1, 1), s(2, msgImage), s(3, "ImageNotFound"), v(4, 2)),
		m(4, s(1, "context")),
		m(6, s(1, "DatabaseReady"), v(2, 2), s(3, "Available"), v(5, 2)),
		m(6, s(1, "ImageReady"), v(2, 3), s(3, "NotFound"), s(4, msgImage), v(5, 1)),
	})
	cp := &crossplanev1.RunFunctionResponse{}
	require.NoError(t, proto.Unmarshal(b, cp))

	want := &resultsv1.Response{
		Results: []*resultsv1.Result{
			Normal("composed 2 resources").Build(),
			Fatal(errors.New(msgImage)).WithReason("ImageNotFound").TargetCompositeAndClaim().Build(),
		},
		Conditions: []*resultsv1.ResponseCondition{
			{Type: "DatabaseReady", Status: resultsv1.Status_STATUS_TRUE, Reason: "Available", Target: resultsv1.Target_TARGET_COMPOSITE_AND_CLAIM},
			{Type: "ImageReady", Status: resultsv1.Status_STATUS_FALSE, Reason: "NotFound", Message: proto.String(msgImage), Target: resultsv1.Target_TARGET_COMPOSITE_ONLY},
		},
	}
	got := FromCrossplane(cp)
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("FromCrossplane(): -want, +got:\n%s", diff)
	}
	for i, r := range got.GetResults() {
		if err := Validate(r); err != nil {
			t.Errorf("converted result %d is invalid: %v", i, err)
		}
	}

	// The fields this side does not declare survive a round trip.
	again, err := proto.Marshal(cp)
	require.NoError(t, err)
	if diff := cmp.Diff(sortFields(decode(t, b, nil)), sortFields(decode(t, again, nil))); diff != "" {
		t.Errorf("re-encoded Crossplane response: -want, +got:\n%s", diff)
	}
}

func sortFields(in []field) map[protowire.Number][]field {
	out := map[protowire.Number][]field{}
	for _, f := range in {
		out[f.Num] = append(out[f.Num], f)
	}
	return out
}

// TestCrossplaneRoundTrip: results that went through Crossplane's layout
// set the same conditions on the XR and claim as the originals.
func TestCrossplaneRoundTrip(t *testing.T) {
	cases := map[string]*resultsv1.Response{
		"ImageNotFound": rspOf(
			Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
			Fatal(errors.New(msgImage)).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().Build(),
		),
		"Progressing": rspOf(
			Normal("").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
			Normal("").ConditionTrue("ImageReady", "Available").TargetCompositeAndClaim().Build(),
			Normal("Waiting for the deployment to be available.").ConditionFalse("AppReady", "Creating").TargetCompositeAndClaim().Build(),
			Normal("composed").Build(),
		),
		"InternalError": rspOf(
			Fatal(errors.New(msgInternal)).ConditionFalse("DatabaseReady", "InternalError").TargetCompositeAndClaim().WithClaimMessage(msgFriendly).Build(),
		),
		"FatalNotLast": rspOf(
			Normal("checked the database").ConditionTrue("DatabaseReady", "Available").TargetCompositeAndClaim().Build(),
			Warning(errors.New("slow registry")).WithReason("RegistrySlow").Build(),
			Fatal(errors.New(msgImage)).ConditionFalse("ImageReady", "NotFound").TargetCompositeAndClaim().Build(),
			Normal("not recorded: after the fatal result").ConditionFalse("AppReady", "Creating").TargetCompositeAndClaim().Build(),
			Warning(errors.New("not recorded either")).Build(),
		),
	}
	for name, rsp := range cases {
		t.Run(name, func(t *testing.T) {
			clk := WithClock(clocktesting.NewFakePassiveClock(now))
			rec1, rec2 := &sink{}, &sink{}
			xr1, claim1 := composite(1, nil, nil, nil), claimOf(1, nil, nil)
			out1, err := NewApplier(rec1, clk).Apply(rsp, xr1, claim1, Step("check"))
			require.NoError(t, err)

			xr2, claim2 := composite(1, nil, nil, nil), claimOf(1, nil, nil)
			out2, err := NewApplier(rec2, clk).Apply(FromCrossplane(ToCrossplane(rsp)), xr2, claim2, Step("check"))
			require.NoError(t, err)

			if diff := cmp.Diff(out1, out2, cmp.Comparer(func(a, b error) bool { return fmt.Sprint(a) == fmt.Sprint(b) })); diff != "" {
				t.Errorf("Outcome: -original, +through Crossplane:\n%s", diff)
			}
			// Crossplane has no claim message for events: the claim's event
			// shows the result's message.
			if name != "InternalError" {
				if diff := cmp.Diff(rec1.events, rec2.events); diff != "" {
					t.Errorf("events: -original, +through Crossplane:\n%s", diff)
				}
			}
			// Nor for the claim's CompositeSynced: the XR carries none.
			st1 := statusOf(t, xr1)
			if name == "InternalError" {
				n := len(st1.Conditions)
				st1.Conditions = slices.DeleteFunc(st1.Conditions, func(c metav1.Condition) bool { return c.Type == conditions.TypeCompositeSynced })
				if len(st1.Conditions) != n-1 {
					t.Errorf("the original XR carries no claim message: %+v", st1.Conditions)
				}
			}
			if diff := cmp.Diff(st1, statusOf(t, xr2), timeComparer); diff != "" {
				t.Errorf("XR status: -original, +through Crossplane:\n%s", diff)
			}
			if diff := cmp.Diff(statusOf(t, claim1), statusOf(t, claim2), timeComparer); diff != "" {
				t.Errorf("claim status: -original, +through Crossplane:\n%s", diff)
			}
		})
	}
}
