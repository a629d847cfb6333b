package extref

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// FuzzTransform applies arbitrary transforms to arbitrary JSON values: no
// panic, and no string output beyond MaxOutputSize.
func FuzzTransform(f *testing.F) {
	f.Add("Format", "%s-subnet", "", `"main"`)
	f.Add("Format", "%[1]*d%x%%%", "", `12`)
	f.Add("Format", "%1024.1024f", "", `1e300`)
	f.Add("Format", "%v", "", `{"a":[1,2,{"b":null}]}`)
	f.Add("Base64Decode", "", "", `"dXMtZWFzdC0x"`)
	f.Add("Base64Encode", "", "", `"us-east-1"`)
	f.Add("Map", "", "", `"a"`)
	f.Add("Convert", "", "int64", `"42"`)
	f.Add("Convert", "", "float64", `"1e999"`)
	f.Add("Convert", "", "bool", `1.5`)
	f.Add("Convert", "", "string", `{"a":1}`)
	f.Add("Convert", "quantity", "float64", `"1000m"`)
	f.Add("Convert", "quantity", "float64", `"9e18Ei"`)
	f.Add("Convert", "json", "object", `"{\"a\":[1,2.5]}"`)
	f.Add("Convert", "json", "array", `"[[[]]]"`)
	f.Add("Convert", "", "int", `true`)
	// A String transform's string field is the JSON in format.
	f.Add("String", `{"type":"Format","fmt":"%s-x"}`, "", `"main"`)
	f.Add("String", `{"type":"Convert","convert":"ToUpper"}`, "", `"ß"`)
	f.Add("String", `{"type":"Convert","convert":"FromBase64"}`, "", `"Q3Jvc3NQbGFuZQ=="`)
	f.Add("String", `{"type":"Convert","convert":"ToSha512"}`, "", `{"a":[1,2.5,null]}`)
	f.Add("String", `{"type":"Convert","convert":"ToJson"}`, "", `"<a&b>"`)
	f.Add("String", `{"type":"TrimPrefix","trim":"https://"}`, "", `"https://x"`)
	f.Add("String", `{"type":"Regexp","regexp":{"match":"a(b)?(c*)","group":2}}`, "", `"xabccc"`)
	f.Add("String", `{"type":"Regexp","regexp":{"match":"(x{1000}){2}"}}`, "", `"x"`)
	f.Add("String", `{"type":"Join","join":{"separator":", "}}`, "", `[1,"a",{"b":[]}]`)
	f.Add("String", `{"type":"Replace","replace":{"search":"a","replace":"aaaa"}}`, "", `"aaaa"`)
	// A Match transform's match field is the JSON in format.
	f.Add("Match", `{"patterns":[{"type":"Literal","literal":"a","result":{"b":[1]}}],"fallbackValue":2}`, "", `"a"`)
	f.Add("Match", `{"patterns":[{"type":"Regexp","regexp":"^a+$","result":null}],"fallbackTo":"Input"}`, "", `"aaa"`)
	f.Add("Match", `{"patterns":[{"type":"Regexp","regexp":"(","result":1}]}`, "", `1`)
	// A Math transform's math field is the JSON in format.
	f.Add("Math", `{"type":"Multiply","multiply":-1}`, "", `-9223372036854775808`)
	f.Add("Math", `{"type":"ClampMax","clampMax":2}`, "", `2.5`)
	f.Fuzz(func(t *testing.T, typ, format, toType, in string) {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			return
		}
		v = jsonNumbers(v)
		tr := v1alpha1.Transform{Type: v1alpha1.TransformType(typ), Format: format, ToType: v1alpha1.ConvertType(toType)}
		switch typ {
		case "Map":
			tr.Map = map[string]string{"a": format}
		case "String":
			if json.Unmarshal([]byte(format), &tr.String) != nil {
				return
			}
			tr.Format = ""
		case "Match":
			if json.Unmarshal([]byte(format), &tr.Match) != nil {
				return
			}
			tr.Format = ""
		case "Math":
			if json.Unmarshal([]byte(format), &tr.Math) != nil {
				return
			}
			tr.Format = ""
		}
		ct, err := compileTransform(tr)
		if err != nil {
			return
		}
		out, err := ct.apply(render.Value{V: v})
		if err != nil {
			if out.V != nil {
				t.Errorf("apply(...) returned %v with error %v", out, err)
			}
			return
		}
		if s, ok := out.V.(string); ok && len(s) > MaxOutputSize && typ != "Base64Decode" && typ != "Map" {
			t.Errorf("apply(...) returned %d bytes, more than %d", len(s), MaxOutputSize)
		}
	})
}

