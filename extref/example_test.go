package extref_test

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlkit/ctrlkit/extref"
)

// objects returns a reader holding the given YAML objects and a RESTMapper
// that knows ConfigMaps and Secrets. A controller passes its manager's
// GetCache() and GetRESTMapper() instead.
func objects(docs ...string) (client.Reader, meta.RESTMapper) {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, meta.RESTScopeNamespace)
	b := fake.NewClientBuilder().WithRESTMapper(m)
	for _, d := range docs {
		b = b.WithObjects(parse(d))
	}
	return b.Build(), m
}

func parse(doc string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		panic(err)
	}
	return u
}

func ExampleResolver_Resolve() {
	reader, mapper := objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team-a}
data: {region: eu-west-1, zone: b}`)
	r := extref.NewResolver(reader, mapper, extref.SourcePolicy{})

	// Any object with spec.externalValues: a typed one, or unstructured
	// content such as a composite resource.
	subnet := parse(`
apiVersion: example.org/v1
kind: Subnet
metadata: {name: subnet, namespace: team-a}
spec:
  externalValues:
  - fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
    toFieldPath: spec.forProvider.region
  - combine:
    - {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
    - {version: v1, resource: configmaps, name: settings, fieldPath: data.zone}
    fmt: "%s%s"
    makeAvailableAs: zone
`)
	out, err := r.Resolve(context.Background(), subnet)
	if err != nil {
		fmt.Println(err)
		return
	}
	region, _, _ := unstructured.NestedString(subnet.Object, "spec", "forProvider", "region")
	fmt.Println("changed:", out.Changed)
	fmt.Println("region:", region)
	fmt.Println("handed over:", out.Values["zone"])

	// A second Resolve of the settled object changes nothing: no write.
	out, _ = r.Resolve(context.Background(), subnet)
	fmt.Println("changed again:", out.Changed)
	// Output:
	// changed: true
	// region: eu-west-1
	// handed over: eu-west-1b
	// changed again: false
}

func ExampleSourcePolicy() {
	reader, mapper := objects(`
apiVersion: v1
kind: Secret
metadata: {name: accounts, namespace: crossplane-system}
data: {id: MTIzNA==}`)
	subnet := parse(`
apiVersion: example.org/v1
kind: Subnet
metadata: {name: subnet, namespace: team-a}
spec:
  externalValues:
  - fromObject: {version: v1, resource: secrets, name: accounts, namespace: crossplane-system, fieldPath: data.id}
    makeAvailableAs: account
`)

	// By default a namespaced referencer reads only its own namespace, and
	// no Secrets.
	_, err := extref.NewResolver(reader, mapper, extref.SourcePolicy{}).Resolve(context.Background(), subnet)
	fmt.Println(errors.Is(err, extref.ErrDenied))
	fmt.Println(err)

	// An allow rule opens exactly what it names.
	policy := extref.SourcePolicy{Allow: []extref.SourceRule{{
		Name:                 "team-a accounts",
		Resource:             "secrets",
		Namespaces:           []string{"crossplane-system"},
		Names:                []string{"accounts"},
		ReferencerNamespaces: []string{"team-a"},
	}}}
	out, err := extref.NewResolver(reader, mapper, policy).Resolve(context.Background(), subnet)
	fmt.Println(out.Values["account"], err)
	// Output:
	// true
	// cannot resolve spec.externalValues[0].fromObject (secrets crossplane-system/accounts, data.id): denied by the default source policy: only the referencer's namespace "team-a" is readable unless an allow rule matches namespace "crossplane-system", and none of the 0 allow rules does
	// 1234 <nil>
}

func ExampleCondition() {
	reader, mapper := objects()
	subnet := parse(`
apiVersion: example.org/v1
kind: Subnet
metadata: {name: subnet, namespace: team-a, generation: 3}
spec:
  externalValues:
  - fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region}
    toFieldPath: spec.forProvider.region
  - fromObject: {version: v1, resource: configmaps, name: optional, fieldPath: data.x}
    toFieldPath: spec.forProvider.x
    policy: {resolution: Optional}
`)
	out, err := extref.NewResolver(reader, mapper, extref.SourcePolicy{}).Resolve(context.Background(), subnet)
	c := extref.Condition(out, err, subnet.GetGeneration())
	fmt.Println(c.Type, c.Status, c.Reason, c.ObservedGeneration)
	fmt.Println(c.Message)
	fmt.Println(len(out.Skipped), "skipped")
	// Output:
	// ReferencesResolved False ResolutionFailed 3
	// cannot resolve spec.externalValues[0].fromObject (configmaps team-a/settings, data.region): source not found: ConfigMap "settings" does not exist
	// 1 skipped
}
