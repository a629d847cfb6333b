package directstatus_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/internal/testenv/testapi/v1alpha1"
)

// A Writer with RecordEvents records one event per Ready transition: a
// second UpdateFailure with another error changes the message, not the
// reason, and records none.
func ExampleRecordEvents() {
	scheme := runtime.NewScheme()
	_ = v1alpha1.AddToScheme(scheme)
	obj := &v1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "default", Generation: 1}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(obj).WithStatusSubresource(obj).Build()
	recorder := events.NewFakeRecorder(10)
	w := directstatus.NewWriter(c, directstatus.RecordEvents(recorder))

	ctx := context.Background()
	for _, ready := range []metav1.Condition{
		directstatus.Updating("spec.size"),
		directstatus.UpdateFailure("spec.size", fmt.Errorf("quota exceeded")),
		directstatus.UpdateFailure("spec.size", fmt.Errorf("quota still exceeded")),
		directstatus.UpToDate(),
		directstatus.Deleting(),
	} {
		if _, err := w.SetReady(ctx, obj, ready); err != nil {
			fmt.Println(err)
			return
		}
	}
	close(recorder.Events)
	for e := range recorder.Events {
		fmt.Println(e)
	}
	// Output:
	// Normal Updating Updating resource (first field path: spec.size)
	// Warning UpdateFailure Failed to update resource (first field path: spec.size): quota exceeded
	// Normal UpToDate Resource is up to date
	// Normal Deleting Deleting resource
}
