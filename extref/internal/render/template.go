package render

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"unicode"
)

// The functions a template may call, besides text/template's comparisons,
// and, or, not, len, index and slice. Arguments come in Sprig's order, so
// that the value can be piped in last: {{ .name | trimPrefix "x-" }}.
//
//	b64enc s, b64dec s         base64 (standard encoding)
//	upper s, lower s, trim s   case and surrounding white space
//	trimPrefix p s, trimSuffix p s
//	replace old new s          every occurrence
//	join sep list              a list's items, printed with %v
//	default d v                v, or d when v is empty (missing, null, "", 0, false, empty list or object)
//	toJson v                   v as JSON
//	print, println, printf     as in text/template, bounded (printf takes the verbs Combine takes)
//
// call, html, js and urlquery are not available. Every function fails
// rather than return more than MaxOutputSize bytes.
var templateFuncs = template.FuncMap{
	"b64enc":     tplB64Enc,
	"b64dec":     tplB64Dec,
	"upper":      func(s string) (string, error) { return mapRunes(s, unicode.ToUpper, MaxOutputSize) },
	"lower":      func(s string) (string, error) { return mapRunes(s, unicode.ToLower, MaxOutputSize) },
	"trim":       strings.TrimSpace,
	"trimPrefix": func(p, s string) string { return strings.TrimPrefix(s, p) },
	"trimSuffix": func(p, s string) string { return strings.TrimSuffix(s, p) },
	"replace":    tplReplace,
	"join":       tplJoin,
	"default":    tplDefault,
	"toJson":     tplToJSON,
	"print":      tplPrint,
	"println":    tplPrintln,
	"printf":     tplPrintf,
	"call":       tplUnavailable("call"),
	"html":       tplUnavailable("html"),
	"js":         tplUnavailable("js"),
	"urlquery":   tplUnavailable("urlquery"),
}

// ErrTooLarge is the error of any function, and of a template, whose output
// would exceed MaxOutputSize.
var ErrTooLarge error = &safeError{msg: fmt.Sprintf("output exceeds %d bytes", MaxOutputSize)}

// maxRenderSize is the most bytes the results of a render's functions and
// its output, when built from parts, may take in all: without it, a
// template of 4 KiB holding 250 variables of upper of 1 MiB would hold
// 250 MiB. It leaves renderReserve of 2 × MaxOutputSize to text/template's
// own bookkeeping, so that a whole render stays within 2 × MaxOutputSize.
const maxRenderSize = 2*MaxOutputSize - renderReserve

// renderReserve is what text/template allocates to render a template besides
// values: a few hundred bytes per action of a template (whose length is
// bounded), and a clone of the template for a render that finds none to
// reuse.
const renderReserve = 16 << 10

// errRenderTooLarge is the error of a render that would exceed
// maxRenderSize.
var errRenderTooLarge error = &safeError{msg: fmt.Sprintf("the template's functions and output exceed %d bytes in all", maxRenderSize), cause: ErrTooLarge}

func tplB64Enc(s string) (string, error) { return b64enc(s, MaxOutputSize) }

func b64enc(s string, limit int) (string, error) {
	n := base64.StdEncoding.EncodedLen(len(s))
	if n > limit {
		return "", ErrTooLarge
	}
	var b strings.Builder
	b.Grow(n)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	_, _ = io.WriteString(enc, s) // a strings.Builder does not fail
	_ = enc.Close()
	return b.String(), nil
}

func tplB64Dec(s string) (string, error) { return b64dec(s, MaxOutputSize) }

func b64dec(s string, limit int) (string, error) {
	if base64.StdEncoding.DecodedLen(len(s)) > limit && decodedLen(s) > limit {
		return "", ErrTooLarge
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", Base64Error(err, Value{V: s, Secret: true})
	}
	return string(b), nil
}

func tplReplace(old, repl, s string) (string, error) { return replace(old, repl, s, MaxOutputSize) }

func replace(old, repl, s string, limit int) (string, error) {
	n := strings.Count(s, old)
	if len(s)+n*(len(repl)-len(old)) > limit {
		return "", ErrTooLarge
	}
	return strings.ReplaceAll(s, old, repl), nil
}

