package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"text/template"
	"unicode"
)

// oneMiB is 1 MiB of s, repeated (s must divide it).
func oneMiB(s string) string { return strings.Repeat(s, (1<<20)/len(s)) }

// The inputs of the allocation checks and the benchmark: each is a call of
// a template function or a format on 1 MiB of input.
// Each entry builds its inputs, then returns the call to measure.
var boundedCalls = map[string]func() func() (string, error){
	"toJson/1MiB-of-<": func() func() (string, error) { a := oneMiB("<"); return func() (string, error) { return tplToJSON(a) } },
	"toJson/1MiB-object": func() func() (string, error) {
		a := map[string]any{"a": oneMiB("a")[:1<<19], "b": []any{oneMiB("b")[:1<<19-32]}}
		return func() (string, error) { return tplToJSON(a) }
	},
	"printf-q/1MiB": func() func() (string, error) {
		a := oneMiB("a")
		return func() (string, error) { return tplPrintf("%q", a) }
	},
	"printf-q/1MiB-of-NUL": func() func() (string, error) {
		a := oneMiB("\x00")
		return func() (string, error) { return tplPrintf("%q", a) }
	},
	"printf-x/512KiB": func() func() (string, error) {
		a := oneMiB("a")[:1<<19]
		return func() (string, error) { return tplPrintf("%x", a) }
	},
	"printf-v/1MiB-list": func() func() (string, error) {
		a := []any{oneMiB("a")[:1<<19]}
		return func() (string, error) { return tplPrintf("%#v", a) }
	},
	"printf-s/1MiB": func() func() (string, error) {
		a := oneMiB("a")
		return func() (string, error) { return tplPrintf("%s", a) }
	},
	"upper/1MiB-of-U+023F": func() func() (string, error) {
		a := oneMiB("\u023f")
		return func() (string, error) { return mapRunes(a, unicode.ToUpper, MaxOutputSize) }
	},
	"upper/1MiB-ASCII": func() func() (string, error) {
		a := oneMiB("a")
		return func() (string, error) { return mapRunes(a, unicode.ToUpper, MaxOutputSize) }
	},
	"lower/1MiB-of-U+023A": func() func() (string, error) {
		a := oneMiB("\u023a")
		return func() (string, error) { return mapRunes(a, unicode.ToLower, MaxOutputSize) }
	},
	"b64enc/768KiB": func() func() (string, error) {
		a := oneMiB("abcd")[:3<<18]
		return func() (string, error) { return tplB64Enc(a) }
	},
	"b64dec/1MiB": func() func() (string, error) {
		a := oneMiB("YWJj")
		return func() (string, error) { return tplB64Dec(a) }
	},
	"replace/1MiB": func() func() (string, error) {
		a := oneMiB("a")
		return func() (string, error) { return tplReplace("a", "bb", a) }
	},
	"join/1MiB": func() func() (string, error) {
		a := []any{oneMiB("a")[:1<<19], int64(1), oneMiB("b")[:1<<18]}
		return func() (string, error) { return tplJoin(",", a) }
	},
	"print/1MiB": func() func() (string, error) {
		a, c := oneMiB("a")[:1<<19], []any{oneMiB("c")[:1<<18]}
		return func() (string, error) { return tplPrint(a, int64(7), c) }
	},
	"Format/1MiB": func() func() (string, error) {
		f, a := mustFormat("%s!", 1), []Value{{V: oneMiB("a")[:1<<20-1]}}
		return func() (string, error) { return f.Sprint(a) }
	},
	"combine/2x1MiB": func() func() (string, error) {
		f, a := mustFormat("%s-%s", 2), []Value{{V: oneMiB("a")}, {V: oneMiB("b")}}
		return func() (string, error) { return f.Sprint(a) }
	},
	"template/1MiB-output": func() func() (string, error) {
		t, d := mustTemplate(`{{ .a }}`), map[string]any{"a": oneMiB("a")}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/upper-1MiB": func() func() (string, error) {
		t, d := mustTemplate(`{{ upper .a }}`), map[string]any{"a": oneMiB("a")}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/toJson-1MiB-of-<": func() func() (string, error) {
		t, d := mustTemplate(`{{ toJson .a }}`), map[string]any{"a": oneMiB("<")}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/toJson-1MiB": func() func() (string, error) {
		t, d := mustTemplate(`{{ toJson .a }}`), map[string]any{"a": oneMiB("a")[:1<<20-2]}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/printf-q-1MiB": func() func() (string, error) {
		t, d := mustTemplate(`{{ printf "%q" .a }}`), map[string]any{"a": oneMiB("a")[:1<<20-2]}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/upper-1MiB-and-text": func() func() (string, error) {
		// The result and the output it is copied into fit maxRenderSize.
		t, d := mustTemplate(`{{ upper .a }}!`), map[string]any{"a": oneMiB("a")[:maxRenderSize/2-1]}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/over-limit-upper-1MiB-and-text": func() func() (string, error) {
		t, d := mustTemplate(`{{ upper .a }}!`), map[string]any{"a": oneMiB("a")[:1<<20-1]}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/over-limit-upper-then-b64dec": func() func() (string, error) {
		t, d := mustTemplate(`{{ $u := upper .a }}{{ b64dec .b }}`), map[string]any{"a": oneMiB("a")[:1<<19], "b": oneMiB("YWJj")}
		return func() (string, error) { return t.Execute(d, false) }
	},
	// printf takes its format from a value: one of 1 MB, parsed by each of
	// 200 calls, allocated 14 GB.
	"template/over-limit-printf-of-a-1MB-format": func() func() (string, error) {
		t, d := mustTemplate(strings.Repeat(`{{ printf .f .a }}`, 200)), map[string]any{"f": strings.Repeat("%[1]v", 200_000), "a": ""}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/printf-of-a-4KiB-format-200-times": func() func() (string, error) {
		t, d := mustTemplate(strings.Repeat(`{{ printf .f .a }}`, 200)), map[string]any{"f": strings.Repeat("%[1]v", 819), "a": ""}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/over-limit-printf-of-built-4KiB-formats": func() func() (string, error) {
		var b strings.Builder
		for i := range 100 {
			fmt.Fprintf(&b, `{{ printf (print .f %d) .a }}`, i)
		}
		t, d := mustTemplate(b.String()), map[string]any{"f": strings.Repeat("%[1]v", 818), "a": ""}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/256-actions-of-4KiB": func() func() (string, error) {
		t, d := mustTemplate(strings.Repeat(`{{ .a }}`, 256)), map[string]any{"a": oneMiB("a")[:4<<10]}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/list-of-64Ki-small": func() func() (string, error) {
		l := make([]any, 1<<16-1) // 15 bytes and a space each, and []
		for i := range l {
			l[i] = "0123456789abcde"
		}
		t, d := mustTemplate(`{{ .l }}`), map[string]any{"l": l}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/join-64Ki-small": func() func() (string, error) {
		l := make([]any, 1<<16)
		for i := range l {
			l[i] = "0123456789abcdef"
		}
		t, d := mustTemplate(`{{ join "" .l }}`), map[string]any{"l": l}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/over-limit-200-variables-of-upper": func() func() (string, error) {
		t, d := mustTemplate(strings.Repeat(`{{ $a := upper .a }}`, 200)), map[string]any{"a": oneMiB("a")}
		return func() (string, error) { return t.Execute(d, false) }
	},
	"template/over-limit": func() func() (string, error) {
		t, d := mustTemplate(`{{ .a }}{{ .a }}`), map[string]any{"a": oneMiB("a")}
		return func() (string, error) { return t.Execute(d, false) }
	},
}

