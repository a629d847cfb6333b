package extref

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

func TestTransform(t *testing.T) {
	cases := map[string]struct {
		reason  string
		t       v1alpha1.Transform
		in      any
		want    any
		wantErr string
	}{
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
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ct, err := compileTransform(tc.t)
			if err != nil {
				t.Fatalf("%s\ncompileTransform(...): %v", tc.reason, err)
			}
			gotValue, err := ct.apply(value{v: tc.in})
			got := gotValue.v
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("%s\napply(%v): -want, +got error:\n%s", tc.reason, tc.in, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\napply(%v): -want, +got:\n%s", tc.reason, tc.in, diff)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	cases := map[string]struct {
		reason  string
		format  string
		args    []any
		want    string
		wantErr string
	}{
		"Seed":             {reason: "The seed's ARN.", format: "arn:aws:clouddirectory:%s:%s:schema", args: []any{"us-east-1", "1234"}, want: "arn:aws:clouddirectory:us-east-1:1234:schema"},
		"Percent":          {reason: "%% is a literal percent sign.", format: "%d%%", args: []any{int64(50)}, want: "50%"},
		"Indexes":          {reason: "Explicit indexes may reorder and repeat values.", format: "%[2]s/%[1]s/%[2]s", args: []any{"a", "b"}, want: "b/a/b"},
		"IndexThenNext":    {reason: "After [n], the next verb prints value n+1, as in fmt.", format: "%[1]s%s", args: []any{"a", "b"}, want: "ab"},
		"WidthPrecision":   {reason: "Width and precision are kept.", format: "%6.2f|%-4s|", args: []any{3.14159, "x"}, want: "  3.14|x   |"},
		"Flags":            {reason: "Flags are kept.", format: "%+d %#x", args: []any{int64(5), int64(255)}, want: "+5 0xff"},
		"Hex":              {reason: "%x prints strings.", format: "%x", args: []any{"hi"}, want: "6869"},
		"Bool":             {reason: "%t prints booleans.", format: "%t", args: []any{true}, want: "true"},
		"WideWidth":        {reason: "A width above the limit is refused.", format: "%1025s", args: []any{"x"}, wantErr: `format "%1025s": the width at position 0 exceeds 1024`},
		"StarWidth":        {reason: "A width from a value is refused.", format: "%*s", args: []any{"x"}, wantErr: `format "%*s": a width from a value ('*') at position 0 is not supported`},
		"BadVerb":          {reason: "Unknown verbs are refused.", format: "%z", args: []any{"x"}, wantErr: `format "%z": unsupported verb 'z' at position 0`},
		"Pointer":          {reason: "%p would print an address, different on every reconcile.", format: "%p", args: []any{"x"}, wantErr: `format "%p": unsupported verb 'p' at position 0`},
		"NoVerb":           {reason: "A lone % is refused.", format: "100%", args: nil, wantErr: `format "100%": verb missing at position 3`},
		"BadIndex":         {reason: "An index out of range is refused.", format: "%[3]s", args: []any{"a"}, wantErr: `format "%[3]s": argument index 3 at position 0 is out of range (1 values)`},
		"UnclosedIndex":    {reason: "An unclosed index is refused.", format: "%[1s", args: []any{"a"}, wantErr: `format "%[1s": unclosed argument index at position 0`},
		"Unused":           {reason: "Every value must be printed.", format: "%s", args: []any{"a", "b"}, wantErr: `format "%s": prints 1 of 2 values`},
		"ConflictingVerbs": {reason: "One value cannot be both integer and float.", format: "%[1]d %[1]f", args: []any{int64(1)}, wantErr: `value 1: a number (1) is printed by verbs that need different types`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got, gotErr string
			f, err := parseFormat(tc.format, len(tc.args))
			if err == nil {
				got, err = f.sprint(plain(tc.args))
			}
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("%s\nformat %q: -want, +got error:\n%s", tc.reason, tc.format, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nformat %q: -want, +got:\n%s", tc.reason, tc.format, diff)
			}
		})
	}
}

