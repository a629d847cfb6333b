package directstatus

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// ErrNoStatus is wrapped by the Writer's errors about a typed object whose
// status has no conditions list of metav1.Conditions or no
// observedGeneration integer, which the Writer needs to write.
var ErrNoStatus = errors.New("object has no status.conditions and status.observedGeneration")

// ErrGenerationChanged is wrapped by the Writer's error when, after a
// conflict, the object read again has a new generation: its spec changed
// since the condition was decided, so the condition may be wrong for it and
// is not written. The reconciler should start again from the new spec;
// returning the error to controller-runtime requeues it.
var ErrGenerationChanged = errors.New("the object's generation changed")

// A Writer writes the Ready condition of a direct controller's objects
// through the status subresource, with status.observedGeneration and the
// condition's observedGeneration set to the object's metadata.generation.
//
// It writes only when something changed: a second call with the same
// condition at the same generation makes no API call. Other condition types
// and other status fields are kept, and there is exactly one Ready condition.
// A conflict (the object changed since it was read) is retried with
// client-go's retry.RetryOnConflict, re-reading the object each time, so a
// concurrent writer's changes are kept, not overwritten.
//
// Objects may be typed or *unstructured.Unstructured. A typed object needs
// a status with a []metav1.Condition "conditions" field and an integer
// "observedGeneration" field (JSON names), as Kubernetes API conventions have
// it; a typed object without them is an error wrapping ErrNoStatus.
type Writer struct {
	client  client.Client
	reader  client.Reader
	setter  conditions.Setter
	backoff wait.Backoff
}

// A WriterOption configures a Writer.
type WriterOption interface {
	applyWriter(w *Writer)
}

type writerOptionFunc func(w *Writer)

func (f writerOptionFunc) applyWriter(w *Writer) { f(w) }

// WithClock sets the clock that stamps lastTransitionTime. The default is the
// real clock.
func WithClock(c clock.PassiveClock) WriterOption {
	return writerOptionFunc(func(w *Writer) { w.setter.Clock = c })
}

// WithConflictBackoff sets how often, and after which waits, a write that
// meets a conflict is retried. The default is client-go's retry.DefaultRetry.
func WithConflictBackoff(b wait.Backoff) WriterOption {
	return writerOptionFunc(func(w *Writer) { w.backoff = b })
}

// WithAPIReader sets the reader that reads an object again after a conflict.
// With a controller-runtime manager's client, whose reads come from a cache
// that may lag behind the write that caused the conflict, pass the manager's
// GetAPIReader(). The default is the Writer's client.
func WithAPIReader(r client.Reader) WriterOption {
	return writerOptionFunc(func(w *Writer) { w.reader = r })
}

// NewWriter returns a Writer that reads and writes objects with c.
func NewWriter(c client.Client, opts ...WriterOption) *Writer {
	w := &Writer{client: c, reader: c, backoff: retry.DefaultRetry}
	for _, o := range opts {
		if o != nil {
			o.applyWriter(w)
		}
	}
	if w.reader == nil {
		w.reader = c
	}
	return w
}

// SetReady records c as obj's Ready condition (whatever c.Type says), with
// obj's generation as observedGeneration, and writes obj's status when that
// changed it. It reports whether it wrote. lastTransitionTime changes only
// when the status (True, False, Unknown) does.
//
// On success obj holds what the API server returned. When the write meets a
// conflict, obj is read again and the condition recorded again; if it then
// already holds, nothing is written. If that read fails, obj keeps what it
// held and the error is returned. If the object read again has another
// generation, the condition, decided for obj's spec, is not written, and the
// error wraps ErrGenerationChanged. An error names the object and wraps the
// cause: the API server's error, conditions.ErrInvalid for a condition the
// API server would reject, ErrNoStatus.
func (w *Writer) SetReady(ctx context.Context, obj client.Object, c metav1.Condition) (written bool, err error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return false, fmt.Errorf("cannot set the Ready condition: %w", conditions.ErrNilObject)
	}
	c.Type = conditions.TypeReady
	if err := conditions.Validate(c); err != nil {
		return false, fmt.Errorf("cannot set the Ready condition of %s: %w", describe(obj), err)
	}
	gen := obj.GetGeneration()
	desc := describe(obj) // before any re-read, which may fail
	first := true
	err = retry.RetryOnConflict(w.backoff, func() error {
		if !first {
			if err := w.reread(ctx, obj); err != nil {
				return err
			}
			if g := obj.GetGeneration(); g != gen {
				return fmt.Errorf("%w from %d to %d since the condition was decided", ErrGenerationChanged, gen, g)
			}
		}
		first = false
		changed, err := w.record(obj, c)
		if err != nil || !changed {
			return err
		}
		if err := w.client.Status().Update(ctx, obj); err != nil {
			return err
		}
		written = true
		return nil
	})
	if err != nil {
		return written, fmt.Errorf("cannot write the Ready condition of %s: %w", desc, err)
	}
	return written, nil
}

