package directstatus_test

import (
	"regexp"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/directstatus"
)

func TestRequestID(t *testing.T) {
	obj := func(uid types.UID, gen int64) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetUID(uid)
		u.SetGeneration(gen)
		return u
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	base := directstatus.RequestID(obj("u1", 2), "update", "etag-7")
	if !uuid.MatchString(base) {
		t.Errorf("RequestID = %q, want a version 8 UUID", base)
	}
	if again := directstatus.RequestID(obj("u1", 2), "update", "etag-7"); again != base {
		t.Errorf("RequestID is not stable: %q, then %q", base, again)
	}
	differs := map[string]string{
		"OtherObject":         directstatus.RequestID(obj("u2", 2), "update", "etag-7"),
		"OtherGeneration":     directstatus.RequestID(obj("u1", 3), "update", "etag-7"),
		"OtherCall":           directstatus.RequestID(obj("u1", 2), "create", "etag-7"),
		"OtherBase":           directstatus.RequestID(obj("u1", 2), "update", "etag-8"),
		"PartsSplitOtherwise": directstatus.RequestID(obj("u1", 2), "update", "etag", "-7"),
		"TypedObject":         directstatus.RequestID(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{UID: "u1", Generation: 2}}, "update"),
	}
	for name, id := range differs {
		if id == base {
			t.Errorf("%s: RequestID = %q, the same as another call's", name, id)
		}
	}
}
