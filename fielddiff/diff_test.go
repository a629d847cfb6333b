package fielddiff_test

import (
	"encoding"
	"errors"
	"net/netip"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/fielddiff/internal/testpb"
	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// A spec shaped like a Kubernetes API type's.
type spec struct {
	Description string            `json:"description,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	NodePools   []nodePool        `json:"nodePools,omitempty"`
	Location    location          `json:",inline"`
	Embedded
	Size      *int64             `json:"size,omitempty"`
	Tags      []string           `json:"tags"`
	Hidden    string             `json:"-"`
	internal  string             //nolint:unused // unexported fields are not compared
	Extra     map[string]any     `json:"extra,omitempty"`
	Created   metav1.Time        `json:"created,omitempty"`
	Memory    resource.Quantity  `json:"memory"`
	Port      intstr.IntOrString `json:"port"`
	Value     any                `json:"value,omitempty"`
	Raw       []byte
	Zones     map[int]string   `json:"zones,omitempty"`
	Pool      *testpb.NodePool `json:"pool,omitempty"`
	Timeout   time.Duration    `json:"timeout,omitempty"`
	Deadline  time.Time        `json:"deadline"`
	Fixed     [2]string        `json:"fixed"`
	Defaulted *bool            `json:"defaulted,omitempty"`
}

type nodePool struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

type location struct {
	Region string `json:"region,omitempty"`
}

type Embedded struct {
	Zone string `json:"zone,omitempty"`
}

// Names repeated through flattened structs, resolved as encoding/json does.
type repeated struct {
	Named `json:",inline"`
	Name  string `json:"name"` // shallower than Named.Name: wins
	Tagged
	Untagged
}

type Named struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type Tagged struct {
	X string `json:"X"` // as deep as Untagged.X, but named by its tag: wins
	Y string
}

type Untagged struct {
	X string
	Y string // as deep as Tagged.Y, both untagged: neither is encoded
}

// SelfEmbedding embeds a pointer to itself, which is not flattened again.
type SelfEmbedding struct {
	*SelfEmbedding `json:",inline"`
	Name           string `json:"name"`
}

// omitzero omits nil lists and maps, but writes empty ones.
type withOmitZero struct {
	Tags   []string          `json:"tags,omitzero"`
	Labels map[string]string `json:"labels,omitzero"`
	Both   []string          `json:"both,omitempty,omitzero"`
}

// Unstructured content in typed fields, with and without omitempty.
type withAny struct {
	Extra map[string]any `json:"extra,omitempty"`
	List  []any          `json:"list,omitempty"`
	Raw   []any          `json:"raw"`
}

func ptr[T any](v T) *T { return &v }

type labelsHolder struct {
	Labels map[string]string `json:"labels"`
}

// hiddenInline returns a struct { inner labelsHolder `json:",inline"`; Name
// string `json:"name"` }, built with reflection since go vet rejects a json
// tag on an unexported field in the source.
func hiddenInline(labels map[string]string, name string) any {
	t := reflect.StructOf([]reflect.StructField{
		{Name: "inner", PkgPath: "github.com/ctrlkit/ctrlkit/fielddiff_test", Type: reflect.TypeFor[labelsHolder](), Tag: `json:",inline"`},
		{Name: "Name", Type: reflect.TypeFor[string](), Tag: `json:"name"`},
	})
	v := reflect.New(t).Elem()
	f := v.Field(0)
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(labelsHolder{labels}))
	v.Field(1).SetString(name)
	return v.Interface()
}

type diffCase struct {
	reason  string
	desired any
	actual  any
	opts    []fielddiff.Option
	want    []string // every changed field; the first is FirstChangedField's
	wantErr error
}

// checkDiff runs FirstChangedField and ChangedFields on a case, and checks
// that they agree and that every path parses back to itself.
func checkDiff(t *testing.T, tc diffCase) {
	t.Helper()
	all, err := fielddiff.ChangedFields(tc.desired, tc.actual, tc.opts...)
	if diff := cmp.Diff(tc.wantErr, err, cmpopts.EquateErrors()); diff != "" {
		t.Fatalf("%s\nChangedFields(...): -want error, +got error:\n%s", tc.reason, diff)
	}
	if diff := cmp.Diff(tc.want, all); diff != "" {
		t.Errorf("%s\nChangedFields(...): -want, +got:\n%s", tc.reason, diff)
	}
	if tc.wantErr != nil {
		return
	}
	first, changed, err := fielddiff.FirstChangedField(tc.desired, tc.actual, tc.opts...)
	require.NoError(t, err)
	wantFirst := ""
	if len(tc.want) > 0 {
		wantFirst = tc.want[0]
	}
	if first != wantFirst || changed != (len(tc.want) > 0) {
		t.Errorf("%s\nFirstChangedField(...): want %q, %t; got %q, %t", tc.reason, wantFirst, len(tc.want) > 0, first, changed)
	}
	for _, p := range all {
		if p == "" {
			continue // the root, without a prefix
		}
		segs, err := fieldpath.Parse(p)
		if err != nil {
			t.Errorf("%s\nfieldpath.Parse(%q): %v", tc.reason, p, err)
			continue
		}
		if len(segs) == 0 {
			t.Errorf("%s\nfieldpath.Parse(%q): no segments", tc.reason, p)
		}
	}
}

func TestDiffStructs(t *testing.T) {
	base := func() spec {
		return spec{
			Description: "orders",
			Labels:      map[string]string{"team": "data", "app.kubernetes.io/name": "orders"},
			NodePools:   []nodePool{{Name: "a", Size: 1}, {Name: "b", Size: 2}, {Name: "c", Size: 3}},
			Location:    location{Region: "eu"},
			Embedded:    Embedded{Zone: "eu-1"},
			Tags:        []string{"x"},
			Extra:       map[string]any{"replicas": int64(3), "nested": map[string]any{"on": true}},
			Created:     metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
			Memory:      resource.MustParse("1Gi"),
			Port:        intstr.FromInt32(80),
			Fixed:       [2]string{"p", "q"},
		}
	}
	with := func(f func(s *spec)) spec {
		s := base()
		f(&s)
		return s
	}
	inSpec := fielddiff.Prefix("spec")

	cases := map[string]diffCase{
		"Equal": {
			reason:  "Equal values have no changed field.",
			desired: base(), actual: base(), opts: []fielddiff.Option{inSpec},
		},
		"EqualPointers": {
			reason:  "Pointers to equal values are compared by what they point to.",
			desired: ptr(base()), actual: ptr(base()),
		},
		"Description": {
			reason:  "A changed string is named by its JSON name, after the prefix.",
			desired: with(func(s *spec) { s.Description = "new" }), actual: base(), opts: []fielddiff.Option{inSpec},
			want: []string{"spec.description"},
		},
		"PrefixWithDot": {
			reason:  "A prefix may end with a dot.",
			desired: with(func(s *spec) { s.Description = "new" }), actual: base(), opts: []fielddiff.Option{fielddiff.Prefix("spec.forProvider.")},
			want: []string{"spec.forProvider.description"},
		},
		"NoPrefix": {
			reason:  "Without a prefix the path starts at the value diffed.",
			desired: with(func(s *spec) { s.Description = "new" }), actual: base(),
			want: []string{"description"},
		},
		"LabelAdded": {
			reason:  "A map key is a field of the path.",
			desired: with(func(s *spec) { s.Labels["owner"] = "me" }), actual: base(), opts: []fielddiff.Option{inSpec},
			want: []string{"spec.labels[owner]"},
		},
		"LabelWithDots": {
			reason:  "A key with dots is written in brackets.",
			desired: with(func(s *spec) { s.Labels["app.kubernetes.io/name"] = "billing" }), actual: base(), opts: []fielddiff.Option{inSpec},
			want: []string{"spec.labels[app.kubernetes.io/name]"},
		},
		"LabelKeysNeedingQuotes": {
			reason:  "Keys that read as an index, a wildcard or nothing are quoted; brackets are escaped.",
			desired: with(func(s *spec) { s.Labels = map[string]string{"0": "x", "*": "y", "": "z", "a]b": "w"} }), actual: with(func(s *spec) { s.Labels = map[string]string{"q": "q"} }),
			opts: []fielddiff.Option{inSpec},
			want: []string{"spec.labels['']", "spec.labels['*']", "spec.labels['0']", `spec.labels[a\]b]`, "spec.labels[q]"},
		},
		"LabelKeysSorted": {
			reason:  "Map keys are visited in sorted order, whatever Go's map order.",
			desired: with(func(s *spec) { s.Labels = map[string]string{"z": "1", "a": "1", "m": "1"} }), actual: with(func(s *spec) { s.Labels = map[string]string{"z": "2", "a": "2", "m": "2"} }),
			want: []string{"labels[a]", "labels[m]", "labels[z]"},
		},
		"NodePoolSize": {
			reason:  "A list element's field: index, then field.",
			desired: with(func(s *spec) { s.NodePools[2].Size = 5 }), actual: base(), opts: []fielddiff.Option{inSpec},
			want: []string{"spec.nodePools[2].size"},
		},
		"DeclarationOrder": {
			reason: "Fields come in struct declaration order, not alphabetical order.",
			desired: with(func(s *spec) {
				s.Description = "new"
				s.Labels["team"] = "ml"
				s.NodePools[0].Name = "z"
				s.Tags = []string{"y"}
			}), actual: base(),
			want: []string{"description", "labels[team]", "nodePools[0].name", "tags[0]"},
		},
		"ListLonger": {
			reason:  "An element present on one side only is named by its index.",
			desired: with(func(s *spec) { s.NodePools = append(s.NodePools, nodePool{Name: "d"}, nodePool{Name: "e"}) }), actual: base(),
			want: []string{"nodePools[3]", "nodePools[4]"},
		},
		"ListOnOneSideOnly": {
			reason:  "A list present on one side only is the changed field itself.",
			desired: base(), actual: with(func(s *spec) { s.NodePools = nil }),
			want: []string{"nodePools"},
		},
		"InlineStruct": {
			reason:  "A struct tagged inline has its fields in its parent.",
			desired: with(func(s *spec) { s.Location.Region = "us" }), actual: base(),
			want: []string{"region"},
		},
		"EmbeddedStruct": {
			reason:  "An embedded struct without a JSON name is flattened, as encoding/json does.",
			desired: with(func(s *spec) { s.Zone = "eu-2" }), actual: base(),
			want: []string{"zone"},
		},
		"OmitemptyNilEqualsEmpty": {
			reason:  "With omitempty, a nil and an empty map encode alike.",
			desired: with(func(s *spec) { s.Labels = nil }), actual: with(func(s *spec) { s.Labels = map[string]string{} }),
		},
		"OmitemptyNilEqualsEmptyAny": {
			reason:  "With omitempty, a nil and an empty map[string]any or []any encode alike too.",
			desired: withAny{Raw: []any{}}, actual: withAny{Extra: map[string]any{}, List: []any{}, Raw: []any{}},
		},
		"NoOmitemptyNilDiffersAny": {
			reason:  "Without omitempty, a nil []any is null and an empty one is [].",
			desired: withAny{}, actual: withAny{Raw: []any{}},
			want: []string{"raw"},
		},
		"OmitzeroNilDiffersFromEmpty": {
			reason:  "With omitzero, nil is omitted but empty is written as [] or {}: they differ (omitempty as well omits both).",
			desired: withOmitZero{}, actual: withOmitZero{Tags: []string{}, Labels: map[string]string{}, Both: []string{}},
			want: []string{"tags", "labels"},
		},
		"NoOmitemptyNilDiffers": {
			reason:  "Without omitempty, nil is null and empty is []: they differ.",
			desired: with(func(s *spec) { s.Tags = nil }), actual: with(func(s *spec) { s.Tags = []string{} }),
			want: []string{"tags"},
		},
		"NilEqualsEmptyList": {
			reason:  "NilEqualsEmpty makes them equal.",
			desired: with(func(s *spec) { s.Tags = nil }), actual: with(func(s *spec) { s.Tags = []string{} }),
			opts: []fielddiff.Option{fielddiff.NilEqualsEmpty()},
		},
		"NilPointerAgainstZero": {
			reason:  "A nil pointer differs from a pointer to zero.",
			desired: with(func(s *spec) { s.Size = ptr(int64(0)) }), actual: base(),
			want: []string{"size"},
		},
		"NilEqualsEmptyPointer": {
			reason:  "NilEqualsEmpty makes a nil pointer equal to a pointer to zero.",
			desired: with(func(s *spec) { s.Size = ptr(int64(0)); s.Defaulted = ptr(false) }), actual: base(),
			opts: []fielddiff.Option{fielddiff.NilEqualsEmpty()},
		},
		"NilEqualsEmptyStillSeesValues": {
			reason:  "NilEqualsEmpty does not hide a real value.",
			desired: with(func(s *spec) { s.Size = ptr(int64(3)) }), actual: base(),
			opts: []fielddiff.Option{fielddiff.NilEqualsEmpty()},
			want: []string{"size"},
		},
		"IgnoredFieldsAndUnexported": {
			reason:  "Fields tagged \"-\" and unexported fields are not compared.",
			desired: with(func(s *spec) { s.Hidden = "x"; s.internal = "y" }), actual: base(),
		},
		"IgnorePaths": {
			reason: "Ignored paths, with the prefix, are skipped; a wildcard matches any index.",
			desired: with(func(s *spec) {
				s.Description = "new"
				s.NodePools[1].Size = 9
				s.NodePools[1].Name = "n"
				s.Labels["team"] = "ml"
			}), actual: base(),
			opts: []fielddiff.Option{inSpec, fielddiff.IgnorePaths("spec.description", "spec.nodePools[*].size"), fielddiff.IgnorePaths("spec.labels[team]")},
			want: []string{"spec.nodePools[1].name"},
		},
		"IgnoreEverything": {
			reason:  "Ignoring the prefix itself ignores everything.",
			desired: with(func(s *spec) { s.Description = "new" }), actual: base(),
			opts: []fielddiff.Option{fielddiff.Prefix("spec.forProvider"), fielddiff.IgnorePaths("spec")},
		},
		"IgnoreOutsidePrefix": {
			reason:  "An ignored path outside the prefix never matches.",
			desired: with(func(s *spec) { s.Description = "new" }), actual: base(),
			opts: []fielddiff.Option{inSpec, fielddiff.IgnorePaths("status.description")},
			want: []string{"spec.description"},
		},
		"RepeatedNamesOnce": {
			reason:  "A name repeated through flattened structs is the field encoding/json encodes, reported once.",
			desired: repeated{Named{"a", "a"}, "a", Tagged{"a", "a"}, Untagged{"a", "a"}},
			actual:  repeated{Named{"b", "b"}, "b", Tagged{"b", "b"}, Untagged{"b", "b"}},
			want:    []string{"kind", "name", "X"},
		},
		"RepeatedNamesHidden": {
			reason:  "Fields that encoding/json does not encode are not compared.",
			desired: repeated{Named{"a", ""}, "", Tagged{"", "a"}, Untagged{"a", "a"}}, actual: repeated{},
		},
		"SelfEmbedding": {
			reason:  "A struct embedding a pointer to itself is flattened once, not forever.",
			desired: SelfEmbedding{&SelfEmbedding{Name: "in"}, "a"}, actual: SelfEmbedding{Name: "b"},
			want: []string{"name"},
		},
		"UnexportedInline": {
			reason:  "An unexported field is not compared even when tagged inline, as encoding/json ignores it.",
			desired: hiddenInline(map[string]string{"team": "ml"}, "a"), actual: hiddenInline(map[string]string{"team": "data"}, "b"),
			want: []string{"name"},
		},
		"MetaTimeSeconds": {
			reason:  "metav1.Time compares as it is stored: to the second.",
			desired: with(func(s *spec) { s.Created = metav1.NewTime(s.Created.Add(300 * time.Millisecond)) }), actual: base(),
		},
		"MetaTimeChanged": {
			reason:  "A different second is a change of the time field itself.",
			desired: with(func(s *spec) { s.Created = metav1.NewTime(s.Created.Add(time.Second)) }), actual: base(),
			want: []string{"created"},
		},
		"Quantity": {
			reason:  "A type with its own JSON encoding is one value, compared by that encoding.",
			desired: with(func(s *spec) { s.Memory = resource.MustParse("2Gi") }), actual: base(),
			want: []string{"memory"},
		},
		"IntOrString": {
			reason:  "IntOrString is one value, not its Go fields.",
			desired: with(func(s *spec) { s.Port = intstr.FromString("http") }), actual: base(),
			want: []string{"port"},
		},
		"UnstructuredInStruct": {
			reason:  "Numbers in unstructured content compare as JSON: int64(3) equals 3.0.",
			desired: with(func(s *spec) { s.Extra = map[string]any{"replicas": 3.0, "nested": map[string]any{"on": true}} }), actual: base(),
		},
		"UnstructuredInStructChanged": {
			reason:  "A nested unstructured change is named down to its leaf.",
			desired: with(func(s *spec) { s.Extra = map[string]any{"replicas": int64(3), "nested": map[string]any{"on": false}} }), actual: base(),
			want: []string{"extra.nested.on"},
		},
		"InterfaceTypeChanged": {
			reason:  "An interface holding values of different types differs.",
			desired: with(func(s *spec) { s.Value = "3" }), actual: with(func(s *spec) { s.Value = 3 }),
			want: []string{"value"},
		},
		"InterfaceStructs": {
			reason:  "An interface holding structs is compared inside.",
			desired: with(func(s *spec) { s.Value = nodePool{Name: "a"} }), actual: with(func(s *spec) { s.Value = nodePool{Name: "b"} }),
			want: []string{"value.name"},
		},
		"Bytes": {
			reason:  "[]byte is one value; a field without a tag has its Go name.",
			desired: with(func(s *spec) { s.Raw = []byte("a") }), actual: with(func(s *spec) { s.Raw = []byte("b") }),
			want: []string{"Raw"},
		},
		"IntKeysByValue": {
			reason:  "Integer keys are visited by value and quoted, since digits alone read as an index.",
			desired: with(func(s *spec) { s.Zones = map[int]string{10: "a", 2: "b", -1: "c"} }), actual: with(func(s *spec) { s.Zones = map[int]string{10: "x", 2: "y", -1: "z"} }),
			want: []string{"zones['-1']", "zones['2']", "zones['10']"},
		},
		"LargeIntKeysByValue": {
			reason:  "Integer keys beyond float64's precision are still visited by value.",
			desired: map[int64]string{-9007199254740993: "a", -9007199254740992: "a", 1<<62 + 1: "a", 1 << 62: "a"},
			actual:  map[int64]string{-9007199254740993: "b", -9007199254740992: "b", 1<<62 + 1: "b", 1 << 62: "b"},
			opts:    []fielddiff.Option{inSpec},
			want:    []string{"spec['-9007199254740993']", "spec['-9007199254740992']", "spec['4611686018427387904']", "spec['4611686018427387905']"},
		},
		"LargeUintKeysByValue": {
			reason:  "So are unsigned ones.",
			desired: map[uint64]string{1<<64 - 1: "a", 1<<64 - 2: "a", 3: "a"}, actual: map[uint64]string{1<<64 - 1: "b", 1<<64 - 2: "b", 3: "b"},
			opts: []fielddiff.Option{inSpec},
			want: []string{"spec['3']", "spec['18446744073709551614']", "spec['18446744073709551615']"},
		},
		"NilPointerKey": {
			reason:  "A nil pointer key with a MarshalText method is named \"\", as encoding/json names it.",
			desired: map[*netip.Addr]string{nil: "a"}, actual: map[*netip.Addr]string{nil: "b"}, opts: []fielddiff.Option{inSpec},
			want: []string{"spec['']"},
		},
		"ProtoInStruct": {
			reason:  "A protobuf message inside a struct is compared as a message.",
			desired: with(func(s *spec) { s.Pool = &testpb.NodePool{Name: "a", Size: 1} }), actual: with(func(s *spec) { s.Pool = &testpb.NodePool{Name: "a", Size: 2} }),
			want: []string{"pool.size"},
		},
		"DurationAndTime": {
			reason:  "time.Duration is a number; time.Time compares instants.",
			desired: with(func(s *spec) { s.Timeout = time.Second; s.Deadline = time.Unix(10, 0).UTC() }), actual: with(func(s *spec) { s.Deadline = time.Unix(10, 0).In(time.FixedZone("x", 3600)) }),
			want: []string{"timeout"},
		},
		"Array": {
			reason:  "Arrays compare by index.",
			desired: with(func(s *spec) { s.Fixed[1] = "r" }), actual: base(),
			want: []string{"fixed[1]"},
		},
		"RootNil": {
			reason:  "A nil pointer against a value is a change of the whole, named by the prefix.",
			desired: (*nodePool)(nil), actual: &nodePool{}, opts: []fielddiff.Option{inSpec},
			want: []string{"spec"},
		},
		"BothNil": {
			reason:  "Two nil pointers are equal.",
			desired: (*nodePool)(nil), actual: (*nodePool)(nil),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { checkDiff(t, tc) })
	}
}

func TestDiffUnstructured(t *testing.T) {
	obj := func(spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Dataset",
			"metadata": map[string]any{"name": "orders", "resourceVersion": "1"},
			"spec":     spec,
			"status":   map[string]any{"observedGeneration": int64(1)},
		}}
	}
	cases := map[string]diffCase{
		"Equal": {
			reason:  "Equal content has no changed field.",
			desired: map[string]any{"a": "x", "b": []any{int64(1), 2.5, true, nil}}, actual: map[string]any{"a": "x", "b": []any{int64(1), 2.5, true, nil}},
		},
		"SortedKeys": {
			reason:  "Keys are visited in sorted order.",
			desired: map[string]any{"b": "1", "a": "1", "c": "1"}, actual: map[string]any{"b": "2", "a": "2", "c": "2"},
			want: []string{"a", "b", "c"},
		},
		"MissingKeyInterleaved": {
			reason:  "A key on one side only is visited in order with the others.",
			desired: map[string]any{"a": "1", "c": "1"}, actual: map[string]any{"b": "1", "c": "2"},
			want: []string{"a", "b", "c"},
		},
		"Nested": {
			reason:  "Nested maps and lists make nested paths.",
			desired: map[string]any{"spec": map[string]any{"nodePools": []any{map[string]any{"size": int64(1)}, map[string]any{"size": int64(2)}}}},
			actual:  map[string]any{"spec": map[string]any{"nodePools": []any{map[string]any{"size": int64(1)}, map[string]any{"size": int64(3)}}}},
			want:    []string{"spec.nodePools[1].size"},
		},
		"NumbersAsJSON": {
			reason:  "int64(1), float64(1) and int(1) are the same JSON number.",
			desired: map[string]any{"a": int64(1), "b": 1.0, "c": 1}, actual: map[string]any{"a": 1.0, "b": int64(1), "c": int64(1)},
		},
		"TypeChanged": {
			reason:  "A value of another type is a change of that field.",
			desired: map[string]any{"a": "1", "b": map[string]any{"x": "y"}}, actual: map[string]any{"a": int64(1), "b": []any{"x"}},
			want: []string{"a", "b"},
		},
		"NullAgainstMissing": {
			reason:  "null and a missing key are different JSON.",
			desired: map[string]any{"a": nil}, actual: map[string]any{},
			want: []string{"a"},
		},
		"NilEqualsEmpty": {
			reason:  "NilEqualsEmpty: null, missing and empty are equal.",
			desired: map[string]any{"a": nil, "b": "", "c": []any{}, "d": map[string]any{"e": ""}, "f": int64(0), "g": false}, actual: map[string]any{"a": map[string]any{}, "h": nil},
			opts: []fielddiff.Option{fielddiff.NilEqualsEmpty()},
		},
		"NilEqualsEmptyKeepsValues": {
			reason:  "NilEqualsEmpty does not hide a value.",
			desired: map[string]any{"a": nil, "b": "x"}, actual: map[string]any{"a": "y"},
			opts: []fielddiff.Option{fielddiff.NilEqualsEmpty()},
			want: []string{"a", "b"},
		},
		"ListLengths": {
			reason:  "Extra elements are named by index; a list missing on one side is the list.",
			desired: map[string]any{"a": []any{"x", "y", "z"}, "b": []any{}, "c": []any{"q"}}, actual: map[string]any{"a": []any{"x"}, "b": []any{"q"}},
			want: []string{"a[1]", "a[2]", "b[0]", "c"},
		},
		"UnstructuredObjects": {
			reason:  "*unstructured.Unstructured diffs its content; status and metadata ignored.",
			desired: obj(map[string]any{"description": "new", "labels": map[string]any{"team": "x"}}),
			actual: func() any {
				u := obj(map[string]any{"description": "old", "labels": map[string]any{"team": "x"}})
				u.Object["status"] = map[string]any{"observedGeneration": int64(2)}
				u.SetResourceVersion("2")
				return u
			}(),
			opts: []fielddiff.Option{fielddiff.IgnorePaths("status", "metadata")},
			want: []string{"spec.description"},
		},
		"UnstructuredAgainstMap": {
			reason:  "An Unstructured and a map of the same content are equal.",
			desired: obj(nil), actual: obj(nil).Object,
		},
		"IgnoreWildcardKey": {
			reason:  "A wildcard matches any key.",
			desired: map[string]any{"a": map[string]any{"etag": "1", "v": "1"}, "b": map[string]any{"etag": "1"}}, actual: map[string]any{"a": map[string]any{"etag": "2", "v": "2"}, "b": map[string]any{"etag": "2"}},
			opts: []fielddiff.Option{fielddiff.IgnorePaths("*.etag")},
			want: []string{"a.v"},
		},
		"EmptyAgainstFull": {
			reason:  "An object present on both sides is compared key by key, even when one is empty.",
			desired: map[string]any{"metadata": map[string]any{"annotations": map[string]any{"example.com/x": "1", "b": "1"}}},
			actual:  map[string]any{"metadata": map[string]any{"annotations": map[string]any{}}},
			want:    []string{"metadata.annotations.b", "metadata.annotations[example.com/x]"},
		},
		"NullAgainstObject": {
			reason:  "An object present on one side only (null on the other) is the changed field itself.",
			desired: map[string]any{"spec": map[string]any{"a": "1"}}, actual: map[string]any{"spec": nil},
			want: []string{"spec"},
		},
		"KeysWithSpecialCharactersEach": {
			reason:  "Keys are written so that fieldpath reads them back.",
			desired: map[string]any{"a": map[string]any{"example.com/x": "1", "a[0]": "1", "'q'": "1", `back\slash`: "1", "x": "1"}},
			actual:  map[string]any{"a": map[string]any{"x": "1"}},
			want:    []string{"a.'q'", `a[a\[0\]]`, "a.back\\slash", "a[example.com/x]"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { checkDiff(t, tc) })
	}
}

func TestDiffProto(t *testing.T) {
	base := func() *testpb.Cluster {
		return &testpb.Cluster{
			Name:        "c1",
			Description: "orders",
			Labels:      map[string]string{"team": "data"},
			NodePools:   []*testpb.NodePool{{Name: "a", Size: 1}, {Name: "b", Size: 2}},
			Network:     &testpb.Cluster_Vpc{Vpc: "default"},
			Zones:       map[int32]string{1: "a"},
			CreateTime:  timestamppb.New(time.Unix(100, 0)),
			Settings: &structpb.Struct{Fields: map[string]*structpb.Value{
				"team":  structpb.NewStringValue("data"),
				"quota": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"cpu": structpb.NewNumberValue(4)}}),
				"zones": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("a")}}),
			}},
		}
	}
	with := func(f func(c *testpb.Cluster)) *testpb.Cluster {
		c := base()
		f(c)
		return c
	}
	jsonNames := fielddiff.ProtoJSONNames()

	cases := map[string]diffCase{
		"Equal": {
			reason:  "Equal messages have no changed field.",
			desired: base(), actual: base(),
		},
		"FieldNumberOrder": {
			reason:  "Fields come in field number order: name (1) before description (2), though declared after it.",
			desired: with(func(c *testpb.Cluster) { c.Name = "c2"; c.Description = "new" }), actual: base(),
			want: []string{"name", "description"},
		},
		"ProtoNames": {
			reason:  "Proto field names by default.",
			desired: with(func(c *testpb.Cluster) { c.NodePools[1].Size = 5 }), actual: base(), opts: []fielddiff.Option{fielddiff.Prefix("spec")},
			want: []string{"spec.node_pools[1].size"},
		},
		"JSONNames": {
			reason:  "JSON names with ProtoJSONNames.",
			desired: with(func(c *testpb.Cluster) { c.NodePools[1].Size = 5 }), actual: base(), opts: []fielddiff.Option{fielddiff.Prefix("spec"), jsonNames},
			want: []string{"spec.nodePools[1].size"},
		},
		"MapKeys": {
			reason:  "Map keys in sorted order; integer keys by value.",
			desired: with(func(c *testpb.Cluster) { c.Labels["owner"] = "me"; c.Zones = map[int32]string{10: "x", 2: "y"} }), actual: base(),
			want: []string{"labels[owner]", "zones['1']", "zones['2']", "zones['10']"},
		},
		"OptionalUnsetAgainstZero": {
			reason:  "An optional field set to zero differs from an unset one.",
			desired: with(func(c *testpb.Cluster) { c.Replicas = proto.Int32(0) }), actual: base(),
			want: []string{"replicas"},
		},
		"OptionalNilEqualsEmpty": {
			reason:  "NilEqualsEmpty: unset equals zero, and an unset message an empty one.",
			desired: with(func(c *testpb.Cluster) { c.Replicas = proto.Int32(0); c.DefaultPool = &testpb.NodePool{} }), actual: base(),
			opts: []fielddiff.Option{fielddiff.NilEqualsEmpty()},
		},
		"MessageUnsetAgainstEmpty": {
			reason:  "Without the option, an empty message differs from an unset one.",
			desired: with(func(c *testpb.Cluster) { c.DefaultPool = &testpb.NodePool{} }), actual: base(),
			want: []string{"default_pool"},
		},
		"Oneof": {
			reason:  "Switching a oneof changes both fields.",
			desired: with(func(c *testpb.Cluster) { c.Network = &testpb.Cluster_Subnet{Subnet: "s"} }), actual: base(),
			want: []string{"vpc", "subnet"},
		},
		"Timestamp": {
			reason:  "A Timestamp is one value.",
			desired: with(func(c *testpb.Cluster) { c.CreateTime = timestamppb.New(time.Unix(101, 0)) }), actual: base(), opts: []fielddiff.Option{jsonNames},
			want: []string{"createTime"},
		},
		"WrappersAndDuration": {
			reason:  "Wrappers and Durations are values; an unset one differs from a zero one.",
			desired: with(func(c *testpb.Cluster) { c.MaxSize = wrapperspb.Int64(0); c.Timeout = durationpb.New(time.Second) }), actual: base(),
			want: []string{"max_size", "timeout"},
		},
		"Struct": {
			reason: "A Struct's keys are fields of the path, as in its JSON.",
			desired: with(func(c *testpb.Cluster) {
				c.Settings.Fields["team"] = structpb.NewStringValue("ml")
				c.Settings.Fields["quota"].GetStructValue().Fields["cpu"] = structpb.NewNumberValue(8)
				c.Settings.Fields["zones"].GetListValue().Values = append(c.Settings.Fields["zones"].GetListValue().Values, structpb.NewStringValue("b"))
			}),
			actual: base(),
			want:   []string{"settings.quota.cpu", "settings.team", "settings.zones[1]"},
		},
		"ValueKinds": {
			reason: "A Value of another kind differs; null equals an unset kind.",
			desired: with(func(c *testpb.Cluster) {
				c.Extra = structpb.NewNullValue()
				c.Settings.Fields["team"] = structpb.NewNumberValue(1)
			}),
			actual: with(func(c *testpb.Cluster) { c.Extra = &structpb.Value{} }),
			want:   []string{"settings.team"},
		},
		"ScalarsBytesEnum": {
			reason: "Bytes, doubles, enums and repeated scalars.",
			desired: with(func(c *testpb.Cluster) {
				c.Tags = []string{"a", "b"}
				c.Blob = []byte{1}
				c.Ratio = 0.5
				c.Tier = testpb.Tier_TIER_PREMIUM
			}),
			actual: with(func(c *testpb.Cluster) { c.Tags = []string{"a", "c"} }),
			want:   []string{"tags[1]", "blob", "ratio", "tier"},
		},
		"ListEmptyOnOneSide": {
			reason:  "A repeated field has no null: its elements are compared.",
			desired: with(func(c *testpb.Cluster) { c.NodePools = nil }), actual: base(),
			want: []string{"node_pools[0]", "node_pools[1]"},
		},
		"IgnoreOutputOnly": {
			reason:  "Output-only fields are ignored by path.",
			desired: with(func(c *testpb.Cluster) { c.CreateTime = nil; c.NodePools[0].Labels = map[string]string{"x": "y"} }), actual: base(),
			opts: []fielddiff.Option{jsonNames, fielddiff.Prefix("spec"), fielddiff.IgnorePaths("spec.createTime", "spec.nodePools[*].labels")},
		},
		"DescriptorMessages": {
			reason:  "descriptor.proto's messages are in package google.protobuf but are not well-known values: they are compared field by field.",
			desired: &descriptorpb.FieldDescriptorProto{Name: proto.String("field1"), Options: &descriptorpb.FieldOptions{Deprecated: proto.Bool(false)}},
			actual:  &descriptorpb.FieldDescriptorProto{Name: proto.String("field2"), Options: &descriptorpb.FieldOptions{Deprecated: proto.Bool(true)}},
			want:    []string{"name", "options.deprecated"},
		},
		"DescriptorList": {
			reason:  "A list of descriptor messages is compared element by element.",
			desired: &descriptorpb.DescriptorProto{Field: []*descriptorpb.FieldDescriptorProto{{Name: proto.String("a"), Number: proto.Int32(1)}}},
			actual:  &descriptorpb.DescriptorProto{Field: []*descriptorpb.FieldDescriptorProto{{Name: proto.String("a"), Number: proto.Int32(2)}}},
			opts:    []fielddiff.Option{jsonNames},
			want:    []string{"field[0].number"},
		},
		"FieldMask": {
			reason:  "A FieldMask is one value, as in its JSON.",
			desired: &fieldmaskpb.FieldMask{Paths: []string{"a", "b"}}, actual: &fieldmaskpb.FieldMask{Paths: []string{"a", "c"}}, opts: []fielddiff.Option{fielddiff.Prefix("spec.mask")},
			want: []string{"spec.mask"},
		},
		"Any": {
			reason:  "An Any is one value.",
			desired: &anypb.Any{TypeUrl: "t", Value: []byte{1}}, actual: &anypb.Any{TypeUrl: "t", Value: []byte{2}}, opts: []fielddiff.Option{fielddiff.Prefix("spec.extra")},
			want: []string{"spec.extra"},
		},
		"NilMessages": {
			reason:  "Two nil messages are equal.",
			desired: (*testpb.Cluster)(nil), actual: (*testpb.Cluster)(nil),
		},
		"NilAgainstMessage": {
			reason:  "A nil message against a set one is a change of the whole.",
			desired: (*testpb.Cluster)(nil), actual: base(), opts: []fielddiff.Option{fielddiff.Prefix("spec")},
			want: []string{"spec"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { checkDiff(t, tc) })
	}
}

type withFunc struct {
	Name string `json:"name"`
	Hook func() `json:"hook"`
}

type node struct {
	Name string `json:"name"`
	Next *node  `json:"next"`
}

func TestDiffErrors(t *testing.T) {
	cyclicMap := func() map[string]any {
		m := map[string]any{"name": "x"}
		m["self"] = m
		return m
	}
	cyclicNode := func(name string) *node {
		n := &node{Name: name}
		n.Next = n
		return n
	}
	cases := map[string]diffCase{
		"StructAgainstMap": {
			reason:  "Desired and actual must have the same type.",
			desired: spec{}, actual: map[string]any{},
			wantErr: fielddiff.ErrTypeMismatch,
		},
		"DifferentStructs": {
			reason:  "Two struct types differ even with the same fields.",
			desired: nodePool{}, actual: location{},
			wantErr: fielddiff.ErrTypeMismatch,
		},
		"DifferentMessages": {
			reason:  "Two message types differ.",
			desired: &testpb.Cluster{}, actual: &testpb.NodePool{},
			wantErr: fielddiff.ErrTypeMismatch,
		},
		"NilAgainstValue": {
			reason:  "An untyped nil has no type to compare.",
			desired: nil, actual: map[string]any{},
			wantErr: fielddiff.ErrTypeMismatch,
		},
		"Func": {
			reason:  "A function field cannot be compared, even when both are nil.",
			desired: withFunc{Name: "a"}, actual: withFunc{Name: "a"},
			wantErr: fielddiff.ErrUnsupported,
		},
		"ChanInMap": {
			reason:  "A channel in unstructured content cannot be compared.",
			desired: map[string]any{"c": make(chan int)}, actual: map[string]any{"c": make(chan int)},
			wantErr: fielddiff.ErrUnsupported,
		},
		"ChanAgainstString": {
			reason:  "Nor against a value of another type.",
			desired: map[string]any{"c": "x"}, actual: map[string]any{"c": make(chan int)},
			wantErr: fielddiff.ErrUnsupported,
		},
		"Complex": {
			reason:  "JSON has no complex numbers.",
			desired: map[string]any{"c": 1i}, actual: map[string]any{"c": 2i},
			wantErr: fielddiff.ErrUnsupported,
		},
		"NilInterfaceKey": {
			reason:  "A nil interface map key has no text to name it by.",
			desired: map[encoding.TextMarshaler]string{nil: "a"}, actual: map[encoding.TextMarshaler]string{nil: "b"},
			wantErr: fielddiff.ErrUnsupported,
		},
		"CyclicMaps": {
			reason:  "Maps that contain themselves are a cycle, not an endless walk.",
			desired: cyclicMap(), actual: cyclicMap(),
			wantErr: fielddiff.ErrCycle,
		},
		"CyclicPointers": {
			reason:  "Pointers that loop are a cycle.",
			desired: cyclicNode("a"), actual: cyclicNode("a"),
			wantErr: fielddiff.ErrCycle,
		},
		"InvalidIgnorePath": {
			reason:  "An ignore path that does not parse is an error.",
			desired: map[string]any{}, actual: map[string]any{}, opts: []fielddiff.Option{fielddiff.IgnorePaths("spec..x")},
			wantErr: fieldpath.ErrInvalidPath,
		},
		"InvalidPrefix": {
			reason:  "A prefix that does not parse is an error.",
			desired: map[string]any{}, actual: map[string]any{}, opts: []fielddiff.Option{fielddiff.Prefix("spec[")},
			wantErr: fieldpath.ErrInvalidPath,
		},
		"WildcardPrefix": {
			reason:  "A prefix names one place: no wildcards.",
			desired: map[string]any{}, actual: map[string]any{}, opts: []fielddiff.Option{fielddiff.Prefix("spec[*]")},
			wantErr: fieldpath.ErrInvalidPath,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { checkDiff(t, tc) })
	}
}

// TestFirstChangedFieldStops shows that FirstChangedField does not look past
// the first change: a value it could not compare, after it, is never reached,
// while ChangedFields, which must look at everything, reaches it.
func TestFirstChangedFieldStops(t *testing.T) {
	desired := map[string]any{"a": "1", "z": make(chan int)}
	actual := map[string]any{"a": "2", "z": make(chan int)}

	path, changed, err := fielddiff.FirstChangedField(desired, actual)
	require.NoError(t, err)
	if path != "a" || !changed {
		t.Errorf("FirstChangedField: want %q, true; got %q, %t", "a", path, changed)
	}
	if _, err := fielddiff.ChangedFields(desired, actual); !errors.Is(err, fielddiff.ErrUnsupported) {
		t.Errorf("ChangedFields: want an error wrapping ErrUnsupported, got %v", err)
	}
}

func TestDiffErrorNamesPath(t *testing.T) {
	_, err := fielddiff.ChangedFields(withFunc{}, withFunc{}, fielddiff.Prefix("spec"))
	require.Error(t, err)
	want := "cannot diff spec.hook: func(): unsupported value"
	if err.Error() != want {
		t.Errorf("error: want %q, got %q", want, err.Error())
	}
}
