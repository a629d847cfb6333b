package directstatus

import (
	"fmt"
	"reflect"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/message"
)

// Reasons of the Ready condition of a direct controller's object.
const (
	// ReasonCreating: the controller is creating the external resource.
	ReasonCreating = "Creating"
	// ReasonCreateFailure: the last attempt to create the external resource
	// failed.
	ReasonCreateFailure = "CreateFailure"
	// ReasonUpdating: the controller is updating the external resource,
	// because a field differs or because of a periodic sync.
	ReasonUpdating = "Updating"
	// ReasonUpdateFailure: the last attempt to update the external resource
	// failed.
	ReasonUpdateFailure = "UpdateFailure"
	// ReasonUpToDate: the external resource matches the spec.
	ReasonUpToDate = "UpToDate"
	// ReasonDeleting: the controller is deleting the external resource.
	ReasonDeleting = "Deleting"
	// ReasonDeleteFailed: the last attempt to delete the external resource
	// failed.
	ReasonDeleteFailed = "DeleteFailed"
	// ReasonDependencyNotReady: an object the resource refers to exists but
	// is not ready yet.
	ReasonDependencyNotReady = "DependencyNotReady"
	// ReasonDependencyNotFound: an object the resource refers to does not
	// exist (yet).
	ReasonDependencyNotFound = "DependencyNotFound"
	// ReasonDependencyInvalid: an object the resource refers to exists but
	// cannot be used (a Secret without the key referred to, say).
	ReasonDependencyInvalid = "DependencyInvalid"
	// ReasonManagementConflict: another controller manages the external
	// resource, so this one may not act on it.
	ReasonManagementConflict = "ManagementConflict"
)

// Messages of the Ready condition, as the design's table spells them.
const (
	msgUpToDate     = "Resource is up to date"
	msgUpdating     = "Updating resource"
	msgUpdateFailed = "Failed to update resource"
	msgCreating     = "Creating resource"
	msgCreateFailed = "Failed to create resource"
	msgDeleting     = "Deleting resource"
	msgDeleteFailed = "Failed to delete resource"
	msgPeriodicSync = "(triggered by periodic sync)"
	msgUnknownError = "unknown error"
)

// A ConditionOption changes a Ready condition built by Updating, UpToDate,
// UpdateFailure, Creating or CreateFailure.
type ConditionOption interface {
	applyCondition(c *metav1.Condition)
}

// OperationID is the ID of the external system's long-running operation that
// the condition reports, e.g. "operation-123456789" or
// "projects/p/locations/l/operations/op-1.2". It is recorded at the end of
// the message, quoted as a Go string literal so that any ID reads back
// exactly with ParseOperationID or OperationIDOf:
//
//	Updating resource (first field path: spec.size); operation: "operation-123456789"
//
// The reason is left as it is (Updating, UpdateFailure, Creating), so that
// reason checks hold with or without an ID. A message too long for the API
// server is cut before the ID, never through it; an ID whose quoted form
// would not fit in a message at all (MaxOperationIDLength) is not recorded.
// An empty ID changes nothing.
type OperationID string

// MaxOperationIDLength is the longest operation ID, quoted, that a Ready
// condition's message records.
const MaxOperationIDLength = 4096

// operationMark starts the operation ID at the end of a message.
const operationMark = `; operation: `

func (id OperationID) applyCondition(c *metav1.Condition) {
	if id == "" {
		return
	}
	quoted := strconv.Quote(string(id))
	if len(quoted) > MaxOperationIDLength {
		return
	}
	suffix := operationMark + quoted
	c.Message = message.Truncate(c.Message, conditions.MaxMessageLength-len(suffix)) + suffix
}

// ParseOperationID returns the operation ID recorded at the end of a Ready
// condition's message by OperationID, and whether there was one.
func ParseOperationID(message string) (OperationID, bool) {
	// The quoted ID ends the message. Inside it every '"' is escaped, so the
	// first unescaped '"' before the closing one opens it; the mark must
	// come right before that. (The mark itself may appear inside the ID.)
	if len(message) < len(operationMark)+2 || message[len(message)-1] != '"' {
		return "", false
	}
	open := -1
	for i := len(message) - 2; i >= 0; i-- {
		if message[i] != '"' {
			continue
		}
		backslashes := 0
		for j := i - 1; j >= 0 && message[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			open = i
			break
		}
	}
	if open < len(operationMark) || message[open-len(operationMark):open] != operationMark {
		return "", false
	}
	id, err := strconv.Unquote(message[open:])
	if err != nil || id == "" {
		return "", false
	}
	return OperationID(id), true
}

