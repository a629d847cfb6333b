package fieldpath

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrlkit/ctrlkit/internal/leaktest"
)

// The marker values planted in objects. No error may hold 4 bytes in a row of
// any of them: errors describe a value by its type and size only, because
// code that puts them into conditions and events (as crossplane-runtime's
// users do) would otherwise publish a Secret's value.
const (
	markerString = leaktest.String
	markerDigits = leaktest.Digits
)

var (
	markerInt    = int64(31337424242)
	markerFloat  = 31337424242.5
	markerNumber = json.Number(markerDigits)
)

// markerValues are the planted values: every JSON type, and containers of
// the marker, so that a path that stops at any of them meets the wrong type.
func markerValues() map[string]any {
	return map[string]any{
		"str":     markerString,
		"int":     markerInt,
		"float":   markerFloat,
		"number":  markerNumber,
		"bool":    true,
		"null":    nil,
		"arr":     []any{markerString, markerInt, true, []any{markerString}, map[string]any{"k": markerString}},
		"obj":     map[string]any{"k": markerString, "n": markerInt, "b": false, "a": []any{markerString}},
		"strs":    []string{markerString},
		"labels":  map[string]string{"k": markerString},
		"nested":  map[string]any{"deeper": map[string]any{"str": markerString, "arr": []any{markerFloat}}},
		"numbers": []any{markerFloat, markerNumber},
	}
}

// markerMarshaler fails to marshal with an error that quotes the marker, as
// a careless MarshalJSON method might.
type markerMarshaler struct{}

func (markerMarshaler) MarshalJSON() ([]byte, error) {
	return nil, errors.New("cannot marshal " + markerString)
}

// markerRaw marshals to JSON text that is not valid JSON and holds the
// marker, so that encoding/json's error would quote its bytes.
type markerRaw struct{}

func (markerRaw) MarshalJSON() ([]byte, error) { return []byte(markerString), nil }

// A typed object whose conversion to unstructured content fails.
type markerObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              markerMarshaler `json:"spec"`
}

func (o *markerObject) DeepCopyObject() runtime.Object { return o }

func ptr[T any](v T) *T { return &v }

