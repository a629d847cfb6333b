package extref

import (
	"crypto/sha1" //nolint:gosec // a checksum users ask for, not a security measure
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/adler32"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// maxRegexpLength bounds the text of a regular expression, as the CRD
// schema does.
const maxRegexpLength = 1024

// maxRegexpInsts bounds the program a regular expression compiles to: a
// short expression can repeat (x{1000}{1000} is refused by Go itself, but
// (x{100}){10} is not), and the time to match grows with the program.
const maxRegexpInsts = 2000

// maxRegexpWork bounds the time of a match: the length of the value times
// the instructions of the program, Go's matcher being linear in both. At
// the bound a match takes about a tenth of a second.
const maxRegexpWork = 1 << 22

// A stringOp is a checked v1alpha1.StringTransform.
type stringOp struct {
	typ    v1alpha1.StringTransformType
	conv   v1alpha1.StringConversion
	format *render.Format
	text   string // trim, join's separator or replace's search
	repl   string
	re     *compiledRegexp
	group  int
}

// A compiledRegexp is a checked regular expression and the size of its
// program.
type compiledRegexp struct {
	re    *regexp.Regexp
	insts int
}

// stringFields are the fields of a v1alpha1.StringTransform a type takes,
// and whether s has each.
func stringFields(s *v1alpha1.StringTransform) []struct {
	name  string
	typ   []v1alpha1.StringTransformType
	given bool
} {
	return []struct {
		name  string
		typ   []v1alpha1.StringTransformType
		given bool
	}{
		{"fmt", []v1alpha1.StringTransformType{v1alpha1.StringFormat}, s.Fmt != ""},
		{"convert", []v1alpha1.StringTransformType{v1alpha1.StringConvert}, s.Convert != ""},
		{"trim", []v1alpha1.StringTransformType{v1alpha1.StringTrimPrefix, v1alpha1.StringTrimSuffix}, s.Trim != ""},
		{"regexp", []v1alpha1.StringTransformType{v1alpha1.StringRegexp}, s.Regexp != nil},
		{"join", []v1alpha1.StringTransformType{v1alpha1.StringJoin}, s.Join != nil},
		{"replace", []v1alpha1.StringTransformType{v1alpha1.StringReplace}, s.Replace != nil},
	}
}

const stringTypes = "Format, Convert, TrimPrefix, TrimSuffix, Regexp, Join or Replace"

// size estimates the bytes op keeps; nil keeps none.
func (op *stringOp) size() int {
	if op == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*op)) + op.format.Size() + len(op.text) + len(op.repl)
	if op.re != nil {
		// a compiled program, its one-pass form where it has one, and the
		// expression's text, at most.
		n += 2*regexpInstSize*op.re.insts + 2*len(op.re.re.String())
	}
	return n
}

// regexpInstSize is about the bytes of one instruction of a compiled
// regular expression.
const regexpInstSize = 40

