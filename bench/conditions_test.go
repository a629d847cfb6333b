package bench

import (
	"flag"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	capiconditions "sigs.k8s.io/cluster-api/util/conditions"

	"github.com/ctrlkit/ctrlkit/conditions"
)

// The conditions comparisons run the same operation on the same data with
// ctrlkit's conditions, apimachinery's meta helpers (meta.SetStatusCondition,
// meta.FindStatusCondition, runtime.DefaultUnstructuredConverter) and Cluster
// API's util/conditions (v1.14, built here against k8s.io v0.37). Cluster API
// works on objects, so its side wraps the list in a Getter/Setter; its Set
// sorts the list and reports no change, so its pipelines compare lists to
// decide whether to write. Neither peer has claim propagation: their
// Propagate sides are the obvious hand-written equivalent (read both objects
// into typed conditions, set each listed type, remove the dropped ones, and
// compare), which is what a controller without ctrlkit would do.

// condObject is a Cluster API Getter and Setter.
type condObject struct{ conds []metav1.Condition }

func (o *condObject) GetConditions() []metav1.Condition  { return o.conds }
func (o *condObject) SetConditions(c []metav1.Condition) { o.conds = c }

var (
	condSinkBool bool
	condSinkCond *metav1.Condition
	condSinkList []metav1.Condition
	condSinkErr  error
)

var condTime = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// condList returns n settled conditions of distinct types.
func condList(n int) []metav1.Condition {
	out := make([]metav1.Condition, n)
	for i := range out {
		out[i] = metav1.Condition{
			Type: fmt.Sprintf("Component%02dReady", i), Status: metav1.ConditionTrue, Reason: "Available",
			Message: "component is available", LastTransitionTime: condTime, ObservedGeneration: 3,
		}
	}
	return out
}

// condUpdate is what a reconciler passes to set the last condition of
// condList(n) again: the same state and no lastTransitionTime.
func condUpdate(n int) metav1.Condition {
	c := condList(n)[n-1]
	c.LastTransitionTime = metav1.Time{}
	return c
}

func condEntries(conds []metav1.Condition) []any {
	out := make([]any, len(conds))
	for i, c := range conds {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
		if err != nil {
			panic(err)
		}
		out[i] = m
	}
	return out
}

func condUnstructured(conds []metav1.Condition) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.org/v1", "kind": "XDatabase",
		"metadata": map[string]any{"name": "orders", "generation": int64(3)},
		"status":   map[string]any{"phase": "Ready", "conditions": condEntries(conds)},
	}}
}

// Each side of each comparison is a setup function: it builds its data,
// runs the operation once, checks the result, and returns the operation, so
// that it runs both as its own benchmark and inside the one-run comparison.
type condSetup func() (op func(), err error)

// Set that changes nothing, on a list of 10.

func condSetNoChangeCtrlkit() (func(), error) {
	conds, c := condList(10), condUpdate(10)
	op := func() { condSinkBool = conditions.Set(&conds, c) }
	return op, condExpect(op, func() bool { return !condSinkBool })
}

func condSetNoChangeMeta() (func(), error) {
	conds, c := condList(10), condUpdate(10)
	op := func() { condSinkBool = meta.SetStatusCondition(&conds, c) }
	return op, condExpect(op, func() bool { return !condSinkBool })
}

func condSetNoChangeCAPI() (func(), error) {
	o, c := &condObject{conds: condList(10)}, condUpdate(10)
	op := func() { capiconditions.Set(o, c) }
	return op, condExpect(op, func() bool { return len(o.conds) == 10 })
}

// Set that flips a status, on a list of 10.

var condStatuses = [2]metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionTrue}

func condSetChangeCtrlkit() (func(), error) {
	conds, c := condList(10), condUpdate(10)
	i := 0
	op := func() {
		c.Status = condStatuses[i&1]
		i++
		condSinkBool = conditions.Set(&conds, c)
	}
	return op, condExpect(op, func() bool { return condSinkBool })
}

func condSetChangeMeta() (func(), error) {
	conds, c := condList(10), condUpdate(10)
	i := 0
	op := func() {
		c.Status = condStatuses[i&1]
		i++
		condSinkBool = meta.SetStatusCondition(&conds, c)
	}
	return op, condExpect(op, func() bool { return condSinkBool })
}

func condSetChangeCAPI() (func(), error) {
	o, c := &condObject{conds: condList(10)}, condUpdate(10)
	i := 0
	op := func() {
		c.Status = condStatuses[i&1]
		i++
		capiconditions.Set(o, c)
	}
	return op, condExpect(op, func() bool { return capiconditions.Get(o, c.Type).Status == c.Status })
}

