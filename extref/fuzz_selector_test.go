package extref

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzSelect resolves arbitrary external values, with names and selectors
// taken from arbitrary fields of the referencer, against ConfigMaps that
// the default policy lets it list (team-a) and one it does not (team-b): no
// panic, an error leaves the referencer unchanged, a resolved referencer
// has settled, and nothing of team-b's object reaches the referencer, the
// values handed over or an error.
func FuzzSelect(f *testing.F) {
	f.Add(`{"tier":"gold","team":"team-b"}`, `[{"fromObject":{"version":"v1","resource":"configmaps","selector":{"matchLabels":[{"key":"tier","valueFromFieldPath":"spec.tier"}]},"fieldPath":"data.region"},"toFieldPath":"spec.a"}]`)
	f.Add(`{"tier":"gold","team":"team-b"}`, `[{"fromObject":{"version":"v1","resource":"configmaps","namespaceFromFieldPath":"spec.team","selector":{"mode":"Multiple","matchLabels":[{"key":"app","value":"web"}]},"fieldPath":"data.region"},"makeAvailableAs":"x"}]`)
	f.Add(`{"name":"web","team":"team-b"}`, `[{"fromObject":{"version":"v1","resource":"configmaps","nameFromFieldPath":"spec.name","namespaceFromFieldPath":"spec.team","fieldPath":"data"},"toFieldPath":"spec.a"}]`)
	f.Add(`{"n":1}`, `[{"variables":[{"name":"v","fromRef":{"version":"v1","resource":"configmaps","selector":{"mode":"Multiple","minMatch":0,"sortByFieldPath":"data.rank","matchExpressions":[{"key":"app","operator":"Exists"}]},"fieldPath":"metadata.name"}}],"template":"{{ toJson .v }}","toFieldPath":"spec.a","policy":{"resolve":"Always"}}]`)
	f.Add(`{"app":{"x":1}}`, `[{"combine":[{"version":"v1","resource":"configmaps","selector":{"matchLabels":[{"key":"app","valueFromFieldPath":"spec.app"}]},"fieldPath":"data.region"}],"fmt":"%v","toFieldPath":"spec.a","policy":{"resolution":"Optional"}}]`)
	f.Fuzz(func(t *testing.T, fields, list string) {
		var spec map[string]any
		var evs any
		if json.Unmarshal([]byte(fields), &spec) != nil || spec == nil || json.Unmarshal([]byte(list), &evs) != nil {
			return
		}
		spec = jsonNumbers(spec).(map[string]any)
		spec["externalValues"] = jsonNumbers(evs)
		objs := append(teamConfigs(), labelled("team-b", "gold", map[string]string{"app": "web", "tier": "gold"}, map[string]any{"region": "forbidden-zone-9", "rank": "1"}))
		ref := object(configMapKind, "team-a", "w", map[string]any{"spec": spec})
		before := ref.DeepCopy()
		r := NewResolver(listingReader(objs...), testMapper(), SourcePolicy{})
		out, err := r.Resolve(context.Background(), ref)
		if err != nil || !out.Changed {
			if !equalObjects(before, ref) {
				t.Errorf("Resolve(...) changed the referencer without reporting a change (err %v)", err)
			}
		}
		if !strings.Contains(fields+list, "forbidden") && !strings.Contains(fields+list, "north") {
			var seen strings.Builder
			b, _ := json.Marshal(ref.Object)
			seen.Write(b)
			b, _ = json.Marshal(out.Values)
			seen.Write(b)
			if err != nil {
				seen.WriteString(err.Error())
			}
			if strings.Contains(seen.String(), "forbidden-zone") || strings.Contains(seen.String(), "eu-north-1") {
				t.Errorf("team-b's object reached the referencer, values or error: %s", seen.String())
			}
		}
		if err != nil {
			return
		}
		settled := ref.DeepCopy()
		if out, err := r.Resolve(context.Background(), ref); err != nil || out.Changed || !equalObjects(settled, ref) {
			t.Errorf("Resolve(...) of a settled referencer: changed=%t, err %v, want no change", out.Changed, err)
		}
	})
}
