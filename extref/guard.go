package extref

import (
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// The defaults of WriteBudget.
const (
	DefaultBudgetWrites  = 10
	DefaultBudgetWindow  = 30 * time.Second
	DefaultBudgetMaxHold = 8 * time.Minute
)

// A WriteBudget bounds the writes SetupReconciler's controller makes to each
// referencer, so that a loop validation cannot see (referencers that read
// each other's ordinary fields in a cycle, a source another controller
// rewrites whenever the referencer changes) cannot have it written for ever.
//
// A referencer takes at most Writes writes (of its spec or its status, the
// Oscillating condition included) in any Window. A reconcile that would
// leave no room for that condition trips the budget: nothing is written but
// the ReferencesResolved condition, False with reason Oscillating (and a
// Warning event), and the referencer is held: nothing is written to it until
// its spec changes (its generation moves) or the hold has passed. When the
// hold has passed, what the referencer resolves to then is written once, on
// probation: another write within a Window trips it again. So a burst of
// source changes ends with the source's last value written, and a loop
// takes one reconcile's writes per hold. The hold is a Window at the first
// trip and doubles at each trip that follows, up to MaxHold.
type WriteBudget struct {
	// Writes a referencer may take in any Window; 0 means
	// DefaultBudgetWrites, and at least 3 (a probe's two and the Oscillating
	// condition). A reconcile writes the spec and the status, so it takes
	// two.
	Writes int
	// Window is the period the budget applies to; 0 means
	// DefaultBudgetWindow. A source change wakes a referencer at most once
	// a second, so a loop takes about two writes a second: a Window shorter
	// than Writes/2 seconds does not catch it.
	Window time.Duration
	// MaxHold caps the hold after a trip; 0 means DefaultBudgetMaxHold.
	MaxHold time.Duration
}

func (b WriteBudget) withDefaults() WriteBudget {
	if b.Writes <= 0 {
		b.Writes = DefaultBudgetWrites
	}
	if b.Writes < probeWrites+1 {
		b.Writes = probeWrites + 1
	}
	if b.Window <= 0 {
		b.Window = DefaultBudgetWindow
	}
	if b.MaxHold <= 0 {
		b.MaxHold = DefaultBudgetMaxHold
	}
	b.MaxHold = max(b.MaxHold, b.Window)
	return b
}

// ReasonOscillating: the referencer took more writes than its WriteBudget
// allows, as it would in a loop, and nothing more is written to it until its
// spec changes or its hold has passed.
const ReasonOscillating = "Oscillating"

// probeWrites are the writes of one reconcile (spec and status), let through
// after a hold.
const probeWrites = 2

// writeGuard keeps the WriteBudget of each referencer.
type writeGuard struct {
	budget WriteBudget
	clock  clock.PassiveClock

	mu   sync.Mutex
	refs map[types.NamespacedName]*writeRecord
}

// writeRecord is what the guard knows of one referencer.
type writeRecord struct {
	writes    []time.Time // the latest writes, oldest first, at most budget.Writes
	probation time.Time   // until then the budget is probeWrites
	trips     int         // for the back-off
	lastTrip  time.Time

	held       bool
	until      time.Time // the hold's end
	hold       time.Duration
	generation int64 // the referencer's, at the trip
	reported   bool  // the Oscillating condition was written
}

func newWriteGuard(b WriteBudget, c clock.PassiveClock) *writeGuard {
	if c == nil {
		c = clock.RealClock{}
	}
	return &writeGuard{budget: b.withDefaults(), clock: c, refs: make(map[types.NamespacedName]*writeRecord)}
}

// A verdict is whether a reconcile may write.
type verdict struct {
	held   bool          // write nothing (but the Oscillating condition, when report)
	report bool          // the Oscillating condition is still to be written
	wait   time.Duration // until the hold passes
	hold   time.Duration // the hold of the trip
	writes int           // the budget that tripped
}

// admit decides whether a reconcile that would write need writes to the
// referencer key, of the given generation, may make them.
func (g *writeGuard) admit(key types.NamespacedName, generation int64, need int) verdict {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	rec := g.record(key)
	if rec.held {
		switch {
		case generation != rec.generation:
			// Its spec changed: a fresh budget (the back-off stays).
			rec.held, rec.writes, rec.probation = false, rec.writes[:0], time.Time{}
		case now.Before(rec.until):
			return verdict{held: true, report: !rec.reported, wait: rec.until.Sub(now), hold: rec.hold, writes: g.budget.Writes}
		default:
			// The hold has passed: what the referencer resolves to now
			// is written once, whether or not the trip held it back (a
			// burst's last value is), and a loop trips again at its next
			// write.
			rec.held, rec.writes, rec.probation = false, rec.writes[:0], now.Add(g.budget.Window)
		}
	}
	if rec.trips > 0 && now.Sub(rec.lastTrip) > 2*g.budget.MaxHold {
		rec.trips = 0
	}
	limit := g.budget.Writes
	if now.Before(rec.probation) {
		limit = probeWrites
	}
	used := 0
	for _, t := range rec.writes {
		if now.Sub(t) < g.budget.Window {
			used++
		}
	}
	// The last write of the budget is kept for the Oscillating condition
	// of a trip.
	if used+need <= limit && used+need < g.budget.Writes {
		return verdict{}
	}
	rec.trips++
	rec.lastTrip = now
	rec.hold = g.budget.Window
	for i := 1; i < rec.trips && rec.hold < g.budget.MaxHold; i++ {
		rec.hold *= 2
	}
	rec.hold = min(rec.hold, g.budget.MaxHold)
	rec.held, rec.reported = true, false
	rec.until = now.Add(rec.hold)
	rec.generation = generation
	return verdict{held: true, report: true, wait: rec.hold, hold: rec.hold, writes: g.budget.Writes}
}

// wrote records a write to the referencer key.
func (g *writeGuard) wrote(key types.NamespacedName) {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	rec := g.record(key)
	if len(rec.writes) >= g.budget.Writes {
		rec.writes = append(rec.writes[:0], rec.writes[1:]...)
	}
	rec.writes = append(rec.writes, now)
}

// record returns the record of the referencer key, made on first use. The
// caller holds g.mu.
func (g *writeGuard) record(key types.NamespacedName) *writeRecord {
	rec := g.refs[key]
	if rec == nil {
		rec = &writeRecord{}
		g.refs[key] = rec
	}
	return rec
}

// reported records that the Oscillating condition of the referencer key was
// written.
func (g *writeGuard) reported(key types.NamespacedName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if rec := g.refs[key]; rec != nil {
		rec.reported = true
	}
}

// forget drops what is known of a referencer that is gone.
func (g *writeGuard) forget(key types.NamespacedName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.refs, key)
}

// oscillatingCondition returns the ReferencesResolved condition of a
// referencer held by its write budget: False with reason Oscillating.
func oscillatingCondition(v verdict, window time.Duration, generation int64) metav1.Condition {
	return metav1.Condition{
		Type:               TypeReferencesResolved,
		Status:             metav1.ConditionFalse,
		Reason:             ReasonOscillating,
		ObservedGeneration: generation,
		Message: fmt.Sprintf("the referencer needed more than %d writes in %s, as in a loop (a cycle of references, or a source rewritten whenever the referencer changes): "+
			"nothing more is written until its spec changes or %s have passed, then its resolved values once; another write within %s holds it again, for twice as long", v.writes, window, v.hold, window),
	}
}
