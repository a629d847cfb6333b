package fielddiff_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/fielddiff/internal/testpb"
)

// The walk allocates for what it finds and how deep it goes, not for the
// number of fields it compares: one change among 10,000 fields costs a
// handful of allocations on every backend.
func TestChangedFieldsAllocsDoNotGrowWithSize(t *testing.T) {
	ud, ua := bigObject(100, 100, 0, 50)
	sd, sa := bigStruct(1000, 5)
	pd, pa := bigProto(1000, 5)
	cases := map[string]struct{ desired, actual any }{
		"unstructured": {ud, ua},
		"struct":       {sd, sa},
		"protobuf":     {pd, pa},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			allocs := testing.AllocsPerRun(5, func() {
				got, err := fielddiff.ChangedFields(tc.desired, tc.actual)
				if err != nil || len(got) != 1 {
					t.Fatalf("ChangedFields: %v, %v", got, err)
				}
			})
			if allocs > 20 {
				t.Errorf("ChangedFields with one change in 10,000 fields: want at most 20, got %v allocations", allocs)
			}
		})
	}
}

// Maps of generated messages, and generated google.protobuf.Values and
// ListValues, are read through their Go fields; a dynamic message
// has none and is read through protoreflect. Both give the same paths.
func TestProtoGoFieldsAndReflectionAgree(t *testing.T) {
	base := func() *testpb.Cluster {
		return &testpb.Cluster{
			Labels: map[string]string{"a": "1", "b": "2", "team": "data", "z": ""},
			Settings: &structpb.Struct{Fields: map[string]*structpb.Value{
				"team":  structpb.NewStringValue("data"),
				"quota": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"cpu": structpb.NewNumberValue(4)}}),
				"empty": structpb.NewStringValue(""),
			}},
			NodePools: []*testpb.NodePool{{Name: "p", Labels: map[string]string{"x": "1"}}},
			Extra: structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{
				structpb.NewStringValue("a"), structpb.NewNumberValue(1), structpb.NewBoolValue(true), structpb.NewNullValue(),
			}}),
		}
	}
	cases := map[string]func(c *testpb.Cluster){
		"value changed":        func(c *testpb.Cluster) { c.Labels["b"] = "3" },
		"key added":            func(c *testpb.Cluster) { c.Labels["c"] = "3" },
		"key removed":          func(c *testpb.Cluster) { delete(c.Labels, "a") },
		"empty value removed":  func(c *testpb.Cluster) { delete(c.Labels, "z") },
		"map nil":              func(c *testpb.Cluster) { c.Labels = nil },
		"map empty":            func(c *testpb.Cluster) { c.Labels = map[string]string{} },
		"nested map":           func(c *testpb.Cluster) { c.NodePools[0].Labels["y"] = "2" },
		"struct value changed": func(c *testpb.Cluster) { c.Settings.Fields["team"] = structpb.NewStringValue("web") },
		"struct nested changed": func(c *testpb.Cluster) {
			c.Settings.Fields["quota"].GetStructValue().Fields["cpu"] = structpb.NewNumberValue(8)
		},
		"struct key removed":   func(c *testpb.Cluster) { delete(c.Settings.Fields, "team") },
		"struct empty removed": func(c *testpb.Cluster) { delete(c.Settings.Fields, "empty") },
		"struct emptied":       func(c *testpb.Cluster) { c.Settings.Fields = nil },
		"struct nil value": func(c *testpb.Cluster) {
			c.Settings.Fields["n"] = nil
		},
		"list string changed": func(c *testpb.Cluster) { c.Extra.GetListValue().Values[0] = structpb.NewStringValue("b") },
		"list number changed": func(c *testpb.Cluster) { c.Extra.GetListValue().Values[1] = structpb.NewNumberValue(2) },
		"list bool changed":   func(c *testpb.Cluster) { c.Extra.GetListValue().Values[2] = structpb.NewBoolValue(false) },
		"list kind changed":   func(c *testpb.Cluster) { c.Extra.GetListValue().Values[1] = structpb.NewStringValue("1") },
		"list null to empty": func(c *testpb.Cluster) {
			c.Extra.GetListValue().Values[3] = structpb.NewStringValue("")
		},
		"list grown": func(c *testpb.Cluster) {
			l := c.Extra.GetListValue()
			l.Values = append(l.Values, structpb.NewNumberValue(0))
		},
		"list shrunk": func(c *testpb.Cluster) {
			l := c.Extra.GetListValue()
			l.Values = l.Values[:1]
		},
		"value to scalar": func(c *testpb.Cluster) { c.Extra = structpb.NewNumberValue(3) },
	}
	dynamic := func(m proto.Message) *dynamicpb.Message {
		d := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
		b, err := proto.Marshal(m)
		require.NoError(t, err)
		require.NoError(t, proto.Unmarshal(b, d))
		return d
	}
	for name, change := range cases {
		for _, opts := range [][]fielddiff.Option{nil, {fielddiff.NilEqualsEmpty()}} {
			desired, actual := base(), base()
			change(actual)
			generated, err := fielddiff.ChangedFields(desired, actual, opts...)
			require.NoError(t, err, name)
			reflected, err := fielddiff.ChangedFields(dynamic(desired), dynamic(actual), opts...)
			require.NoError(t, err, name)
			if diff := cmp.Diff(reflected, generated); diff != "" {
				t.Errorf("%s, %d options: ChangedFields(generated): -want (dynamicpb), +got:\n%s", name, len(opts), diff)
			}
			if len(opts) == 0 && len(generated) == 0 {
				t.Errorf("%s: ChangedFields(generated): want some, got no changed fields", name)
			}
		}
	}
}
