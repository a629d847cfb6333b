package conditions

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TypeCompositeSynced is the condition under which a claim shows its
// composite resource's Synced (see PropagateSynced), with a message written
// for the claim's audience. On a composite resource, a False CompositeSynced
// carries the message its claim shows of the failure: a composition
// function's message for the claim, which results.Applier records.
const TypeCompositeSynced = "CompositeSynced"

// PropagateSynced is Setter.PropagateSynced with the real clock.
func PropagateSynced(xr, claim *unstructured.Unstructured) (changed bool, err error) {
	return Setter{}.PropagateSynced(xr, claim)
}

// PropagateSynced shows the composite resource xr's Synced on its claim, as
// the claim's CompositeSynced condition, and reports whether the claim
// changed. The XR keeps the detail; the claim never gets the XR's message:
//
//   - Synced True: CompositeSynced True with Synced's reason;
//   - Synced False or Unknown: the same status and reason, and as message
//     the one the XR carries for its claim (a False CompositeSynced on the XR
//     of the same observedGeneration as Synced) or else a generic sentence
//     that names the XR, Synced's status and reason and the generation it
//     describes, which the platform team can look up: "The composite
//     resource could not be synced. The platform team can look up XApp
//     shop-x7k2p (Synced False, ReconcileError, generation 3).";
//   - no Synced: no CompositeSynced.
//
// A reason that is missing or invalid becomes Available (True), Unavailable
// (False) or NotReported (Unknown). The claim's condition gets the claim's
// metadata.generation as observedGeneration, but one that lacks only
// observedGeneration (a schema without the field prunes it) is not rewritten
// for it, so a settled claim takes no write on either schema. Malformed
// conditions on either object give an error wrapping ErrMalformed, and the
// claim is left unchanged.
func (s Setter) PropagateSynced(xr, claim *unstructured.Unstructured) (changed bool, err error) {
	if xr == nil || claim == nil {
		return false, ErrNilObject
	}
	var xrBuf, claimBuf [propagateBuf]metav1.Condition
	_, _, xrConds, err := readConditions(xr.Object, xrBuf[:0])
	if err != nil {
		return false, fmt.Errorf("cannot read the conditions of %s: %w", describe(xr), err)
	}
	_, _, claimConds, err := readConditions(claim.Object, claimBuf[:0])
	if err != nil {
		return false, fmt.Errorf("cannot show the Synced condition of %s on %s: %w", describe(xr), describe(claim), err)
	}
	synced := Get(xrConds, TypeSynced)
	if synced == nil {
		if Get(claimConds, TypeCompositeSynced) == nil {
			return false, nil
		}
		return RemoveUnstructured(claim, TypeCompositeSynced)
	}
	want := compositeSynced(xr, synced, Get(xrConds, TypeCompositeSynced))
	want.ObservedGeneration = claim.GetGeneration()
	normalize(&want)
	if have := Get(claimConds, TypeCompositeSynced); have != nil &&
		have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message &&
		(have.ObservedGeneration == want.ObservedGeneration || have.ObservedGeneration == 0) {
		return false, nil
	}
	return s.SetUnstructured(claim, want)
}

// compositeSynced is the claim's CompositeSynced for the XR's synced, with
// the message carried, if any.
func compositeSynced(xr *unstructured.Unstructured, synced, carried *metav1.Condition) metav1.Condition {
	c := metav1.Condition{Type: TypeCompositeSynced, Status: synced.Status, Reason: synced.Reason}
	if c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse {
		c.Status = metav1.ConditionUnknown
	}
	if checkReason(c.Reason) != "" {
		switch c.Status {
		case metav1.ConditionTrue:
			c.Reason = ReasonAvailable
		case metav1.ConditionFalse:
			c.Reason = ReasonUnavailable
		default:
			c.Reason = ReasonNotReported
		}
	}
	if c.Status == metav1.ConditionTrue {
		return c
	}
	if c.Status == metav1.ConditionFalse && carried != nil && carried.Status == metav1.ConditionFalse &&
		carried.ObservedGeneration == synced.ObservedGeneration && carried.Message != "" {
		c.Message = carried.Message
		return c
	}
	generation := synced.ObservedGeneration
	if generation == 0 {
		generation = xr.GetGeneration()
	}
	what := "could not be synced"
	if c.Status == metav1.ConditionUnknown {
		what = "has not said whether it is synced"
	}
	// Status and reason as written above: valid, so short and plain.
	c.Message = fmt.Sprintf("The composite resource %s. The platform team can look up %s (Synced %s, %s, generation %d).",
		what, describe(xr), c.Status, c.Reason, generation)
	return c
}
