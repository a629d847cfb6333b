package fielddiff

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

// FuzzBehaviors reads field_behavior from any encoding of a field's options:
// it never panics, and a value it reports is one the encoding holds.
func FuzzBehaviors(f *testing.F) {
	f.Add(protowire.AppendVarint(protowire.AppendTag(nil, fieldBehaviorNumber, protowire.VarintType), behaviorImmutable))
	f.Add(protowire.AppendBytes(protowire.AppendTag(nil, fieldBehaviorNumber, protowire.BytesType), []byte{behaviorOutputOnly, 200, 1, behaviorImmutable}))
	f.Add(protowire.AppendBytes(protowire.AppendTag(nil, fieldBehaviorNumber, protowire.BytesType), []byte{0x80}))
	f.Add([]byte{0xe0, 0x41}) // the tag alone
	f.Fuzz(func(t *testing.T, raw []byte) {
		opts := &descriptorpb.FieldOptions{}
		if proto.Unmarshal(raw, opts) != nil {
			return
		}
		outputOnly, immutable := behaviors(opts)
		// What behaviors reports must be in the options' own encoding.
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(opts)
		if err != nil {
			return
		}
		seen := map[uint64]bool{}
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				break
			}
			b = b[n:]
			if num == fieldBehaviorNumber && typ == protowire.VarintType {
				v, m := protowire.ConsumeVarint(b)
				if m >= 0 {
					seen[v] = true
				}
			}
			if num == fieldBehaviorNumber && typ == protowire.BytesType {
				p, m := protowire.ConsumeBytes(b)
				for m >= 0 && len(p) > 0 {
					v, k := protowire.ConsumeVarint(p)
					if k < 0 {
						break
					}
					seen[v] = true
					p = p[k:]
				}
			}
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				break
			}
			b = b[m:]
		}
		if outputOnly && !seen[behaviorOutputOnly] || immutable && !seen[behaviorImmutable] {
			t.Fatalf("behaviors(%x) = %t, %t; the encoding holds %v", raw, outputOnly, immutable, seen)
		}
	})
}
