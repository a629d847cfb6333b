package directstatus

import (
	"maps"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// What the Writer learns of a kind's schema from the API server's answers
// to its writes, so that a field a CRD prunes is not a change.

// What the Writer knows about whether a kind of object keeps a field it
// writes: a CRD whose schema lacks the field prunes it from every write.
// Config Connector's CRDs, for one, have no observedGeneration in their
// conditions.
type keeps int8

const (
	unknown keeps = iota // no write has told yet
	kept
	pruned
)

// schema is what the Writer learned about one kind of object from the API
// server's responses to its writes.
type schema struct {
	condGen keeps // the Ready condition's observedGeneration
	rootGen keeps // status.observedGeneration
	reason  keeps // a condition's reason
	message keeps // a condition's message
	ltt     keeps // a condition's lastTransitionTime
}

// omitPruned removes from what the Writer is about to send the fields its
// schema is known to prune: status.observedGeneration, and the fields of the
// conditions the Writer writes (Ready, Reconciling, Stalled). The API server
// would drop them anyway, but it answers each one with an "unknown field"
// warning, which controller-runtime's client logs on every write, and
// refuses the write under strict field validation. Maps and lists are copied,
// not changed, where a field is removed from them.
func (sch schema) omitPruned(u *unstructured.Unstructured) {
	status, ok := u.Object["status"].(map[string]any)
	if !ok {
		return
	}
	if sch.rootGen == pruned {
		if _, found := status["observedGeneration"]; found {
			status = maps.Clone(status)
			delete(status, "observedGeneration")
			u.Object["status"] = status
		}
	}
	var drop []string
	for _, f := range []struct {
		k   keeps
		key string
	}{{sch.condGen, "observedGeneration"}, {sch.reason, "reason"}, {sch.message, "message"}, {sch.ltt, "lastTransitionTime"}} {
		if f.k == pruned {
			drop = append(drop, f.key)
		}
	}
	if len(drop) == 0 {
		return
	}
	list, _ := status["conditions"].([]any)
	var out []any
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok || !writtenType(m["type"]) || !slices.ContainsFunc(drop, func(k string) bool { _, ok := m[k]; return ok }) {
			continue
		}
		if out == nil {
			out = slices.Clone(list)
		}
		m = maps.Clone(m)
		for _, k := range drop {
			delete(m, k)
		}
		out[i] = m
	}
	if out != nil {
		status = maps.Clone(status)
		status["conditions"] = out
		u.Object["status"] = status
	}
}

// writtenType reports whether t is the type of a condition the Writer writes.
func writtenType(t any) bool {
	return t == conditions.TypeReady || t == conditions.TypeReconciling || t == conditions.TypeStalled
}

// sentFields says which of the fields that the Writer learns about a write
// sent in the Ready condition and the status.
type sentFields struct {
	condGen, rootGen, reason, message, ltt bool
}

// sentIn returns the fields u, about to be written, holds: an
// observedGeneration that is 0 or a message that is empty tells nothing (a
// typed object may omit it).
func sentIn(u *unstructured.Unstructured) sentFields {
	msg, _ := conditionField(u, conditions.TypeReady, "message")
	return sentFields{
		condGen: hasGeneration(u, conditions.TypeReady),
		rootGen: hasRootGeneration(u),
		reason:  hasKey(u, conditions.TypeReady, "reason"),
		message: msg != nil && msg != "",
		ltt:     hasKey(u, conditions.TypeReady, "lastTransitionTime"),
	}
}

// sameText reports whether x, a condition of u, shows reason and message,
// but for what the schema does not keep: a field pruned, or, before the
// first write has told, missing from x (the Writer always writes both).
func (sch schema) sameText(u *unstructured.Unstructured, x *metav1.Condition, reason, message string) bool {
	same := func(got, want string, k keeps, key string) bool {
		return got == want || k == pruned || k == unknown && !hasKey(u, x.Type, key)
	}
	return same(x.Reason, reason, sch.reason, "reason") && same(x.Message, message, sch.message, "message")
}

// schemaKey identifies a kind of object: its Go type, and for unstructured
// objects its group, version and kind.
type schemaKey struct {
	t   reflect.Type
	gvk string
}

func keyOf(obj client.Object) schemaKey {
	k := schemaKey{t: reflect.TypeOf(obj)}
	if _, ok := obj.(*unstructured.Unstructured); ok {
		k.gvk = obj.GetObjectKind().GroupVersionKind().String()
	}
	return k
}

func (w *Writer) schemaOf(obj client.Object) schema {
	if v, ok := w.schemas.Load(keyOf(obj)); ok {
		return v.(schema)
	}
	return schema{}
}

// learn records, from obj as the API server returned it after a write that
// sent the fields sent says, whether its kind keeps each of them. A field
// the write did not send (one known to be pruned, which is no longer sent)
// tells nothing, so a field once found pruned stays so for the Writer's
// life: a CRD that loses a field is followed at once, one that gains it
// when the controller starts again with a new Writer.
func (w *Writer) learn(obj client.Object, sent sentFields) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return
		}
		u = &unstructured.Unstructured{Object: content}
	}
	sch := w.schemaOf(obj)
	observe := func(k *keeps, sent, found bool) {
		switch {
		case !sent:
		case found:
			*k = kept
		default:
			*k = pruned
		}
	}
	observe(&sch.condGen, sent.condGen, hasGeneration(u, conditions.TypeReady))
	observe(&sch.rootGen, sent.rootGen, hasRootGeneration(u))
	observe(&sch.reason, sent.reason, hasKey(u, conditions.TypeReady, "reason"))
	observe(&sch.message, sent.message, hasKey(u, conditions.TypeReady, "message"))
	observe(&sch.ltt, sent.ltt, hasKey(u, conditions.TypeReady, "lastTransitionTime"))
	w.schemas.Store(keyOf(obj), sch)
}

// hasGeneration reports whether u's condition of type t holds an
// observedGeneration other than 0 (which typed objects omit).
func hasGeneration(u *unstructured.Unstructured, t string) bool {
	v, _ := conditionField(u, t, "observedGeneration")
	i, ok := jsonvalue.WholeInt64(v)
	return ok && i != 0
}

// hasRootGeneration reports whether u's status.observedGeneration holds a
// generation other than 0 (which typed objects may omit).
func hasRootGeneration(u *unstructured.Unstructured) bool {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "observedGeneration")
	i, ok := jsonvalue.WholeInt64(v)
	return ok && i != 0
}

// hasKey reports whether u's condition of type t has the field key.
func hasKey(u *unstructured.Unstructured, t, key string) bool {
	_, ok := conditionField(u, t, key)
	return ok
}

// conditionField returns the field key of u's condition of type t.
func conditionField(u *unstructured.Unstructured, t, key string) (any, bool) {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "conditions")
	list, _ := v.([]any)
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok || m["type"] != t {
			continue
		}
		v, ok := m[key]
		return v, ok
	}
	return nil, false
}