// plainV prints a value as %v does.
var plainV = piece{text: "%v", verb: 'v', width: -1, prec: -1}

func tplJoin(sep string, list []any) (string, error) { return join(sep, list, MaxOutputSize) }

func join(sep string, list []any, limit int) (string, error) {
	return printList(list, func(i int) string {
		if i == 0 {
			return ""
		}
		return sep
	}, "", limit)
}

// printList prints the values of list as %v does, with sep(i) before value i
// and end after the last, or fails with ErrTooLarge when that would be more
// than limit bytes.
func printList(list []any, sep func(i int) string, end string, limit int) (string, error) {
	n := len(end)
	for i, v := range list {
		n += len(sep(i)) + plainV.size(v)
		if n > limit {
			return "", ErrTooLarge
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i, v := range list {
		b.WriteString(sep(i))
		if s, ok := v.(string); ok {
			b.WriteString(s)
		} else {
			plainV.write(&b, v)
		}
	}
	b.WriteString(end)
	return b.String(), nil
}

// decodedLen is the exact length of what standard base64 text s decodes
// to, if it is valid: line breaks do not count, padding does not either.
func decodedLen(s string) int {
	n := len(s) - strings.Count(s, "\n") - strings.Count(s, "\r")
	pad := 0
	for t := strings.TrimRight(s, "\r\n"); pad < 2 && strings.HasSuffix(t, "="); t = t[:len(t)-1] {
		pad++
	}
	return n/4*3 - pad
}

func tplDefault(d, v any) any {
	switch x := v.(type) {
	case nil:
		return d
	case string:
		if x == "" {
			return d
		}
	case bool:
		if !x {
			return d
		}
	case int64:
		if x == 0 {
			return d
		}
	case float64:
		if x == 0 {
			return d
		}
	case []any:
		if len(x) == 0 {
			return d
		}
	case map[string]any:
		if len(x) == 0 {
			return d
		}
	}
	return v
}

func tplToJSON(v any) (string, error) { return toJSONLimit(v, MaxOutputSize) }

func toJSONLimit(v any, limit int) (string, error) {
	s, err := toJSON(v, limit)
	if err != nil && !errors.Is(err, ErrTooLarge) {
		return "", Failf(err, "toJson: cannot encode %v", Value{V: v, Secret: true})
	}
	return s, err
}

// tplPrint is fmt.Sprint, and tplPrintln fmt.Sprintln, built argument by
// argument so that they stop at MaxOutputSize instead of building the whole
// string first.
func tplPrint(args ...any) (string, error)   { return sprintBounded(args, false, MaxOutputSize) }
func tplPrintln(args ...any) (string, error) { return sprintBounded(args, true, MaxOutputSize) }

func sprintBounded(args []any, ln bool, limit int) (string, error) {
	end := ""
	if ln {
		end = "\n"
	}
	// Sprint separates operands when neither is a string; Sprintln
	// always does.
	return printList(args, func(i int) string {
		if i > 0 && (ln || !isString(args[i]) && !isString(args[i-1])) {
			return " "
		}
		return ""
	}, end, limit)
}

// isString is fmt's test for a string operand.
func isString(a any) bool { return a != nil && reflect.TypeOf(a).Kind() == reflect.String }

// tplPrintf is printf with the verbs a Combine takes. Its format and
// arguments may come from secret values, so its errors describe them by
// type and size only.
func tplPrintf(f string, args ...any) (string, error) { return printf(f, args, MaxOutputSize) }

func printf(f string, args []any, limit int) (string, error) {
	pf, err := parsePrintf(f, len(args))
	if err != nil {
		return "", err
	}
	return sprintf(pf, args, limit)
}

// parsePrintf parses printf's format f for n values. A template may take
// its format from a value, and parsing costs tens of bytes per byte of
// format, so a format longer than the spec's own formats may be is refused.
func parsePrintf(f string, n int) (*Format, error) {
	if len(f) > MaxExpressionLength {
		return nil, Failf(nil, "printf: the format (%v) is longer than %d bytes", Value{V: f, Secret: true}, MaxExpressionLength)
	}
	pf, err := ParseFormat(f, n)
	if err != nil {
		var fe *formatError
		errors.As(err, &fe)
		return nil, Failf(nil, "printf: the format (%v) is not a format of %d values: see position %d", Value{V: f, Secret: true}, n, fe.pos)
	}
	return pf, nil
}

// formatCost bounds what parsing a format of that length for n values
// allocates: a piece and its text per verb, and the verbs of each value.
func formatCost(f string, n int) int { return 160*len(f) + 32*n }

// sprintf formats args with printf's parsed format pf, refusing an output
// over limit bytes.
func sprintf(pf *Format, args []any, limit int) (string, error) {
	vals := make([]Value, len(args))
	for i, a := range args {
		vals[i] = Value{V: a, Secret: true}
	}
	return pf.sprintLimit(vals, limit)
}

func tplUnavailable(name string) func(...any) (string, error) {
	return func(...any) (string, error) {
		return "", Failf(nil, "function %q is not available in external value templates", name)
	}
}

// A Template is a checked template whose printing actions hand
// their value to the render (see emit), and the renders it keeps for reuse.
type Template struct {
	t       *template.Template
	renders sync.Pool // of *render
}

// emitName is the function that ends every printing action of a
// Template. Templates cannot call it: it is not in templateFuncs,
// which the parser checks names against, but bound after parsing on each
// render's clone of the template, as html/template binds its escapers.
const emitName = "extrefEmit"

// ParseTemplate parses and checks a template: no range (which can loop a
// billion times over an integer), no define, template or block (which can
// recurse).
func ParseTemplate(text string) (*Template, error) {
	t, err := template.New("template").Option("missingkey=error").Funcs(templateFuncs).Parse(text)
	if err != nil {
		return nil, err
	}
	for _, a := range t.Templates() {
		if a.Name() != t.Name() {
			return nil, fmt.Errorf("template defines %q: define and block are not allowed", a.Name())
		}
	}
	if t.Tree == nil || t.Root == nil {
		return nil, errors.New("template is empty")
	}
	if err := checkNode(t.Tree, t.Root); err != nil {
		return nil, err
	}
	emitOutput(t.Tree, t.Root)
	return &Template{t: t}, nil
}

func checkNode(tree *parse.Tree, n parse.Node) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkNode(tree, c); err != nil {
				return err
			}
		}
	case *parse.IfNode:
		return checkBranch(tree, &n.BranchNode)
	case *parse.WithNode:
		return checkBranch(tree, &n.BranchNode)
	case *parse.RangeNode:
		return fmt.Errorf("template: %s: range is not allowed", location(tree, n))
	case *parse.TemplateNode:
		return fmt.Errorf("template: %s: template and block are not allowed", location(tree, n))
	case *parse.BreakNode, *parse.ContinueNode:
		return fmt.Errorf("template: %s: break and continue are not allowed", location(tree, n))
	}
	return nil
}