// TestNoErrorQuotesAValue plants marker values in an object and drives every
// error of the exported API through them: each step of a path through a
// value of the wrong type, each typed getter on each type, values that cannot
// be stored, and JSON that cannot be decoded.
func TestNoErrorQuotesAValue(t *testing.T) {
	keys := make([]string, 0)
	for k := range markerValues() {
		keys = append(keys, k)
	}
	// Paths that stop at, go through or index into each planted value.
	var paths []string
	for _, k := range keys {
		for _, suffix := range []string{"", ".x", "[0]", "[0].x", "[0][0]", "[3][0].y", "[4].k.z", ".k.z", ".k[0]", ".a[0].b", ".deeper.str.x", ".deeper.arr[0].x", "[*]", "[*].x", ".*", ".*.x", "[1][*]"} {
			paths = append(paths, "spec."+k+suffix)
		}
	}
	into := []func() any{
		func() any { return new(int8) }, func() any { return new(string) }, func() any { return new(bool) },
		func() any { return new(map[string]int) }, func() any { return new([]int) },
		func() any { return new(struct{ K int }) }, func() any { return new(float32) },
	}
	for _, path := range paths {
		p := Pave(map[string]any{"spec": markerValues()})
		_, err := p.GetValue(path)
		leaktest.Check(t, "GetValue "+path, err)
		_, err = p.GetString(path)
		leaktest.Check(t, "GetString "+path, err)
		_, err = p.GetStringArray(path)
		leaktest.Check(t, "GetStringArray "+path, err)
		_, err = p.GetStringObject(path)
		leaktest.Check(t, "GetStringObject "+path, err)
		_, err = p.GetBool(path)
		leaktest.Check(t, "GetBool "+path, err)
		_, err = p.GetInteger(path)
		leaktest.Check(t, "GetInteger "+path, err)
		for _, out := range into {
			leaktest.Check(t, "GetValueInto "+path, p.GetValueInto(path, out()))
		}
		_, err = p.ExpandWildcards(path)
		leaktest.Check(t, "ExpandWildcards "+path, err)
		leaktest.Check(t, "SetValue "+path, p.SetValue(path+".new", "v"))
		leaktest.Check(t, "SetString "+path, p.SetString(path+"[0]", "v"))
		leaktest.Check(t, "SetBool "+path, p.SetBool(path+".b", true))
		leaktest.Check(t, "SetNumber "+path, p.SetNumber(path+".n", 1))
		for _, opts := range []*MergeOptions{nil, {KeepMapValues: ptr(true)}, {AppendSlice: ptr(true)}} {
			leaktest.Check(t, "MergeValue "+path, p.MergeValue(path+".m", map[string]any{"a": 1}, opts))
		}
		leaktest.Check(t, "DeleteField "+path, Pave(map[string]any{"spec": markerValues()}).DeleteField(path+".d"))
		if c, err := Compile(path); err == nil {
			_, err := c.Get(map[string]any{"spec": markerValues()})
			leaktest.Check(t, "Path.Get "+path, err)
			leaktest.Check(t, "Path.Set "+path, c.Set(map[string]any{"spec": markerValues()}, "v"))
		}
	}

	// Values that cannot be stored, each holding the marker.
	bad := map[string]any{
		"NaN":          markerFloat * 0 / zero(),
		"BadNumber":    json.Number(markerString),
		"HugeNumber":   json.Number("1" + markerDigits + "e999"),
		"Marshaler":    markerMarshaler{},
		"RawInvalid":   markerRaw{},
		"RawMessage":   json.RawMessage(markerString),
		"NestedNumber": map[string]any{"a": []any{markerString, json.Number(markerString)}},
		"NestedRaw":    map[string]any{"k": []any{markerInt, json.RawMessage(`{"x": ` + markerString + `}`)}},
		"Channel":      map[string]any{"k": make(chan string)},
		"Func":         []any{markerString, func() string { return markerString }},
	}
	for name, v := range bad {
		for _, path := range []string{"spec.new", "spec.str.x", "spec.arr[9]"} {
			p := Pave(map[string]any{"spec": markerValues()})
			err := p.SetValue(path, v)
			if err == nil && path == "spec.new" {
				t.Errorf("SetValue %s: want an error, got none", name)
			}
			leaktest.Check(t, "SetValue "+name+" at "+path, err)
			leaktest.Check(t, "MergeValue "+name+" at "+path, p.MergeValue(path, v, &MergeOptions{KeepMapValues: ptr(true)}))
			leaktest.Check(t, "Path.Set "+name+" at "+path, MustCompile(path).Set(map[string]any{"spec": markerValues()}, v))
		}
	}
	// Content that Go code put there and that cannot be encoded.
	p := Pave(map[string]any{"spec": map[string]any{"m": markerMarshaler{}, "r": markerRaw{}, "ch": make(chan int)}})
	for _, path := range []string{"spec", "spec.m", "spec.r", "spec.ch"} {
		leaktest.Check(t, "GetValueInto "+path, p.GetValueInto(path, new(any)))
		leaktest.Check(t, "MergeValue "+path, p.MergeValue(path, []any{markerString}, &MergeOptions{AppendSlice: ptr(true)}))
	}

	// JSON that does not decode into a Paved.
	for _, data := range []string{
		`"` + markerString + `"`, markerDigits, `[` + markerDigits + `]`, `{"a": ` + markerString + `}`,
		`{"a": "` + markerString + `"`, markerString, `{"a": 1}` + markerString, `true`,
	} {
		var pv Paved
		err := pv.UnmarshalJSON([]byte(data))
		if err == nil {
			t.Errorf("UnmarshalJSON(%s): want an error, got none", data)
		}
		leaktest.Check(t, "UnmarshalJSON", err)
		leaktest.Check(t, "json.Unmarshal into a Paved", json.Unmarshal([]byte(data), &pv))
	}

	// A typed object whose conversion fails.
	_, err := PaveObject(&markerObject{Spec: markerMarshaler{}})
	if err == nil {
		t.Error("PaveObject of an object that cannot be converted: want an error, got none")
	}
	leaktest.Check(t, "PaveObject", err)
}

