package directstatus

import (
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/conditions"
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
)

// Messages of the Ready condition, as the design's table spells them.
const (
	msgUpToDate     = "Resource is up to date"
	msgUpdating     = "Updating resource"
	msgUpdateFailed = "Failed to update resource"
	msgCreating     = "Creating resource"
	msgCreateFailed = "Failed to create resource"
	msgPeriodicSync = "(triggered by periodic sync)"
	msgUnknownError = "unknown error"
)

// A ConditionOption changes a Ready condition built by Updating, UpToDate,
// UpdateFailure, Creating or CreateFailure.
type ConditionOption interface {
	applyCondition(c *metav1.Condition)
}

// OperationID is the ID of the external system's long-running operation that
// the condition reports, e.g. "operation-123456789". It is appended to the
// reason after a colon, as the design proposes (Updating:operation-123456789),
// so that a controller that restarts can find the operation again.
//
// A reason may hold only letters, digits, '_', ',' and ':' (the API server
// rejects a metav1.Condition with anything else, so the design's own example
// would be rejected), so every other byte of the ID becomes '_' in the reason:
// OperationID("operation-123456789") gives the reason
// Updating:operation_123456789. The message then ends with the ID verbatim,
// "; operation: operation-123456789", so nothing is lost. An empty ID changes
// nothing.
type OperationID string

func (id OperationID) applyCondition(c *metav1.Condition) {
	if id == "" {
		return
	}
	b := make([]byte, 0, len(c.Reason)+1+len(id))
	b = append(b, c.Reason...)
	b = append(b, ':')
	for i := 0; i < len(id) && len(b) < conditions.MaxReasonLength; i++ {
		ch := id[i]
		if !reasonByte(ch) {
			ch = '_'
		}
		b = append(b, ch)
	}
	// A reason must not end with ',' or ':'.
	if last := b[len(b)-1]; last == ',' || last == ':' {
		b[len(b)-1] = '_'
	}
	c.Reason = string(b)
	c.Message = truncateMessage(c.Message + "; operation: " + string(id))
}

func reasonByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == ',' || c == ':'
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

func ready(status metav1.ConditionStatus, reason, message string, opts []ConditionOption) metav1.Condition {
	c := metav1.Condition{
		Type:    conditions.TypeReady,
		Status:  status,
		Reason:  reason,
		Message: truncateMessage(message),
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

// truncateMessage cuts a message to the API server's limit, on a UTF-8
// boundary, marking the cut with "...".
func truncateMessage(s string) string {
	if len(s) <= conditions.MaxMessageLength {
		return s
	}
	const mark = "..."
	cut := conditions.MaxMessageLength - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	var b strings.Builder
	b.Grow(cut + len(mark))
	b.WriteString(s[:cut])
	b.WriteString(mark)
	return b.String()
}
