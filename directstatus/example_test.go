package directstatus_test

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/types/known/timestamppb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/directstatus/internal/testpb"
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

	path, changed, err := directstatus.FirstChangedField(desired, actual, directstatus.Prefix("spec.forProvider"))
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

	paths, err := directstatus.ChangedFields(desired, actual, directstatus.IgnorePaths("metadata", "status"))
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

	path, _, err := directstatus.FirstChangedField(desired, actual,
		directstatus.Prefix("spec"), directstatus.ProtoJSONNames(),
		directstatus.IgnorePaths("spec.name", "spec.createTime"))
	if err != nil {
		panic(err)
	}
	fmt.Println(path)
	// Output:
	// spec.nodePools[0].size
}

func ExampleUpdating() {
	show := func(c metav1.Condition) { fmt.Printf("%s %s %s: %s\n", c.Type, c.Status, c.Reason, c.Message) }
	show(directstatus.Updating("spec.description"))
	show(directstatus.Updating(""))
	show(directstatus.UpToDate())
	show(directstatus.UpdateFailure("spec.description", errors.New("permission denied")))
	show(directstatus.Creating())
	show(directstatus.CreateFailure(errors.New("quota exceeded")))
	// Output:
	// Ready False Updating: Updating resource (first field path: spec.description)
	// Ready False Updating: Updating resource (triggered by periodic sync)
	// Ready True UpToDate: Resource is up to date
	// Ready False UpdateFailure: Failed to update resource (first field path: spec.description): permission denied
	// Ready False Creating: Creating resource
	// Ready False CreateFailure: Failed to create resource: quota exceeded
}

func ExampleOperationID() {
	c := directstatus.Updating("spec.nodePools[0].size", directstatus.OperationID("operation-123456789"))
	fmt.Println(c.Reason)
	fmt.Println(c.Message)
	// Output:
	// Updating
	// Updating resource (first field path: spec.nodePools[0].size); operation: "operation-123456789"
}

func ExampleParseOperationID() {
	c := directstatus.Updating("spec.size", directstatus.OperationID("projects/p/operations/op-1.2"))
	id, ok := directstatus.ParseOperationID(c.Message)
	fmt.Println(id, ok)
	// Output:
	// projects/p/operations/op-1.2 true
}

// The reconcile pattern of a direct controller: diff, and when something
// differs, say so before calling the cloud, then say how it ended. A periodic
// sync that finds nothing to change writes nothing.
func ExampleWriter_StartUpdate() {
	var (
		ctx     = context.Background()
		c       client.Client // the manager's client
		obj     client.Object // the object being reconciled
		desired *testpb.Cluster
		actual  *testpb.Cluster
		update  = func(context.Context, *testpb.Cluster, []string) error { return nil } // the cloud call
	)
	w := directstatus.NewWriter(c)
	opts := []directstatus.DiffOption{directstatus.Prefix("spec"), directstatus.ProtoJSONNames()}

	reconcile := func() error {
		first, changed, err := directstatus.FirstChangedField(desired, actual, opts...)
		if err != nil {
			return err
		}
		if !changed {
			_, err := w.SetReady(ctx, obj, directstatus.UpToDate()) // no write if already so
			return err
		}
		mask, err := directstatus.ChangedFields(desired, actual, opts...)
		if err != nil {
			return err
		}
		op, err := w.StartUpdate(ctx, obj, first) // Updating, before the call
		if err != nil {
			return err
		}
		if err := update(ctx, desired, mask); err != nil {
			return op.Failed(ctx, err) // UpdateFailure, with the first field path
		}
		return op.Succeeded(ctx) // UpToDate
	}
	_ = reconcile
}
