package fieldpath

import (
	"strings"
	"testing"
)

// benchObject is a small managed resource, shaped like the objects
// controllers read in their hot loops.
func benchObject() map[string]any {
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
					map[string]any{"name": "b"},
					map[string]any{"name": "c"},
					map[string]any{
						"name": "d",
						"env":  map[string]any{"app.kubernetes.io/name": "thing", "LOG": "debug"},
					},
				},
			},
		},
	}
}

const benchPath = "spec.forProvider.containers[3].env[app.kubernetes.io/name]"

var (
	sinkSegs Segments
	sinkAny  any
	sinkStr  string
	sinkErr  error
)

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkSegs, sinkErr = Parse(benchPath)
	}
}

func BenchmarkSegmentsString(b *testing.B) {
	segs, err := Parse(benchPath)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sinkStr = segs.String()
	}
}

func BenchmarkPathGet(b *testing.B) {
	obj := benchObject()
	cases := map[string]string{
		"Fields":      "spec.forProvider.region",
		"LabelKey":    "metadata.labels[app.kubernetes.io/name]",
		"IndexAndKey": benchPath,
	}
	for name, path := range cases {
		b.Run(name, func(b *testing.B) {
			p := MustCompile(path)
			b.ReportAllocs()
			for b.Loop() {
				sinkAny, sinkErr = p.Get(obj)
			}
			if sinkErr != nil {
				b.Fatal(sinkErr)
			}
		})
	}
}

func BenchmarkPavedGetValue(b *testing.B) {
	p := Pave(benchObject())
	cases := map[string]string{
		"Fields":      "spec.forProvider.region",
		"LabelKey":    "metadata.labels[app.kubernetes.io/name]",
		"IndexAndKey": benchPath,
	}
	for name, path := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkAny, sinkErr = p.GetValue(path)
			}
			if sinkErr != nil {
				b.Fatal(sinkErr)
			}
		})
	}
}

func BenchmarkPavedGetValueNotFound(b *testing.B) {
	p := Pave(benchObject())
	b.ReportAllocs()
	for b.Loop() {
		sinkAny, sinkErr = p.GetValue("spec.forProvider.zone")
	}
}

func BenchmarkPavedSetString(b *testing.B) {
	p := Pave(benchObject())
	b.Run("ExistingLeaf", func(b *testing.B) {
		// A constant string is boxed without allocating.
		b.ReportAllocs()
		for b.Loop() {
			sinkErr = p.SetString("spec.forProvider.region", "us-east-1")
		}
	})
	b.Run("ExistingLeafDynamicString", func(b *testing.B) {
		// Any other string is boxed into the map's interface value: that
		// 16-byte allocation is the value itself, and the only one.
		v := strings.Repeat("u", 9)
		b.ReportAllocs()
		for b.Loop() {
			sinkErr = p.SetString("spec.forProvider.region", v)
		}
	})
	b.Run("ExistingDeepLeafPreboxed", func(b *testing.B) {
		var v any = strings.Repeat("u", 9)
		b.ReportAllocs()
		for b.Loop() {
			sinkErr = p.SetValue(benchPath, v)
		}
	})
}

func BenchmarkPathSet(b *testing.B) {
	obj := benchObject()
	p := MustCompile(benchPath)
	var v any = "x"
	b.ReportAllocs()
	for b.Loop() {
		sinkErr = p.Set(obj, v)
	}
}

func BenchmarkPavedSetValueNewParents(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkErr = Pave(nil).SetValue("spec.forProvider.tags[2].key", "x")
	}
}

func BenchmarkPavedSetValueStruct(b *testing.B) {
	type port struct {
		Name string `json:"name"`
		Port int32  `json:"port"`
	}
	p := Pave(benchObject())
	b.ReportAllocs()
	for b.Loop() {
		sinkErr = p.SetValue("spec.forProvider.port", port{Name: "http", Port: 80})
	}
}

func BenchmarkExpandWildcards(b *testing.B) {
	p := Pave(benchObject())
	b.ReportAllocs()
	for b.Loop() {
		_, sinkErr = p.ExpandWildcards("spec.forProvider.containers[*].name")
	}
}
