package extref_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/extref"
)

// A source chosen by labels: every ConfigMap of the referencer's namespace
// labelled with its own tier, sorted by their rank, joined by a template.
func ExampleResolver_Resolve_selector() {
	reader, mapper := objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: primary, namespace: team-a, labels: {tier: gold}}
data: {endpoint: db-1.example.org, rank: "1"}`, `
apiVersion: v1
kind: ConfigMap
metadata: {name: replica, namespace: team-a, labels: {tier: gold}}
data: {endpoint: db-2.example.org, rank: "2"}`, `
apiVersion: v1
kind: ConfigMap
metadata: {name: cheap, namespace: team-a, labels: {tier: bronze}}
data: {endpoint: db-9.example.org, rank: "0"}`)
	r := extref.NewResolver(reader, mapper, extref.SourcePolicy{})

	app := parse(`
apiVersion: example.org/v1
kind: App
metadata: {name: shop, namespace: team-a}
spec:
  tier: gold
  externalValues:
  - variables:
    - name: endpoints
      fromRef:
        version: v1
        resource: configmaps
        selector:
          mode: Multiple
          matchLabels: [{key: tier, valueFromFieldPath: spec.tier}]
          sortByFieldPath: data.rank
        fieldPath: data.endpoint
    template: '{{ join "," .endpoints }}'
    toFieldPath: spec.endpoints
`)
	if _, err := r.Resolve(context.Background(), app); err != nil {
		fmt.Println(err)
		return
	}
	endpoints, _, _ := unstructured.NestedString(app.Object, "spec", "endpoints")
	fmt.Println(endpoints)
	// Output:
	// db-1.example.org,db-2.example.org
}

// A source named by a field of the referencer: the same spec serves every
// tenant.
func ExampleResolver_Resolve_nameFromFieldPath() {
	reader, mapper := objects(`
apiVersion: v1
kind: ConfigMap
metadata: {name: tenant-1, namespace: team-a}
data: {region: eu-west-1}`, `
apiVersion: v1
kind: ConfigMap
metadata: {name: tenant-2, namespace: team-a}
data: {region: us-east-1}`)
	r := extref.NewResolver(reader, mapper, extref.SourcePolicy{})

	for _, tenant := range []string{"tenant-1", "tenant-2", ""} {
		db := parse(`
apiVersion: example.org/v1
kind: Database
metadata: {name: db, namespace: team-a}
spec:
  externalValues:
  - fromObject: {version: v1, resource: configmaps, nameFromFieldPath: spec.tenant, fieldPath: data.region}
    toFieldPath: spec.region
`)
		if tenant != "" {
			_ = unstructured.SetNestedField(db.Object, tenant, "spec", "tenant")
		}
		if _, err := r.Resolve(context.Background(), db); err != nil {
			fmt.Println(err)
			continue
		}
		region, _, _ := unstructured.NestedString(db.Object, "spec", "region")
		fmt.Println(tenant, region)
	}
	// Output:
	// tenant-1 eu-west-1
	// tenant-2 us-east-1
	// cannot resolve spec.externalValues[0].fromObject (configmaps (spec.tenant), data.region): field not found: nameFromFieldPath: the referencer has no value at spec.tenant
}