func TestFormatBounded(t *testing.T) {
	big := strings.Repeat("x", 300<<10)
	f, err := parseFormat("%[1]s%[1]s%[1]s%[1]s", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.sprint(plain([]any{big})); err == nil {
		t.Errorf("format of 1.2 MB: want an error above MaxOutputSize, got none")
	}
}

func TestTemplate(t *testing.T) {
	cases := map[string]struct {
		reason  string
		text    string
		data    map[string]any
		want    string
		wantErr string
	}{
		"Seed":        {reason: "The seed's template.", text: "arn:aws:clouddirectory:{{ .region }}:{{ .accountId }}:x", data: map[string]any{"region": "us-east-1", "accountId": "1234"}, want: "arn:aws:clouddirectory:us-east-1:1234:x"},
		"Functions":   {reason: "The documented functions.", text: `{{ .a | upper }} {{ .b | b64dec }} {{ .c | trimPrefix "x-" }} {{ replace "-" "_" .d }} {{ join "," .e }} {{ default "z" .f }} {{ toJson .g }} {{ .h | b64enc }} {{ trim .i }}`, data: map[string]any{"a": "us", "b": "aGk=", "c": "x-y", "d": "a-b", "e": []any{"p", int64(1)}, "f": "", "g": map[string]any{"k": true}, "h": "hi", "i": " s "}, want: `US hi y a_b p,1 z {"k":true} aGk= s`},
		"IfWith":      {reason: "if and with are allowed.", text: `{{ if eq .a "x" }}yes{{ else }}no{{ end }}{{ with .b }}-{{ . }}{{ end }}`, data: map[string]any{"a": "x", "b": "y"}, want: "yes-y"},
		"Printf":      {reason: "printf takes the checked verbs.", text: `{{ printf "%s:%03d" .a .n }}`, data: map[string]any{"a": "x", "n": int64(7)}, want: "x:007"},
		"MissingKey":  {reason: "A misspelt variable is an error, not <no value>.", text: "{{ .regoin }}", data: map[string]any{"region": "x"}, wantErr: `template: template:1:3: executing "template" at <.regoin>: map has no entry for key "regoin"`},
		"Range":       {reason: "range is refused.", text: "{{ range .a }}x{{ end }}", wantErr: "template: template:1:9: range is not allowed"},
		"Define":      {reason: "define is refused.", text: `{{ define "x" }}a{{ end }}b`, wantErr: `template defines "x": define and block are not allowed`},
		"Template":    {reason: "template is refused.", text: `{{ template "template" }}`, wantErr: "template: template:1:12: template and block are not allowed"},
		"Call":        {reason: "call is not available.", text: `{{ call .a }}`, data: map[string]any{"a": "x"}, wantErr: `template: template:1:3: executing "template" at <call .a>: error calling call: function "call" is not available in external value templates`},
		"PrintfWidth": {reason: "printf refuses huge widths.", text: `{{ printf "%99999s" .a }}`, data: map[string]any{"a": "x"}, wantErr: `template: template:1:3: executing "template" at <printf "%99999s" .a>: error calling printf: printf: the format (a string of 7 bytes) is not a format of 1 values: see position 0`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got, gotErr string
			tpl, err := parseTemplate(tc.text)
			if err == nil {
				got, err = execute(tpl, tc.data, false)
			}
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("%s\ntemplate %q: -want, +got error:\n%s", tc.reason, tc.text, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ntemplate %q: -want, +got:\n%s", tc.reason, tc.text, diff)
			}
		})
	}
}