// reread replaces obj with the API server's copy. The copy is read into a
// fresh object (decoding into a used typed object would keep fields the
// server's copy omits), which replaces obj only when the read succeeded: a
// failed read leaves obj as it was.
func (w *Writer) reread(ctx context.Context, obj client.Object) error {
	key := client.ObjectKeyFromObject(obj)
	if u, ok := obj.(*unstructured.Unstructured); ok {
		fresh := &unstructured.Unstructured{Object: map[string]any{}}
		fresh.SetGroupVersionKind(u.GroupVersionKind())
		if err := w.reader.Get(ctx, key, fresh); err != nil {
			return err
		}
		u.Object = fresh.Object
		return nil
	}
	fresh := reflect.New(reflect.TypeOf(obj).Elem())
	if err := w.reader.Get(ctx, key, fresh.Interface().(client.Object)); err != nil {
		return err
	}
	reflect.ValueOf(obj).Elem().Set(fresh.Elem())
	return nil
}

// record sets c, stamped with obj's generation, and status.observedGeneration
// on obj, and reports whether obj changed.
func (w *Writer) record(obj client.Object, c metav1.Condition) (bool, error) {
	gen := obj.GetGeneration()
	c.ObservedGeneration = gen
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return w.recordUnstructured(u, c, gen)
	}

	if err := checkStatus(obj); err != nil {
		return false, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false, fmt.Errorf("cannot convert %s to unstructured content: %w", describe(obj), err)
	}
	u := &unstructured.Unstructured{Object: content}
	changed, err := w.recordUnstructured(u, c, gen)
	if err != nil || !changed {
		return false, err
	}
	fresh := reflect.New(reflect.TypeOf(obj).Elem())
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, fresh.Interface()); err != nil {
		return false, fmt.Errorf("cannot convert unstructured content back to %s: %w", describe(obj), err)
	}
	reflect.ValueOf(obj).Elem().Set(fresh.Elem())
	return true, nil
}

func (w *Writer) recordUnstructured(u *unstructured.Unstructured, c metav1.Condition, gen int64) (bool, error) {
	changed, err := w.setter.SetUnstructured(u, c)
	if err != nil {
		return false, err
	}
	old, found, err := unstructured.NestedFieldNoCopy(u.Object, "status", "observedGeneration")
	if err != nil {
		return false, fmt.Errorf("cannot read status.observedGeneration of %s: %w", describe(u), err)
	}
	// A whole float64 is how encoding/json decodes an integer into any.
	if i, ok := jsonvalue.WholeInt64(old); found && ok && i == gen {
		return changed, nil
	}
	// SetUnstructured made sure that status is an object.
	if err := unstructured.SetNestedField(u.Object, gen, "status", "observedGeneration"); err != nil {
		return false, fmt.Errorf("cannot set status.observedGeneration of %s: %w", describe(u), err)
	}
	return true, nil
}

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
		st, ok := jsonField(t.Elem(), "status")
		switch {
		case !ok || st.Kind() != reflect.Struct:
			err = fmt.Errorf("%s has no status struct: %w", t, ErrNoStatus)
		default:
			ct, okC := jsonField(st, "conditions")
			gt, okG := jsonField(st, "observedGeneration")
			if !okC || ct != reflect.TypeFor[[]metav1.Condition]() {
				err = fmt.Errorf("the status of %s has no conditions field of type []metav1.Condition: %w", t, ErrNoStatus)
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

// jsonField finds the field of struct type t with the JSON name name,
// looking into inline and embedded structs; a pointer field's type is the
// type it points to.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	return jsonFieldIn(t, structInfoOf(t).fields, name)
}

func jsonFieldIn(t reflect.Type, fields []fieldInfo, name string) (reflect.Type, bool) {
	for i := range fields {
		f := &fields[i]
		ft := t.Field(f.index).Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.inline {
			if found, ok := jsonFieldIn(ft, f.sub, name); ok {
				return found, true
			}
			continue
		}
		if f.name == name {
			return ft, true
		}
	}
	return nil, false
}

// describe names an object for an error message: kind namespace/name.
func describe(obj client.Object) string {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return "a nil object"
	}
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if kind == "" {
		kind = reflect.TypeOf(obj).Elem().Name()
	}
	if ns := obj.GetNamespace(); ns != "" {
		return kind + " " + ns + "/" + obj.GetName()
	}
	return kind + " " + obj.GetName()
}
