package fielddiff

import (
	"errors"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// ErrImmutableField: a field annotated google.api.field_behavior IMMUTABLE,
// or a field inside one, differs. The error names the first such path:
// "change to immutable field spec.location".
var ErrImmutableField = errors.New("change to immutable field")

// google.api.field_behavior is extension 1052 of google.protobuf.FieldOptions,
// a repeated enum; these are the values the diff acts on. The annotation is
// read from the options' encoding, so the diff needs no generated code of
// google/api/field_behavior.proto: a message built with or without it (as a
// known extension or as unknown fields) reads the same.
const fieldBehaviorNumber protowire.Number = 1052

const (
	behaviorOutputOnly = 3
	behaviorImmutable  = 5
)

// A fieldInfo is a protobuf field with what its options say.
type fieldInfo struct {
	fd protoreflect.FieldDescriptor
	// outputOnly: OUTPUT_ONLY, which the diff leaves out.
	outputOnly bool
	// immutable: IMMUTABLE, a change to which is an error.
	immutable bool
	// redact: the option debug_redact, whose values a Change redacts.
	redact bool
	// marked: immutable or redact.
	marked bool
}

var fieldInfoCache sync.Map // protoreflect.MessageDescriptor -> []fieldInfo

// fieldInfos returns md's fields in field number order with their
// behaviours, read once per message type.
func fieldInfos(md protoreflect.MessageDescriptor) []fieldInfo {
	if v, ok := fieldInfoCache.Load(md); ok {
		return v.([]fieldInfo)
	}
	fds := fieldsByNumber(md)
	infos := make([]fieldInfo, len(fds))
	for i, fd := range fds {
		fi := fieldInfo{fd: fd}
		if opts, ok := fd.Options().(*descriptorpb.FieldOptions); ok && opts != nil {
			fi.outputOnly, fi.immutable = behaviors(opts)
			fi.redact = opts.GetDebugRedact()
		}
		fi.marked = fi.immutable || fi.redact
		infos[i] = fi
	}
	v, _ := fieldInfoCache.LoadOrStore(md, infos)
	return v.([]fieldInfo)
}

var outputOnlyCache sync.Map // protoreflect.MessageDescriptor -> []bool by field index, nil when none

// outputOnlyField reports whether fd is annotated OUTPUT_ONLY.
func outputOnlyField(fd protoreflect.FieldDescriptor) bool {
	md := fd.ContainingMessage()
	if md == nil || fd.IsExtension() {
		return false
	}
	v, ok := outputOnlyCache.Load(md)
	if !ok {
		var byIndex []bool
		for _, fi := range fieldInfos(md) {
			if fi.outputOnly {
				if byIndex == nil {
					byIndex = make([]bool, md.Fields().Len())
				}
				byIndex[fi.fd.Index()] = true
			}
		}
		v, _ = outputOnlyCache.LoadOrStore(md, byIndex)
	}
	byIndex := v.([]bool)
	return byIndex != nil && byIndex[fd.Index()]
}

// behaviors reads google.api.field_behavior from a field's options.
func behaviors(opts *descriptorpb.FieldOptions) (outputOnly, immutable bool) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(opts)
	if err != nil {
		return false, false
	}
	note := func(v uint64) {
		switch v {
		case behaviorOutputOnly:
			outputOnly = true
		case behaviorImmutable:
			immutable = true
		}
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return outputOnly, immutable
		}
		b = b[n:]
		switch {
		case num == fieldBehaviorNumber && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return outputOnly, immutable
			}
			note(v)
			b = b[n:]
		case num == fieldBehaviorNumber && typ == protowire.BytesType:
			packed, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return outputOnly, immutable
			}
			for len(packed) > 0 {
				v, m := protowire.ConsumeVarint(packed)
				if m < 0 {
					break
				}
				note(v)
				packed = packed[m:]
			}
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return outputOnly, immutable
			}
			b = b[n:]
		}
	}
	return outputOnly, immutable
}

// markedField compares field fi of a and b, counting it immutable or
// sensitive for the changes found below it.
func (d *differ) markedField(fi fieldInfo, a, b protoreflect.Message) {
	if fi.immutable {
		d.immutable++
	}
	if fi.redact {
		d.sensitive++
	}
	d.field(fi.fd, a, b)
	if fi.immutable {
		d.immutable--
	}
	if fi.redact {
		d.sensitive--
	}
}

var (
	sensitiveCache sync.Map // protoreflect.MessageDescriptor -> bool
	messageHolders sync.Map // reflect.Type -> bool
)

// sensitiveBelow reports whether messages of type md have a field with
// debug_redact, at any depth.
func sensitiveBelow(md protoreflect.MessageDescriptor) bool {
	if v, ok := sensitiveCache.Load(md); ok {
		return v.(bool)
	}
	s := sensitiveBelowOf(md, map[protoreflect.FullName]bool{})
	sensitiveCache.Store(md, s)
	return s
}

func sensitiveBelowOf(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	for _, fi := range fieldInfos(md) {
		if fi.redact {
			return true
		}
		fd := fi.fd
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if m := fd.Message(); m != nil && sensitiveBelowOf(m, seen) {
			return true
		}
	}
	return false
}
