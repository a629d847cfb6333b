package nop

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/internal/message"
	"github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// write computes the object's status at now, writes it if it changed, and
// says which scheduled transitions the write carried. keep, if set, says
// which conditions to leave alone when the computed status lacks them.
func (r *reconciler) write(ctx context.Context, obj client.Object, p parsedSpec, overrides []metav1.Condition, now time.Time, keep func(string) bool) (outcome, error) {
	spec, status := parts(obj)
	created := obj.GetCreationTimestamp().Time
	gen := obj.GetGeneration()
	var out outcome
	if tooLarge(status, gen) && !p.schedule.sets(conditions.TypeStalled, ReasonStatusTooLarge) {
		return out, nil // until the spec changes
	}

	elapsed := now.Sub(created)
	due, next, ok := p.schedule.at(elapsed)
	if ok {
		out.next = created.Add(next)
	}

	old := status.DeepCopy()
	status.ObservedGeneration = gen
	kept := keep
	if kept == nil {
		kept = othersKept(p.schedule, old, gen)
	}
	apply(r.setter, &status.Conditions, desired(old.Conditions, created, due, defaults(p.schedule, elapsed, p.note), overrides, gen, now), kept)
	if keep == nil {
		mirror(&status.AtProvider, &spec.ForProvider)
	}
	if statusEqual(old, status) {
		return out, nil
	}
	if len(due) == 0 && !out.next.IsZero() && out.next.Sub(now) <= generationGrace && len(overrides) == 0 && unobserved(old) {
		// Nothing scheduled is due yet, and the write of the next entry,
		// due within generationGrace, is the first.
		return out, nil
	}
	if n := r.largestStatus(obj, p, overrides, keep, now); n > MaxStatusBytes {
		return r.tooLarge(ctx, obj, old, fmt.Sprintf("cannot store the status: it takes %d bytes by the end of the schedule, more than the %d a status may take; shorten spec.forProvider (conditionAfter messages, fields)", n, MaxStatusBytes), now)
	}

	for _, e := range due {
		c := conditions.Get(status.Conditions, e.cond.Type)
		if c == nil || c.Reason != e.cond.Reason || c.Message != e.cond.Message || c.Status != e.cond.Status {
			continue // overridden
		}
		if was := conditions.Get(old.Conditions, c.Type); was != nil && was.Status == c.Status && was.Reason == c.Reason && was.Message == c.Message {
			continue // not a transition
		}
		out.transitions = append(out.transitions, Transition{
			Kind: r.kind.name, Object: client.ObjectKeyFromObject(obj), Condition: *c,
			Entry: e.index, Due: created.Add(e.after), Created: created,
		})
	}
	if err := r.updateStatus(ctx, obj); err != nil {
		if refusedAsTooLarge(err) {
			return r.tooLarge(ctx, obj, old, "cannot store the status: the API server refused it as too large ("+message.Truncate(err.Error(), 200)+"); shorten spec.forProvider (conditionAfter messages, fields)", now)
		}
		return outcome{}, err
	}
	out.wrote = true
	log.FromContext(ctx).V(1).Info("status written", "conditions", len(status.Conditions), "transitions", len(out.transitions))
	return out, nil
}

// MaxStatusBytes is the most a resource's status may take, as JSON, at any
// time of its schedule. A spec that needs more makes the resource Stalled
// (reason StatusTooLarge) until it changes: etcd refuses an object above
// 1.5 MiB by default, and the spec takes about as much as its status.
const MaxStatusBytes = 512 << 10

// largestStatus returns the size, as JSON, of obj's status once every entry
// of the schedule has fallen due, or of the status at hand if that is larger.
func (r *reconciler) largestStatus(obj client.Object, p parsedSpec, overrides []metav1.Condition, keep func(string) bool, now time.Time) int {
	_, status := parts(obj)
	n := jsonSize(status)
	if len(p.schedule) == 0 {
		return n
	}
	end := status.DeepCopy()
	created := obj.GetCreationTimestamp().Time
	due, _, _ := p.schedule.at(time.Duration(math.MaxInt64))
	apply(r.setter, &end.Conditions, desired(status.Conditions, created, due, nil, overrides, obj.GetGeneration(), now), func(t string) bool { return true })
	return max(n, jsonSize(end))
}

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0 // a status of Go values always marshals
	}
	return len(b)
}

