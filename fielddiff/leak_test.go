package fielddiff_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/ctrlkit/ctrlkit/fielddiff"
	"github.com/ctrlkit/ctrlkit/internal/leaktest"
)

// The marker planted in compared values. No error may hold 4 bytes in a row
// of it: a caller reports a failed diff in a condition or an event, and the
// values compared may be a Secret's.
const (
	markerString = leaktest.String
	markerDigits = leaktest.Digits
)

// leakyJSON fails to marshal with an error that quotes its value, as
// encoding/json's and strconv's errors do.
type leakyJSON struct{ V string }

func (l leakyJSON) MarshalJSON() ([]byte, error) {
	return nil, errors.New("invalid value " + strconv.Quote(l.V))
}

// leakyText is a map key whose MarshalText fails the same way.
type leakyText struct{ V string }

func (l leakyText) MarshalText() ([]byte, error) {
	return nil, &json.UnsupportedValueError{Str: l.V}
}

// leakyRaw marshals to text that is not JSON, holding the value.
type leakyRaw struct{ V string }

func (l leakyRaw) MarshalJSON() ([]byte, error) { return []byte(l.V), nil }

type withLeaky struct {
	Name   string               `json:"name"`
	Secret leakyJSON            `json:"secret"`
	Keys   map[leakyText]string `json:"keys,omitempty"`
	Any    any                  `json:"any,omitempty"`
}

// mustFail are the cases that are errors, not changes.
var mustFail = map[string]bool{"MarshalJSON": true, "MarshalJSONActual": true, "MarshalText": true, "TypeMismatch": true, "Unsupported": true, "Cycle": true, "TooDeep": true}

func TestNoErrorQuotesAValue(t *testing.T) {
	cyclic := map[string]any{"v": markerString}
	cyclic["self"] = cyclic
	cyclic2 := map[string]any{"v": markerDigits}
	cyclic2["self"] = cyclic2
	deep, deep2 := any(markerString), any(markerDigits)
	for range fielddiff.MaxDepth + 2 {
		deep, deep2 = map[string]any{"k": deep}, map[string]any{"k": deep2}
	}
	cases := map[string]struct{ desired, actual any }{
		"MarshalJSON":        {withLeaky{Name: markerString, Secret: leakyJSON{markerString}}, withLeaky{Secret: leakyJSON{markerString + "x"}}},
		"MarshalJSONActual":  {withLeaky{}, withLeaky{Secret: leakyJSON{markerString}}},
		"MarshalText":        {withLeaky{Keys: map[leakyText]string{{markerString}: markerString}}, withLeaky{Keys: map[leakyText]string{{markerDigits}: markerDigits}}},
		"RawNotJSON":         {map[string]any{"a": leakyRaw{markerString}}, map[string]any{"a": leakyRaw{markerDigits}}},
		"TypeMismatch":       {markerString, int64(31337424242)},
		"TypeMismatchNested": {map[string]any{"a": []any{markerString}}, []any{markerString}},
		"StructVsMap":        {withLeaky{Name: markerString}, map[string]any{"name": markerString}},
		"Unsupported":        {map[string]any{"a": markerString, "c": make(chan string)}, map[string]any{"a": markerDigits, "c": make(chan string)}},
		"UnsupportedInAny":   {withLeaky{Any: func() string { return markerString }}, withLeaky{Any: markerString}},
		"Cycle":              {cyclic, cyclic2},
		"TooDeep":            {deep, deep2},
		"NumberVsString":     {map[string]any{"n": json.Number(markerDigits)}, map[string]any{"n": markerString}},
		"BadNumber":          {map[string]any{"n": json.Number(markerString)}, map[string]any{"n": json.Number(markerDigits)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, opts := range [][]fielddiff.Option{nil, {fielddiff.NilEqualsEmpty()}, {fielddiff.IgnorePaths("x")}} {
				_, err := fielddiff.ChangedFields(tc.desired, tc.actual, opts...)
				if err == nil && mustFail[name] {
					t.Errorf("ChangedFields: want an error, got none")
				}
				if err != nil {
					if l := leaktest.Find(err.Error()); l != "" {
						t.Errorf("ChangedFields: the error quotes %q of a planted value: %s", l, err)
					}
				}
				_, err = fielddiff.Compare(tc.desired, tc.actual, opts...)
				if err == nil && mustFail[name] {
					t.Errorf("Compare: want an error, got none")
				}
				if err != nil {
					if l := leaktest.Find(err.Error()); l != "" {
						t.Errorf("Compare: the error quotes %q of a planted value: %s", l, err)
					}
				}
				_, _, err = fielddiff.FirstChangedField(tc.desired, tc.actual, opts...)
				if err != nil {
					if l := leaktest.Find(err.Error()); l != "" {
						t.Errorf("FirstChangedField: the error quotes %q of a planted value: %s", l, err)
					}
				}
			}
		})
	}
}

// TestNoChangeHoldsASensitiveValue plants the marker in sensitive fields,
// changed every way a field can change, and looks for it in every Change.
func TestNoChangeHoldsASensitiveValue(t *testing.T) {
	type secret struct {
		Token string            `json:"token"`
		Data  map[string]string `json:"data,omitempty"`
	}
	type spec struct {
		Name   string  `json:"name"`
		Secret *secret `json:"secret,omitempty"`
		List   []any   `json:"list,omitempty"`
	}
	full := spec{Name: "a", Secret: &secret{Token: markerString, Data: map[string]string{"k": markerDigits}}, List: []any{map[string]any{"key": markerString}}}
	cases := map[string]struct {
		desired, actual any
		sensitive       []string
	}{
		"Changed":      {full, spec{Name: "a", Secret: &secret{Token: "other", Data: map[string]string{"k": "x"}}, List: []any{map[string]any{"key": "y"}}}, []string{"secret", "list[*].key"}},
		"Added":        {full, spec{}, []string{"secret.token", "secret.data", "list[0].key"}},
		"Removed":      {spec{}, full, []string{"secret.token", "secret.data[*]", "list[*].key"}},
		"Unstructured": {map[string]any{"s": map[string]any{"t": markerString}}, map[string]any{}, []string{"s.t"}},
		"UnderPrefix":  {full, spec{Name: "b"}, []string{"spec.secret", "spec.list"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			opts := []fielddiff.Option{fielddiff.SensitivePaths(tc.sensitive...)}
			if name == "UnderPrefix" {
				opts = append(opts, fielddiff.Prefix("spec"))
			}
			d, err := fielddiff.Compare(tc.desired, tc.actual, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Changes) == 0 {
				t.Fatal("want changes, got none")
			}
			for _, c := range d.Changes {
				for _, v := range []string{c.Old, c.New} {
					if l := leaktest.Find(v); l != "" {
						t.Errorf("change of %s holds %q of a sensitive value: %q", c.Path, l, v)
					}
				}
			}
		})
	}
}