// Get of the last of 10.

func condGetCtrlkit() (func(), error) {
	conds, t := condList(10), condUpdate(10).Type
	op := func() { condSinkCond = conditions.Get(conds, t) }
	return op, condExpect(op, func() bool { return condSinkCond != nil })
}

func condGetMeta() (func(), error) {
	conds, t := condList(10), condUpdate(10).Type
	op := func() { condSinkCond = meta.FindStatusCondition(conds, t) }
	return op, condExpect(op, func() bool { return condSinkCond != nil })
}

func condGetCAPI() (func(), error) {
	o, t := &condObject{conds: condList(10)}, condUpdate(10).Type
	op := func() { condSinkCond = capiconditions.Get(o, t) }
	return op, condExpect(op, func() bool { return condSinkCond != nil })
}

// Reading 10 conditions from an unstructured object.

func condReadCtrlkit() (func(), error) {
	u := condUnstructured(condList(10))
	op := func() { condSinkList, condSinkErr = conditions.FromUnstructured(u) }
	return op, condExpect(op, func() bool { return condSinkErr == nil && len(condSinkList) == 10 })
}

func condReadMeta() (func(), error) {
	u := condUnstructured(condList(10))
	op := func() { condSinkList, condSinkErr = condConvert(u) }
	return op, condExpect(op, func() bool { return condSinkErr == nil && len(condSinkList) == 10 })
}

// condConvert reads status.conditions with the default converter.
func condConvert(u *unstructured.Unstructured) ([]metav1.Condition, error) {
	var st struct {
		Conditions []metav1.Condition `json:"conditions"`
	}
	m, _, err := unstructured.NestedMap(u.Object, "status")
	if err != nil {
		return nil, err
	}
	err = runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st)
	return st.Conditions, err
}

func condReadCAPI() (func(), error) {
	u := condUnstructured(condList(10))
	op := func() { condSinkList, condSinkErr = capiconditions.UnstructuredGetAll(u) }
	return op, condExpect(op, func() bool { return condSinkErr == nil && len(condSinkList) == 10 })
}

// A Ready summary of 10 conditions, one of them bad, with a negative-polarity
// type.

func condSummaryList() ([]metav1.Condition, []string) {
	conds := condList(10)
	conds[4].Status, conds[4].Reason = metav1.ConditionFalse, "NotFound"
	types := make([]string, len(conds))
	for i := range conds {
		types[i] = conds[i].Type
	}
	return conds, types
}

func condSummarizeCtrlkit() (func(), error) {
	conds, types := condSummaryList()
	op := func() {
		c := conditions.Summarize(conditions.TypeReady, conds, conditions.Types(types), conditions.NegativePolarity{"Stalled"})
		condSinkCond = &c
	}
	return op, condExpect(op, func() bool { return condSinkCond.Status == metav1.ConditionFalse })
}

func condSummarizeCAPI() (func(), error) {
	conds, types := condSummaryList()
	o := &condObject{conds: conds}
	op := func() {
		condSinkCond, condSinkErr = capiconditions.NewSummaryCondition(o, "Ready",
			capiconditions.ForConditionTypes(types), capiconditions.NegativePolarityConditionTypes{"Stalled"},
			capiconditions.IgnoreTypesIfMissing{"Stalled"})
	}
	return op, condExpect(op, func() bool { return condSinkErr == nil && condSinkCond.Status == metav1.ConditionFalse })
}

// Propagating 20 conditions from an XR to a claim that already shows them.

func condPropagatePair() (xr, claim *unstructured.Unstructured, err error) {
	conds := condList(20)
	types := make([]any, len(conds))
	for i := range conds {
		types[i] = conds[i].Type
	}
	xr = condUnstructured(conds)
	xr.Object["status"].(map[string]any)["claimConditions"] = types
	claim = condUnstructured(nil)
	claim.SetKind("Database")
	changed, err := conditions.Propagate(xr, claim)
	if err == nil && !changed {
		err = fmt.Errorf("the first Propagate changed nothing")
	}
	return xr, claim, err
}

func condPropagateSide(propagate func(xr, claim *unstructured.Unstructured) (bool, error)) condSetup {
	return func() (func(), error) {
		xr, claim, err := condPropagatePair()
		if err != nil {
			return nil, err
		}
		op := func() { condSinkBool, condSinkErr = propagate(xr, claim) }
		return op, condExpect(op, func() bool { return !condSinkBool && condSinkErr == nil })
	}
}

func condPropagateWithCtrlkit(xr, claim *unstructured.Unstructured) (bool, error) {
	return conditions.Propagate(xr, claim)
}

