package conditions_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/conditions"
)

func ExampleSet() {
	var conds []metav1.Condition
	c := metav1.Condition{
		Type:               "DatabaseReady",
		Status:             metav1.ConditionFalse,
		Reason:             "NotFound",
		Message:            "database orders does not exist",
		ObservedGeneration: 3,
	}
	fmt.Println("first:", conditions.Set(&conds, c))
	fmt.Println("again:", conditions.Set(&conds, c))

	c.Status, c.Reason, c.Message = metav1.ConditionTrue, "Available", ""
	fmt.Println("ready:", conditions.Set(&conds, c), conditions.IsTrue(conds, "DatabaseReady"))
	// Output:
	// first: true
	// again: false
	// ready: true true
}

func ExampleSetter() {
	// A fake clock makes transition times predictable in tests.
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s := conditions.NewSetter(conditions.WithClock(clk))
	var conds []metav1.Condition
	s.Set(&conds, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Creating"})
	fmt.Println(conds[0].LastTransitionTime.UTC())

	// Only a change of status moves the transition time.
	clk.SetTime(time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC))
	s.Set(&conds, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Creating", Message: "still creating"})
	fmt.Println(conds[0].LastTransitionTime.UTC())
	s.Set(&conds, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available"})
	fmt.Println(conds[0].LastTransitionTime.UTC())
	// Output:
	// 2026-03-01 12:00:00 +0000 UTC
	// 2026-03-01 12:00:00 +0000 UTC
	// 2026-03-01 12:05:00 +0000 UTC
}

func ExampleEqual() {
	t1 := metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	a := []metav1.Condition{
		{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available", LastTransitionTime: t1},
		{Type: "Synced", Status: metav1.ConditionTrue, Reason: "ReconcileSuccess", LastTransitionTime: t1},
	}
	b := []metav1.Condition{
		{Type: "Synced", Status: metav1.ConditionTrue, Reason: "ReconcileSuccess"},
		{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available"},
	}
	fmt.Println(conditions.Equal(a, b))
	// Output: true
}

func ExampleValidate() {
	err := conditions.Validate(metav1.Condition{Type: "DatabaseReady", Status: "Yes", Reason: "not found"})
	fmt.Println(errors.Is(err, conditions.ErrInvalid))
	fmt.Println(err)
	// Output:
	// true
	// invalid condition: status (a string of 3 bytes): must be True, False or Unknown; reason (a string of 9 bytes): must start with a letter, contain only letters, digits, '_', ',' and ':', and end with a letter, digit or '_' (e.g. "NotFound")
}

func ExampleSetUnstructured() {
	u := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "Database",
		"metadata": map[string]any{"name": "orders", "namespace": "team-a"},
		"status":   map[string]any{"address": "10.0.0.1"},
	}}
	changed, err := conditions.SetUnstructured(u, metav1.Condition{
		Type: "DatabaseReady", Status: metav1.ConditionTrue, Reason: "Available",
		LastTransitionTime: metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
	})
	fmt.Println(changed, err)
	fmt.Println(u.Object["status"])

	// A malformed entry is reported by index, and nothing is written.
	u.Object["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Ready", "status": true}}
	_, err = conditions.SetUnstructured(u, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available"})
	fmt.Println(err)
	// Output:
	// true <nil>
	// map[address:10.0.0.1 conditions:[map[lastTransitionTime:2026-03-01T12:00:00Z message: reason:Available status:True type:DatabaseReady]]]
	// cannot set a condition on Database team-a/orders: status.conditions[0].status: must be a string, not a boolean
}

func ExamplePropagate() {
	xr := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "XDatabase",
		"metadata": map[string]any{"name": "orders-x7k2p"},
		"status": map[string]any{
			"claimConditions": []any{"ImageReady", "Ready"},
			"conditions": []any{
				map[string]any{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2026-03-01T12:00:00Z"},
				map[string]any{"type": "ImageReady", "status": "False", "reason": "NotFound", "message": "image not found", "lastTransitionTime": "2026-03-01T12:00:00Z"},
			},
		},
	}}
	claim := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "Database",
		"metadata": map[string]any{"name": "orders", "namespace": "team-a", "generation": int64(2)},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "status": "False", "reason": "Creating", "lastTransitionTime": "2026-03-01T11:00:00Z"},
		}},
	}}

	changed, _ := conditions.Propagate(xr, claim)
	conds, _ := conditions.FromUnstructured(claim)
	fmt.Println("changed:", changed)
	for _, c := range conds {
		fmt.Println(c.Type, c.Status, c.Reason, c.ObservedGeneration)
	}
	fmt.Println("recorded:", claim.Object["status"].(map[string]any)["claimConditions"])

	// Nothing to do the second time: skip the write.
	changed, _ = conditions.Propagate(xr, claim)
	fmt.Println("changed:", changed)

	// The XR stops listing ImageReady: it disappears from the claim.
	xr.Object["status"].(map[string]any)["claimConditions"] = []any{"Ready"}
	changed, _ = conditions.Propagate(xr, claim)
	conds, _ = conditions.FromUnstructured(claim)
	fmt.Println("changed:", changed, "types left:", len(conds), conds[0].Type, conds[0].Reason)
	// Output:
	// changed: true
	// Ready False Creating 0
	// ImageReady False NotFound 2
	// recorded: [ImageReady]
	// changed: false
	// changed: true types left: 1 Ready Creating
}