// tooLarge makes obj's status say, in few bytes, that the status its spec
// asks for cannot be stored: Stalled=True, Synced=False and Ready=False with
// reason StatusTooLarge, nothing else. The reconciler then leaves the
// resource alone until its spec changes.
func (r *reconciler) tooLarge(ctx context.Context, obj client.Object, old *v1alpha1.NopResourceStatus, msg string, now time.Time) (outcome, error) {
	_, status := parts(obj)
	status.Conditions = slices.Clone(old.Conditions)
	status.ObservedGeneration = obj.GetGeneration()
	status.AtProvider = v1alpha1.NopResourceObservation{}
	apply(r.setter, &status.Conditions, desired(old.Conditions, obj.GetCreationTimestamp().Time, nil, nil, stalled(ReasonStatusTooLarge, msg), obj.GetGeneration(), now), nil)
	if statusEqual(old, status) {
		return outcome{}, nil
	}
	if err := r.updateStatus(ctx, obj); err != nil {
		return outcome{}, err
	}
	log.FromContext(ctx).Info("status too large", "error", msg)
	r.event(obj, ReasonStatusTooLarge, "Reconcile", msg)
	return outcome{wrote: true}, nil
}

// tooLarge says whether status records that the status generation asks for
// cannot be stored.
func tooLarge(status *v1alpha1.NopResourceStatus, generation int64) bool {
	c := conditions.Get(status.Conditions, conditions.TypeStalled)
	return c != nil && c.Reason == ReasonStatusTooLarge && c.ObservedGeneration == generation && status.ObservedGeneration == generation
}

// generationGrace is how long a resource's first status write may wait for
// its next scheduled entry. It spares a resource whose first entry is due
// within a second (a typical test schedule) a write of its own: the resource
// then takes one status write per transition and none besides. A second is
// the precision of the creationTimestamp that the schedule counts from.
const generationGrace = time.Second

// unobserved says whether the status was never written.
func unobserved(s *v1alpha1.NopResourceStatus) bool {
	return s.ObservedGeneration == 0 && len(s.Conditions) == 0
}

// othersKept returns which conditions a reconcile that computes the whole
// status leaves alone although the computed status lacks them: those of a
// type the reconciler neither sets itself nor schedules, which another writer
// added, unless the condition is an entry removed from the spec (the status
// was last written for an earlier generation, and so was the condition).
// Removing another writer's condition would make the two write in turn for
// ever.
func othersKept(s schedule, old *v1alpha1.NopResourceStatus, generation int64) func(string) bool {
	return func(t string) bool {
		switch t {
		case conditions.TypeReady, conditions.TypeSynced, conditions.TypeReconciling, conditions.TypeStalled:
			return false
		}
		if slices.ContainsFunc(s, func(e entry) bool { return e.cond.Type == t }) {
			return false
		}
		c := conditions.Get(old.Conditions, t)
		removedEntry := c != nil && old.ObservedGeneration < generation && 0 < c.ObservedGeneration && c.ObservedGeneration < generation
		return !removedEntry
	}
}

// keepAll leaves every condition the computed status lacks alone.
func keepAll(string) bool { return true }

// invalid records a bad spec: Stalled=True, Synced=False and Ready=False with
// reason InvalidSpec; the schedule's other conditions are left as they are.
func (r *reconciler) invalid(ctx context.Context, obj client.Object, specErr error) (outcome, error) {
	out, err := r.write(ctx, obj, parsedSpec{}, stalled(ReasonInvalidSpec, specErr.Error()), r.clock.Now(), keepAll)
	if err == nil && out.wrote {
		log.FromContext(ctx).Info("invalid spec", "error", specErr.Error())
		r.event(obj, ReasonInvalidSpec, "Reconcile", specErr.Error())
	}
	return out, err
}
