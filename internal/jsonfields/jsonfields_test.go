package jsonfields

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

type Inner struct {
	A string `json:"a"`
}

// notProto has a ProtoReflect method that does not return a
// protoreflect.Message, so it is no protobuf message.
type notProto struct {
	B string `json:"b"`
}

func (*notProto) ProtoReflect() int { return 0 }

type NotProto = notProto

type outer struct {
	Inner
	*structpb.Struct
	*NotProto
	C string `json:"c,omitempty"`
}

// TestOfEmbedded checks that embedded structs are flattened into their
// parent, except a protobuf message, which encoding/json encodes as one
// field named by its type.
func TestOfEmbedded(t *testing.T) {
	got := Of(reflect.TypeFor[outer]())
	want := []Field{
		{Index: 0, Inline: true, Sub: []Field{{Index: 0, Name: "a"}}},
		{Index: 1, Name: "Struct"},
		{Index: 2, Inline: true, Sub: []Field{{Index: 0, Name: "b"}}},
		{Index: 3, Name: "c", OmitEmpty: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Of(outer) (-want, +got):\n%s", diff)
	}
	for name, tc := range map[string]struct {
		t    reflect.Type
		want bool
	}{
		"generated message":      {reflect.TypeFor[*structpb.Struct](), true},
		"message value":          {reflect.TypeFor[structpb.Struct](), false}, // the method has a pointer receiver
		"other ProtoReflect":     {reflect.TypeFor[*notProto](), false},
		"no ProtoReflect at all": {reflect.TypeFor[*Inner](), false},
	} {
		if got := isProtoMessage(tc.t); got != tc.want {
			t.Errorf("%s: isProtoMessage(%s) = %t, want %t", name, tc.t, got, tc.want)
		}
		if implements := tc.t.Implements(reflect.TypeFor[proto.Message]()); implements != tc.want {
			t.Errorf("%s: %s implements proto.Message: %t, the test wants %t", name, tc.t, implements, tc.want)
		}
	}
	if ft, ok := Lookup(reflect.TypeFor[outer](), "b"); !ok || ft != reflect.TypeFor[string]() {
		t.Errorf("Lookup(outer, b) = %v, %t; want string, true", ft, ok)
	}
}