// condClaimStatus is the typed view of the fields propagation reads.
type condClaimStatus struct {
	Conditions      []metav1.Condition `json:"conditions,omitempty"`
	ClaimConditions []string           `json:"claimConditions,omitempty"`
}

func condReadClaimStatus(u *unstructured.Unstructured) (condClaimStatus, error) {
	var st condClaimStatus
	m, _, err := unstructured.NestedMap(u.Object, "status")
	if err == nil {
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st)
	}
	return st, err
}

// condPropagateWithMeta is propagation written with apimachinery alone.
func condPropagateWithMeta(xr, claim *unstructured.Unstructured) (bool, error) {
	x, err := condReadClaimStatus(xr)
	if err != nil {
		return false, err
	}
	c, err := condReadClaimStatus(claim)
	if err != nil {
		return false, err
	}
	var propagated []string
	changed := false
	for _, t := range x.ClaimConditions {
		xc := meta.FindStatusCondition(x.Conditions, t)
		if xc == nil || conditions.IsReserved(t) || slices.Contains(propagated, t) {
			continue
		}
		want := *xc
		want.ObservedGeneration = claim.GetGeneration()
		changed = meta.SetStatusCondition(&c.Conditions, want) || changed
		propagated = append(propagated, t)
	}
	for _, t := range c.ClaimConditions {
		if !slices.Contains(propagated, t) && !conditions.IsReserved(t) {
			changed = meta.RemoveStatusCondition(&c.Conditions, t) || changed
		}
	}
	changed = changed || !slices.Equal(c.ClaimConditions, propagated)
	if !changed {
		return false, nil
	}
	c.ClaimConditions = propagated
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
	if err != nil {
		return false, err
	}
	st := claim.Object["status"].(map[string]any)
	st["conditions"], st["claimConditions"] = m["conditions"], m["claimConditions"]
	return true, nil
}

// condPropagateWithCAPI is propagation written with Cluster API's utilities.
func condPropagateWithCAPI(xr, claim *unstructured.Unstructured) (bool, error) {
	xConds, err := capiconditions.UnstructuredGetAll(xr)
	if err != nil {
		return false, err
	}
	cConds, err := capiconditions.UnstructuredGetAll(claim)
	if err != nil {
		return false, err
	}
	listed, _, _ := unstructured.NestedStringSlice(xr.Object, "status", "claimConditions")
	recorded, _, _ := unstructured.NestedStringSlice(claim.Object, "status", "claimConditions")
	target := &condObject{conds: slices.Clone(cConds)}
	var propagated []string
	for _, t := range listed {
		xc := meta.FindStatusCondition(xConds, t)
		if xc == nil || conditions.IsReserved(t) || slices.Contains(propagated, t) {
			continue
		}
		want := *xc
		want.ObservedGeneration = claim.GetGeneration()
		capiconditions.Set(target, want)
		propagated = append(propagated, t)
	}
	for _, t := range recorded {
		if !slices.Contains(propagated, t) && !conditions.IsReserved(t) && capiconditions.Has(target, t) {
			capiconditions.Delete(target, t)
		}
	}
	if equality.Semantic.DeepEqual(cConds, target.conds) && slices.Equal(recorded, propagated) {
		return false, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&condClaimStatus{Conditions: target.conds, ClaimConditions: propagated})
	if err != nil {
		return false, err
	}
	st := claim.Object["status"].(map[string]any)
	st["conditions"], st["claimConditions"] = m["conditions"], m["claimConditions"]
	return true, nil
}

// condExpect runs op once and reports whether ok then holds.
func condExpect(op func(), ok func() bool) error {
	op()
	if !ok() {
		return fmt.Errorf("unexpected result")
	}
	return nil
}

// A conditionsComparison is one operation done by ctrlkit and by its peers.
type conditionsComparison struct {
	name  string
	ours  condSetup
	peers []conditionsPeer
}

type conditionsPeer struct {
	name  string
	setup condSetup
}

