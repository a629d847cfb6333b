package extref

import (
	"fmt"
	"strconv"
	"unsafe"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// maxMatchPatterns bounds the patterns of a Match transform, as the CRD
// schema does.
const maxMatchPatterns = 64

// A matchOp is a checked v1alpha1.MatchTransform.
type matchOp struct {
	patterns []matchPattern
	fallback any // with toInput false
	toInput  bool
	bytes    int // the results' size as JSON
}

// A matchPattern is a checked v1alpha1.MatchPattern: a literal, or a
// regexp when re is not nil.
type matchPattern struct {
	literal string
	re      *compiledRegexp
	result  any
}

// size estimates the bytes op keeps; nil keeps none.
func (op *matchOp) size() int {
	if op == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*op)) + 2*op.bytes
	for _, p := range op.patterns {
		n += int(unsafe.Sizeof(p)) + len(p.literal)
		if p.re != nil {
			n += 2*regexpInstSize*p.re.insts + 2*len(p.re.re.String())
		}
	}
	return n
}

// jsonResult decodes a result or fallback value, at most MaxOutputSize
// bytes of JSON.
func jsonResult(j *v1alpha1.JSON, field string) (any, int, error) {
	if j == nil || len(j.Raw) == 0 {
		return nil, 0, nil
	}
	if len(j.Raw) > MaxOutputSize {
		return nil, 0, fmt.Errorf("match: %s: more than %d bytes", field, MaxOutputSize)
	}
	var v any
	if err := utiljson.Unmarshal(j.Raw, &v); err != nil {
		return nil, 0, fmt.Errorf("match: %s: not a JSON value", field)
	}
	return v, len(j.Raw), nil
}

func compileMatch(t v1alpha1.Transform, out *transform) error {
	m := t.Match
	if len(m.Patterns) > maxMatchPatterns {
		return fmt.Errorf("match: patterns: %d patterns, more than %d", len(m.Patterns), maxMatchPatterns)
	}
	op := &matchOp{patterns: make([]matchPattern, len(m.Patterns))}
	for i, p := range m.Patterns {
		at := "match: patterns[" + strconv.Itoa(i) + "]"
		var mp matchPattern
		switch p.Type {
		case v1alpha1.MatchLiteral:
			switch {
			case p.Literal == nil:
				return fmt.Errorf("%s: type Literal needs literal", at)
			case p.Regexp != nil:
				return fmt.Errorf("%s: type Literal does not take regexp", at)
			case len(*p.Literal) > render.MaxExpressionLength:
				return fmt.Errorf("%s: literal: longer than %d bytes", at, render.MaxExpressionLength)
			}
			mp.literal = *p.Literal
		case v1alpha1.MatchRegexp:
			switch {
			case p.Regexp == nil:
				return fmt.Errorf("%s: type Regexp needs regexp", at)
			case p.Literal != nil:
				return fmt.Errorf("%s: type Regexp does not take literal", at)
			}
			re, err := compileRegexp(*p.Regexp)
			if err != nil {
				return fmt.Errorf("%s: regexp: %w", at, err)
			}
			mp.re = re
		case "":
			return fmt.Errorf("%s: type is required (Literal or Regexp)", at)
		default:
			return fmt.Errorf("%s: unsupported type %q (want Literal or Regexp)", at, p.Type)
		}
		res := p.Result
		v, n, err := jsonResult(&res, "patterns["+strconv.Itoa(i)+"].result")
		if err != nil {
			return err
		}
		mp.result, op.bytes = v, op.bytes+n
		op.patterns[i] = mp
	}
	switch m.FallbackTo {
	case "", v1alpha1.MatchFallbackToValue:
		v, n, err := jsonResult(m.FallbackValue, "fallbackValue")
		if err != nil {
			return err
		}
		op.fallback, op.bytes = v, op.bytes+n
	case v1alpha1.MatchFallbackToInput:
		if m.FallbackValue != nil && len(m.FallbackValue.Raw) > 0 {
			return fmt.Errorf("match: fallbackValue and fallbackTo Input are exclusive")
		}
		op.toInput = true
	default:
		return fmt.Errorf("match: unsupported fallbackTo %q (want Value or Input)", m.FallbackTo)
	}
	if op.bytes > MaxOutputSize {
		return fmt.Errorf("match: results of more than %d bytes in all", MaxOutputSize)
	}
	out.match = op
	return nil
}

func applyMatch(t transform, v render.Value) (any, error) {
	op := t.match
	if len(op.patterns) > 0 {
		s, ok := v.V.(string)
		if !ok {
			return nil, render.Failf(nil, "takes a string, not %v", v)
		}
		for _, p := range op.patterns {
			matched := false
			if p.re == nil {
				matched = s == p.literal
			} else {
				if err := p.re.check(v, s); err != nil {
					return nil, err
				}
				matched = p.re.re.MatchString(s)
			}
			if matched {
				return jsonvalue.DeepCopy(p.result), nil
			}
		}
	}
	if op.toInput {
		return v.V, nil
	}
	return jsonvalue.DeepCopy(op.fallback), nil
}
