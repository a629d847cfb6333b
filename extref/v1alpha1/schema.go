package v1alpha1

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/yaml"
)

// schemaYAML is the OpenAPI v3 schema of a list of external values, as
// controller-gen generates it from these types (see schema_test.go, which
// keeps it in step).
//
//go:embed externalvalues.schema.yaml
var schemaYAML []byte

// SchemaYAML returns the OpenAPI v3 schema of a list of external values as
// YAML, for a CRD or XRD written by hand: indent it under
// spec.properties.externalValues (or wherever the referencer lists them).
func SchemaYAML() []byte {
	return append([]byte(nil), schemaYAML...)
}

// ExternalValuesSchema returns the OpenAPI v3 schema of a list of external
// values, in the form of apiextensions.k8s.io/v1 JSONSchemaProps decoded
// into JSON values, for code that builds CRDs or XRDs: set it as
// spec.properties.externalValues. The schema validates what package extref
// checks again at resolution, with CEL rules for the exclusive fields. Each
// call returns a new map.
//
// A list without maxItems gives the CEL rules a large estimated cost; a CRD
// that holds several such lists may want to bound them.
func ExternalValuesSchema() map[string]any {
	out, err := decodeSchema(schemaYAML)
	if err != nil {
		panic(fmt.Sprintf("extref/v1alpha1: the embedded schema is invalid: %v", err)) // a build defect, caught by the tests
	}
	return out
}

func decodeSchema(b []byte) (map[string]any, error) {
	j, err := yaml.ToJSON(b)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := json.Unmarshal(j, &out); err != nil {
		return nil, err
	}
	return out, nil
}
