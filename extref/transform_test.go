package extref

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

func TestTransform(t *testing.T) {
	cases := map[string]transformCase{
		"Base64Decode":       {reason: "Decodes a Secret's data value.", t: v1alpha1.Transform{Type: v1alpha1.TransformBase64Decode}, in: "dXMtZWFzdC0x", want: "us-east-1"},
		"Base64DecodeBad":    {reason: "Bad base64 is an error.", t: v1alpha1.Transform{Type: v1alpha1.TransformBase64Decode}, in: "!!", wantErr: `a string ("!!") is not valid base64 (at byte 0)`},
		"Base64DecodeNumber": {reason: "Only strings decode.", t: v1alpha1.Transform{Type: v1alpha1.TransformBase64Decode}, in: int64(3), wantErr: "takes a string, not a number (3)"},
		"Base64Encode":       {reason: "Encodes a string.", t: v1alpha1.Transform{Type: v1alpha1.TransformBase64Encode}, in: "us-east-1", want: "dXMtZWFzdC0x"},
		"Format":             {reason: "Formats with one verb.", t: v1alpha1.Transform{Type: v1alpha1.TransformFormat, Format: "%s-subnet"}, in: "main", want: "main-subnet"},
		"FormatInteger":      {reason: "An integer verb prints a whole number.", t: v1alpha1.Transform{Type: v1alpha1.TransformFormat, Format: "%03d"}, in: float64(7), want: "007"},
		"FormatFloat":        {reason: "A float verb prints an integer.", t: v1alpha1.Transform{Type: v1alpha1.TransformFormat, Format: "%.1f"}, in: int64(2), want: "2.0"},
		"FormatMismatch":     {reason: "A verb that does not fit the value is an error, not %!s(int64=3).", t: v1alpha1.Transform{Type: v1alpha1.TransformFormat, Format: "%s"}, in: int64(3), wantErr: `value 1: %s and %q print strings, not a number (3); use %v`},
		"FormatObject":       {reason: "%v prints anything, deterministically.", t: v1alpha1.Transform{Type: v1alpha1.TransformFormat, Format: "%v"}, in: map[string]any{"b": int64(1), "a": "x"}, want: "map[a:x b:1]"},
		"Map":                {reason: "Looks a string up.", t: v1alpha1.Transform{Type: v1alpha1.TransformMap, Map: map[string]string{"us-east-1": "use1"}}, in: "us-east-1", want: "use1"},
		"MapMissing":         {reason: "A missing key is an error.", t: v1alpha1.Transform{Type: v1alpha1.TransformMap, Map: map[string]string{"a": "b"}}, in: "c", wantErr: `the map has no entry for a string ("c")`},
		"ConvertToInt64":     {reason: "A string becomes an integer.", t: v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertInt64}, in: "42", want: int64(42)},
		"ConvertToInt64Bad":  {reason: "A non-number is an error.", t: v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertInt64}, in: "4x", wantErr: `cannot convert a string ("4x") to int64: not a decimal integer`},
		"ConvertFloatToInt":  {reason: "A fraction is not an integer.", t: v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertInt64}, in: 1.5, wantErr: "cannot convert a number (1.5) to int64: not a whole number within range"},
		"ConvertToFloat64":   {reason: "A string becomes a number.", t: v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertFloat64}, in: "1.5", want: 1.5},
		"ConvertNaN":         {reason: "JSON has no NaN.", t: v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertFloat64}, in: "NaN", wantErr: `cannot convert a string ("NaN") to float64: JSON has no NaN or infinity`},
		"ConvertToBool":      {reason: "A string becomes a boolean.", t: v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertBool}, in: "true", want: true},
		"ConvertToString":    {reason: "A number becomes a string.", t: v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertString}, in: int64(10), want: "10"},
		"ConvertObject":      {reason: "Objects do not convert.", t: v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: v1alpha1.ConvertString}, in: map[string]any{}, wantErr: "cannot convert an object to string"},
	}
	for name, tc := range convertCases() {
		cases[name] = tc
	}
	runTransformCases(t, cases)
}