// FuzzResolve resolves an arbitrary list of external values against a fixed
// set of sources: no panic, an error leaves the referencer unchanged, and
// once resolved it has settled.
func FuzzResolve(f *testing.F) {
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data.region"},"toFieldPath":"spec.forProvider.region"}]`)
	f.Add(`[{"combine":[{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data"}],"fmt":"%v","toFieldPath":"metadata.annotations.x","policy":{"resolve":"Always"}}]`)
	f.Add(`[{"variables":[{"name":"a","fromRef":{"version":"v1","resource":"secrets","name":"db","fieldPath":"data.password"}}],"template":"{{ .a }}","makeAvailableAs":"p"}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data.size"},"toFieldPath":"spec.a[3].b","transforms":[{"type":"Convert","toType":"int64"}]}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data.region"},"toFieldPath":"spec.a.b","policy":{"resolve":"Always"}},{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data"},"toFieldPath":"spec.a","policy":{"resolve":"Always"}}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data.region"},"toFieldPath":"spec[resourceRefs][0].name"}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data.region"},"toFieldPath":"spec.a","transforms":[{"type":"String","string":{"type":"Regexp","regexp":{"match":"^([a-z]+)-","group":1}}},{"type":"Match","match":{"patterns":[{"type":"Literal","literal":"eu","result":{"r":[1]}}],"fallbackTo":"Input"}}]}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data.size"},"toFieldPath":"spec.a","transforms":[{"type":"Convert","toType":"float64","format":"quantity"},{"type":"Math","math":{"type":"ClampMin","clampMin":5}}]}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","nameFromFieldPath":"spec.forProvider.region","namespaceFromFieldPath":"metadata.namespace","fieldPath":"data.region"},"toFieldPath":"spec.a"}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","selector":{"mode":"Multiple","minMatch":0,"maxMatch":2,"sortByFieldPath":"data.size","matchLabels":[{"key":"a","valueFromFieldPath":"spec.x","fromFieldPathPolicy":"Optional"},{"key":"b","type":"Value","value":"c"}],"matchExpressions":[{"key":"d","operator":"NotIn","values":["e"]}]},"fieldPath":"data.region"},"toFieldPath":"spec.a"}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data"},"toFieldPath":"spec.a","policy":{"toFieldPath":"MergeObjects"}},{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data"},"toFieldPath":"spec.a","policy":{"toFieldPath":"ForceMergeObjectsAppendArrays","resolution":"Optional"}}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data.region"},"toFieldPath":"spec.a","transforms":[{"type":"Match","match":{"fallbackValue":[1,[2]]}}],"policy":{"toFieldPath":"MergeObjectsAppendArrays"}},{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data.size"},"toFieldPath":"spec.a[2]","policy":{"toFieldPath":"ForceMergeObjects"}}]`)
	f.Add(`[{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data"},"toFieldPath":"spec.a.b","policy":{"resolve":"Always"}},{"fromObject":{"version":"v1","resource":"configmaps","name":"settings","fieldPath":"data"},"toFieldPath":"spec.a","policy":{"toFieldPath":"ForceMergeObjects"}}]`)
	f.Add(`[{"dependsOn":{"version":"v1","resource":"configmaps","name":"settings","ready":true}},{"dependsOn":{"version":"v1","resource":"secrets","name":"db"},"policy":{"resolution":"Optional"}}]`)
	f.Fuzz(func(t *testing.T, list string) {
		var evs any
		if err := json.Unmarshal([]byte(list), &evs); err != nil {
			return
		}
		reader := newReader(
			configMap("team-a", "settings", map[string]any{"region": "eu-west-1", "size": "3"}),
			secret("team-a", "db", map[string]string{"password": "s3cr3t"}),
		)
		ref := object(configMapKind, "team-a", "w", map[string]any{"spec": map[string]any{"externalValues": jsonNumbers(evs)}})
		before := ref.DeepCopy()
		r := NewResolver(reader, testMapper(), SourcePolicy{OwnNamespaceSecrets: true})
		out, err := r.Resolve(context.Background(), ref)
		if err != nil || !out.Changed {
			if !equalObjects(before, ref) {
				t.Errorf("Resolve(...) changed the referencer without reporting a change (err %v)", err)
			}
		}
		if err != nil {
			return
		}
		// No value reaches a protected field; the referencer had none.
		spec, _ := ref.Object["spec"].(map[string]any)
		for _, f := range DefaultProtectedFields() {
			if _, ok := spec[strings.TrimPrefix(f, "spec.")]; ok {
				t.Errorf("Resolve(...) wrote %s, a protected field", f)
			}
		}
		// The sources hold still, so the referencer has settled: resolving
		// it again changes nothing (a reconciler would write it again).
		settled := ref.DeepCopy()
		if out, err := r.Resolve(context.Background(), ref); err != nil || out.Changed || !equalObjects(settled, ref) {
			t.Errorf("Resolve(...) of a settled referencer: changed=%t, err %v, want no change", out.Changed, err)
		}
	})
}

func equalObjects(a, b *unstructured.Unstructured) bool { return jsonvalue.Equal(a.Object, b.Object) }

// jsonNumbers turns encoding/json's float64 numbers into int64 where they
// are whole, as the Kubernetes decoder does.
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = jsonNumbers(e)
		}
	case float64:
		if i, ok := jsonvalue.WholeInt64(x); ok && float64(i) == x {
			return i
		}
	}
	return v
}