func zero() float64 { return 0 }

// TestNoErrorQuotesARandomValue is the property behind
// TestNoErrorQuotesAValue over random objects with the marker planted at
// random places, and random paths through them.
func TestNoErrorQuotesARandomValue(t *testing.T) {
	for seed := range uint64(3000) {
		noLeakOnRandom(t, seed, "")
	}
}

// FuzzNoErrorQuotesAValue explores the same property with the fuzzer's paths.
func FuzzNoErrorQuotesAValue(f *testing.F) {
	for i, p := range fuzzPaths {
		f.Add(uint64(i), p)
	}
	f.Add(uint64(7), "a.b.c.d")
	f.Add(uint64(9), "a[0][1].b[*]")
	f.Fuzz(func(t *testing.T, seed uint64, path string) {
		if len(path) > fuzzMaxPath || leaktest.Find(path) != "" {
			return // a path may be quoted, and this one holds the marker
		}
		noLeakOnRandom(t, seed, path)
	})
}

var randKeys = []string{"a", "b", "c", "0", "1"}

// randomValue builds a random JSON value at most depth deep, with the marker
// as its scalars.
func randomValue(r *rand.Rand, depth int) any {
	n := r.IntN(9)
	if depth <= 0 {
		n = r.IntN(5)
	}
	switch n {
	case 0:
		return markerString
	case 1:
		return markerInt
	case 2:
		return markerFloat
	case 3:
		return r.IntN(2) == 0
	case 4:
		return nil
	case 5, 6:
		m := map[string]any{}
		for range r.IntN(4) {
			m[randKeys[r.IntN(len(randKeys))]] = randomValue(r, depth-1)
		}
		return m
	default:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomValue(r, depth-1)
		}
		return a
	}
}

// randomPath builds a path of field names, indexes and wildcards.
func randomPath(r *rand.Rand) string {
	var b strings.Builder
	for i := range 1 + r.IntN(5) {
		switch r.IntN(4) {
		case 0:
			b.WriteString("[" + randKeys[r.IntN(2)+3] + "]")
		case 1:
			if r.IntN(4) == 0 {
				b.WriteString("[*]")
				continue
			}
			fallthrough
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(randKeys[r.IntN(3)])
		}
	}
	return b.String()
}

func noLeakOnRandom(t *testing.T, seed uint64, path string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	obj := map[string]any{}
	for range 1 + r.IntN(3) {
		obj[randKeys[r.IntN(3)]] = randomValue(r, 4)
	}
	if path == "" {
		path = randomPath(r)
	}
	p := Pave(obj)
	_, err := p.GetValue(path)
	leaktest.Check(t, "GetValue "+path, err)
	_, err = p.GetString(path)
	leaktest.Check(t, "GetString "+path, err)
	_, err = p.GetStringArray(path)
	leaktest.Check(t, "GetStringArray "+path, err)
	_, err = p.GetStringObject(path)
	leaktest.Check(t, "GetStringObject "+path, err)
	_, err = p.GetBool(path)
	leaktest.Check(t, "GetBool "+path, err)
	_, err = p.GetInteger(path)
	leaktest.Check(t, "GetInteger "+path, err)
	leaktest.Check(t, "GetValueInto "+path, p.GetValueInto(path, new(int8)))
	leaktest.Check(t, "GetValueInto "+path, p.GetValueInto(path, new(map[string]bool)))
	_, err = p.ExpandWildcards(path)
	leaktest.Check(t, "ExpandWildcards "+path, err)
	leaktest.Check(t, "MergeValue "+path, p.MergeValue(path, randomValue(r, 2), &MergeOptions{KeepMapValues: ptr(true), AppendSlice: ptr(true)}))
	leaktest.Check(t, "SetValue "+path, p.SetValue(path, randomValue(r, 2)))
	leaktest.Check(t, "DeleteField "+path, p.DeleteField(path))
}