func mustFormat(f string, n int) *Format {
	pf, err := ParseFormat(f, n)
	if err != nil {
		panic(err)
	}
	return pf
}

func mustTemplate(text string) *Template {
	t, err := ParseTemplate(text)
	if err != nil {
		panic(err)
	}
	return t
}

// TestBoundedAllocation checks that no template function, format call or
// template render on 1 MiB of input allocates more than twice
// MaxOutputSize, whether its output fits or not.
func TestBoundedAllocation(t *testing.T) {
	for name, setup := range boundedCalls {
		limit := uint64(2 * MaxOutputSize)
		t.Run(name, func(t *testing.T) {
			call := setup()
			var out string
			var err error
			if n := allocated(func() { out, err = call() }); n > limit {
				t.Errorf("allocated %d bytes, more than twice MaxOutputSize (output %d bytes, error %v)", n, len(out), err)
			}
			if len(out) > MaxOutputSize {
				t.Errorf("returned %d bytes, more than MaxOutputSize", len(out))
			}
			if refused := strings.Contains(name, "over-limit") || strings.Contains(name, "of-<"); strings.HasPrefix(name, "template/") && refused != (err != nil) {
				t.Errorf("refused: want %t, got error %v", refused, err)
			}
		})
	}
}

// BenchmarkBounded reports the allocation of template functions, formats
// and templates on 1 MiB inputs.
func BenchmarkBounded(b *testing.B) {
	for name, setup := range boundedCalls {
		b.Run(name, func(b *testing.B) {
			call := setup()
			b.ReportAllocs()
			for b.Loop() {
				_, _ = call()
			}
		})
	}
}