func ExampleSummarize() {
	conds := []metav1.Condition{
		{Type: "DatabaseReady", Status: metav1.ConditionTrue, Reason: "Available"},
		{Type: "ImageReady", Status: metav1.ConditionFalse, Reason: "NotFound", Message: "image not found"},
		{Type: "Stalled", Status: metav1.ConditionFalse, Reason: "Progressing"},
	}
	ready := conditions.Summarize(conditions.TypeReady, conds,
		conditions.Types{"DatabaseReady", "ImageReady"},
		conditions.NegativePolarity{"Stalled"},
		conditions.ObservedGeneration(4))
	fmt.Println(ready.Type, ready.Status, ready.Reason, ready.ObservedGeneration)
	fmt.Println(ready.Message)

	conds[1] = metav1.Condition{Type: "ImageReady", Status: metav1.ConditionTrue, Reason: "Available"}
	ready = conditions.Summarize(conditions.TypeReady, conds, conditions.NegativePolarity{"Stalled"})
	fmt.Println(ready.Type, ready.Status, ready.Reason)
	// Output:
	// Ready False NotFound 4
	// ImageReady: image not found
	// Ready True Available
}

// widget is a typed CRD object; two methods make it a conditions.Object.
type widget struct {
	metav1.ObjectMeta
	Status struct{ Conditions []metav1.Condition }
}

func (w *widget) GetConditions() []metav1.Condition  { return w.Status.Conditions }
func (w *widget) SetConditions(c []metav1.Condition) { w.Status.Conditions = c }

// markReady works for any typed object with conditions.
func markReady(o conditions.Object, generation int64) bool {
	return conditions.SetObject(o, metav1.Condition{
		Type: conditions.TypeReady, Status: metav1.ConditionTrue, Reason: conditions.ReasonAvailable,
		ObservedGeneration: generation,
	})
}

func ExampleObject() {
	w := &widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Generation: 2}}
	fmt.Println(markReady(w, w.Generation), markReady(w, w.Generation))
	fmt.Println(conditions.IsTrue(w.Status.Conditions, conditions.TypeReady))
	// Output:
	// true false
	// true
}

// database is a typed object with conditions, as a kubebuilder API has.
type database struct {
	metav1.ObjectMeta
	Status struct{ Conditions []metav1.Condition }
}

// statusClient stands for a controller-runtime client, whose
// Status().Update writes an object's status; it counts the writes.
type statusClient struct{ writes int }

func (c *statusClient) Status() *statusClient             { return c }
func (c *statusClient) Update(context.Context, any) error { c.writes++; return nil }

// Example_writeOnChange sets a condition on every reconcile and writes the
// status only when the condition changed.
func Example_writeOnChange() {
	ctx, c := context.Background(), &statusClient{}
	db := &database{ObjectMeta: metav1.ObjectMeta{Name: "orders", Generation: 3}}
	var err error
	for range 3 { // three reconciles: only the first changes anything
		changed := conditions.Set(&db.Status.Conditions, metav1.Condition{
			Type:               "DatabaseReady",
			Status:             metav1.ConditionFalse,
			Reason:             "NotFound",
			Message:            "database orders does not exist",
			ObservedGeneration: db.Generation,
		})
		if changed {
			err = c.Status().Update(ctx, db)
		}
	}
	fmt.Println("writes:", c.writes, err)
	// Output: writes: 1 <nil>
}

// Example_propagateAndWrite copies an XR's conditions to its claim on every
// reconcile and writes the claim's status only when it changed.
func Example_propagateAndWrite() {
	ctx, c := context.Background(), &statusClient{}
	xr := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "XDatabase",
		"metadata": map[string]any{"name": "orders-x7k2p"},
		"status": map[string]any{
			"claimConditions": []any{"ImageReady"},
			"conditions": []any{map[string]any{"type": "ImageReady", "status": "False", "reason": "NotFound",
				"lastTransitionTime": "2026-03-01T12:00:00Z"}},
		},
	}}
	claim := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "Database",
		"metadata": map[string]any{"name": "orders", "namespace": "team-a"},
	}}
	for range 3 { // three reconciles: only the first changes the claim
		changed, err := conditions.Propagate(xr, claim)
		if err == nil && changed {
			err = c.Status().Update(ctx, claim)
		}
		if err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println("writes:", c.writes)
	// Output: writes: 1
}

