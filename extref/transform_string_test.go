package extref

import (
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/extref/internal/render"
	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
)

// TestStringTransform: the String transform gives what patch-and-transform's
// string transform gives, case for case of its own tests (those whose input
// is a JSON value), and fails where it fails; then the cases of its bounds
// and of secret values.
func TestStringTransform(t *testing.T) {
	str := func(s v1alpha1.StringTransform) v1alpha1.Transform {
		return v1alpha1.Transform{Type: v1alpha1.TransformString, String: &s}
	}
	conv := func(c v1alpha1.StringConversion) v1alpha1.Transform {
		return str(v1alpha1.StringTransform{Type: v1alpha1.StringConvert, Convert: c})
	}
	group := func(g int32) *int32 { return &g }
	cases := map[string]transformCase{
		"NotSupportedType": {reason: "An unknown type is refused.", t: str(v1alpha1.StringTransform{Type: "Something"}), in: "value",
			wantErr: `string: unsupported type "Something" (want Format, Convert, TrimPrefix, TrimSuffix, Regexp, Join or Replace)`},
		"NoType":        {reason: "The type is required.", t: str(v1alpha1.StringTransform{}), in: "value", wantErr: "string: type is required (Format, Convert, TrimPrefix, TrimSuffix, Regexp, Join or Replace)"},
		"NoString":      {reason: "A String transform needs string.", t: v1alpha1.Transform{Type: v1alpha1.TransformString}, in: "value", wantErr: "type String needs string"},
		"FmtFailed":     {reason: "Format needs fmt.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringFormat}), in: "value", wantErr: "string: type Format needs fmt"},
		"FmtString":     {reason: "Formats a string.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringFormat, Fmt: "verycool%s"}), in: "thing", want: "verycoolthing"},
		"FmtInteger":    {reason: "Formats an integer.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringFormat, Fmt: "the largest %d"}), in: int64(8), want: "the largest 8"},
		"FmtExtraField": {reason: "A field the type does not take is refused.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringFormat, Fmt: "%s", Trim: "x"}), in: "v", wantErr: "string: type Format does not take trim"},
		"FmtMismatch": {reason: "A verb that does not fit the value is an error, naming a secret value by its type and size only.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringFormat, Fmt: "%d"}), in: "hunter2", secret: true,
			wantErr: "value 1: integer verbs print whole numbers, not a string of 7 bytes"},
		"ConvertNotSet":     {reason: "Convert needs convert.", t: conv(""), in: "crossplane", wantErr: "string: type Convert needs convert"},
		"ConvertTypFailed":  {reason: "An unknown conversion is refused.", t: conv("Something"), in: "crossplane", wantErr: `string: unsupported convert "Something" (want ToUpper, ToLower, ToBase64, FromBase64, ToJson, ToSha1, ToSha256, ToSha512 or ToAdler32)`},
		"ConvertToUpper":    {reason: "Upper case.", t: conv(v1alpha1.StringToUpper), in: "crossplane", want: "CROSSPLANE"},
		"ConvertToLower":    {reason: "Lower case.", t: conv(v1alpha1.StringToLower), in: "CrossPlane", want: "crossplane"},
		"ConvertToBase64":   {reason: "Standard base64.", t: conv(v1alpha1.StringToBase64), in: "CrossPlane", want: "Q3Jvc3NQbGFuZQ=="},
		"ConvertFromBase64": {reason: "Decodes standard base64.", t: conv(v1alpha1.StringFromBase64), in: "Q3Jvc3NQbGFuZQ==", want: "CrossPlane"},
		"ConvertFromBase64Error": {reason: "Bad base64 is an error (patch-and-transform also returns what it decoded; this returns nothing).", t: conv(v1alpha1.StringFromBase64), in: "ThisStringIsNotBase64",
			wantErr: `a string ("ThisStringIsNotBase64") is not valid base64 (at byte 20)`},
		"ConvertFromBase64SecretError": {reason: "The error names a secret value by its type and size only.", t: conv(v1alpha1.StringFromBase64), in: "ThisStringIsNotBase64", secret: true,
			wantErr: `a string of 21 bytes is not valid base64 (at byte 20)`},
		"ConvertToSha1":           {reason: "SHA-1 of a string, in hex.", t: conv(v1alpha1.StringToSha1), in: "Crossplane", want: "3b683dc8ff44122b331a5e4f253dd69d90726d75"},
		"ConvertToSha256":         {reason: "SHA-256 of a string, in hex.", t: conv(v1alpha1.StringToSha256), in: "Crossplane", want: "19c8a7c24ed0067f606815b59e5b82d92935ff69deed04171457a55018e31224"},
		"ConvertToSha512":         {reason: "SHA-512 of a string, in hex.", t: conv(v1alpha1.StringToSha512), in: "Crossplane", want: "0016037c62c92b5cc4a282fbe30cdd228fa001624b26fd31baa9fcb76a9c60d48e2e7a16cf8729a2d9cba3d23e1d846e7721a5381b9a92dd813178e9a6686205"},
		"ConvertToSha512Int":      {reason: "A number hashes as its JSON.", t: conv(v1alpha1.StringToSha512), in: int64(1234), want: "d404559f602eab6fd602ac7680dacbfaadd13630335e951f097af3900e9de176b6db28512f2e000b9d04fba5133e8b1c6e8df59db3a8ab9d60be4b97cc9e81db"},
		"ConvertToSha512IntStr":   {reason: "The string of the same digits hashes the same.", t: conv(v1alpha1.StringToSha512), in: "1234", want: "d404559f602eab6fd602ac7680dacbfaadd13630335e951f097af3900e9de176b6db28512f2e000b9d04fba5133e8b1c6e8df59db3a8ab9d60be4b97cc9e81db"},
		"ConvertToSha256Object":   {reason: "An object hashes as its JSON, keys sorted.", t: conv(v1alpha1.StringToSha256), in: map[string]any{"b": int64(1), "a": "x"}, want: "cdab067e9f3beb32d1252cfd63e492592fecbf591b0d08cadb24bb17f3864246"},
		"ConvertToAdler32":        {reason: "Adler-32 in decimal.", t: conv(v1alpha1.StringToAdler32), in: "Crossplane", want: "373097499"},
		"ConvertToAdler32Unicode": {reason: "Adler-32 of UTF-8.", t: conv(v1alpha1.StringToAdler32), in: "⡌⠁⠧⠑ ⠼⠁⠒  ⡍⠜⠇⠑⠹⠰⠎ ⡣⠕⠌", want: "4110427190"},
		"ConvertToJSONSuccess":    {reason: "An object as JSON.", t: conv(v1alpha1.StringToJSON), in: map[string]any{"foo": "bar"}, want: `{"foo":"bar"}`},
		"ConvertToJSONString":     {reason: "A string as JSON is quoted.", t: conv(v1alpha1.StringToJSON), in: `a"b`, want: `"a\"b"`},
		"ConvertToUpperNumber":    {reason: "A number converts as %v prints it.", t: conv(v1alpha1.StringToUpper), in: 1.5, want: "1.5"},
		"ConvertToBase64TooLarge": {reason: "An output over MaxOutputSize is refused.", t: conv(v1alpha1.StringToBase64), in: strings.Repeat("a", MaxOutputSize), secret: true,
			wantErr: "a string of 1048576 bytes would give more than 1048576 bytes"},
		"TrimPrefix":             {reason: "Removes a prefix.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringTrimPrefix, Trim: "https://"}), in: "https://crossplane.io", want: "crossplane.io"},
		"TrimSuffix":             {reason: "Removes a suffix.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringTrimSuffix, Trim: "-test"}), in: "my-string-test", want: "my-string"},
		"TrimPrefixWithoutMatch": {reason: "No prefix, no change.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringTrimPrefix, Trim: "https://"}), in: "crossplane.io", want: "crossplane.io"},
		"TrimSuffixWithoutMatch": {reason: "No suffix, no change.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringTrimSuffix, Trim: "-test"}), in: "my-string", want: "my-string"},
		"TrimNotSet":             {reason: "Trim needs trim.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringTrimSuffix}), in: "x", wantErr: "string: type TrimSuffix needs trim"},
		"RegexpNotCompiling": {reason: "A bad expression is refused.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: "[a-z"}}), in: "my-string",
			wantErr: "string: regexp.match: error parsing regexp: missing closing ]: `[a-z`"},
		"RegexpSimpleMatch":  {reason: "The first match.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: "[0-9]"}}), in: "my-1-string", want: "1"},
		"RegexpCaptureGroup": {reason: "A capture group of the first match.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: "my-([0-9]+)-string", Group: group(1)}}), in: "my-1-string", want: "1"},
		"RegexpNoSuchCaptureGroup": {reason: "A group the expression lacks is refused before any value is read.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: "my-([0-9]+)-string", Group: group(2)}}), in: "my-1-string",
			wantErr: "string: regexp.group: 2 is not a group of the expression, which has 1"},
		"RegexpNoMatch": {reason: "No match is an error that names a secret value by its type and size only.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: "[0-9]"}}), in: "hunter", secret: true,
			wantErr: "a string of 6 bytes does not match the regexp"},
		"RegexpGroupUnmatched": {reason: "A group that takes no part in the match is an error.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: "a(b)?", Group: group(1)}}), in: "ac",
			wantErr: `group 1 of the regexp matches nothing in a string ("ac")`},
		"RegexpTooComplex": {reason: "An expression that compiles to a large program is refused.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: "a{1000}b{1000}"}}), in: "a",
			wantErr: "string: regexp.match: the expression compiles to 2002 instructions, more than 2000"},
		"RegexpTooLong": {reason: "A long expression is refused.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: strings.Repeat("a", maxRegexpLength+1)}}), in: "a",
			wantErr: "string: regexp.match: longer than 1024 bytes"},
		"RegexpValueTooLong": {reason: "A value whose match would take too long is refused.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringRegexp, Regexp: &v1alpha1.StringTransformRegexp{Match: "a{999}x"}}), in: strings.Repeat("a", 1<<20), secret: true,
			wantErr: "a string of 1048576 bytes is too long for the regexp: at most 4185 bytes"},
		"JoinString":               {reason: "Joins with a separator.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringJoin, Join: &v1alpha1.StringTransformJoin{Separator: ","}}), in: []any{"cross", "plane"}, want: "cross,plane"},
		"JoinStringEmptySeparator": {reason: "An empty separator.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringJoin, Join: &v1alpha1.StringTransformJoin{}}), in: []any{"cross", "plane"}, want: "crossplane"},
		"JoinStringDifferentTypes": {reason: "Items of any type, as %v prints them.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringJoin, Join: &v1alpha1.StringTransformJoin{Separator: "-"}}), in: []any{"cross", "plane", int64(42)}, want: "cross-plane-42"},
		"JoinLongSeparator":        {reason: "A separator of several bytes goes between items only.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringJoin, Join: &v1alpha1.StringTransformJoin{Separator: ", "}}), in: []any{"a", "b"}, want: "a, b"},
		"JoinEmpty":                {reason: "No items, the empty string.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringJoin, Join: &v1alpha1.StringTransformJoin{Separator: ","}}), in: []any{}, want: ""},
		"JoinNotArray":             {reason: "Only an array joins.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringJoin, Join: &v1alpha1.StringTransformJoin{Separator: ","}}), in: "ab", secret: true, wantErr: "takes an array, not a string of 2 bytes"},
		"ReplaceFound":             {reason: "Replaces every occurrence.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringReplace, Replace: &v1alpha1.StringTransformReplace{Search: "Cr", Replace: "B"}}), in: "Crossplane", want: "Bossplane"},
		"ReplaceNotFound":          {reason: "Nothing to replace.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringReplace, Replace: &v1alpha1.StringTransformReplace{Search: "xx", Replace: "zz"}}), in: "Crossplane", want: "Crossplane"},
		"ReplaceRemove":            {reason: "An empty replacement removes.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringReplace, Replace: &v1alpha1.StringTransformReplace{Search: "ss"}}), in: "Crossplane", want: "Croplane"},
		"ReplaceEmptySearch":       {reason: "An empty search is refused (it would insert between every byte).", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringReplace, Replace: &v1alpha1.StringTransformReplace{Replace: "x"}}), in: "ab", wantErr: "string: replace.search must not be empty"},
		"ReplaceTooLarge": {reason: "An output over MaxOutputSize is refused.", t: str(v1alpha1.StringTransform{Type: v1alpha1.StringReplace, Replace: &v1alpha1.StringTransformReplace{Search: "a", Replace: "aa"}}), in: strings.Repeat("a", 600<<10), secret: true,
			wantErr: "a string of 614400 bytes would give more than 1048576 bytes"},
	}
	runTransformCases(t, cases)
}

// TestRegexpWorkBound: a match at the bound of maxRegexpWork, of the
// costliest program, takes well under a second.
func TestRegexpWorkBound(t *testing.T) {
	expr := "[a-z]{999}x"
	re, err := compileRegexp(expr)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Repeat("a", maxRegexpWork/re.insts)
	if err := re.check(render.Value{V: s}, s); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	re.re.FindStringSubmatchIndex(s)
	if d := time.Since(start); d > 5*time.Second { // generous: the race detector and a shared machine slow it
		t.Errorf("a match of %d bytes against %d instructions took %v", len(s), re.insts, d)
	}
	t.Logf("a match of %d bytes against %d instructions took %v", len(s), re.insts, time.Since(start))
}