func location(tree *parse.Tree, n parse.Node) string {
	loc, _ := tree.ErrorContext(n)
	return loc
}

func checkBranch(tree *parse.Tree, b *parse.BranchNode) error {
	if err := checkNode(tree, b.List); err != nil {
		return err
	}
	return checkNode(tree, b.ElseList)
}

// emitOutput appends emitName to the pipeline of every action that prints
// (one without variables: the only printing nodes checkNode allows besides
// text). text/template prints a value through fmt, which copies it into a
// buffer of its own, dropped rather than reused when over 64 KiB, before
// writing it: emit takes the value itself, and prints nothing.
func emitOutput(tree *parse.Tree, n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			emitOutput(tree, c)
		}
	case *parse.ActionNode:
		if len(n.Pipe.Decl) == 0 {
			emit := parse.NewIdentifier(emitName).SetTree(tree).SetPos(n.Pos)
			n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos, Args: []parse.Node{emit}})
		}
	case *parse.IfNode:
		emitOutput(tree, n.List)
		emitOutput(tree, n.ElseList)
	case *parse.WithNode:
		emitOutput(tree, n.List)
		emitOutput(tree, n.ElseList)
	}
}

// Execute renders t with data, its output bounded by MaxOutputSize and its
// function results and output together by maxRenderSize. When a variable
// is secret, an error keeps text/template's position and the message of
// this package's functions (*valueErrors), but not text/template's own
// messages, which may quote a value (index out of range: 123456789012).
func (t *Template) Execute(data map[string]any, secret bool) (string, error) {
	r := t.render()
	defer t.renders.Put(r)
	defer r.reset()
	err := r.t.Execute(r, data)
	switch {
	case r.tooLarge:
		err = ErrTooLarge
	case r.overBudget:
		err = errRenderTooLarge
	case err == nil && r.copies() && r.spent+r.size > maxRenderSize:
		err = errRenderTooLarge
	}
	if err != nil {
		return "", sealTemplate(err, secret)
	}
	return r.output(), nil
}