func compileString(t v1alpha1.Transform, out *transform) error {
	s := t.String
	for _, f := range []struct{ name, text string }{
		{"fmt", s.Fmt}, {"trim", s.Trim}, {"join.separator", ptrField(s.Join, func(j *v1alpha1.StringTransformJoin) string { return j.Separator })},
		{"replace.search", ptrField(s.Replace, func(r *v1alpha1.StringTransformReplace) string { return r.Search })},
		{"replace.replace", ptrField(s.Replace, func(r *v1alpha1.StringTransformReplace) string { return r.Replace })},
	} {
		if len(f.text) > render.MaxExpressionLength {
			return fmt.Errorf("string: %s: longer than %d bytes", f.name, render.MaxExpressionLength)
		}
	}
	op := &stringOp{typ: s.Type}
	known := false
	for _, f := range stringFields(s) {
		takes := false
		for _, typ := range f.typ {
			takes = takes || typ == s.Type
		}
		known = known || takes
		switch {
		case takes && !f.given:
			return fmt.Errorf("string: type %s needs %s", s.Type, f.name)
		case !takes && f.given && s.Type != "" && isStringType(s.Type):
			return fmt.Errorf("string: type %s does not take %s", s.Type, f.name)
		}
	}
	switch {
	case s.Type == "":
		return fmt.Errorf("string: type is required (%s)", stringTypes)
	case !known:
		return fmt.Errorf("string: unsupported type %q (want %s)", s.Type, stringTypes)
	}
	switch s.Type {
	case v1alpha1.StringFormat:
		f, err := render.ParseFormat(s.Fmt, 1)
		if err != nil {
			return fmt.Errorf("string: fmt: %w", err)
		}
		op.format = f
	case v1alpha1.StringConvert:
		switch s.Convert {
		case v1alpha1.StringToUpper, v1alpha1.StringToLower, v1alpha1.StringToBase64, v1alpha1.StringFromBase64,
			v1alpha1.StringToJSON, v1alpha1.StringToSha1, v1alpha1.StringToSha256, v1alpha1.StringToSha512, v1alpha1.StringToAdler32:
			op.conv = s.Convert
		default:
			return fmt.Errorf("string: unsupported convert %q (want ToUpper, ToLower, ToBase64, FromBase64, ToJson, ToSha1, ToSha256, ToSha512 or ToAdler32)", s.Convert)
		}
	case v1alpha1.StringTrimPrefix, v1alpha1.StringTrimSuffix:
		op.text = s.Trim
	case v1alpha1.StringRegexp:
		re, err := compileRegexp(s.Regexp.Match)
		if err != nil {
			return fmt.Errorf("string: regexp.match: %w", err)
		}
		op.re = re
		if g := s.Regexp.Group; g != nil {
			if *g < 0 || int(*g) > re.re.NumSubexp() {
				return fmt.Errorf("string: regexp.group: %d is not a group of the expression, which has %d", *g, re.re.NumSubexp())
			}
			op.group = int(*g)
		}
	case v1alpha1.StringJoin:
		op.text = s.Join.Separator
	case v1alpha1.StringReplace:
		if s.Replace.Search == "" {
			return errors.New("string: replace.search must not be empty")
		}
		op.text, op.repl = s.Replace.Search, s.Replace.Replace
	}
	out.str = op
	return nil
}

// ptrField returns f(p), or "" for p nil.
func ptrField[T any](p *T, f func(*T) string) string {
	if p == nil {
		return ""
	}
	return f(p)
}

func isStringType(t v1alpha1.StringTransformType) bool {
	switch t {
	case v1alpha1.StringFormat, v1alpha1.StringConvert, v1alpha1.StringTrimPrefix, v1alpha1.StringTrimSuffix,
		v1alpha1.StringRegexp, v1alpha1.StringJoin, v1alpha1.StringReplace:
		return true
	}
	return false
}

// compileRegexp checks a regular expression of a transform against the
// bounds and compiles it. Its text is spec, which errors may quote.
func compileRegexp(expr string) (*compiledRegexp, error) {
	if len(expr) > maxRegexpLength {
		return nil, fmt.Errorf("longer than %d bytes", maxRegexpLength)
	}
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, err
	}
	if len(prog.Inst) > maxRegexpInsts {
		return nil, fmt.Errorf("the expression compiles to %d instructions, more than %d", len(prog.Inst), maxRegexpInsts)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	return &compiledRegexp{re: re, insts: len(prog.Inst)}, nil
}

// check refuses to match s when that could take more than maxRegexpWork.
func (r *compiledRegexp) check(v render.Value, s string) error {
	if len(s) > maxRegexpWork/r.insts {
		return render.Failf(nil, "%v is too long for the regexp: at most %d bytes", v, maxRegexpWork/r.insts)
	}
	return nil
}

