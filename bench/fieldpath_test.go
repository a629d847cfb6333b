package bench

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// The fieldpath comparisons read and write the same fields of the same
// object with ctrlkit's fieldpath, apimachinery's unstructured helpers and
// client-go's jsonpath. The unstructured helpers take a []string of map keys
// and cannot index arrays, so the shared paths are map keys only.

func fieldpathObject() map[string]any {
	return map[string]any{
		"apiVersion": "example.org/v1",
		"kind":       "Thing",
		"metadata": map[string]any{
			"name":      "thing",
			"namespace": "default",
			"labels": map[string]any{
				"app.kubernetes.io/name": "thing",
				"team":                   "platform",
			},
		},
		"spec": map[string]any{
			"forProvider": map[string]any{
				"region": "eu-west-1",
				"containers": []any{
					map[string]any{"name": "a"},
					map[string]any{"name": "b", "env": map[string]any{"LOG": "debug"}},
				},
			},
		},
	}
}

// A fieldpathCase is one field addressed in each library's syntax.
type fieldpathCase struct {
	name      string
	path      string   // ctrlkit fieldpath
	fields    []string // unstructured.NestedFieldNoCopy / SetNestedField
	jsonpath  string   // client-go jsonpath
	wantValue string
}

var fieldpathCases = []fieldpathCase{
	{
		name:      "Fields",
		path:      "spec.forProvider.region",
		fields:    []string{"spec", "forProvider", "region"},
		jsonpath:  "{.spec.forProvider.region}",
		wantValue: "eu-west-1",
	},
	{
		name:      "DottedKey",
		path:      "metadata.labels[app.kubernetes.io/name]",
		fields:    []string{"metadata", "labels", "app.kubernetes.io/name"},
		jsonpath:  `{.metadata.labels['app\.kubernetes\.io/name']}`,
		wantValue: "thing",
	},
	{
		// The unstructured helpers cannot index arrays, so this case is
		// compared with jsonpath only.
		name:      "Index",
		path:      "spec.forProvider.containers[1].env.LOG",
		jsonpath:  "{.spec.forProvider.containers[1].env.LOG}",
		wantValue: "debug",
	},
}

var (
	sinkAny  any
	sinkBool bool
	sinkErr  error
	sinkSegs fieldpath.Segments
)

// Each side of each comparison is a function of *testing.B, so that it runs
// both as its own benchmark and inside BenchmarkFieldpathVsPeers.

func getCompiled(c fieldpathCase) func(*testing.B) {
	return func(b *testing.B) {
		obj := fieldpathObject()
		p := fieldpath.MustCompile(c.path)
		b.ReportAllocs()
		for b.Loop() {
			sinkAny, sinkErr = p.Get(obj)
		}
		if sinkAny != c.wantValue || sinkErr != nil {
			b.Fatalf("Path(%q).Get: got %v, %v", c.path, sinkAny, sinkErr)
		}
	}
}

func getPaved(c fieldpathCase) func(*testing.B) {
	return func(b *testing.B) {
		p := fieldpath.Pave(fieldpathObject())
		b.ReportAllocs()
		for b.Loop() {
			sinkAny, sinkErr = p.GetValue(c.path)
		}
		if sinkAny != c.wantValue || sinkErr != nil {
			b.Fatalf("GetValue(%q): got %v, %v", c.path, sinkAny, sinkErr)
		}
	}
}

func getNestedField(c fieldpathCase) func(*testing.B) {
	return func(b *testing.B) {
		obj := fieldpathObject()
		b.ReportAllocs()
		for b.Loop() {
			sinkAny, sinkBool, sinkErr = unstructured.NestedFieldNoCopy(obj, c.fields...)
		}
		if sinkAny != c.wantValue || sinkErr != nil {
			b.Fatalf("NestedFieldNoCopy(%q): got %v, %v", c.fields, sinkAny, sinkErr)
		}
	}
}

func getJSONPath(c fieldpathCase) func(*testing.B) {
	return func(b *testing.B) {
		obj := fieldpathObject()
		j := jsonpath.New(c.name)
		if err := j.Parse(c.jsonpath); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		var got any
		for b.Loop() {
			r, err := j.FindResults(obj)
			if err != nil || len(r) != 1 || len(r[0]) != 1 {
				b.Fatalf("FindResults(%q): got %v, %v", c.jsonpath, r, err)
			}
			got = r[0][0].Interface()
		}
		if got != c.wantValue {
			b.Fatalf("FindResults(%q): got %v", c.jsonpath, got)
		}
	}
}

func setPaved(c fieldpathCase) func(*testing.B) {
	return func(b *testing.B) {
		p := fieldpath.Pave(fieldpathObject())
		b.ReportAllocs()
		for b.Loop() {
			sinkErr = p.SetString(c.path, "new")
		}
		if sinkErr != nil {
			b.Fatal(sinkErr)
		}
	}
}

func setNestedField(c fieldpathCase) func(*testing.B) {
	return func(b *testing.B) {
		obj := fieldpathObject()
		b.ReportAllocs()
		for b.Loop() {
			sinkErr = unstructured.SetNestedField(obj, "new", c.fields...)
		}
		if sinkErr != nil {
			b.Fatal(sinkErr)
		}
	}
}

func parseFieldpath(c fieldpathCase) func(*testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkSegs, sinkErr = fieldpath.Parse(c.path)
		}
		if sinkErr != nil {
			b.Fatal(sinkErr)
		}
	}
}