// A render collects a template's output as the parts it is made of (the
// template's text, strings and values, held, not copied) and their total
// size, then builds it once in a buffer of that size; an output that is
// one string is that string. It is what text/template writes to, and emit
// is its emitName function. Its functions that build a result charge it
// to spent, and take as their limit what maxRenderSize leaves.
type render struct {
	t          *template.Template
	parts      []part
	text       []byte // the template text written so far, which text parts are slices of
	size       int
	spent      int                   // bytes the functions returned, and formats parsed
	formats    map[formatKey]*Format // printf's, parsed this render
	tooLarge   bool
	overBudget bool
}

// A part of an output: a string s, value v printed as %v when printed is
// set, or text[from:to] when text is set.
type part struct {
	s        string
	v        any
	printed  bool
	text     bool
	from, to int
}

func (t *Template) render() *render {
	if r, ok := t.renders.Get().(*render); ok {
		return r
	}
	r := &render{}
	c, _ := t.t.Clone() // text/template's Clone does not fail
	r.t = c.Funcs(r.funcs())
	return r
}

// funcs are emit, and the functions of templateFuncs that build their
// result, bound to r.
func (r *render) funcs() template.FuncMap {
	return template.FuncMap{
		emitName: r.emit,
		"b64enc": func(s string) (string, error) {
			return r.call(func(limit int) (string, error) { return b64enc(s, limit) })
		},
		"b64dec": func(s string) (string, error) {
			return r.callCosting(2, func(limit int) (string, error) { return b64dec(s, limit) })
		},
		"upper": func(s string) (string, error) {
			return r.call(func(limit int) (string, error) { return mapRunes(s, unicode.ToUpper, limit) })
		},
		"lower": func(s string) (string, error) {
			return r.call(func(limit int) (string, error) { return mapRunes(s, unicode.ToLower, limit) })
		},
		"replace": func(old, repl, s string) (string, error) {
			return r.call(func(limit int) (string, error) { return replace(old, repl, s, limit) })
		},
		"join": func(sep string, list []any) (string, error) {
			return r.call(func(limit int) (string, error) { return join(sep, list, limit) })
		},
		"toJson": func(v any) (string, error) {
			return r.call(func(limit int) (string, error) { return toJSONLimit(v, limit) })
		},
		"print": func(args ...any) (string, error) {
			return r.call(func(limit int) (string, error) { return sprintBounded(args, false, limit) })
		},
		"println": func(args ...any) (string, error) {
			return r.call(func(limit int) (string, error) { return sprintBounded(args, true, limit) })
		},
		"printf": func(f string, args ...any) (string, error) {
			pf, err := r.format(f, len(args))
			if err != nil {
				return "", err
			}
			return r.call(func(limit int) (string, error) { return sprintf(pf, args, limit) })
		},
	}
}

// format returns printf's format f for n values, parsed once per render: a
// template may take its format from a value, or build one, and call printf
// with it hundreds of times. Parsing is charged to the render.
func (r *render) format(f string, n int) (*Format, error) {
	k := formatKey{text: f, n: n}
	if pf, ok := r.formats[k]; ok {
		return pf, nil
	}
	cost := formatCost(f, n)
	if len(f) <= MaxExpressionLength && r.spent+r.size+cost > maxRenderSize {
		r.overBudget = true
		return nil, errRenderTooLarge
	}
	pf, err := parsePrintf(f, n)
	if err != nil {
		return nil, err
	}
	r.spent += cost
	if r.formats == nil {
		r.formats = make(map[formatKey]*Format)
	}
	r.formats[k] = pf
	return pf, nil
}