// TestBoundedLimitsExact checks that each function gives an output of
// exactly MaxOutputSize and refuses one byte more.
func TestBoundedLimitsExact(t *testing.T) {
	max := MaxOutputSize
	cases := map[string]struct {
		fits, over func() (string, error)
	}{
		"upper": {func() (string, error) { return mapRunes(strings.Repeat("a", max), unicode.ToUpper, MaxOutputSize) }, func() (string, error) {
			return mapRunes(strings.Repeat("a", max-1)+"\u023f", unicode.ToUpper, MaxOutputSize)
		}},
		"lower": {func() (string, error) { return mapRunes(strings.Repeat("A", max), unicode.ToLower, MaxOutputSize) }, func() (string, error) {
			return mapRunes(strings.Repeat("A", max-2)+"\u023a", unicode.ToLower, MaxOutputSize)
		}},
		"toJson":  {func() (string, error) { return tplToJSON(strings.Repeat("a", max-2)) }, func() (string, error) { return tplToJSON(strings.Repeat("a", max-1)) }},
		"printfq": {func() (string, error) { return tplPrintf("%q", strings.Repeat("a", max-2)) }, func() (string, error) { return tplPrintf("%q", strings.Repeat("a", max-1)) }},
		"printfx": {func() (string, error) { return tplPrintf("%x", strings.Repeat("a", max/2)) }, func() (string, error) { return tplPrintf("%x!", strings.Repeat("a", max/2)) }},
		"b64enc":  {func() (string, error) { return tplB64Enc(strings.Repeat("a", max/4*3)) }, func() (string, error) { return tplB64Enc(strings.Repeat("a", max/4*3+1)) }},
		"replace": {func() (string, error) { return tplReplace("a", "bb", strings.Repeat("a", max/2)) }, func() (string, error) { return tplReplace("a", "bb", strings.Repeat("a", max/2)+"c") }},
		"join":    {func() (string, error) { return tplJoin("", []any{strings.Repeat("a", max-1), "b"}) }, func() (string, error) { return tplJoin(",", []any{strings.Repeat("a", max-1), "b"}) }},
		"print":   {func() (string, error) { return tplPrint(strings.Repeat("a", max-1), "b") }, func() (string, error) { return tplPrintln(strings.Repeat("a", max-1), "b") }},
		"template": {func() (string, error) {
			return mustTemplate(`{{ .a }}!`).Execute(map[string]any{"a": strings.Repeat("a", max-1)}, false)
		}, func() (string, error) {
			return mustTemplate(`{{ .a }}!!`).Execute(map[string]any{"a": strings.Repeat("a", max-1)}, false)
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if out, err := tc.fits(); err != nil || len(out) != max {
				t.Errorf("an output of exactly MaxOutputSize: want %d bytes, got %d, %v", max, len(out), err)
			}
			if out, err := tc.over(); err == nil {
				t.Errorf("an output of MaxOutputSize+1: want an error, got %d bytes", len(out))
			}
		})
	}
}