// runTransformCases runs each case: compile the transform, apply it to the
// value, and compare the result, or the error of either step, and whether
// the result is secret as the value was.
func runTransformCases(t *testing.T, cases map[string]transformCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got any
			gotErr := ""
			ct, err := compileTransform(tc.t)
			if err == nil {
				var out render.Value
				out, err = ct.apply(render.Value{V: tc.in, Secret: tc.secret})
				got = out.V
				if err == nil && out.Secret != tc.secret {
					t.Errorf("%s\nthe result's secret is %v, want %v", tc.reason, out.Secret, tc.secret)
				}
			}
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("%s\n-want, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// A transformCase is a row of TestTransform: a transform, a value, and
// the result or the error (of compiling or of applying).
type transformCase struct {
	reason  string
	t       v1alpha1.Transform
	in      any
	secret  bool
	want    any
	wantErr string
}

// convertCases are the cases of patch-and-transform's own tests of its
// convert transform, with extref's results (the same where both convert;
// the differences are in docs/design/extref.md), and the cases of the
// formats.
func convertCases() map[string]transformCase {
	conv := func(to v1alpha1.ConvertType, format string) v1alpha1.Transform {
		return v1alpha1.Transform{Type: v1alpha1.TransformConvert, ToType: to, Format: format}
	}
	return map[string]transformCase{
		"PTStringToBool":                         {reason: "A string to a boolean.", t: conv(v1alpha1.ConvertBool, ""), in: "true", want: true},
		"PTStringToFloat64":                      {reason: "A string to a number.", t: conv(v1alpha1.ConvertFloat64, ""), in: "1000", want: 1000.0},
		"PTStringToQuantityFloat64":              {reason: "A quantity to a number.", t: conv(v1alpha1.ConvertFloat64, v1alpha1.ConvertFormatQuantity), in: "1000m", want: 1.0},
		"PTStringToQuantityFloat64InvalidFormat": {reason: "Not a quantity.", t: conv(v1alpha1.ConvertFloat64, v1alpha1.ConvertFormatQuantity), in: "1000 blabla", wantErr: `cannot convert a string ("1000 blabla") to float64: not a quantity`},
		"PTSameTypeNoOp":                         {reason: "A boolean to a boolean.", t: conv(v1alpha1.ConvertBool, ""), in: true, want: true},
		"PTIntAliasToInt64":                      {reason: "int is int64.", t: conv(v1alpha1.ConvertInt, ""), in: int64(1), want: int64(1)},
		"PTStringToObject":                       {reason: "JSON text to an object.", t: conv(v1alpha1.ConvertObject, v1alpha1.ConvertFormatJSON), in: `{"foo":"bar"}`, want: map[string]any{"foo": "bar"}},
		"PTStringToList":                         {reason: "JSON text to an array.", t: conv(v1alpha1.ConvertArray, v1alpha1.ConvertFormatJSON), in: `["foo", "bar", "baz"]`, want: []any{"foo", "bar", "baz"}},
		"PTInputTypeNotSupported":                {reason: "An array does not convert to a string.", t: conv(v1alpha1.ConvertString, ""), in: []any{int64(64)}, wantErr: "cannot convert an array (length 1) to string"},
		"PTConversionPairFormatNotSupported":     {reason: "quantity converts to float64 only.", t: conv(v1alpha1.ConvertString, v1alpha1.ConvertFormatQuantity), in: int64(100), wantErr: "format quantity converts to float64, not string"},
		"PTConversionPairNotSupported":           {reason: "An unknown toType.", t: conv("[]int", ""), in: "[64]", wantErr: `unsupported toType "[]int" (want string, int, int64, float64, bool, object or array)`},
		"PTConversionPairSupportedFloat64Int64":  {reason: "A fraction is not an integer (theirs truncates 1.1 to 1).", t: conv(v1alpha1.ConvertInt64, ""), in: 1.1, wantErr: "cannot convert a number (1.1) to int64: not a whole number within range"},
		"PTStringToObjectMissingFormat":          {reason: "object needs format json.", t: conv(v1alpha1.ConvertObject, ""), in: "{}", wantErr: "toType object needs format json"},
		"PTStringToIntInvalidFormat":             {reason: "An unknown format.", t: conv(v1alpha1.ConvertInt, "wrong"), in: "1", wantErr: `unsupported format "wrong" of a Convert transform (want none, quantity or json)`},
		"PTIntToIntInvalidFormat":                {reason: "An unknown format is refused whatever the value (theirs ignores it for a value of the type already).", t: conv(v1alpha1.ConvertInt, "wrong"), in: int64(1), wantErr: `unsupported format "wrong" of a Convert transform (want none, quantity or json)`},
		"PTIntToString":                          {reason: "An integer to a string.", t: conv(v1alpha1.ConvertString, ""), in: int64(100), want: "100"},
		"PTIntToFloat":                           {reason: "An integer to a number.", t: conv(v1alpha1.ConvertFloat64, ""), in: int64(100), want: 100.0},
		"PTBoolToInt":                            {reason: "A boolean to 1 or 0.", t: conv(v1alpha1.ConvertInt, ""), in: true, want: int64(1)},
		"QuantityBinarySuffix":                   {reason: "A binary suffix.", t: conv(v1alpha1.ConvertFloat64, v1alpha1.ConvertFormatQuantity), in: "2Ki", want: 2048.0},
		"QuantityNumber":                         {reason: "A number is a float64 already.", t: conv(v1alpha1.ConvertFloat64, v1alpha1.ConvertFormatQuantity), in: 1.5, want: 1.5},
		"QuantitySecret":                         {reason: "A secret value by type and size only.", t: conv(v1alpha1.ConvertFloat64, v1alpha1.ConvertFormatQuantity), in: "hunter2", secret: true, wantErr: "cannot convert a string of 7 bytes to float64: not a quantity"},
		"QuantityToInt":                          {reason: "quantity converts to float64 only.", t: conv(v1alpha1.ConvertInt64, v1alpha1.ConvertFormatQuantity), in: "1", wantErr: "format quantity converts to float64, not int64"},
		"JSONToFloat":                            {reason: "json converts to object or array only.", t: conv(v1alpha1.ConvertFloat64, v1alpha1.ConvertFormatJSON), in: "1", wantErr: "format json converts to object or array, not float64"},
		"JSONIntegers":                           {reason: "Integers in JSON text are int64, as every value extref reads.", t: conv(v1alpha1.ConvertObject, v1alpha1.ConvertFormatJSON), in: `{"a":1,"b":1.5}`, want: map[string]any{"a": int64(1), "b": 1.5}},
		"JSONNotAnObject":                        {reason: "JSON text of another kind is an error.", t: conv(v1alpha1.ConvertObject, v1alpha1.ConvertFormatJSON), in: `[1]`, wantErr: `cannot convert a string ("[1]") to object: the JSON is an array of 1 item`},
		"JSONBad":                                {reason: "Not JSON, said of a secret value by type and size only.", t: conv(v1alpha1.ConvertArray, v1alpha1.ConvertFormatJSON), in: `[hunter2`, secret: true, wantErr: "cannot convert a string of 8 bytes to array: not JSON"},
		"JSONObjectAlready":                      {reason: "An object is one already.", t: conv(v1alpha1.ConvertObject, v1alpha1.ConvertFormatJSON), in: map[string]any{"a": "b"}, want: map[string]any{"a": "b"}},
		"NoneFormat":                             {reason: "none is the default.", t: conv(v1alpha1.ConvertInt64, v1alpha1.ConvertFormatNone), in: "7", want: int64(7)},
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMapTable: a Map transform's table finds what the map it was made of
// has, and nothing else.
func TestMapTable(t *testing.T) {
	m := map[string]string{"": "empty", "a": "", "ab": "2", "abc": "3", "b": "β", "é": "e", "a\x00": "nul"}
	table := newMapTable(m)
	for _, k := range []string{"", "a", "ab", "abc", "abcd", "b", "é", "e", "a\x00", "\x00", "zz", "A"} {
		got, ok := table.lookup(k)
		want, wantOK := m[k]
		if got != want || ok != wantOK {
			t.Errorf("lookup(%q): want %q, %v, got %q, %v", k, want, wantOK, got, ok)
		}
	}
	if empty := newMapTable(nil); empty.len() != 0 {
		t.Errorf("a table of no entries has %d", empty.len())
	}
	if _, ok := newMapTable(nil).lookup(""); ok {
		t.Errorf("lookup in a table of no entries: want not, got found")
	}
}

// TestTransformsTable: the table of transforms has a row for each type the
// schema's enum allows, and no other, so that a type added to the API is
// added to the table too.
func TestTransformsTable(t *testing.T) {
	schema := v1alpha1.ExternalValuesSchema()
	enum, _, err := unstructured.NestedSlice(schema, "items", "properties", "transforms", "items", "properties", "type", "enum")
	require.NoError(t, err)
	var want []string
	for _, e := range enum {
		want = append(want, e.(string))
	}
	var got []string
	for _, k := range transforms {
		got = append(got, string(k.typ))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transform types, the schema's enum (-want) and the table's (+got):\n%s", diff)
	}
}
