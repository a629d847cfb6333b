package fielddiff

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// A MaskOption changes the update mask UpdateMask builds: MaskPrefix,
// FullPaths and MaskJSONNames.
type MaskOption interface {
	applyToMask(c *maskConfig)
}

type maskConfig struct {
	prefix    fieldpath.Segments
	fullPaths bool
	jsonNames bool
}

// MaskPrefix is the Prefix the paths were diffed with (Prefix("spec")): it
// is taken off each path before the path is read as the message's fields.
type MaskPrefix string

func (p MaskPrefix) applyToMask(c *maskConfig) {
	c.prefix, _ = fieldpath.Parse(strings.TrimSuffix(string(p), "."))
}

type fullPaths struct{}

func (fullPaths) applyToMask(c *maskConfig) { c.fullPaths = true }

// FullPaths makes each mask entry the whole path of the changed field
// through nested messages (default_pool.size), as field masks allow,
// instead of the top-level field alone. A path still ends at a map, a
// repeated field or a well-known type, which a field mask cannot look into:
// labels, not labels[team].
func FullPaths() MaskOption { return fullPaths{} }

type maskJSONNames struct{}

func (maskJSONNames) applyToMask(c *maskConfig) { c.jsonNames = true }

// MaskJSONNames writes the mask's fields by their JSON names
// (defaultTableExpirationMs), as REST APIs with a updateMask query parameter
// in JSON form take them, instead of their proto names
// (default_table_expiration_ms).
func MaskJSONNames() MaskOption { return maskJSONNames{} }

// UpdateMask turns the paths ChangedFields reported for a protobuf message
// of descriptor md into the update mask a cloud API takes with a partial
// update (Google Cloud's updateMask, a FieldMask's paths): by default the
// proto names of the top-level fields the paths are in, each once, in the
// order of the paths, which is what Config Connector's direct controllers
// send. Path segments may name fields by proto or JSON name (the diff's
// ProtoJSONNames). A path that does not name a field of md is an error
// wrapping ErrTypeMismatch, naming the path; a path equal to the prefix (the
// whole value changed) gives every field of md that paths cannot narrow.
//
//	paths, _ := fielddiff.ChangedFields(desired, actual, fielddiff.Prefix("spec"), fielddiff.ProtoJSONNames())
//	mask, err := fielddiff.UpdateMask(desired.ProtoReflect().Descriptor(), paths, fielddiff.MaskPrefix("spec"))
func UpdateMask(md protoreflect.MessageDescriptor, paths []string, opts ...MaskOption) ([]string, error) {
	var c maskConfig
	for _, o := range opts {
		o.applyToMask(&c)
	}
	mask := make([]string, 0, len(paths))
	add := func(entry string) {
		if !slices.Contains(mask, entry) {
			mask = append(mask, entry)
		}
	}
	for _, p := range paths {
		segs, err := fieldpath.Parse(p)
		if err != nil {
			return nil, fmt.Errorf("cannot build an update mask from %s: %w", p, err)
		}
		if !hasPrefix(segs, c.prefix) {
			return nil, fmt.Errorf("cannot build an update mask from %s: it is not under the prefix %s: %w", p, c.prefix, ErrTypeMismatch)
		}
		segs = segs[len(c.prefix):]
		if len(segs) == 0 {
			fields := md.Fields()
			for i := range fields.Len() {
				add(c.name(fields.Get(i)))
			}
			continue
		}
		entry, err := c.entry(md, segs)
		if err != nil {
			return nil, fmt.Errorf("cannot build an update mask from %s: %w", p, err)
		}
		add(entry)
	}
	return mask, nil
}

// entry is the mask entry of segs, a path from md.
func (c *maskConfig) entry(md protoreflect.MessageDescriptor, segs fieldpath.Segments) (string, error) {
	var b strings.Builder
	for i, s := range segs {
		if s.Type != fieldpath.SegmentField {
			return "", fmt.Errorf("segment %d is not a field of %s: %w", i+1, md.FullName(), ErrTypeMismatch)
		}
		fd := md.Fields().ByName(protoreflect.Name(s.Field))
		if fd == nil {
			fd = md.Fields().ByJSONName(s.Field)
		}
		if fd == nil {
			return "", fmt.Errorf("%s has no field %s: %w", md.FullName(), s.Field, ErrTypeMismatch)
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(c.name(fd))
		if !c.fullPaths || fd.IsList() || fd.IsMap() || fd.Message() == nil || wellKnown(fd.Message()) {
			break
		}
		md = fd.Message()
	}
	return b.String(), nil
}

// wellKnown reports whether md is one of protobuf's well-known types
// (Timestamp, Struct, wrappers...), which a field mask names as one value.
func wellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}

func (c *maskConfig) name(fd protoreflect.FieldDescriptor) string {
	if c.jsonNames {
		return fd.JSONName()
	}
	return string(fd.Name())
}

func hasPrefix(segs, prefix fieldpath.Segments) bool {
	if len(segs) < len(prefix) {
		return false
	}
	for i, s := range prefix {
		if segs[i] != s {
			return false
		}
	}
	return true
}