// TestBoundedSameOutput checks that the bounded functions give what the
// functions they replace give.
func TestBoundedSameOutput(t *testing.T) {
	strs := []string{"", "a", "Hello, World <&> \"x\" \\ \t\n\r\b\f\x01\x7f", "\u023f\u023a\u0130\u00df", "\xff\xfe bad \xc3", "\u2028\u2029\ufffd", "日本語"}
	for _, s := range strs {
		if got, _ := mapRunes(s, unicode.ToUpper, MaxOutputSize); got != strings.ToUpper(s) {
			t.Errorf("upper(%q): want %q, got %q", s, strings.ToUpper(s), got)
		}
		if got, _ := mapRunes(s, unicode.ToLower, MaxOutputSize); got != strings.ToLower(s) {
			t.Errorf("lower(%q): want %q, got %q", s, strings.ToLower(s), got)
		}
	}
	values := []any{nil, true, int64(-3), 1.5, 1e21, 1e-7, 123456789.0, "x", map[string]any{"b": []any{int64(1), "<", nil}, "a": map[string]any{}}, []any{}}
	for _, s := range strs {
		values = append(values, s, map[string]any{s: s})
	}
	for _, v := range values {
		want, _ := json.Marshal(v)
		if got, err := toJSON(v, MaxOutputSize); err != nil || got != string(want) {
			t.Errorf("toJSON(%#v): want %s, got %s, %v", v, want, got, err)
		}
	}
	formats := []string{"%v", "%#v", "%+v", "%s", "%q", "%#q", "%+q", "%x", "%X", "% x", "%# x", "%#x", "%10s", "%-10.2s", "%.3q", "%12q", "%T", "%5.1x", "%d", "%08.3f", "%e", "%g", "%t", "%c", "%U", "%b", "%o", "%O"}
	for _, f := range formats {
		pf, err := ParseFormat(f, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			if _, err := fitVerbs(Value{V: v}, pf.kinds[0]); err != nil {
				continue
			}
			if _, composite := v.(map[string]any); composite && pf.pieces[0].sized {
				continue
			}
			conv, _ := fitVerbs(Value{V: v}, pf.kinds[0])
			want := fmt.Sprintf(f, conv)
			if got := pf.pieces[0].size(conv); got != len(want) {
				t.Errorf("size of %s of %#v: want %d (%q), got %d", f, conv, len(want), want, got)
			}
			if got, err := pf.Sprint([]Value{{V: v}}); err != nil || got != want {
				t.Errorf("sprint %s of %#v: want %q, got %q, %v", f, v, want, got, err)
			}
		}
	}
}

// FuzzFormatSize checks that the size a format computes before printing is
// what fmt prints.
func FuzzFormatSize(f *testing.F) {
	f.Add("%q", `"a\u0000\u00ff\ud7ff"`)
	f.Add("%# x", `"abc"`)
	f.Add("%#v", `{"a":[1,"x",null,{"b":1.5}]}`)
	f.Add("%-12.3s|%[1]x", `"héllo"`)
	f.Fuzz(func(t *testing.T, format, in string) {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil || len(format) > 64 {
			return
		}
		v = jsonNumbers(v)
		pf, err := ParseFormat(format, 1)
		if err != nil {
			return
		}
		conv, err := fitVerbs(Value{V: v}, pf.kinds[0])
		if err != nil {
			return
		}
		for _, p := range pf.pieces {
			if p.arg < 0 {
				continue
			}
			switch conv.(type) {
			case []any, map[string]any:
				if p.sized {
					return
				}
			}
			if want, got := len(fmt.Sprintf(p.text, conv)), p.size(conv); want != got {
				t.Errorf("size of %s of %#v: fmt prints %d bytes, size says %d", p.text, conv, want, got)
			}
		}
		if got, err := pf.Sprint([]Value{{V: v}}); err == nil && got != fmt.Sprintf(format, conv) {
			t.Errorf("sprint %s of %#v: fmt prints %q, sprint %q", format, conv, fmt.Sprintf(format, conv), got)
		}
	})
}