// OperationIDOf returns the operation ID recorded in obj's Ready condition
// (see OperationID) and its reason, so that a controller that restarts can
// find the operation it started: with ReasonUpdating or ReasonCreating, the
// operation was in flight when the condition was written and should be
// polled, not started again. obj may be typed (with any conditions list the
// Writer takes) or unstructured. ok is false when there is no Ready
// condition or it records no ID.
func OperationIDOf(obj client.Object) (id OperationID, reason string, ok bool, err error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return "", "", false, conditions.ErrNilObject
	}
	u, isU := obj.(*unstructured.Unstructured)
	if !isU {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return "", "", false, fmt.Errorf("cannot convert %s to unstructured content: %w", describe(obj), conversionFailed{err})
		}
		u = &unstructured.Unstructured{Object: content}
	}
	conds, err := conditions.FromUnstructured(u)
	if err != nil {
		return "", "", false, err
	}
	c := conditions.Get(conds, conditions.TypeReady)
	if c == nil {
		return "", "", false, nil
	}
	id, ok = ParseOperationID(c.Message)
	if !ok {
		return "", "", false, nil
	}
	return id, c.Reason, true, nil
}

// UpToDate is the Ready condition of an object whose external resource matches
// its spec: status True, reason UpToDate, message "Resource is up to date".
func UpToDate(opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionTrue, ReasonUpToDate, msgUpToDate, opts)
}

// Updating is the Ready condition written before a direct controller calls the
// external API to update a resource: status False, reason Updating, and the
// first field that differs in the message,
// "Updating resource (first field path: spec.description)". An empty
// firstField means the update was not triggered by a field (a periodic sync,
// a forced reconcile): "Updating resource (triggered by periodic sync)".
func Updating(firstField string, opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonUpdating, msgUpdating+" "+trigger(firstField), opts)
}

// UpdateFailure is the Ready condition of an object whose external update
// failed: status False, reason UpdateFailure, and the first field path and the
// error in the message,
// "Failed to update resource (first field path: spec.description): <error>".
// An empty firstField gives "(triggered by periodic sync)" instead, and a nil
// err "unknown error". A message longer than the API server accepts is
// truncated.
func UpdateFailure(firstField string, err error, opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonUpdateFailure, msgUpdateFailed+" "+trigger(firstField)+": "+errorText(err), opts)
}

// Creating is the Ready condition written before a direct controller calls the
// external API to create a resource: status False, reason Creating, message
// "Creating resource".
func Creating(opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonCreating, msgCreating, opts)
}

// CreateFailure is the Ready condition of an object whose external resource
// could not be created: status False, reason CreateFailure, message
// "Failed to create resource: <error>".
func CreateFailure(err error, opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonCreateFailure, msgCreateFailed+": "+errorText(err), opts)
}

// Deleting is the Ready condition written before a direct controller calls the
// external API to delete a resource: status False, reason Deleting, message
// "Deleting resource".
func Deleting(opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonDeleting, msgDeleting, opts)
}

// DeleteFailed is the Ready condition of an object whose external resource
// could not be deleted: status False, reason DeleteFailed, message
// "Failed to delete resource: <error>".
func DeleteFailed(err error, opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonDeleteFailed, msgDeleteFailed+": "+errorText(err), opts)
}

// DependencyNotReady is the Ready condition of an object that waits for an
// object it refers to to become ready: status False, reason
// DependencyNotReady, and err's text as the message, which should name the
// dependency ("reference ComputeNetwork default/net is not ready").
func DependencyNotReady(err error, opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonDependencyNotReady, errorText(err), opts)
}

// DependencyNotFound is the Ready condition of an object that refers to an
// object that does not exist: status False, reason DependencyNotFound, and
// err's text as the message. The controller keeps trying: the dependency
// may be created after the object, as a GitOps tool applying both does.
func DependencyNotFound(err error, opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonDependencyNotFound, errorText(err), opts)
}

// DependencyInvalid is the Ready condition of an object whose dependency
// exists but cannot be used (a Secret without the key referred to): status
// False, reason DependencyInvalid, and err's text as the message. The Writer
// marks it Stalled: someone has to change the object or the dependency.
func DependencyInvalid(err error, opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonDependencyInvalid, errorText(err), opts)
}

// ManagementConflict is the Ready condition of an object whose external
// resource another controller manages: status False, reason
// ManagementConflict, and err's text as the message. The Writer marks it
// Stalled: it stays so until the other controller lets go or the object is
// changed.
func ManagementConflict(err error, opts ...ConditionOption) metav1.Condition {
	return ready(metav1.ConditionFalse, ReasonManagementConflict, errorText(err), opts)
}

func ready(status metav1.ConditionStatus, reason, msg string, opts []ConditionOption) metav1.Condition {
	c := metav1.Condition{
		Type:    conditions.TypeReady,
		Status:  status,
		Reason:  reason,
		Message: message.Truncate(msg, conditions.MaxMessageLength),
	}
	for _, o := range opts {
		if o != nil {
			o.applyCondition(&c)
		}
	}
	return c
}

func trigger(firstField string) string {
	if firstField == "" {
		return msgPeriodicSync
	}
	return "(first field path: " + firstField + ")"
}

func errorText(err error) string {
	if err == nil {
		return msgUnknownError
	}
	if s := err.Error(); s != "" {
		return s
	}
	return msgUnknownError
}
