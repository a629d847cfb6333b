package directstatus

import (
	"fmt"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/internal/jsonfields"
)

// What a typed object needs for the Writer: the status fields it writes.

// conversionFailed is the error of runtime.DefaultUnstructuredConverter. Its
// message says only that the conversion failed: the converter's errors
// repeat those of the object's MarshalJSON and UnmarshalJSON methods, which
// may quote a value (metav1.Time's quotes the time it cannot parse), and no
// error of this package holds a byte of a value it read. The converter's
// error is kept for errors.Is and errors.As.
type conversionFailed struct{ err error }

func (e conversionFailed) Error() string {
	return "the conversion failed (a MarshalJSON or UnmarshalJSON method, or a field of a type JSON cannot hold)"
}
func (e conversionFailed) Unwrap() error { return e.err }

var statusChecks sync.Map // reflect.Type -> error

// checkStatus makes sure that obj's type has the status fields the Writer
// writes; the converter would silently drop them otherwise, and every call
// would write again.
func checkStatus(obj client.Object) error {
	t := reflect.TypeOf(obj)
	if v, ok := statusChecks.Load(t); ok {
		if v == nil {
			return nil
		}
		return v.(error)
	}
	var err error
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		err = fmt.Errorf("%s is not a pointer to a struct: %w", t, ErrNoStatus)
	} else {
		st, ok := jsonfields.Lookup(t.Elem(), "status")
		switch {
		case !ok || st.Kind() != reflect.Struct:
			err = fmt.Errorf("%s has no status struct: %w", t, ErrNoStatus)
		default:
			ct, okC := jsonfields.Lookup(st, "conditions")
			gt, okG := jsonfields.Lookup(st, "observedGeneration")
			if !okC || !conditionList(ct) {
				err = fmt.Errorf("the status of %s has no conditions field that is a list of conditions (structs with string type and status fields, as metav1.Condition): %w", t, ErrNoStatus)
			} else if !okG || gt.Kind() < reflect.Int || gt.Kind() > reflect.Int64 {
				err = fmt.Errorf("the status of %s has no integer observedGeneration field: %w", t, ErrNoStatus)
			}
		}
	}
	if err == nil {
		statusChecks.Store(t, nil)
	} else {
		statusChecks.Store(t, err)
	}
	return err
}

// conditionList reports whether t is a list of conditions the Writer can
// write: a slice of structs (or pointers to them) with string-kinded "type"
// and "status" fields, and "reason", "message" and "lastTransitionTime"
// fields, if any, of types the JSON of a condition converts to:
// metav1.Condition, Config Connector's v1alpha1.Condition (status a
// corev1.ConditionStatus, lastTransitionTime a string), Crossplane's.
func conditionList(t reflect.Type) bool {
	if t.Kind() != reflect.Slice {
		return false
	}
	e := t.Elem()
	if e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	if e.Kind() != reflect.Struct {
		return false
	}
	for _, name := range []string{"type", "status", "reason", "message"} {
		ft, ok := jsonfields.Lookup(e, name)
		if ok && ft.Kind() != reflect.String || !ok && (name == "type" || name == "status") {
			return false
		}
	}
	if ft, ok := jsonfields.Lookup(e, "lastTransitionTime"); ok && ft.Kind() != reflect.String && ft != reflect.TypeFor[metav1.Time]() {
		return false
	}
	return true
}
