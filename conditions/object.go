package conditions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Object is a typed API object whose status holds metav1.Conditions, so that
// code written for any such object (a reconciler library, a test helper) can
// set and read its conditions without converting it to unstructured content.
// Cluster API's and Flux's types already have these methods; for your own
// type they are two lines:
//
//	func (d *Database) GetConditions() []metav1.Condition  { return d.Status.Conditions }
//	func (d *Database) SetConditions(c []metav1.Condition) { d.Status.Conditions = c }
//
// Code that knows the type needs no adapter: it passes
// &d.Status.Conditions to Set and Remove.
type Object interface {
	GetConditions() []metav1.Condition
	SetConditions([]metav1.Condition)
}

// SetObject is Setter.SetObject with the real clock.
func SetObject(o Object, c metav1.Condition) (changed bool) {
	return Setter{}.SetObject(o, c)
}

// SetObject is Set for o's conditions. It calls o.SetConditions only when
// something changed, and allocates nothing when nothing did.
func (s Setter) SetObject(o Object, c metav1.Condition) (changed bool) {
	conds := o.GetConditions()
	if !s.Set(&conds, c) {
		return false
	}
	o.SetConditions(conds)
	return true
}

// RemoveObject is Remove for o's conditions. It calls o.SetConditions only
// when there was a condition to remove.
func RemoveObject(o Object, conditionType string) (removed bool) {
	conds := o.GetConditions()
	if !Remove(&conds, conditionType) {
		return false
	}
	o.SetConditions(conds)
	return true
}
