package fielddiff_test

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/fielddiff/internal/testpb"
)

func ExampleFirstChangedField() {
	type NodePool struct {
		Name string `json:"name"`
		Size int    `json:"size"`
	}
	type ClusterParameters struct {
		Description string            `json:"description,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
		NodePools   []NodePool        `json:"nodePools,omitempty"`
	}
	desired := ClusterParameters{
		Description: "orders",
		Labels:      map[string]string{"team": "data"},
		NodePools:   []NodePool{{"a", 1}, {"b", 2}, {"c", 5}},
	}
	actual := ClusterParameters{
		Description: "orders",
		Labels:      map[string]string{"team": "web"},
		NodePools:   []NodePool{{"a", 1}, {"b", 2}, {"c", 3}},
	}

	path, changed, err := fielddiff.FirstChangedField(desired, actual, fielddiff.Prefix("spec.forProvider"))
	if err != nil {
		panic(err)
	}
	fmt.Println(path, changed)
	fmt.Println(directstatus.Updating(path).Message)
	// Output:
	// spec.forProvider.labels[team] true
	// Updating resource (first field path: spec.forProvider.labels[team])
}

func ExampleChangedFields() {
	desired := map[string]any{
		"metadata": map[string]any{"name": "orders", "resourceVersion": "7"},
		"spec": map[string]any{
			"description": "orders, by day",
			"nodePools":   []any{map[string]any{"size": int64(3)}, map[string]any{"size": int64(5)}},
		},
	}
	actual := map[string]any{
		"metadata": map[string]any{"name": "orders", "resourceVersion": "9"},
		"spec": map[string]any{
			"description": "orders",
			"nodePools":   []any{map[string]any{"size": 3.0}, map[string]any{"size": 4.0}},
		},
		"status": map[string]any{"phase": "Running"},
	}

	paths, err := fielddiff.ChangedFields(desired, actual, fielddiff.IgnorePaths("metadata", "status"))
	if err != nil {
		panic(err)
	}
	fmt.Println(paths)
	// Output:
	// [spec.description spec.nodePools[1].size]
}

func ExampleFirstChangedField_protobuf() {
	desired := &testpb.Cluster{Description: "orders", NodePools: []*testpb.NodePool{{Name: "a", Size: 3}}}
	actual := &testpb.Cluster{
		Name:        "projects/p/clusters/orders", // output only
		CreateTime:  timestamppb.Now(),            // output only
		Description: "orders",
		NodePools:   []*testpb.NodePool{{Name: "a", Size: 2}},
	}

	path, _, err := fielddiff.FirstChangedField(desired, actual,
		fielddiff.Prefix("spec"), fielddiff.ProtoJSONNames(),
		fielddiff.IgnorePaths("spec.name", "spec.createTime"))
	if err != nil {
		panic(err)
	}
	fmt.Println(path)
	// Output:
	// spec.nodePools[0].size
}

func ExampleUpdateMask() {
	desired := &testpb.Cluster{Description: "orders, v2", Labels: map[string]string{"team": "shop"}, DefaultPool: &testpb.NodePool{Size: 3}}
	actual := &testpb.Cluster{Description: "orders", DefaultPool: &testpb.NodePool{Size: 2}}

	paths, err := fielddiff.ChangedFields(desired, actual, fielddiff.Prefix("spec"), fielddiff.ProtoJSONNames())
	if err != nil {
		panic(err)
	}
	md := desired.ProtoReflect().Descriptor()
	mask, _ := fielddiff.UpdateMask(md, paths, fielddiff.MaskPrefix("spec"))
	nested, _ := fielddiff.UpdateMask(md, paths, fielddiff.MaskPrefix("spec"), fielddiff.FullPaths(), fielddiff.MaskJSONNames())
	fmt.Println(paths)
	fmt.Println(mask)
	fmt.Println(nested)
	// Output:
	// [spec.description spec.labels[team] spec.defaultPool.size]
	// [description labels default_pool]
	// [description labels defaultPool.size]
}

func ExampleCompare() {
	type credentials struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	type spec struct {
		Description string       `json:"description,omitempty"`
		Size        int          `json:"size"`
		Credentials *credentials `json:"credentials,omitempty"`
	}
	desired := spec{Description: "prod", Size: 3, Credentials: &credentials{User: "app", Password: "hunter2"}}
	actual := spec{Description: "dev", Size: 3, Credentials: &credentials{User: "app", Password: "swordfish"}}

	d, err := fielddiff.Compare(desired, actual, fielddiff.Prefix("spec"), fielddiff.SensitivePaths("spec.credentials.password"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range d.Changes {
		fmt.Printf("%s: %s -> %s\n", c.Path, c.Old, c.New)
	}
	// Output:
	// spec.description: "dev" -> "prod"
	// spec.credentials.password: <redacted> -> <redacted>
}

// A protobuf message whose fields carry google.api.field_behavior: the
// fields the server sets (OUTPUT_ONLY) are not differences, and a change to a
// field that cannot change (IMMUTABLE) is an error the controller can report
// before it calls the API.
func ExampleChangedFields_fieldBehavior() {
	desired := &testpb.Bucket{Name: "orders", Location: "EU", StorageClass: "STANDARD"}
	observed := &testpb.Bucket{
		Name: "orders", Location: "EU", StorageClass: "NEARLINE",
		Etag: "CJ3z", CreateTime: timestamppb.Now(), // set by the server
	}
	paths, err := fielddiff.ChangedFields(desired, observed, fielddiff.Prefix("spec"), fielddiff.ProtoJSONNames())
	fmt.Println(paths, err)

	desired.Location = "US"
	_, err = fielddiff.Compare(desired, observed, fielddiff.Prefix("spec"), fielddiff.ProtoJSONNames())
	fmt.Println(errors.Is(err, fielddiff.ErrImmutableField), err)
	// Output:
	// [spec.storageClass] <nil>
	// true change to immutable field spec.location
}