func applyString(t transform, v render.Value) (any, error) {
	op := t.str
	tooLarge := func(err error) (any, error) {
		if errors.Is(err, render.ErrTooLarge) {
			return nil, render.Failf(err, "%v would give more than %d bytes", v, MaxOutputSize)
		}
		return nil, err
	}
	switch op.typ {
	case v1alpha1.StringFormat:
		return op.format.Sprint([]render.Value{v})
	case v1alpha1.StringConvert:
		return convertString(op.conv, v)
	case v1alpha1.StringJoin:
		list, ok := v.V.([]any)
		if !ok {
			return nil, render.Failf(nil, "takes an array, not %v", v)
		}
		s, err := render.Join(list, op.text)
		if err != nil {
			return tooLarge(err)
		}
		return s, nil
	}
	s, err := render.Text(v.V)
	if err != nil {
		return tooLarge(err)
	}
	switch op.typ {
	case v1alpha1.StringTrimPrefix:
		return strings.TrimPrefix(s, op.text), nil
	case v1alpha1.StringTrimSuffix:
		return strings.TrimSuffix(s, op.text), nil
	case v1alpha1.StringReplace:
		out, err := render.ReplaceAll(s, op.text, op.repl)
		if err != nil {
			return tooLarge(err)
		}
		return out, nil
	case v1alpha1.StringRegexp:
		if err := op.re.check(v, s); err != nil {
			return nil, err
		}
		m := op.re.re.FindStringSubmatchIndex(s)
		if m == nil {
			return nil, render.Failf(nil, "%v does not match the regexp", v)
		}
		if m[2*op.group] < 0 {
			return nil, render.Failf(nil, "group %d of the regexp matches nothing in %v", op.group, v)
		}
		return s[m[2*op.group]:m[2*op.group+1]], nil
	}
	return nil, render.Failf(nil, "unsupported string type %s", op.typ) // compileString refuses it
}

// convertString applies a String transform of type Convert.
func convertString(conv v1alpha1.StringConversion, v render.Value) (any, error) {
	tooLarge := func(err error) (any, error) {
		if errors.Is(err, render.ErrTooLarge) {
			return nil, render.Failf(err, "%v would give more than %d bytes", v, MaxOutputSize)
		}
		return nil, render.Failf(err, "cannot encode %v as JSON", v)
	}
	var data string // what a hash hashes: a string, or any other value's JSON
	switch conv {
	case v1alpha1.StringToJSON, v1alpha1.StringToSha1, v1alpha1.StringToSha256, v1alpha1.StringToSha512, v1alpha1.StringToAdler32:
		s, ok := v.V.(string)
		if !ok || conv == v1alpha1.StringToJSON {
			var err error
			if s, err = render.ToJSON(v.V); err != nil {
				return tooLarge(err)
			}
		}
		data = s
	default:
		s, err := render.Text(v.V)
		if err != nil {
			return tooLarge(err)
		}
		data = s
	}
	var out string
	var err error
	switch conv {
	case v1alpha1.StringToUpper:
		out, err = render.ToUpper(data)
	case v1alpha1.StringToLower:
		out, err = render.ToLower(data)
	case v1alpha1.StringToBase64:
		out, err = render.Base64Encode(data)
	case v1alpha1.StringFromBase64:
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, render.Base64Error(err, v)
		}
		return string(b), nil
	case v1alpha1.StringToJSON:
		out = data
	case v1alpha1.StringToSha1:
		h := sha1.Sum([]byte(data)) //nolint:gosec // see the import
		out = hex.EncodeToString(h[:])
	case v1alpha1.StringToSha256:
		h := sha256.Sum256([]byte(data))
		out = hex.EncodeToString(h[:])
	case v1alpha1.StringToSha512:
		h := sha512.Sum512([]byte(data))
		out = hex.EncodeToString(h[:])
	case v1alpha1.StringToAdler32:
		out = strconv.FormatUint(uint64(adler32.Checksum([]byte(data))), 10)
	}
	if err != nil {
		return tooLarge(err)
	}
	return out, nil
}
