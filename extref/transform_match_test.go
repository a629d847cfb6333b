package extref

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// TestMatchTransform: the Match transform gives what patch-and-transform's
// match transform gives, case for case of its own tests, and fails where
// it fails (some earlier: a spec error is found when the value is
// checked); then the cases of its bounds and of secret values.
func TestMatchTransform(t *testing.T) {
	match := func(m v1alpha1.MatchTransform) v1alpha1.Transform {
		return v1alpha1.Transform{Type: v1alpha1.TransformMatch, Match: &m}
	}
	js := func(s string) *v1alpha1.JSON { return &v1alpha1.JSON{Raw: []byte(s)} }
	lit := func(l, result string) v1alpha1.MatchPattern {
		return v1alpha1.MatchPattern{Type: v1alpha1.MatchLiteral, Literal: &l, Result: *js(result)}
	}
	re := func(r, result string) v1alpha1.MatchPattern {
		return v1alpha1.MatchPattern{Type: v1alpha1.MatchRegexp, Regexp: &r, Result: *js(result)}
	}
	cases := map[string]transformCase{
		"ErrNonStringInput": {reason: "Patterns match strings only.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("5", `"x"`)}}), in: int64(5),
			wantErr: "takes a string, not a number (5)"},
		"ErrFallbackValueAndToInput": {reason: "fallbackValue and fallbackTo Input are exclusive.", t: match(v1alpha1.MatchTransform{FallbackValue: js(`"foo"`), FallbackTo: v1alpha1.MatchFallbackToInput}), in: "foo",
			wantErr: "match: fallbackValue and fallbackTo Input are exclusive"},
		"NoPatternsFallback":                {reason: "No patterns: the fallback value.", t: match(v1alpha1.MatchTransform{FallbackValue: js(`"bar"`)}), in: "foo", want: "bar"},
		"NoPatternsFallbackToValueExplicit": {reason: "fallbackTo Value is the default.", t: match(v1alpha1.MatchTransform{FallbackValue: js(`"bar"`), FallbackTo: v1alpha1.MatchFallbackToValue}), in: "foo", want: "bar"},
		"NoPatternsFallbackNil":             {reason: "A null fallback value gives null.", t: match(v1alpha1.MatchTransform{FallbackValue: js(`null`)}), in: "foo", want: nil},
		"NoPatternsFallbackToInput":         {reason: "fallbackTo Input gives the value.", t: match(v1alpha1.MatchTransform{FallbackTo: v1alpha1.MatchFallbackToInput}), in: "foo", want: "foo"},
		"NoPatternsFallbackNilToInput":      {reason: "A null fallback value is no fallback value.", t: match(v1alpha1.MatchTransform{FallbackValue: &v1alpha1.JSON{}, FallbackTo: v1alpha1.MatchFallbackToInput}), in: "foo", want: "foo"},
		"NoPatternsNonString":               {reason: "Without patterns any value falls back.", t: match(v1alpha1.MatchTransform{FallbackTo: v1alpha1.MatchFallbackToInput}), in: int64(3), want: int64(3)},
		"MatchLiteral":                      {reason: "A literal match gives its result.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("foo", `"bar"`)}}), in: "foo", want: "bar"},
		"MatchLiteralFirst":                 {reason: "The first match wins.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("foo", `"bar"`), lit("foo", `"not this"`)}}), in: "foo", want: "bar"},
		"MatchLiteralWithResultStruct":      {reason: "A result may be an object.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("foo", `{"Hello":"World"}`)}}), in: "foo", want: map[string]any{"Hello": "World"}},
		"MatchLiteralWithResultSlice":       {reason: "A result may be an array.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("foo", `["Hello","World"]`)}}), in: "foo", want: []any{"Hello", "World"}},
		"MatchLiteralWithResultNumber":      {reason: "A result may be a number (an integer is int64 here, as in every JSON value extref reads).", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("foo", `5`)}}), in: "foo", want: int64(5)},
		"MatchLiteralWithResultFraction":    {reason: "A fraction is float64.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("foo", `5.5`)}}), in: "foo", want: 5.5},
		"MatchLiteralWithResultBool":        {reason: "A result may be a boolean.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("foo", `true`)}}), in: "foo", want: true},
		"MatchLiteralWithResultNil":         {reason: "A result may be null.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("foo", `null`)}}), in: "foo", want: nil},
		"MatchRegexp":                       {reason: "A regexp matches anywhere it finds a match.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{re("^foo.*$", `"Hello World"`)}}), in: "foobar", want: "Hello World"},
		"NoMatchFallback":                   {reason: "No pattern matches: the fallback.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{re("^x", `1`)}, FallbackValue: js(`2`)}), in: "foobar", want: int64(2)},
		"NoMatchNoFallback":                 {reason: "No pattern matches and no fallback: null.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{re("^x", `1`)}}), in: "foobar", want: nil},
		"ErrMissingRegexp":                  {reason: "A Regexp pattern needs regexp.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{{Type: v1alpha1.MatchRegexp}}}), in: "x", wantErr: "match: patterns[0]: type Regexp needs regexp"},
		"ErrInvalidRegexp": {reason: "A regexp that does not compile is refused.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{re("?=", `1`)}}), in: "x",
			wantErr: "match: patterns[0]: regexp: error parsing regexp: missing argument to repetition operator: `?`"},
		"ErrMissingLiteral":    {reason: "A Literal pattern needs literal.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{{Type: v1alpha1.MatchLiteral}}}), in: "x", wantErr: "match: patterns[0]: type Literal needs literal"},
		"ErrPatternType":       {reason: "An unknown pattern type is refused.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{{Type: "Glob"}}}), in: "x", wantErr: `match: patterns[0]: unsupported type "Glob" (want Literal or Regexp)`},
		"ErrFallbackTo":        {reason: "An unknown fallbackTo is refused.", t: match(v1alpha1.MatchTransform{FallbackTo: "Nothing"}), in: "x", wantErr: `match: unsupported fallbackTo "Nothing" (want Value or Input)`},
		"ErrResultNotJSON":     {reason: "A result must be JSON.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("a", `{`)}}), in: "x", wantErr: "match: patterns[0].result: not a JSON value"},
		"ErrTooManyPatterns":   {reason: "At most 64 patterns.", t: match(v1alpha1.MatchTransform{Patterns: make([]v1alpha1.MatchPattern, 65)}), in: "x", wantErr: "match: patterns: 65 patterns, more than 64"},
		"ErrRegexpTooComplex":  {reason: "A regexp is bounded as String's is.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{re("a{1000}b{1000}", `1`)}}), in: "x", wantErr: "match: patterns[0]: regexp: the expression compiles to 2002 instructions, more than 2000"},
		"ErrSecretTooLong":     {reason: "A value too long for a regexp is refused, a secret one by type and size only.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{re("a{999}x", `1`)}}), in: strings.Repeat("a", 5000), secret: true, wantErr: "a string of 5000 bytes is too long for the regexp: at most 4185 bytes"},
		"ErrSecretNotAString":  {reason: "A secret value's type only.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("a", `1`)}}), in: []any{"s3cret"}, secret: true, wantErr: "takes a string, not an array of 1 item"},
		"SecretLiteralMatches": {reason: "A secret value matches, and the result is secret.", t: match(v1alpha1.MatchTransform{Patterns: []v1alpha1.MatchPattern{lit("s3cret", `"yes"`)}}), in: "s3cret", secret: true, want: "yes"},
	}
	runTransformCases(t, cases)
}

// TestMatchResultNotShared: a result given once is not changed by what
// is done to a result given before.
func TestMatchResultNotShared(t *testing.T) {
	ct, err := compileTransform(v1alpha1.Transform{Type: v1alpha1.TransformMatch, Match: &v1alpha1.MatchTransform{FallbackValue: &v1alpha1.JSON{Raw: []byte(`{"a":[1]}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := ct.apply(render.Value{V: "x"})
	first.V.(map[string]any)["a"].([]any)[0] = "changed"
	second, _ := ct.apply(render.Value{V: "x"})
	if diff := cmp.Diff(map[string]any{"a": []any{int64(1)}}, second.V); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}
