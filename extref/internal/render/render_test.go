package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

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
		"IndexBeforeWidth": {reason: "fmt takes an index before a width or precision for a bad index.", format: "%[1]0X %[1].2f", args: []any{"a"}, wantErr: `format "%[1]0X %[1].2f": an argument index before a width or precision at position 0 (write them first: %5.2[1]f)`},
		"IndexAfterWidth":  {reason: "After them it is fmt's.", format: "%5.2[1]f", args: []any{1.5}, want: " 1.50"},
		"UnclosedIndex":    {reason: "An unclosed index is refused.", format: "%[1s", args: []any{"a"}, wantErr: `format "%[1s": unclosed argument index at position 0`},
		"Unused":           {reason: "Every value must be printed.", format: "%s", args: []any{"a", "b"}, wantErr: `format "%s": prints 1 of 2 values`},
		"ConflictingVerbs": {reason: "One value cannot be both integer and float.", format: "%[1]d %[1]f", args: []any{int64(1)}, wantErr: `value 1: a number (1) is printed by verbs that need different types`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got, gotErr string
			f, err := ParseFormat(tc.format, len(tc.args))
			if err == nil {
				got, err = f.Sprint(plain(tc.args))
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
	f, err := ParseFormat("%[1]s%[1]s%[1]s%[1]s", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Sprint(plain([]any{big})); err == nil {
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
			tpl, err := ParseTemplate(tc.text)
			if err == nil {
				got, err = tpl.Execute(tc.data, false)
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
	tpl, err := ParseTemplate(text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tpl.Execute(map[string]any{"a": "xxxxxxxx"}, false); err == nil {
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
		f, err := ParseFormat(tc.format, 1)
		if err != nil {
			t.Fatalf("ParseFormat(%q): %v", tc.format, err)
		}
		var sprintErr error
		if n := allocated(func() { _, sprintErr = f.Sprint(plain([]any{tc.value})) }); n > 10<<20 {
			t.Errorf("format %q of %s: allocated %d MB, want less than 10", tc.format, jsonvalue.Describe(tc.value), n>>20)
		}
		if sprintErr == nil || !strings.Contains(sprintErr.Error(), "has a width or precision") {
			t.Errorf("format %q of %s: want an error naming the verb's width or precision, got %v", tc.format, jsonvalue.Describe(tc.value), sprintErr)
		}
	}
	// Scalars, %T and unsized verbs are unchanged.
	for format, want := range map[string]string{"%5v": "   42", "%.1v": "42", "%20T": "               int64"} {
		f, err := ParseFormat(format, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := f.Sprint(plain([]any{int64(42)})); err != nil || got != want {
			t.Errorf("format %q of 42: want %q, got %q, %v", format, want, got, err)
		}
	}
	f, _ := ParseFormat("%v", 1)
	if got, err := f.Sprint(plain([]any{[]any{"a", int64(1)}})); err != nil || got != "[a 1]" {
		t.Errorf("format %%v of a list: want %q, got %q, %v", "[a 1]", got, err)
	}
}

// TestTemplatePrintBounded checks that print and println stop at
// MaxOutputSize argument by argument, instead of building 100 MB first.
func TestTemplatePrintBounded(t *testing.T) {
	data := map[string]any{"a": strings.Repeat("x", 1<<20-10)}
	for _, fn := range []string{"print", "println"} {
		tpl, err := ParseTemplate("{{ " + fn + strings.Repeat(" .a", 100) + " }}")
		if err != nil {
			t.Fatal(err)
		}
		var execErr error
		if n := allocated(func() { _, execErr = tpl.Execute(data, false) }); n > 20<<20 {
			t.Errorf("%s of 100 MB: allocated %d MB, want less than 20", fn, n>>20)
		}
		if !errors.Is(execErr, ErrTooLarge) {
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
func plain(args []any) []Value {
	out := make([]Value, len(args))
	for i, a := range args {
		out[i] = Value{V: a}
	}
	return out
}

// FuzzTemplate parses and executes arbitrary templates over arbitrary
// variables: no panic, no unbounded loop, and no output beyond MaxOutputSize.
func FuzzTemplate(f *testing.F) {
	f.Add("arn:aws:clouddirectory:{{ .region }}:{{ .accountId }}:x", `{"region":"us-east-1","accountId":"1234"}`)
	f.Add(`{{ range 1000000000 }}{{ end }}`, `{}`)
	f.Add(`{{ define "x" }}{{ template "x" . }}{{ template "x" . }}{{ end }}{{ template "x" . }}`, `{}`)
	f.Add(`{{ $a := .a }}{{ $a = print $a $a }}{{ $a = print $a $a }}{{ $a }}`, `{"a":"xxxx"}`)
	f.Add(`{{ printf "%1024s%1024s" .a .a }}{{ js .a }}{{ call .a }}`, `{"a":"x"}`)
	f.Add(`{{ replace "" "xxxxxxxx" .a | b64enc | upper }}{{ toJson . }}{{ join "," .l }}`, `{"a":"abc","l":[1,"x",null]}`)
	f.Add(`{{ if and .a (not .b) }}{{ index .m "k" }}{{ else }}{{ slice .a 1 }}{{ end }}`, `{"a":"abc","b":false,"m":{"k":1}}`)
	f.Fuzz(func(t *testing.T, text, data string) {
		if len(text) > MaxExpressionLength {
			return
		}
		vars := map[string]any{}
		if err := json.Unmarshal([]byte(data), &vars); err != nil {
			return
		}
		tpl, err := ParseTemplate(text)
		if err != nil {
			return
		}
		out, err := tpl.Execute(jsonNumbers(vars).(map[string]any), false)
		if err == nil && len(out) > MaxOutputSize {
			t.Errorf("execute(...) returned %d bytes, more than %d", len(out), MaxOutputSize)
		}
	})
}

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
