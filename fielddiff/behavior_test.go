package fielddiff_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/ctrlkit/ctrlkit/fielddiff"
)

// The values of google.api.FieldBehavior the tests use.
const (
	outputOnly = 3
	immutable  = 5
)

// behaviorFile builds google/api/field_behavior.proto's extension
// (google.api.field_behavior, a repeated enum, number 1052 of FieldOptions)
// as a descriptor, so that a test can set it as a known extension.
func behaviorFile(t *testing.T) protoreflect.ExtensionType {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("google/api/field_behavior.proto"),
		Package:    proto.String("google.api"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{"google/protobuf/descriptor.proto"},
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: proto.String("FieldBehavior"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: proto.String("FIELD_BEHAVIOR_UNSPECIFIED"), Number: proto.Int32(0)},
				{Name: proto.String("OPTIONAL"), Number: proto.Int32(1)},
				{Name: proto.String("REQUIRED"), Number: proto.Int32(2)},
				{Name: proto.String("OUTPUT_ONLY"), Number: proto.Int32(outputOnly)},
				{Name: proto.String("INPUT_ONLY"), Number: proto.Int32(4)},
				{Name: proto.String("IMMUTABLE"), Number: proto.Int32(immutable)},
			},
		}},
		Extension: []*descriptorpb.FieldDescriptorProto{{
			Name:     proto.String("field_behavior"),
			Number:   proto.Int32(1052),
			Label:    descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(),
			Type:     descriptorpb.FieldDescriptorProto_TYPE_ENUM.Enum(),
			TypeName: proto.String(".google.api.FieldBehavior"),
			Extendee: proto.String(".google.protobuf.FieldOptions"),
		}},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return dynamicpb.NewExtensionType(fd.Extensions().Get(0))
}

// An annotate sets field behaviours on a field's options.
type annotate func(t *testing.T, opts *descriptorpb.FieldOptions, behaviors ...protoreflect.EnumNumber)

// asUnknown writes the annotation as the options' unknown fields, as they
// are when google/api/field_behavior.proto's Go package is not linked: one
// varint per value, unpacked.
func asUnknown(_ *testing.T, opts *descriptorpb.FieldOptions, behaviors ...protoreflect.EnumNumber) {
	var b []byte
	for _, v := range behaviors {
		b = protowire.AppendTag(b, 1052, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(v))
	}
	opts.ProtoReflect().SetUnknown(b)
}

// asExtension sets the annotation as a known extension, as it is when the
// generated code of field_behavior.proto is linked.
func asExtension(xt protoreflect.ExtensionType) annotate {
	return func(_ *testing.T, opts *descriptorpb.FieldOptions, behaviors ...protoreflect.EnumNumber) {
		m := opts.ProtoReflect()
		l := m.NewField(xt.TypeDescriptor()).List()
		for _, v := range behaviors {
			l.Append(protoreflect.ValueOfEnum(v))
		}
		m.Set(xt.TypeDescriptor(), protoreflect.ValueOfList(l))
	}
}

// instanceType builds, with protodesc, a cloud resource whose fields carry
// field behaviours and debug_redact:
//
//	message Instance {
//	  string name = 1;
//	  string location = 2 [(google.api.field_behavior) = IMMUTABLE];
//	  string state = 3 [(google.api.field_behavior) = OUTPUT_ONLY];
//	  string password = 4 [debug_redact = true];
//	  Config config = 5 [(google.api.field_behavior) = IMMUTABLE];
//	  Config settings = 6;
//	  string create_time = 7 [(google.api.field_behavior) = OUTPUT_ONLY, (google.api.field_behavior) = IMMUTABLE];
//	}
//	message Config {
//	  string zone = 1;
//	  string etag = 2 [(google.api.field_behavior) = OUTPUT_ONLY];
//	  string key = 3 [debug_redact = true];
//	}
func instanceType(t *testing.T, set annotate) protoreflect.MessageDescriptor {
	t.Helper()
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	msg := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
	field := func(name string, n int32, typ *descriptorpb.FieldDescriptorProto_Type, typeName string, behaviors ...protoreflect.EnumNumber) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{
			Name: proto.String(name), JsonName: proto.String(jsonName(name)), Number: proto.Int32(n),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: typ,
		}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		if len(behaviors) > 0 {
			f.Options = &descriptorpb.FieldOptions{}
			set(t, f.Options, behaviors...)
		}
		return f
	}
	redacted := func(f *descriptorpb.FieldDescriptorProto) *descriptorpb.FieldDescriptorProto {
		f.Options = &descriptorpb.FieldOptions{DebugRedact: proto.Bool(true)}
		return f
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("behavior_test.proto"),
		Package: proto.String("fielddiff.behavior"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("Instance"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("name", 1, str, ""),
				field("location", 2, str, "", immutable),
				field("state", 3, str, "", outputOnly),
				redacted(field("password", 4, str, "")),
				field("config", 5, msg, ".fielddiff.behavior.Config", immutable),
				field("settings", 6, msg, ".fielddiff.behavior.Config"),
				field("create_time", 7, str, "", outputOnly, immutable),
			},
		}, {
			Name: proto.String("Config"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("zone", 1, str, ""),
				field("etag", 2, str, "", outputOnly),
				redacted(field("key", 3, str, "")),
			},
		}},
	}
	fd, err := protodesc.NewFile(fdp, new(protoregistry.Files))
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("Instance")
}

