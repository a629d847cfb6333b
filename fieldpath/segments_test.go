package fieldpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func field(name string) Segment { return Segment{Type: SegmentField, Field: name} }
func index(i uint) Segment      { return Segment{Type: SegmentIndex, Index: i} }

var wildcard = Segment{Type: SegmentWildcard}

func TestParseSyntax(t *testing.T) {
	type want struct {
		segs Segments
		// err is a substring the error must contain; every error must also
		// wrap ErrInvalidPath.
		err string
	}
	cases := map[string]struct {
		reason string
		path   string
		want   want
	}{
		"SingleField": {
			reason: "A bare name is one field.",
			path:   "apiVersion",
			want:   want{segs: Segments{field("apiVersion")}},
		},
		"DottedFields": {
			reason: "Dots separate fields.",
			path:   "spec.forProvider.region",
			want:   want{segs: Segments{field("spec"), field("forProvider"), field("region")}},
		},
		"Index": {
			reason: "A non-negative integer in brackets is an index.",
			path:   "spec.containers[0].name",
			want:   want{segs: Segments{field("spec"), field("containers"), index(0), field("name")}},
		},
		"ConsecutiveIndexes": {
			reason: "Brackets may follow brackets.",
			path:   "spec.items[0][8]",
			want:   want{segs: Segments{field("spec"), field("items"), index(0), index(8)}},
		},
		"LeadingIndex": {
			reason: "A path may start with brackets.",
			path:   "[42]",
			want:   want{segs: Segments{index(42)}},
		},
		"LeadingZeros": {
			reason: "Leading zeros do not change an index.",
			path:   "a[007]",
			want:   want{segs: Segments{field("a"), index(7)}},
		},
		"IndexAtLimit": {
			reason: "The default limit itself is accepted.",
			path:   "a[1024]",
			want:   want{segs: Segments{field("a"), index(1024)}},
		},
		"BracketFieldWithDots": {
			reason: "Dots inside brackets are part of the field name.",
			path:   "metadata.labels[app.kubernetes.io/name]",
			want:   want{segs: Segments{field("metadata"), field("labels"), field("app.kubernetes.io/name")}},
		},
		"BracketFieldLeadingDot": {
			reason: "crossplane-runtime's data[.config.yml] example.",
			path:   "data[.config.yml]",
			want:   want{segs: Segments{field("data"), field(".config.yml")}},
		},
		"SingleQuotedField": {
			reason: "Single quotes delimit a field name.",
			path:   "metadata.annotations['crossplane.io/external-name']",
			want:   want{segs: Segments{field("metadata"), field("annotations"), field("crossplane.io/external-name")}},
		},
		"DoubleQuotedField": {
			reason: "Double quotes delimit a field name.",
			path:   `metadata.annotations["example.com/x"]`,
			want:   want{segs: Segments{field("metadata"), field("annotations"), field("example.com/x")}},
		},
		"QuotedDigits": {
			reason: "A quoted integer is a field name, not an index.",
			path:   "a['0']",
			want:   want{segs: Segments{field("a"), field("0")}},
		},
		"QuotedEmpty": {
			reason: "A quoted empty name addresses the empty key.",
			path:   "a['']",
			want:   want{segs: Segments{field("a"), field("")}},
		},
		"QuotedStar": {
			reason: "A quoted star is the literal key \"*\", not a wildcard.",
			path:   "a['*']",
			want:   want{segs: Segments{field("a"), field("*")}},
		},
		"QuotedBrackets": {
			reason: "Brackets inside quotes are literal.",
			path:   "a['x[0]']",
			want:   want{segs: Segments{field("a"), field("x[0]")}},
		},
		"QuotedOtherQuote": {
			reason: "The other kind of quote is literal inside quotes.",
			path:   `a["it's"]`,
			want:   want{segs: Segments{field("a"), field("it's")}},
		},
		"QuotedEscapedQuote": {
			reason: "A backslash escapes the closing quote.",
			path:   `a['it\'s']`,
			want:   want{segs: Segments{field("a"), field("it's")}},
		},
		"EscapedClosingBracket": {
			reason: "A backslash escapes ] inside unquoted brackets.",
			path:   `a[x\]y]`,
			want:   want{segs: Segments{field("a"), field("x]y")}},
		},
		"EscapedOpeningBracket": {
			reason: "A backslash escapes [ inside unquoted brackets.",
			path:   `a[x\[y]`,
			want:   want{segs: Segments{field("a"), field("x[y")}},
		},
		"EscapedBackslash": {
			reason: "A doubled backslash is one backslash.",
			path:   `a[x\\]`,
			want:   want{segs: Segments{field("a"), field(`x\`)}},
		},
		"EscapedLeadingQuote": {
			reason: "An escaped leading quote does not start a quoted name.",
			path:   `a[\'x']`,
			want:   want{segs: Segments{field("a"), field("'x'")}},
		},
		"LiteralBackslash": {
			reason: "A backslash before any other byte is literal, as in crossplane-runtime.",
			path:   `a[C:\temp]`,
			want:   want{segs: Segments{field("a"), field(`C:\temp`)}},
		},
		"EscapedDigitsAreAField": {
			reason: "An escape makes bracket text a field name even when the rest is digits.",
			path:   `a[\\0]`,
			want:   want{segs: Segments{field("a"), field(`\0`)}},
		},
		"SignedNumberIsAField": {
			reason: "Only plain digits make an index; +1 is a field name, as in crossplane-runtime.",
			path:   "a[+1]",
			want:   want{segs: Segments{field("a"), field("+1")}},
		},
		"DottedDigitsAreAField": {
			reason: "After a dot, digits are a field name, as in crossplane-runtime.",
			path:   "a.0",
			want:   want{segs: Segments{field("a"), field("0")}},
		},
		"DottedNegativeIsAField": {
			reason: "After a dot, -1 is a field name; only bracketed negatives are rejected.",
			path:   "a.-1",
			want:   want{segs: Segments{field("a"), field("-1")}},
		},
		"FieldAfterBracket": {
			reason: "A field may follow a closing bracket without a dot, as crossplane-runtime allows.",
			path:   "a[0]b",
			want:   want{segs: Segments{field("a"), index(0), field("b")}},
		},
		"WildcardField": {
			reason: "* as a field is a wildcard.",
			path:   "metadata.labels.*",
			want:   want{segs: Segments{field("metadata"), field("labels"), wildcard}},
		},
		"WildcardBracket": {
			reason: "[*] is a wildcard.",
			path:   "spec.containers[*].name",
			want:   want{segs: Segments{field("spec"), field("containers"), wildcard, field("name")}},
		},
		"StarInsideName": {
			reason: "A star that is not the whole name is literal.",
			path:   "a.*b[c*]",
			want:   want{segs: Segments{field("a"), field("*b"), field("c*")}},
		},
		"Unicode": {
			reason: "Names are bytes; any UTF-8 is fine.",
			path:   "données.clé[ключ.x]",
			want:   want{segs: Segments{field("données"), field("clé"), field("ключ.x")}},
		},
		"Spaces": {
			reason: "Spaces are part of names.",
			path:   "a b[c d]",
			want:   want{segs: Segments{field("a b"), field("c d")}},
		},
		"Empty": {
			reason: "An empty path is rejected.",
			path:   "",
			want:   want{err: "empty path"},
		},
		"LeadingDot": {
			reason: "A leading dot leaves an empty field name.",
			path:   ".metadata.name",
			want:   want{err: "empty field name at position 0"},
		},
		"DoubleDot": {
			reason: "Two dots leave an empty field name between them.",
			path:   "metadata..name",
			want:   want{err: "empty field name at position 9"},
		},
		"TrailingDot": {
			reason: "A trailing dot leaves an empty field name.",
			path:   "metadata.name.",
			want:   want{err: `trailing "." at position 13`},
		},
		"OnlyDot": {
			reason: "A lone dot is empty.",
			path:   ".",
			want:   want{err: "empty field name at position 0"},
		},
		"DotBeforeBracket": {
			reason: "A dot must be followed by a field name, as in crossplane-runtime.",
			path:   "spec.containers.[0].name",
			want:   want{err: `unexpected "[" after "." at position 16`},
		},
		"EmptyBrackets": {
			reason: "Empty brackets are rejected.",
			path:   "spec.containers[]",
			want:   want{err: "empty brackets at position 16"},
		},
		"Unterminated": {
			reason: "An opening bracket needs a closing one.",
			path:   "spec.containers[0",
			want:   want{err: `unterminated "[" at position 15`},
		},
		"UnterminatedAfterEscape": {
			reason: "An escaped ] does not close the bracket.",
			path:   `a[b\]`,
			want:   want{err: `unterminated "[" at position 1`},
		},
		"UnterminatedQuote": {
			reason: "A quote needs a closing quote.",
			path:   "a['b]",
			want:   want{err: "unterminated quote at position 2"},
		},
		"TextAfterQuote": {
			reason: "A closing quote must be followed by ].",
			path:   "a['b'c]",
			want:   want{err: `missing "]" after closing quote at position 5`},
		},
		"StrayClosingBracket": {
			reason: "A ] outside brackets is rejected.",
			path:   "a]b",
			want:   want{err: `unexpected "]" at position 1`},
		},
		"NestedOpeningBracket": {
			reason: "An unescaped [ inside brackets is rejected, as in crossplane-runtime.",
			path:   "a[b[0]]",
			want:   want{err: `unexpected "[" inside brackets at position 3`},
		},
		"NegativeIndex": {
			reason: "A negative index is rejected.",
			path:   "spec.containers[-1]",
			want:   want{err: "negative index -1 at position 16"},
		},
		"IndexAboveLimit": {
			reason: "An index above the default limit is rejected.",
			path:   "spec.containers[1025]",
			want:   want{err: "index 1025 is above the limit of 1024 at position 16"},
		},
		"HugeIndex": {
			reason: "An index that would overflow is rejected, not wrapped.",
			path:   "a[99999999999999999999999999999999]",
			want:   want{err: "above the limit of 1024"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.path)
			if tc.want.err != "" {
				if err == nil {
					t.Fatalf("\n%s\nParse(%q): want error containing %q, got %v", tc.reason, tc.path, tc.want.err, got)
				}
				if !errors.Is(err, ErrInvalidPath) {
					t.Errorf("\n%s\nParse(%q): error %q does not wrap ErrInvalidPath", tc.reason, tc.path, err)
				}
				if !strings.Contains(err.Error(), tc.want.err) {
					t.Errorf("\n%s\nParse(%q): error %q does not contain %q", tc.reason, tc.path, err, tc.want.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("\n%s\nParse(%q): %v", tc.reason, tc.path, err)
			}
			if diff := cmp.Diff(tc.want.segs, got); diff != "" {
				t.Errorf("\n%s\nParse(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}
		})
	}
}

func TestSegmentTypeString(t *testing.T) {
	got := []string{SegmentField.String(), SegmentIndex.String(), SegmentWildcard.String(), SegmentType(0).String()}
	want := []string{"SegmentField", "SegmentIndex", "SegmentWildcard", "SegmentType(0)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SegmentType.String(): -want, +got:\n%s", diff)
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := Parse("spec.containers[]")
	want := `cannot parse field path "spec.containers[]": empty brackets at position 16`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Parse error: -want, +got:\n%s", diff)
	}
}

func TestParseMaxIndex(t *testing.T) {
	cases := map[string]struct {
		reason string
		path   string
		max    uint
		want   Segments
		err    string
	}{
		"RaisedLimit": {
			reason: "A raised limit accepts a larger index.",
			path:   "a[5000]",
			max:    8192,
			want:   Segments{field("a"), index(5000)},
		},
		"LoweredLimit": {
			reason: "A lowered limit rejects a smaller index.",
			path:   "a[11]",
			max:    10,
			err:    "index 11 is above the limit of 10 at position 2",
		},
		"CappedLimit": {
			reason: "No limit goes above math.MaxInt32.",
			path:   "a[2147483648]",
			max:    ^uint(0),
			err:    "above the limit of 2147483647",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parse(tc.path, tc.max)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrInvalidPath) {
					t.Fatalf("\n%s\nparse(%q, %d): want error containing %q, got %v", tc.reason, tc.path, tc.max, tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("\n%s\nparse(%q, %d): %v", tc.reason, tc.path, tc.max, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nparse(%q, %d): -want, +got:\n%s", tc.reason, tc.path, tc.max, diff)
			}
		})
	}
}

func TestSegmentsString(t *testing.T) {
	cases := map[string]struct {
		reason string
		segs   Segments
		want   string
	}{
		"Empty": {
			reason: "No segments is the empty string.",
			segs:   nil,
			want:   "",
		},
		"Fields": {
			reason: "Plain fields are joined by dots.",
			segs:   Segments{field("spec"), field("forProvider"), field("region")},
			want:   "spec.forProvider.region",
		},
		"Index": {
			reason: "Indexes use brackets.",
			segs:   Segments{field("spec"), field("containers"), index(3), field("name")},
			want:   "spec.containers[3].name",
		},
		"LeadingIndex": {
			reason: "A leading index has no dot before it.",
			segs:   Segments{index(0), field("a")},
			want:   "[0].a",
		},
		"Wildcard": {
			reason: "Wildcards use [*].",
			segs:   Segments{field("a"), wildcard, field("b")},
			want:   "a[*].b",
		},
		"DottedName": {
			reason: "A name with dots needs brackets.",
			segs:   Segments{field("metadata"), field("labels"), field("app.kubernetes.io/name")},
			want:   "metadata.labels[app.kubernetes.io/name]",
		},
		"LeadingDottedName": {
			reason: "A leading name with dots is bracketed too.",
			segs:   Segments{field("a.b"), field("c")},
			want:   "[a.b].c",
		},
		"DigitName": {
			reason: "A name of digits is quoted so it does not read as an index.",
			segs:   Segments{field("a"), field("0")},
			want:   "a['0']",
		},
		"EmptyName": {
			reason: "The empty name is quoted.",
			segs:   Segments{field("a"), field("")},
			want:   "a['']",
		},
		"StarName": {
			reason: "The literal name * is quoted so it does not read as a wildcard.",
			segs:   Segments{field("a"), field("*")},
			want:   "a['*']",
		},
		"Brackets": {
			reason: "Brackets in a name are escaped.",
			segs:   Segments{field("a[0]")},
			want:   `[a\[0\]]`,
		},
		"Backslash": {
			reason: "Backslashes in a bracketed name are doubled.",
			segs:   Segments{field(`C:\x.y`)},
			want:   `[C:\\x.y]`,
		},
		"BackslashInPlainName": {
			reason: "A plain name keeps its backslashes, which are literal outside brackets.",
			segs:   Segments{field("a"), field(`b\c`)},
			want:   `a.b\c`,
		},
		"LeadingQuote": {
			reason: "A leading quote in a bracketed name is escaped.",
			segs:   Segments{field("'x.y'")},
			want:   `[\'x.y']`,
		},
		"InvalidType": {
			reason: "An invalid segment type is shown, not dropped.",
			segs:   Segments{field("a"), {}},
			want:   "a[<invalid segment type 0>]",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.segs.String()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nString(): -want, +got:\n%s", tc.reason, diff)
			}
			if len(tc.segs) == 0 || name == "InvalidType" {
				return
			}
			back, err := Parse(got)
			if err != nil {
				t.Fatalf("\n%s\nParse(%q): %v", tc.reason, got, err)
			}
			if diff := cmp.Diff(tc.segs, back); diff != "" {
				t.Errorf("\n%s\nParse(String()): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDocExamples keeps the package documentation's syntax examples true.
func TestDocExamples(t *testing.T) {
	valid := map[string]Segments{
		"metadata.name":           {field("metadata"), field("name")},
		"spec.containers[0].name": {field("spec"), field("containers"), index(0), field("name")},
		"spec.items[0][8]":        {field("spec"), field("items"), index(0), index(8)},
		"[42]":                    {index(42)},
		"data[.config.yml]":       {field("data"), field(".config.yml")},
		"metadata.annotations['crossplane.io/external-name']": {field("metadata"), field("annotations"), field("crossplane.io/external-name")},
		`metadata.annotations["example.com/x"]`:               {field("metadata"), field("annotations"), field("example.com/x")},
		"a['0']":                                              {field("a"), field("0")},
		"a['']":                                               {field("a"), field("")},
		"a['*']":                                              {field("a"), field("*")},
		`a[x\]y]`:                                             {field("a"), field("x]y")},
		`a['it\'s']`:                                          {field("a"), field("it's")},
		`a[C:\temp]`:                                          {field("a"), field(`C:\temp`)},
		"spec.containers[*].ports[*].containerPort": {field("spec"), field("containers"), wildcard, field("ports"), wildcard, field("containerPort")},
	}
	for path, want := range valid {
		got, err := Parse(path)
		if err != nil {
			t.Errorf("Parse(%q): %v", path, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Parse(%q): -want, +got:\n%s", path, diff)
		}
	}
	invalid := map[string]string{
		"":                    "empty path",
		".metadata.name":      "empty field name at position 0",
		"metadata..name":      "empty field name at position 9",
		"metadata.name.":      `trailing "." at position 13`,
		"spec.containers.[0]": `unexpected "[" after "." at position 16`,
		"spec.containers[]":   "empty brackets at position 16",
		"spec.containers[0":   `unterminated "[" at position 15`,
		"a['b":                "unterminated quote at position 2",
		"a['b'c]":             `missing "]" after closing quote at position 5`,
		"a]b":                 `unexpected "]" at position 1`,
		"a[b[0]]":             `unexpected "[" inside brackets at position 3`,
		"spec.containers[-1]": "negative index -1 at position 16",
		"items[1025]":         "index 1025 is above the limit of 1024 at position 6",
	}
	for path, want := range invalid {
		_, err := Parse(path)
		if err == nil || !strings.HasSuffix(err.Error(), ": "+want) {
			t.Errorf("Parse(%q): want an error ending %q, got %v", path, want, err)
		}
	}
}

func TestSegmentConstructors(t *testing.T) {
	cases := map[string]struct {
		reason string
		got    Segment
		want   Segment
		path   string // what Segments{got}.String() writes
	}{
		"Field": {
			reason: "Field is always the field of that name.",
			got:    Field("0"),
			want:   field("0"),
			path:   "['0']",
		},
		"FieldKeepsQuotes": {
			reason: "Field trims no quotes, so a key with quotes can be addressed.",
			got:    Field(`'a'`),
			want:   field(`'a'`),
			path:   `'a'`,
		},
		"FieldStar": {
			reason: "Field(\"*\") is the key \"*\", not a wildcard.",
			got:    Field("*"),
			want:   field("*"),
			path:   "['*']",
		},
		"FieldOrIndexWildcard": {
			reason: "FieldOrIndex reads \"*\" as the parser reads [*].",
			got:    FieldOrIndex("*"),
			want:   wildcard,
			path:   "[*]",
		},
		"FieldOrIndexDoubleQuotes": {
			reason: "FieldOrIndex removes a pair of double quotes too.",
			got:    FieldOrIndex(`"a.b"`),
			want:   field("a.b"),
			path:   "[a.b]",
		},
		"FieldOrIndexUnpairedQuote": {
			reason: "A quote without its pair is part of the name.",
			got:    FieldOrIndex(`'a`),
			want:   field(`'a`),
			path:   `'a`,
		},
		"FieldOrIndexLeadingZeros": {
			reason: "Leading zeros make an index, as in a path.",
			got:    FieldOrIndex("007"),
			want:   index(7),
			path:   "[7]",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Fatalf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
			s := Segments{tc.got}.String()
			if s != tc.path {
				t.Errorf("\n%s\nString(): want %s, got %s", tc.reason, tc.path, s)
			}
			back, err := Parse(s)
			if err != nil || len(back) != 1 || back[0] != tc.got {
				t.Errorf("\n%s\nParse(%s): got %v, %v", tc.reason, s, back, err)
			}
		})
	}
}

func TestWithMaxFieldPathIndex(t *testing.T) {
	p := Pave(map[string]any{}, WithMaxFieldPathIndex(3))
	if err := p.SetValue("a[3]", "x"); err != nil {
		t.Errorf("SetValue at the limit: %v", err)
	}
	if err := p.SetValue("a[4]", "x"); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("SetValue above the limit: want an error wrapping ErrInvalidPath, got %v", err)
	}
	p = Pave(map[string]any{}, WithMaxFieldPathIndex(0))
	if _, err := p.GetValue("a[2147483647]"); !IsNotFound(err) {
		t.Errorf("GetValue with no limit: want not found, got %v", err)
	}
}