func parseJSONPath(c fieldpathCase) func(*testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkErr = jsonpath.New(c.name).Parse(c.jsonpath)
		}
		if sinkErr != nil {
			b.Fatal(sinkErr)
		}
	}
}

// A fieldpathPair is a ctrlkit operation and the peer operation it is
// compared with.
type fieldpathPair struct {
	name         string
	ours, theirs func(fieldpathCase) func(*testing.B)
	peer         string
	fieldsOnly   bool // the peer takes a list of map keys, so skip cases without one
}

var fieldpathPairs = []fieldpathPair{
	{name: "CompiledGet", ours: getCompiled, theirs: getNestedField, peer: "NestedFieldNoCopy", fieldsOnly: true},
	{name: "PavedGetValue", ours: getPaved, theirs: getNestedField, peer: "NestedFieldNoCopy", fieldsOnly: true},
	{name: "CompiledGetVsJSONPath", ours: getCompiled, theirs: getJSONPath, peer: "jsonpath.FindResults"},
	{name: "PavedSetString", ours: setPaved, theirs: setNestedField, peer: "SetNestedField", fieldsOnly: true},
	{name: "Parse", ours: parseFieldpath, theirs: parseJSONPath, peer: "jsonpath.Parse"},
}

// runPairs runs the named pairs' two sides on every case they apply to, as
// sub-benchmarks.
func runPairs(b *testing.B, names ...string) {
	for _, pair := range fieldpathPairs {
		if !slices.Contains(names, pair.name) {
			continue
		}
		for _, c := range fieldpathCases {
			if pair.fieldsOnly && c.fields == nil {
				continue
			}
			b.Run(pair.name+"/"+c.name+"/"+pair.peer, pair.theirs(c))
			b.Run(pair.name+"/"+c.name+"/ctrlkit", pair.ours(c))
		}
	}
}

// BenchmarkFieldpathGet compares reading a field.
func BenchmarkFieldpathGet(b *testing.B) {
	runPairs(b, "CompiledGet", "PavedGetValue", "CompiledGetVsJSONPath")
}

// BenchmarkFieldpathSet compares writing a string to an existing field.
func BenchmarkFieldpathSet(b *testing.B) {
	runPairs(b, "PavedSetString")
}

// BenchmarkFieldpathParse compares parsing a path.
func BenchmarkFieldpathParse(b *testing.B) {
	runPairs(b, "Parse")
}

// BenchmarkFieldpathVsPeers runs both sides of every comparison as
// sub-benchmarks of this one run: fieldpathRounds rounds, each measuring the
// peer and then ctrlkit, so that a burst of load from other processes skews
// one round rather than one side. Each ctrlkit line carries its time as a
// multiple of the peer's from the same round (below 1 is faster), as the
// metric x-vs-<peer>, and a table of the best round of each side and their
// ratio is logged at the end (shown with -v).
//
// It cannot call testing.Benchmark: a running benchmark holds the testing
// package's benchmark lock, which testing.Benchmark waits for forever.
func BenchmarkFieldpathVsPeers(b *testing.B) {
	const fieldpathRounds = 3
	var table strings.Builder
	fmt.Fprintf(&table, "\nbest of %d rounds\n%-22s %-10s %-21s %11s %7s %11s %7s %7s\n", fieldpathRounds,
		"comparison", "path", "peer", "ctrlkit ns", "allocs", "peer ns", "allocs", "ratio")
	for _, pair := range fieldpathPairs {
		for _, c := range fieldpathCases {
			if pair.fieldsOnly && c.fields == nil {
				continue
			}
			name := pair.name + "/" + c.name
			var ours, theirs measurement
			for range fieldpathRounds {
				t, ok := measure(b, name+"/"+pair.peer, pair.theirs(c), nil, "")
				if !ok {
					break // filtered out by -bench
				}
				o, ok := measure(b, name+"/ctrlkit", pair.ours(c), &t, pair.peer)
				if !ok {
					break
				}
				ours, theirs = ours.best(o), theirs.best(t)
			}
			if ours.ns == 0 || theirs.ns == 0 {
				continue
			}
			fmt.Fprintf(&table, "%-22s %-10s %-21s %11.1f %7.1f %11.1f %7.1f %6.2fx\n",
				pair.name, c.name, pair.peer, ours.ns, ours.allocs, theirs.ns, theirs.allocs, ours.ns/theirs.ns)
		}
	}
	b.Log(table.String())
}

type measurement struct {
	ns, allocs float64 // per operation
}

func (m measurement) best(o measurement) measurement {
	if m.ns == 0 || o.ns < m.ns {
		return o
	}
	return m
}

// measure runs f as a sub-benchmark and returns its time and allocations per
// operation, or false when -bench filtered it out; given a peer's
// measurement it also reports the ratio to it. f must use b.Loop, so that it
// runs once and its setup is left out of the time; its few setup allocations
// are spread over b.N and vanish.
func measure(b *testing.B, name string, f func(*testing.B), peer *measurement, peerName string) (measurement, bool) {
	var m measurement
	b.Run(name, func(b *testing.B) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f(b)
		runtime.ReadMemStats(&after)
		m.ns = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		m.allocs = float64(after.Mallocs-before.Mallocs) / float64(b.N)
		if peer != nil && peer.ns > 0 {
			b.ReportMetric(m.ns/peer.ns, "x-vs-"+peerName)
		}
	})
	return m, m.ns > 0
}