// referenceExecute renders text as text/template does without this
// package's rewriting: every value printed through fmt, into a buffer that
// refuses to grow past MaxOutputSize.
func referenceExecute(text string, data map[string]any) (string, error) {
	t, err := template.New("template").Option("missingkey=error").Funcs(templateFuncs).Parse(text)
	if err != nil {
		return "", err
	}
	var b limitedBuffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return string(b), nil
}

type limitedBuffer []byte

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if len(*b)+len(p) > MaxOutputSize {
		return 0, ErrTooLarge
	}
	*b = append(*b, p...)
	return len(p), nil
}

// TestTemplateLikeTextTemplate checks that a render gives what
// text/template gives, output or error.
func TestTemplateLikeTextTemplate(t *testing.T) {
	data := map[string]any{"a": "x<y", "n": int64(3), "f": 1.5, "t": true, "z": nil, "l": []any{"p", int64(1), nil, map[string]any{"k": "v"}}, "m": map[string]any{"b": []any{}, "a": "s"}, "big": strings.Repeat("b", MaxOutputSize-1)}
	for _, text := range []string{
		"", "plain text", "{{ .a }}", "{{ .z }}", "{{ .l }}", "{{ .m }}", "{{ . }}", "{{ .n }}-{{ .f }}-{{ .t }}",
		"{{ index .l 3 }}{{ index .l 2 }}{{ len .l }}{{ slice .a 1 }}", "{{ default .z .a }}{{ default .a .z }}{{ default nil .z }}",
		"{{ $x := .a }}{{ $x }}{{ $x = .n }}{{ $x }}", "{{ if .t }}{{ .a }}{{ else }}no{{ end }}", "{{ with .z }}{{ . }}{{ else with .a }}[{{ . }}]{{ end }}",
		"{{ .a | upper | printf \"%q\" }}", "{{ (.n) }} {{ 1 }} {{ 1.5 }} {{ \"s\" }} {{ nil }}", "{{ eq .n 3 }} {{ and .t .z }} {{ or .z .a }} {{ not .t }}",
		"{{ .missing }}", "{{ .a.b }}", "{{ index .l 9 }}", "{{ .big }}!", "{{ .big }}!!", "{{- .a -}}  {{- .a }}", "{{ toJson . }}",
	} {
		want, wantErr := referenceExecute(text, data)
		tpl, err := ParseTemplate(text)
		if err != nil {
			if wantErr == nil {
				t.Errorf("template %q: text/template renders it, parseTemplate refuses it: %v", text, err)
			}
			continue
		}
		got, gotErr := tpl.Execute(data, false)
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("template %q: text/template gives %.100q, %v; execute %.100q, %v", text, want, wantErr, got, gotErr)
		}
	}
}

// FuzzTemplateLikeTextTemplate checks that a render gives what
// text/template gives, output or error, for any template parseTemplate
// takes.
func FuzzTemplateLikeTextTemplate(f *testing.F) {
	f.Add("arn:{{ .a }}:{{ .n }}{{ .z }}", `{"a":"x","n":1,"z":null}`)
	f.Add(`{{ $x := .a }}{{ if eq $x "y" }}{{ upper $x }}{{ else with .l }}{{ . }}{{ end }}`, `{"a":"y","l":[1,"x",null,{"b":1.5}]}`)
	f.Add(`{{ printf "%q" .a | b64enc }}{{ toJson . }}{{ index .m "k" }}{{ .m.k }}{{ .m.q }}`, `{"a":"\u0000<","m":{"k":true}}`)
	f.Add(`{{ join "," .l }}{{ default "d" .z }}{{ slice .a 1 }}{{ len .l }}{{ not .z }}`, `{"a":"abc","l":["a",2.5],"z":""}`)
	f.Fuzz(func(t *testing.T, text, data string) {
		vars := map[string]any{}
		if len(text) > MaxExpressionLength || json.Unmarshal([]byte(data), &vars) != nil {
			return
		}
		vars = jsonNumbers(vars).(map[string]any)
		tpl, err := ParseTemplate(text)
		if err != nil {
			return
		}
		want, wantErr := referenceExecute(text, vars)
		got, gotErr := tpl.Execute(vars, false)
		if errors.Is(gotErr, errRenderTooLarge) {
			return // text/template has no such limit
		}
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("template %q: text/template gives %.200q, %v; execute %.200q, %v", text, want, wantErr, got, gotErr)
		}
	})
}