// A formatKey is a format and the number of values it was parsed for.
type formatKey struct {
	text string
	n    int
}

// call runs f, a function that builds its result, with the limit that
// keeps r within maxRenderSize (counting its output as if it were to be
// copied), and charges the result to r. When that limit, lower than
// MaxOutputSize, refuses the result, the error says so.
func (r *render) call(f func(limit int) (string, error)) (string, error) {
	return r.callCosting(1, f)
}

// callCosting is call for a function that allocates cost times its result
// (b64dec decodes into a buffer of its own before making the string): the
// limit keeps all of that within maxRenderSize, and all of it is charged.
func (r *render) callCosting(cost int, f func(limit int) (string, error)) (string, error) {
	limit := min(MaxOutputSize, (maxRenderSize-r.spent-r.size)/cost)
	s, err := f(max(limit, 0))
	if err != nil {
		if limit < MaxOutputSize && errors.Is(err, ErrTooLarge) {
			r.overBudget = true
			return "", errRenderTooLarge
		}
		return "", err
	}
	r.spent += cost * len(s)
	return s, nil
}

// grow adds n bytes to the output's size, refusing to exceed MaxOutputSize.
func (r *render) grow(n int) error {
	if r.size+n > MaxOutputSize {
		r.tooLarge = true
		return ErrTooLarge
	}
	r.size += n
	return nil
}

// Write takes the template's text; text/template writes fmt's printing of
// emit's empty result here too.
func (r *render) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := r.grow(len(p)); err != nil {
		return 0, err
	}
	from := len(r.text)
	r.text = append(r.text, p...)
	if n := len(r.parts); n > 0 && r.parts[n-1].text && r.parts[n-1].to == from {
		r.parts[n-1].to = len(r.text)
	} else {
		r.parts = append(r.parts, part{text: true, from: from, to: len(r.text)})
	}
	return len(p), nil
}

// emit takes an action's value as text/template's printValue would print
// it: a nil as "<no value>", anything else as fmt's %v (the values of a
// template are JSON values and the results of its functions, none of them
// an error or Stringer).
func (r *render) emit(v any) (string, error) {
	p := part{v: v, printed: true}
	switch x := v.(type) {
	case nil:
		p = part{s: "<no value>"}
	case string:
		p = part{s: x}
	}
	n := len(p.s)
	if p.printed {
		n = plainV.size(v)
	}
	if err := r.grow(n); err != nil {
		return "", err
	}
	r.parts = append(r.parts, p)
	return "", nil
}

// copies says whether output builds the output, rather than return the
// one string it is.
func (r *render) copies() bool {
	return len(r.parts) != 1 || r.parts[0].text || r.parts[0].printed
}

// output builds the output from its parts.
func (r *render) output() string {
	if !r.copies() {
		return r.parts[0].s
	}
	var b strings.Builder
	b.Grow(r.size)
	for _, p := range r.parts {
		switch {
		case p.text:
			b.Write(r.text[p.from:p.to])
		case p.printed:
			plainV.write(&b, p.v)
		default:
			b.WriteString(p.s)
		}
	}
	return b.String()
}

// reset readies r for the next render, keeping no part of this one.
func (r *render) reset() {
	clear(r.parts)
	clear(r.formats)
	r.parts, r.text, r.size, r.spent, r.tooLarge, r.overBudget = r.parts[:0], r.text[:0], 0, 0, false, false
	if cap(r.parts) > MaxExpressionLength || cap(r.text) > 2*MaxExpressionLength {
		r.parts, r.text = nil, nil // from a template longer than the resolver takes
	}
}

func sealTemplate(err error, secret bool) error {
	var exec template.ExecError
	if !secret || !errors.As(err, &exec) {
		return Seal(err, secret)
	}
	// text/template writes "template: NAME:LINE:COL: executing NAME at
	// <NODE>: " and the cause, where NAME and NODE are the template's text.
	if _, ours := errors.Unwrap(exec.Err).(*safeError); ours {
		return Failf(err, "%s", err.Error())
	}
	at, _, _ := strings.Cut(exec.Err.Error(), ": executing ")
	return Failf(ErrWithheld, "%s: %s", at, ErrWithheld)
}