func jsonName(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

// instance makes an Instance with the given string fields set ("config.zone"
// sets a field of config).
func instance(md protoreflect.MessageDescriptor, fields map[string]string) proto.Message {
	m := dynamicpb.NewMessage(md)
	for path, v := range fields {
		target := protoreflect.Message(m)
		name, sub, nested := strings.Cut(path, ".")
		if nested {
			fd := md.Fields().ByName(protoreflect.Name(name))
			target = m.Mutable(fd).Message()
			name = sub
		}
		target.Set(target.Descriptor().Fields().ByName(protoreflect.Name(name)), protoreflect.ValueOfString(v))
	}
	return m
}

func TestFieldBehavior(t *testing.T) {
	annotations := map[string]annotate{"Unknown": asUnknown, "Extension": asExtension(behaviorFile(t))}
	cases := map[string]struct {
		reason          string
		desired, actual map[string]string
		// want are ChangedFields' paths; immutable the path that
		// ErrImmutableField names, if any.
		want           []string
		immutable      string
		nilEqualsEmpty bool
	}{
		"OutputOnlySkipped": {
			reason:  "OUTPUT_ONLY fields are the server's: a difference there is no change, without IgnorePaths.",
			desired: map[string]string{"name": "a", "settings.zone": "z"}, actual: map[string]string{"name": "a", "state": "RUNNING", "settings.zone": "z", "settings.etag": "x"},
		},
		"OutputOnlyOnlyPresence": {
			reason:  "A message on one side only is a change even if it holds only OUTPUT_ONLY fields (without NilEqualsEmpty, absent is not empty).",
			desired: map[string]string{}, actual: map[string]string{"settings.etag": "x"},
			want: []string{"spec.settings"},
		},
		"OutputOnlyOnlyNilEqualsEmpty": {
			reason:  "Under NilEqualsEmpty, a message holding only OUTPUT_ONLY fields is empty, so equal to an absent one.",
			desired: map[string]string{}, actual: map[string]string{"settings.etag": "x"},
			nilEqualsEmpty: true,
		},
		"OutputOnlyBesideChange": {
			reason:  "Only the other fields are reported.",
			desired: map[string]string{"name": "b"}, actual: map[string]string{"name": "a", "state": "RUNNING"},
			want: []string{"spec.name"},
		},
		"OutputOnlyWinsOverImmutable": {
			reason:  "A field both OUTPUT_ONLY and IMMUTABLE is the server's: left out, no error.",
			desired: map[string]string{}, actual: map[string]string{"create_time": "2026"},
		},
		"Immutable": {
			reason:  "A change to an IMMUTABLE field is reported as such, with the path, so a controller can refuse it.",
			desired: map[string]string{"location": "us-east1"}, actual: map[string]string{"location": "us-west1"},
			want:      []string{"spec.location"},
			immutable: "spec.location",
		},
		"ImmutableMessage": {
			reason:  "A change inside an IMMUTABLE message field is a change to it.",
			desired: map[string]string{"config.zone": "a"}, actual: map[string]string{"config.zone": "b"},
			want:      []string{"spec.config.zone"},
			immutable: "spec.config.zone",
		},
		"ImmutableOutputOnlyInside": {
			reason:  "An OUTPUT_ONLY field inside an IMMUTABLE message is still left out.",
			desired: map[string]string{"config.zone": "a"}, actual: map[string]string{"config.zone": "a", "config.etag": "x"},
		},
		"ImmutableAfterAnother": {
			reason:  "ChangedFields checks every change: the immutable one need not be first.",
			desired: map[string]string{"name": "b", "location": "x"}, actual: map[string]string{"name": "a", "location": "y"},
			want:      []string{"spec.name", "spec.location"},
			immutable: "spec.location",
		},
		"MutableNotImmutable": {
			reason:  "The same message type under a field that is not IMMUTABLE is mutable.",
			desired: map[string]string{"settings.zone": "a"}, actual: map[string]string{"settings.zone": "b"},
			want: []string{"spec.settings.zone"},
		},
	}
	for aname, set := range annotations {
		md := instanceType(t, set)
		for name, tc := range cases {
			t.Run(aname+"/"+name, func(t *testing.T) {
				desired, actual := instance(md, tc.desired), instance(md, tc.actual)
				opts := []fielddiff.Option{fielddiff.Prefix("spec")}
				if tc.nilEqualsEmpty {
					opts = append(opts, fielddiff.NilEqualsEmpty())
				}
				got, err := fielddiff.ChangedFields(desired, actual, opts...)
				checkImmutable(t, tc.reason, "ChangedFields", err, tc.immutable)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s\nChangedFields: -want, +got:\n%s", tc.reason, diff)
				}
				d, err := fielddiff.Compare(desired, actual, opts...)
				checkImmutable(t, tc.reason, "Compare", err, tc.immutable)
				if len(d.Changes) != len(tc.want) {
					t.Fatalf("Compare: %d changes, want %d", len(d.Changes), len(tc.want))
				}
				for i, c := range d.Changes {
					if c.Path != tc.want[i] || c.Immutable != (c.Path == tc.immutable) {
						t.Errorf("Compare: change %d is %s, immutable %t; want %s, immutable %t", i, c.Path, c.Immutable, tc.want[i], c.Path == tc.immutable)
					}
				}
				first, changed, err := fielddiff.FirstChangedField(desired, actual, opts...)
				wantFirst := ""
				if len(tc.want) > 0 {
					wantFirst = tc.want[0]
				}
				if first != wantFirst || changed != (wantFirst != "") {
					t.Errorf("FirstChangedField: %q, %t; want %q", first, changed, wantFirst)
				}
				if wantFirst != "" && wantFirst == tc.immutable {
					checkImmutable(t, tc.reason, "FirstChangedField", err, tc.immutable)
				} else if err != nil {
					t.Errorf("FirstChangedField: %v", err)
				}
			})
		}
	}
}