func TestTemplateBounded(t *testing.T) {
	// Each step doubles the string; without bounds this would need 2^40 bytes.
	text := `{{ $a := .a }}` + strings.Repeat(`{{ $a = print $a $a }}`, 40) + `{{ $a }}`
	tpl, err := parseTemplate(text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := execute(tpl, map[string]any{"a": "xxxxxxxx"}, false); err == nil {
		t.Errorf("doubling template: want an error above MaxOutputSize, got none")
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

// TestFormatSizedNonScalar checks that a width or precision, which fmt
// applies to every element of an array or object, is refused for them
// before anything is formatted: %1024v of 100,000 numbers would otherwise
// build 100 MB and more before the size check.
func TestFormatSizedNonScalar(t *testing.T) {
	list := make([]any, 100_000)
	for i := range list {
		list[i] = int64(i)
	}
	object := make(map[string]any, 100_000)
	for i := range 100_000 {
		object[strconv.Itoa(i)] = "x"
	}
	for _, tc := range []struct {
		format string
		value  any
	}{
		{"%1024v", list},
		{"%.1024v", list},
		{"a-%[1]v-%-1000[1]v", list},
		{"%1024v", object},
		{"%+1024v", []any{list}},
	} {
		f, err := parseFormat(tc.format, 1)
		if err != nil {
			t.Fatalf("parseFormat(%q): %v", tc.format, err)
		}
		var sprintErr error
		if n := allocated(func() { _, sprintErr = f.sprint(plain([]any{tc.value})) }); n > 10<<20 {
			t.Errorf("format %q of %s: allocated %d MB, want less than 10", tc.format, jsonvalue.Describe(tc.value), n>>20)
		}
		if sprintErr == nil || !strings.Contains(sprintErr.Error(), "has a width or precision") {
			t.Errorf("format %q of %s: want an error naming the verb's width or precision, got %v", tc.format, jsonvalue.Describe(tc.value), sprintErr)
		}
	}
	// Scalars, %T and unsized verbs are unchanged.
	for format, want := range map[string]string{"%5v": "   42", "%.1v": "42", "%20T": "               int64"} {
		f, err := parseFormat(format, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := f.sprint(plain([]any{int64(42)})); err != nil || got != want {
			t.Errorf("format %q of 42: want %q, got %q, %v", format, want, got, err)
		}
	}
	f, _ := parseFormat("%v", 1)
	if got, err := f.sprint(plain([]any{[]any{"a", int64(1)}})); err != nil || got != "[a 1]" {
		t.Errorf("format %%v of a list: want %q, got %q, %v", "[a 1]", got, err)
	}
}

// TestTemplatePrintBounded checks that print and println stop at
// MaxOutputSize argument by argument, instead of building 100 MB first.
func TestTemplatePrintBounded(t *testing.T) {
	data := map[string]any{"a": strings.Repeat("x", 1<<20-10)}
	for _, fn := range []string{"print", "println"} {
		tpl, err := parseTemplate("{{ " + fn + strings.Repeat(" .a", 100) + " }}")
		if err != nil {
			t.Fatal(err)
		}
		var execErr error
		if n := allocated(func() { _, execErr = execute(tpl, data, false) }); n > 20<<20 {
			t.Errorf("%s of 100 MB: allocated %d MB, want less than 20", fn, n>>20)
		}
		if !errors.Is(execErr, errTooLarge) {
			t.Errorf("%s of 100 MB: want an error above MaxOutputSize, got %v", fn, execErr)
		}
	}
	// The same output as fmt.Sprint and fmt.Sprintln.
	args := []any{"a", int64(1), int64(2), "b", nil, true, []any{"c"}, map[string]any{"k": 1.5}, "d"}
	if got, err := tplPrint(args...); err != nil || got != fmt.Sprint(args...) {
		t.Errorf("print: want %q, got %q, %v", fmt.Sprint(args...), got, err)
	}
	if got, err := tplPrintln(args...); err != nil || got != fmt.Sprintln(args...) {
		t.Errorf("println: want %q, got %q, %v", fmt.Sprintln(args...), got, err)
	}
}

// plain returns args as values that are not secret.
func plain(args []any) []value {
	out := make([]value, len(args))
	for i, a := range args {
		out[i] = value{v: a}
	}
	return out
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
			t.Errorf("lookup(%q): got %q, %v, want %q, %v", k, got, ok, want, wantOK)
		}
	}
	if empty := newMapTable(nil); empty.len() != 0 {
		t.Errorf("a table of no entries has %d", empty.len())
	}
	if _, ok := newMapTable(nil).lookup(""); ok {
		t.Errorf("lookup in a table of no entries: got found, want not")
	}
}
