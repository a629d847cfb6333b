package directstatus_test

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/fielddiff"
)

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

func ExampleDeleting() {
	show := func(c metav1.Condition) { fmt.Printf("%s %s %s: %s\n", c.Type, c.Status, c.Reason, c.Message) }
	show(directstatus.Deleting())
	show(directstatus.DeleteFailed(errors.New("resource in use")))
	show(directstatus.DependencyNotReady(errors.New("reference Network default/net is not ready")))
	show(directstatus.DependencyNotFound(errors.New("reference Network default/net is not found")))
	show(directstatus.DependencyInvalid(errors.New("key password not found in Secret default/db")))
	show(directstatus.ManagementConflict(errors.New("managed by another controller")))
	// Output:
	// Ready False Deleting: Deleting resource
	// Ready False DeleteFailed: Failed to delete resource: resource in use
	// Ready False DependencyNotReady: reference Network default/net is not ready
	// Ready False DependencyNotFound: reference Network default/net is not found
	// Ready False DependencyInvalid: key password not found in Secret default/db
	// Ready False ManagementConflict: managed by another controller
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
		c       client.Client                                                              // the manager's client
		obj     client.Object                                                              // the object being reconciled
		desired *ClusterParameters                                                         // the spec, as the cloud API takes it
		actual  *ClusterParameters                                                         // what the cloud API returned
		update  = func(context.Context, *ClusterParameters, []string) error { return nil } // the cloud call
	)
	w := directstatus.NewWriter(c)
	opts := []fielddiff.Option{fielddiff.Prefix("spec")}

	reconcile := func() error {
		first, changed, err := fielddiff.FirstChangedField(desired, actual, opts...)
		if err != nil {
			return err
		}
		if !changed {
			_, err := w.SetReady(ctx, obj, directstatus.UpToDate()) // no write if already so
			return err
		}
		mask, err := fielddiff.ChangedFields(desired, actual, opts...)
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

// ClusterParameters is a cloud resource's settings, as an example spec.
type ClusterParameters struct {
	Description string `json:"description,omitempty"`
	Size        int    `json:"size"`
}