func checkImmutable(t *testing.T, reason, fn string, err error, path string) {
	t.Helper()
	switch {
	case path == "" && err != nil:
		t.Errorf("%s\n%s: want no error, got %v", reason, fn, err)
	case path != "" && !errors.Is(err, fielddiff.ErrImmutableField):
		t.Errorf("%s\n%s: want ErrImmutableField, got %v", reason, fn, err)
	case path != "" && err.Error() != "change to immutable field "+path:
		t.Errorf("%s\n%s: want the message %q, got %q", reason, fn, "change to immutable field "+path, err)
	}
}

func TestDebugRedact(t *testing.T) {
	md := instanceType(t, asUnknown)
	cases := map[string]struct {
		reason          string
		desired, actual map[string]string
		want            []fielddiff.Change
	}{
		"Field": {
			reason:  "A debug_redact field's values are redacted without SensitivePaths.",
			desired: map[string]string{"password": "hunter2", "name": "a"}, actual: map[string]string{"password": "swordfish", "name": "b"},
			want: []fielddiff.Change{
				{Path: "name", Old: `"b"`, New: `"a"`},
				{Path: "password", Old: fielddiff.Redacted, New: fielddiff.Redacted, Sensitive: true},
			},
		},
		"Nested": {
			reason:  "A nested debug_redact field too.",
			desired: map[string]string{"settings.key": "hunter2"}, actual: map[string]string{"settings.key": "swordfish"},
			want: []fielddiff.Change{{Path: "settings.key", Old: fielddiff.Redacted, New: fielddiff.Redacted, Sensitive: true}},
		},
		"WholeMessage": {
			reason:  "A message added whole whose type has a debug_redact field is redacted whole.",
			desired: map[string]string{"settings.key": "hunter2", "settings.zone": "z"}, actual: map[string]string{},
			want: []fielddiff.Change{{Path: "settings", New: fielddiff.Redacted, Sensitive: true}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := fielddiff.Compare(instance(md, tc.desired), instance(md, tc.actual))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Changes); diff != "" {
				t.Errorf("%s\nCompare: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