// TestTemplateConcurrentRenders checks that renders of one template at the
// same time, each with its own reused render state, keep their outputs
// apart.
func TestTemplateConcurrentRenders(t *testing.T) {
	tpl := mustTemplate(`{{ .a }}-{{ .n }}{{ if .t }}!{{ end }}`)
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 200 {
				a := strings.Repeat("x", g+i%5)
				want := fmt.Sprintf("%s-%d", a, i)
				if i%2 == 0 {
					want += "!"
				}
				if got, err := tpl.Execute(map[string]any{"a": a, "n": int64(i), "t": i%2 == 0}, false); err != nil || got != want {
					errs <- fmt.Errorf("render %d of goroutine %d: want %q, got %q, %v", i, g, want, got, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestTemplateRenderBudget checks that the results of a render's
// functions and its output take at most maxRenderSize in all, exactly.
func TestTemplateRenderBudget(t *testing.T) {
	// Two results of h bytes fill the budget.
	h := maxRenderSize / 2
	a, b := strings.Repeat("a", h), strings.Repeat("b", h-1)
	cases := map[string]struct {
		reason string
		text   string
		refuse bool
	}{
		"TwoResults":              {reason: "Two results of half the budget, the second the output itself, fill it.", text: `{{ $x := upper .a }}{{ upper .a }}`},
		"TwoResultsAndOneMore":    {reason: "A third result, of one byte, exceeds it.", text: `{{ $x := upper .a }}{{ $y := upper .a }}{{ upper "c" }}`, refuse: true},
		"ResultAndCopy":           {reason: "A result and the output it is copied into fit.", text: `{{ upper .b }}!`},
		"ResultsAndCopyExactly":   {reason: "Results and output of exactly the budget fit.", text: `{{ $x := upper "c" }}{{ upper .b }}!`},
		"ResultsAndCopyOneOver":   {reason: "One byte more does not: the output would be copied past the budget.", text: `{{ $x := upper "cc" }}{{ upper .b }}!`, refuse: true},
		"TwoResultsAndCopy":       {reason: "Two results and their copy exceed it.", text: `{{ $x := upper .a }}{{ upper .b }}!`, refuse: true},
		"ValuesAreNotCharged":     {reason: "Values, and functions that return part of them, cost nothing.", text: `{{ .a }}{{ $x := .a }}{{ $y := trim .a }}{{ $z := default "" .a }}`},
		"HalfResultsAndTheirCopy": {reason: "Two results of a quarter of the budget and their copy fit.", text: fmt.Sprintf(`{{ upper (slice .a 0 %d) }}{{ lower (slice .a 0 %[1]d) }}`, h/2)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := mustTemplate(tc.text).Execute(map[string]any{"a": a, "b": b}, false)
			if tc.refuse {
				if !errors.Is(err, errRenderTooLarge) || !errors.Is(err, ErrTooLarge) {
					t.Errorf("%s\nwant %v, got %d bytes, %v", tc.reason, errRenderTooLarge, len(out), err)
				}
				return
			}
			if err != nil {
				t.Errorf("%s\nwant an output, got %v", tc.reason, err)
			}
		})
	}
}
