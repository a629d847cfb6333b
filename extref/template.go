package extref

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
	"upper":      func(s string) (string, error) { return mapRunes(s, unicode.ToUpper) },
	"lower":      func(s string) (string, error) { return mapRunes(s, unicode.ToLower) },
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

// errTooLarge is the error of any function, and of a template, whose output
// would exceed MaxOutputSize.
var errTooLarge error = &valueError{msg: fmt.Sprintf("output exceeds %d bytes", MaxOutputSize)}

func tplB64Enc(s string) (string, error) {
	n := base64.StdEncoding.EncodedLen(len(s))
	if n > MaxOutputSize {
		return "", errTooLarge
	}
	var b strings.Builder
	b.Grow(n)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	_, _ = io.WriteString(enc, s) // a strings.Builder does not fail
	_ = enc.Close()
	return b.String(), nil
}

func tplB64Dec(s string) (string, error) {
	if base64.StdEncoding.DecodedLen(len(s)) > MaxOutputSize && decodedLen(s) > MaxOutputSize {
		return "", errTooLarge
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", base64Error(err, value{v: s, secret: true})
	}
	return string(b), nil
}

func tplReplace(old, repl, s string) (string, error) {
	n := strings.Count(s, old)
	if len(s)+n*(len(repl)-len(old)) > MaxOutputSize {
		return "", errTooLarge
	}
	return strings.ReplaceAll(s, old, repl), nil
}

// plainV prints a value as %v does.
var plainV = piece{text: "%v", verb: 'v', width: -1, prec: -1}

func tplJoin(sep string, list []any) (string, error) {
	n := 0
	for i, v := range list {
		if i > 0 {
			n += len(sep)
		}
		n += plainV.size(v)
		if n > MaxOutputSize {
			return "", errTooLarge
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i, v := range list {
		if i > 0 {
			b.WriteString(sep)
		}
		if s, ok := v.(string); ok {
			b.WriteString(s)
		} else {
			plainV.write(&b, v)
		}
	}
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

func tplToJSON(v any) (string, error) {
	s, err := toJSON(v)
	if err != nil && !errors.Is(err, errTooLarge) {
		return "", failf(err, "toJson: cannot encode %v", value{v: v, secret: true})
	}
	return s, err
}

// tplPrint is fmt.Sprint, and tplPrintln fmt.Sprintln, built argument by
// argument so that they stop at MaxOutputSize instead of building the whole
// string first.
func tplPrint(args ...any) (string, error)   { return sprintBounded(args, false) }
func tplPrintln(args ...any) (string, error) { return sprintBounded(args, true) }

func sprintBounded(args []any, ln bool) (string, error) {
	// Sprint separates operands when neither is a string; Sprintln
	// always does.
	space := func(i int) bool { return i > 0 && (ln || !isString(args[i]) && !isString(args[i-1])) }
	n := 0
	if ln {
		n++
	}
	for i, a := range args {
		if space(i) {
			n++
		}
		n += plainV.size(a)
		if n > MaxOutputSize {
			return "", errTooLarge
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i, a := range args {
		if space(i) {
			b.WriteByte(' ')
		}
		if s, ok := a.(string); ok {
			b.WriteString(s)
		} else {
			plainV.write(&b, a)
		}
	}
	if ln {
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// isString is fmt's test for a string operand.
func isString(a any) bool { return a != nil && reflect.TypeOf(a).Kind() == reflect.String }

// tplPrintf is printf with the verbs a Combine takes. Its format and
// arguments may come from secret values, so its errors describe them by
// type and size only.
func tplPrintf(f string, args ...any) (string, error) {
	pf, err := parseFormat(f, len(args))
	if err != nil {
		var fe *formatError
		errors.As(err, &fe)
		return "", failf(nil, "printf: the format (%v) is not a format of %d values: see position %d", value{v: f, secret: true}, len(args), fe.pos)
	}
	vals := make([]value, len(args))
	for i, a := range args {
		vals[i] = value{v: a, secret: true}
	}
	return pf.sprint(vals)
}

func tplUnavailable(name string) func(...any) (string, error) {
	return func(...any) (string, error) {
		return "", failf(nil, "function %q is not available in external value templates", name)
	}
}

// parseTemplate parses and checks a template: no range (which can loop a
// billion times over an integer), no define, template or block (which can
// recurse).
func parseTemplate(text string) (*template.Template, error) {
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
	return t, nil
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

// execute renders t with data, bounded by MaxOutputSize. When a variable
// is secret, an error keeps text/template's position and the message of
// this package's functions (*valueErrors), but not text/template's own
// messages, which may quote a value (index out of range: 123456789012).
func execute(t *template.Template, data map[string]any, secret bool) (string, error) {
	var b outBuffer
	if err := t.Execute(&b, data); err != nil {
		return "", sealTemplate(err, secret)
	}
	return string(b.b), nil
}

func sealTemplate(err error, secret bool) error {
	var exec template.ExecError
	if !secret || !errors.As(err, &exec) {
		return seal(err, secret)
	}
	// text/template writes "template: NAME:LINE:COL: executing NAME at
	// <NODE>: " and the cause, where NAME and NODE are the template's text.
	if _, ours := errors.Unwrap(exec.Err).(*valueError); ours {
		return failf(err, "%s", err.Error())
	}
	at, _, _ := strings.Cut(exec.Err.Error(), ": executing ")
	return failf(errWithheld, "%s: %s", at, errWithheld)
}

// templateCache holds parsed templates by text, since the same few
// templates are resolved on every reconcile. It is cleared when full.
type templateCache struct {
	mu sync.RWMutex
	m  map[string]*template.Template
}

const templateCacheSize = 512

func (c *templateCache) get(text string) (*template.Template, error) {
	c.mu.RLock()
	t, ok := c.m[text]
	c.mu.RUnlock()
	if ok {
		return t, nil
	}
	t, err := parseTemplate(text)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= templateCacheSize {
		c.m = make(map[string]*template.Template)
	}
	c.m[text] = t
	c.mu.Unlock()
	return t, nil
}
