package fielddiff_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/fielddiff/internal/testpb"
	"github.com/ctrlkit/ctrlkit/fieldpath"
)

func TestUpdateMask(t *testing.T) {
	md := (&testpb.Cluster{}).ProtoReflect().Descriptor()
	cases := map[string]struct {
		reason string
		paths  []string
		opts   []fielddiff.MaskOption
		want   []string
		err    error
	}{
		"TopLevel": {
			reason: "By default each path gives its top-level field's proto name, once, in the order of the paths.",
			paths:  []string{"labels[team]", "node_pools[1].size", "labels[env]", "description"},
			want:   []string{"labels", "node_pools", "description"},
		},
		"JSONNamesIn": {
			reason: "Paths diffed with ProtoJSONNames name fields by their JSON names.",
			paths:  []string{"nodePools[0].name", "defaultPool.size", "createTime"},
			want:   []string{"node_pools", "default_pool", "create_time"},
		},
		"JSONNamesOut": {
			reason: "MaskJSONNames writes JSON names.",
			paths:  []string{"node_pools[0].name", "max_size"},
			opts:   []fielddiff.MaskOption{fielddiff.MaskJSONNames()},
			want:   []string{"nodePools", "maxSize"},
		},
		"Prefix": {
			reason: "MaskPrefix takes the diff's prefix off.",
			paths:  []string{"spec.forProvider.labels[team]", "spec.forProvider.ratio"},
			opts:   []fielddiff.MaskOption{fielddiff.MaskPrefix("spec.forProvider")},
			want:   []string{"labels", "ratio"},
		},
		"FullPaths": {
			reason: "FullPaths follows nested messages and stops at maps, lists and well-known types.",
			paths:  []string{"default_pool.size", "default_pool.labels[a]", "node_pools[2].size", "create_time", "settings[x]", "default_pool.parent.description"},
			opts:   []fielddiff.MaskOption{fielddiff.FullPaths()},
			want:   []string{"default_pool.size", "default_pool.labels", "node_pools", "create_time", "settings", "default_pool.parent.description"},
		},
		"WholeValue": {
			reason: "The prefix itself (the whole value changed) names every field.",
			paths:  []string{"spec"},
			opts:   []fielddiff.MaskOption{fielddiff.MaskPrefix("spec")},
			want:   []string{"description", "name", "labels", "node_pools", "replicas", "create_time", "settings", "vpc", "subnet", "default_pool", "zones", "tags", "max_size", "blob", "ratio", "tier", "timeout", "extra"},
		},
		"UnknownField": {
			reason: "A path that names no field of the message is an error.",
			paths:  []string{"colour"},
			err:    fielddiff.ErrTypeMismatch,
		},
		"OutsidePrefix": {
			reason: "A path outside the prefix is an error.",
			paths:  []string{"status.phase"},
			opts:   []fielddiff.MaskOption{fielddiff.MaskPrefix("spec")},
			err:    fielddiff.ErrTypeMismatch,
		},
		"Empty": {
			reason: "No change, no mask.",
			want:   []string{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := fielddiff.UpdateMask(md, tc.paths, tc.opts...)
			if !errors.Is(err, tc.err) {
				t.Fatalf("%s\nUpdateMask(%q): error %v, want %v", tc.reason, tc.paths, err, tc.err)
			}
			if tc.err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nUpdateMask(%q): -want, +got:\n%s", tc.reason, tc.paths, diff)
			}
		})
	}
}

// FuzzUpdateMask builds masks from random paths: nothing panics, an error
// wraps a sentinel, and every entry names a field of the message.
func FuzzUpdateMask(f *testing.F) {
	for _, p := range []string{"spec.labels[team]", "spec.nodePools[0].size", "spec", "spec.defaultPool.parent.defaultPool.size", "spec.settings[a.b]", "x", "spec[0]", ""} {
		f.Add(p, true, false)
	}
	md := (&testpb.Cluster{}).ProtoReflect().Descriptor()
	f.Fuzz(func(t *testing.T, path string, full, json bool) {
		opts := []fielddiff.MaskOption{fielddiff.MaskPrefix("spec")}
		if full {
			opts = append(opts, fielddiff.FullPaths())
		}
		if json {
			opts = append(opts, fielddiff.MaskJSONNames())
		}
		mask, err := fielddiff.UpdateMask(md, []string{path}, opts...)
		if err != nil {
			if !errors.Is(err, fielddiff.ErrTypeMismatch) && !errors.Is(err, fieldpath.ErrInvalidPath) {
				t.Fatalf("UpdateMask(%q): error %v wraps no sentinel", path, err)
			}
			return
		}
		for _, entry := range mask {
			first, _, _ := strings.Cut(entry, ".")
			if md.Fields().ByName(protoreflect.Name(first)) == nil && md.Fields().ByJSONName(first) == nil {
				t.Fatalf("UpdateMask(%q) = %q: %q is not a field of %s", path, mask, first, md.FullName())
			}
		}
	})
}
