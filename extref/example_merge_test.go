package extref_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/extref"
)

// Several ConfigMaps merged, in list order, into values the referencer
// holds itself, as Flux's valuesFrom merges them: with ForceMergeObjects
// a later value's fields win. When a source goes (an Optional one), its
// fields go with it, and the referencer's own values stay.
func Example_merge() {
	reader, mapper := objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: defaults, namespace: team-a}
data: {replicas: "2", tier: bronze}`, `
apiVersion: v1
kind: ConfigMap
metadata: {name: overrides, namespace: team-a}
data: {tier: gold}`)
	r := extref.NewResolver(reader, mapper, extref.SourcePolicy{})
	release := parse(`
apiVersion: example.org/v1
kind: Release
metadata: {name: web, namespace: team-a}
spec:
  externalValues:
  - fromObject: {version: v1, resource: configmaps, name: defaults, fieldPath: data}
    toFieldPath: spec.values
    policy: {toFieldPath: ForceMergeObjects}
  - fromObject: {version: v1, resource: configmaps, name: overrides, fieldPath: data}
    toFieldPath: spec.values
    policy: {toFieldPath: ForceMergeObjects, resolution: Optional}
  values: {image: web:1.0, tier: silver}
`)
	out, err := r.Resolve(context.Background(), release)
	values, _, _ := unstructured.NestedMap(release.Object, "spec", "values")
	fmt.Println(out.Changed, err, values)

	// Resolving the result again changes nothing: no write.
	out, _ = r.Resolve(context.Background(), release)
	fmt.Println(out.Changed)

	// Without the overrides, their tier goes; the defaults' bronze stays
	// over the silver the referencer held.
	reader, mapper = objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: defaults, namespace: team-a}
data: {replicas: "2", tier: bronze}`)
	out, err = extref.NewResolver(reader, mapper, extref.SourcePolicy{}).Resolve(context.Background(), release)
	values, _, _ = unstructured.NestedMap(release.Object, "spec", "values")
	fmt.Println(out.Changed, err, values)
	// Output:
	// true <nil> map[image:web:1.0 replicas:2 tier:gold]
	// false
	// true <nil> map[image:web:1.0 replicas:2 tier:bronze]
}

// The String, Match and Math transforms, as patch-and-transform's: a
// region cut out of a URL and upper-cased, a tier matched to a support
// level, and a size in Ki multiplied and clamped.
func Example_transforms() {
	reader, mapper := objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team-a}
data: {url: "https://eu-west-1.example.org", tier: gold, mem: 2Ki}`)
	subnet := parse(`
apiVersion: example.org/v1
kind: Subnet
metadata: {name: subnet, namespace: team-a}
spec:
  externalValues:
  - fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.url}
    transforms:
    - {type: String, string: {type: TrimPrefix, trim: "https://"}}
    - {type: String, string: {type: Regexp, regexp: {match: '^([a-z0-9-]+)\.', group: 1}}}
    - {type: String, string: {type: Convert, convert: ToUpper}}
    toFieldPath: spec.region
  - fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.tier}
    transforms:
    - type: Match
      match:
        patterns:
        - {type: Literal, literal: silver, result: business-hours}
        - {type: Regexp, regexp: '^g', result: 24x7}
        fallbackValue: none
    toFieldPath: spec.support
  - fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.mem}
    transforms:
    - {type: Convert, toType: float64, format: quantity}
    - {type: Convert, toType: int}
    - {type: Math, math: {type: Multiply, multiply: 2}}
    - {type: Math, math: {type: ClampMax, clampMax: 4000}}
    toFieldPath: spec.size
`)
	_, err := extref.NewResolver(reader, mapper, extref.SourcePolicy{}).Resolve(context.Background(), subnet)
	spec, _, _ := unstructured.NestedMap(subnet.Object, "spec")
	fmt.Println(err, spec["region"], spec["support"], spec["size"])
	// Output:
	// <nil> EU-WEST-1 24x7 4000
}

// A dependsOn value waits for an object to exist (with ready, to be
// Ready) and writes nothing; until then the condition's reason says what
// the referencer waits for.
func Example_dependsOn() {
	reader, mapper := objects()
	subnet := parse(`
apiVersion: example.org/v1
kind: Subnet
metadata: {name: subnet, namespace: team-a}
spec:
  externalValues:
  - dependsOn: {version: v1, resource: configmaps, name: network-ready}
`)
	out, err := extref.NewResolver(reader, mapper, extref.SourcePolicy{}).Resolve(context.Background(), subnet)
	c := extref.Condition(out, err, 1)
	fmt.Println(c.Reason)
	fmt.Println(c.Message)

	reader, mapper = objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: network-ready, namespace: team-a}`)
	out, err = extref.NewResolver(reader, mapper, extref.SourcePolicy{}).Resolve(context.Background(), subnet)
	fmt.Println(extref.Condition(out, err, 1).Reason, out.Changed)
	// Output:
	// WaitingForDependency
	// cannot resolve spec.externalValues[0].dependsOn (configmaps team-a/network-ready): waiting for dependency: source not found: ConfigMap "network-ready" does not exist
	// Resolved false
}