var conditionsComparisons = []conditionsComparison{
	{name: "SetNoChange10", ours: condSetNoChangeCtrlkit, peers: []conditionsPeer{
		{"meta.SetStatusCondition", condSetNoChangeMeta}, {"capi.Set", condSetNoChangeCAPI}}},
	{name: "SetStatusChange10", ours: condSetChangeCtrlkit, peers: []conditionsPeer{
		{"meta.SetStatusCondition", condSetChangeMeta}, {"capi.Set", condSetChangeCAPI}}},
	{name: "Get10", ours: condGetCtrlkit, peers: []conditionsPeer{
		{"meta.FindStatusCondition", condGetMeta}, {"capi.Get", condGetCAPI}}},
	{name: "FromUnstructured10", ours: condReadCtrlkit, peers: []conditionsPeer{
		{"DefaultUnstructuredConverter", condReadMeta}, {"capi.UnstructuredGetAll", condReadCAPI}}},
	{name: "Summarize10", ours: condSummarizeCtrlkit, peers: []conditionsPeer{
		{"capi.NewSummaryCondition", condSummarizeCAPI}}},
	{name: "PropagateNoChange20", ours: condPropagateSide(condPropagateWithCtrlkit), peers: []conditionsPeer{
		{"meta+converter", condPropagateSide(condPropagateWithMeta)}, {"capi+converter", condPropagateSide(condPropagateWithCAPI)}}},
}

// condBenchmark runs one side as a benchmark of its own.
func condBenchmark(setup condSetup) func(*testing.B) {
	return func(b *testing.B) {
		op, err := setup()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			op()
		}
	}
}

// BenchmarkConditions runs every side of every comparison on its own.
func BenchmarkConditions(b *testing.B) {
	for _, c := range conditionsComparisons {
		b.Run(c.name+"/ctrlkit", condBenchmark(c.ours))
		for _, p := range c.peers {
			b.Run(c.name+"/"+p.name, condBenchmark(p.setup))
		}
	}
}

// BenchmarkConditionsVsPeers measures every side of each comparison in this
// one run, eight times in turn (alternating the order) for half of -benchtime
// each, keeping each side's fastest time so that a burst of load on a shared
// machine does not decide a ratio. It reports
// ctrlkit's time as a multiple of each peer's (below 1 is faster) and logs a
// table of the figures. Its own ns/op is meaningless and suppressed.
//
// The sides are timed by condMeasure, not testing.Benchmark: a benchmark
// that calls testing.Benchmark deadlocks, since both take the testing
// package's benchmark lock.
func BenchmarkConditionsVsPeers(b *testing.B) {
	const rounds = 8
	target := condBenchTime()
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-20s %-29s %11s %7s %11s %7s %7s\n",
		"comparison", "peer", "ctrlkit ns", "allocs", "peer ns", "allocs", "ratio")
	for _, c := range conditionsComparisons {
		setups := []condSetup{c.ours}
		for _, p := range c.peers {
			setups = append(setups, p.setup)
		}
		ops := make([]func(), len(setups))
		for i, setup := range setups {
			op, err := setup()
			if err != nil {
				b.Fatalf("%s: side %d: %v", c.name, i, err)
			}
			ops[i] = op
		}
		ns := make([]float64, len(ops))
		allocs := make([]float64, len(ops))
		for r := range rounds {
			for k := range ops {
				i := k
				if r%2 == 1 {
					i = len(ops) - 1 - k // alternate the order, so neither side always goes first
				}
				t, a := condMeasure(ops[i], target/2)
				if r == 0 || t < ns[i] {
					ns[i], allocs[i] = t, a
				}
			}
		}
		for i, p := range c.peers {
			ratio := ns[0] / ns[i+1]
			b.ReportMetric(ratio, fmt.Sprintf("x-%s-%s", c.name, p.name))
			fmt.Fprintf(&table, "%-20s %-29s %11.1f %7.0f %11.1f %7.0f %6.2fx\n",
				c.name, p.name, ns[0], allocs[0], ns[i+1], allocs[i+1], ratio)
		}
	}
	b.ReportMetric(0, "ns/op")
	b.Log(table.String())
}

// condBenchTime is -test.benchtime when it is a duration, else one second.
func condBenchTime() time.Duration {
	if f := flag.Lookup("test.benchtime"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d > 0 {
			return d
		}
	}
	return time.Second
}

// condMeasure times op over enough iterations to take about target, and
// returns the time and the heap allocations per operation.
func condMeasure(op func(), target time.Duration) (nsPerOp, allocsPerOp float64) {
	n := 1
	for {
		start := time.Now()
		for range n {
			op()
		}
		elapsed := time.Since(start)
		if elapsed >= target/10 || n >= 1e9 {
			// Scale to the target and measure once more, allocations too.
			n = max(1, int(float64(n)*float64(target)/float64(max(elapsed, 1))))
			break
		}
		n *= 10
	}
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	start := time.Now()
	for range n {
		op()
	}
	elapsed := time.Since(start)
	goruntime.ReadMemStats(&after)
	return float64(elapsed.Nanoseconds()) / float64(n), float64(after.Mallocs-before.Mallocs) / float64(n)
}