// A parent reports its workloads' readiness as one condition.
func ExampleAggregate() {
	workloads := []conditions.Source{
		{Name: "Deployment web", Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NotEnoughReplicas", Message: "1/3 replicas ready"}}},
		{Name: "StatefulSet db", Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready"}}},
		{Name: "Deployment cache"},
	}
	c := conditions.Aggregate("WorkloadsReady", "Ready", workloads, conditions.ObservedGeneration(2))
	fmt.Println(c.Status, c.Reason)
	fmt.Println(c.Message)
	// Output:
	// False NotEnoughReplicas
	// Deployment web: 1/3 replicas ready; Deployment cache: not reported
}

// A cluster shows its control plane's Ready as its own ControlPlaneReady.
func ExampleMirror() {
	controlPlane := conditions.Source{Name: "ControlPlane cp", Conditions: []metav1.Condition{
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "ScalingUp", Message: "1 of 3 machines ready"},
	}}
	c := conditions.Mirror("ControlPlaneReady", "Ready", controlPlane, conditions.ObservedGeneration(5))
	fmt.Println(c.Type, c.Status, c.Reason)
	fmt.Println(c.Message)

	none := conditions.Mirror("ControlPlaneReady", "Ready", conditions.Source{Name: "ControlPlane cp"},
		conditions.Fallback{Status: metav1.ConditionFalse, Reason: "ControlPlaneNotCreated", Message: "waiting for the control plane"})
	fmt.Println(none.Status, none.Reason)
	// Output:
	// ControlPlaneReady False ScalingUp
	// ControlPlane cp: 1 of 3 machines ready
	// False ControlPlaneNotCreated
}

// Two controllers own one condition type each on one object. A writer whose
// write is refused as stale re-reads the object and applies its patch to what
// it finds, keeping the other writer's change.
func ExampleNewPatch() {
	read := []metav1.Condition{
		{Type: "NetworkReady", Status: metav1.ConditionFalse, Reason: "Creating"},
		{Type: "StorageReady", Status: metav1.ConditionFalse, Reason: "Creating"},
	}
	mine := append([]metav1.Condition(nil), read...)
	conditions.Set(&mine, metav1.Condition{Type: "NetworkReady", Status: metav1.ConditionTrue, Reason: "Available"})
	patch := conditions.NewPatch(read, mine)

	// Meanwhile the other controller made StorageReady True.
	latest := []metav1.Condition{
		{Type: "NetworkReady", Status: metav1.ConditionFalse, Reason: "Creating"},
		{Type: "StorageReady", Status: metav1.ConditionTrue, Reason: "Available"},
	}
	changed, err := patch.Apply(&latest, conditions.Owned{"NetworkReady"})
	fmt.Println(changed, err)
	for _, c := range latest {
		fmt.Println(c.Type, c.Status)
	}
	// Output:
	// true <nil>
	// NetworkReady True
	// StorageReady True
}

func ExamplePropagateSynced() {
	// An XR whose pipeline failed: Synced carries the detail, for the
	// platform team.
	xr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.org/v1", "kind": "XApp",
		"metadata": map[string]any{"name": "shop-x7k2p", "generation": int64(3)},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": "Synced", "status": "False", "reason": "ReconcileError", "observedGeneration": int64(3),
			"message":            `cannot compose resources: pipeline step "app" returned a fatal result: dial tcp 10.0.0.7:5432: connection refused`,
			"lastTransitionTime": "2026-03-01T12:00:00Z",
		}}},
	}}
	claim := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.org/v1", "kind": "App",
		"metadata": map[string]any{"namespace": "team-a", "name": "shop", "generation": int64(1)},
	}}
	changed, _ := conditions.PropagateSynced(xr, claim)
	conds, _ := conditions.FromUnstructured(claim)
	c := conditions.Get(conds, conditions.TypeCompositeSynced)
	fmt.Println(changed, c.Status, c.Reason)
	fmt.Println(c.Message)

	// Nothing changed: the caller skips the write.
	changed, _ = conditions.PropagateSynced(xr, claim)
	fmt.Println(changed)
	// Output:
	// true False ReconcileError
	// The composite resource could not be synced. The platform team can look up XApp shop-x7k2p (Synced False, ReconcileError, generation 3).
	// false
}

func ExampleHealth() {
	xr := []metav1.Condition{
		{Type: "Synced", Status: metav1.ConditionTrue, Reason: "ReconcileSuccess"},
		{Type: "ImageReady", Status: metav1.ConditionTrue, Reason: "Available"},
		{Type: "DatabaseReady", Status: metav1.ConditionFalse, Reason: "NotFound", Message: "database orders does not exist"},
	}
	composed := []conditions.Source{
		{Name: "Deployment shop", Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Available"}}},
	}
	h := conditions.Health(xr, composed, conditions.Types{"ImageReady", "DatabaseReady"}, conditions.ObservedGeneration(3))
	fmt.Println(h.Status, h.Reason+":", h.Message)

	// The claim: its own Synced, and its XR as the one resource it is made of.
	claim := []metav1.Condition{{Type: "Synced", Status: metav1.ConditionTrue, Reason: "ReconcileSuccess"}}
	h = conditions.Health(claim, []conditions.Source{{Name: "XApp shop-x7k2p", Conditions: []metav1.Condition{h}}}, conditions.Types{})
	fmt.Println(h.Status, h.Reason+":", h.Message)
	// Output:
	// False UnhealthyConditions: conditions: DatabaseReady False (NotFound)
	// False UnhealthyResources: resources: XApp shop-x7k2p (Healthy False, UnhealthyConditions)
}
