package v1alpha1

// An ExternalValue takes a value from other objects and writes it to a field
// of the object that holds it (the referencer), or hands it to the
// referencer's controller without writing it.
//
// Exactly one source is given: FromObject, Combine with Fmt, Variables
// with Template, or DependsOn. Exactly one destination is given:
// ToFieldPath or MakeAvailableAs (FromObject's ToFieldPath defaults to its
// FieldPath); DependsOn takes none.
//
// +kubebuilder:validation:XValidation:rule="(has(self.fromObject) ? 1 : 0) + (has(self.combine) ? 1 : 0) + (has(self.variables) ? 1 : 0) + (has(self.dependsOn) ? 1 : 0) == 1",message="exactly one of fromObject, combine, variables and dependsOn must be set"
// +kubebuilder:validation:XValidation:rule="has(self.combine) == has(self.fmt)",message="combine and fmt go together"
// +kubebuilder:validation:XValidation:rule="has(self.variables) == has(self.template)",message="variables and template go together"
// +kubebuilder:validation:XValidation:rule="has(self.dependsOn) ? !has(self.toFieldPath) && !has(self.makeAvailableAs) && !has(self.transforms) : (has(self.toFieldPath) ? !has(self.makeAvailableAs) : (has(self.makeAvailableAs) || has(self.fromObject)))",message="exactly one of toFieldPath and makeAvailableAs must be set (fromObject's toFieldPath defaults to its fieldPath; dependsOn takes neither, nor transforms)"
type ExternalValue struct {
	// FromObject takes the value of one field of one object.
	// +optional
	FromObject *ObjectFieldRef `json:"fromObject,omitempty"`

	// Combine lists fields of several objects whose values Fmt formats
	// into one string, in the order of its verbs.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Combine []ObjectFieldRef `json:"combine,omitempty"`

	// Fmt is a fmt format with one verb per Combine source, e.g.
	// "arn:aws:clouddirectory:%s:%s:schema/published/cognito/1.0".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Fmt string `json:"fmt,omitempty"`

	// Variables name the values of fields of several objects for Template.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=name
	Variables []Variable `json:"variables,omitempty"`

	// Template is a Go text/template that renders Variables into one
	// string, e.g. "arn:aws:clouddirectory:{{ .region }}:{{ .accountId }}".
	// A restricted set of functions is available; range, define, template
	// and block are not.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Template string `json:"template,omitempty"`

	// DependsOn names an object that must exist (and, with ready, be
	// Ready) for the resolution to succeed: it reads no value and writes
	// nothing, as provider-kubernetes' dependsOn references.
	// +optional
	DependsOn *Dependency `json:"dependsOn,omitempty"`

	// ToFieldPath is the field of the referencer that receives the value,
	// e.g. spec.forProvider.region. It must lie under spec (but not in the
	// external values themselves), or be a label or an annotation
	// (metadata.labels[example.org/region]). For FromObject it defaults,
	// when MakeAvailableAs is not given either, to FromObject's FieldPath,
	// which must then be such a field.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	ToFieldPath string `json:"toFieldPath,omitempty"`

	// MakeAvailableAs hands the value to the referencer's controller under
	// this key instead of writing it to the object, e.g. for a password
	// that must not be visible on the referencer (an obscure reference).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	MakeAvailableAs string `json:"makeAvailableAs,omitempty"`

	// Policy says when the value is resolved and whether resolution must
	// succeed.
	// +optional
	Policy *Policy `json:"policy,omitempty"`

	// Transforms change the value, in order, before it is written.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Transforms []Transform `json:"transforms,omitempty"`
}

// An ObjectFieldRef names a field of an object by the object's group,
// version, resource, namespace and name, and the field's path. The name
// may instead be taken from a field of the referencer (nameFromFieldPath),
// or the objects chosen by their labels (selector).
//
// +kubebuilder:validation:XValidation:rule="(has(self.name) ? 1 : 0) + (has(self.nameFromFieldPath) ? 1 : 0) + (has(self.selector) ? 1 : 0) == 1",message="exactly one of name, nameFromFieldPath and selector must be set"
// +kubebuilder:validation:XValidation:rule="!(has(self.namespace) && has(self.namespaceFromFieldPath))",message="namespace and namespaceFromFieldPath are exclusive"
type ObjectFieldRef struct {
	// Group is the API group of the object; empty for the core group
	// (ConfigMaps, Secrets).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group,omitempty"`

	// Version is the API version of the object, e.g. v1.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Version string `json:"version"`

	// Resource is the plural, lower-case resource name, e.g. configmaps.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Resource string `json:"resource"`

	// Name of the object. Exactly one of name, nameFromFieldPath and
	// selector is set.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// NameFromFieldPath takes the object's name from this field of the
	// referencer, which must hold a non-empty string, e.g. spec.tenant: one
	// template of referencers then serves many tenants.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	NameFromFieldPath string `json:"nameFromFieldPath,omitempty"`

	// Selector chooses the objects by their labels instead of by name.
	// +optional
	Selector *SourceSelector `json:"selector,omitempty"`

	// Namespace of the object, for a namespaced resource. Defaults to the
	// namespace of a namespaced referencer.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// NamespaceFromFieldPath takes the object's namespace from this field
	// of the referencer, which must hold a non-empty string. The source
	// policy applies to it as to a namespace written here.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	NamespaceFromFieldPath string `json:"namespaceFromFieldPath,omitempty"`

	// FieldPath is the path of the field in the object, e.g. data.region.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	FieldPath string `json:"fieldPath"`

	// SecretData says how a value read from a Secret's data (fieldPath
	// data.<key>, or data for all of it) is given: Decoded, the default,
	// decodes it from the base64 the API stores it in; Base64 gives it as
	// stored. It is for a Secret's data only.
	// +optional
	SecretData SecretDataEncoding `json:"secretData,omitempty"`
}

// SelectorMode says how many objects a selector takes.
// +kubebuilder:validation:Enum=Single;Multiple
type SelectorMode string

// Selector modes.
const (
	// SelectorSingle takes exactly one object: the value is its field's,
	// as for a source named by name; more than one match is an error. The
	// default.
	SelectorSingle SelectorMode = "Single"
	// SelectorMultiple takes between minMatch and maxMatch objects, sorted
	// by sortByFieldPath: the value is an array of their fields' values, in
	// that order.
	SelectorMultiple SelectorMode = "Multiple"
)

// A SourceSelector chooses source objects, in the source's namespace, by
// their labels: every label matcher and every expression must match.
//
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'Multiple') || (!has(self.minMatch) && !has(self.maxMatch))",message="minMatch and maxMatch need mode Multiple"
type SourceSelector struct {
	// Mode is Single (the default: exactly one object) or Multiple (an
	// array of the values of the objects matched).
	// +optional
	// +kubebuilder:default=Single
	Mode SelectorMode `json:"mode,omitempty"`

	// MatchLabels are labels the objects must have, each with a value
	// given here or taken from a field of the referencer.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	MatchLabels []LabelMatcher `json:"matchLabels,omitempty"`

	// MatchExpressions are requirements on the objects' labels, as a
	// Kubernetes label selector's: In, NotIn, Exists, DoesNotExist.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`

	// MinMatch is the fewest objects mode Multiple takes; fewer is an
	// error, as a missing source is. It defaults to 1; 0 lets no match
	// give an empty array.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=256
	MinMatch *int64 `json:"minMatch,omitempty"`

	// MaxMatch is the most objects mode Multiple takes: the first ones in
	// sort order. Without it every match is taken.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=256
	MaxMatch *int64 `json:"maxMatch,omitempty"`

	// SortByFieldPath is the field of the objects they are sorted by: a
	// string or a number (a missing one sorts as "" or 0); objects whose
	// fields are equal are sorted by name. It defaults to metadata.name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	SortByFieldPath string `json:"sortByFieldPath,omitempty"`
}

// LabelMatcherType says where a label matcher's value comes from.
// +kubebuilder:validation:Enum=Value;FromFieldPath
type LabelMatcherType string

// Label matcher types.
const (
	// LabelMatcherValue takes the value given in value.
	LabelMatcherValue LabelMatcherType = "Value"
	// LabelMatcherFromFieldPath takes the value from the referencer's field
	// valueFromFieldPath.
	LabelMatcherFromFieldPath LabelMatcherType = "FromFieldPath"
)

// FromFieldPathPolicy says what a label matcher does when the referencer
// has no value at its valueFromFieldPath.
// +kubebuilder:validation:Enum=Required;Optional
type FromFieldPathPolicy string

// From-field-path policies.
const (
	// FromFieldPathRequired fails the source. The default.
	FromFieldPathRequired FromFieldPathPolicy = "Required"
	// FromFieldPathOptional leaves the label out of the selector.
	FromFieldPathOptional FromFieldPathPolicy = "Optional"
)

// A LabelMatcher is a label the selected objects must have: its key, and
// its value, given (value) or taken from a field of the referencer
// (valueFromFieldPath).
//
// +kubebuilder:validation:XValidation:rule="has(self.value) != has(self.valueFromFieldPath)",message="exactly one of value and valueFromFieldPath must be set"
type LabelMatcher struct {
	// Type is Value or FromFieldPath; by default, the one whose field is
	// set.
	// +optional
	Type LabelMatcherType `json:"type,omitempty"`

	// Key of the label.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`

	// Value of the label.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Value *string `json:"value,omitempty"`

	// ValueFromFieldPath is the field of the referencer that holds the
	// value, a string, e.g. spec.tenant.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	ValueFromFieldPath *string `json:"valueFromFieldPath,omitempty"`

	// FromFieldPathPolicy is Required (the default: a missing field fails
	// the source) or Optional (a missing field leaves the label out).
	// +optional
	FromFieldPathPolicy FromFieldPathPolicy `json:"fromFieldPathPolicy,omitempty"`
}

// A LabelSelectorRequirement is a requirement on a label, as in a
// Kubernetes label selector.
type LabelSelectorRequirement struct {
	// Key of the label.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`

	// Operator is In, NotIn, Exists or DoesNotExist.
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
	Operator string `json:"operator"`

	// Values of In and NotIn (at least one); none for Exists and
	// DoesNotExist.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	Values []string `json:"values,omitempty"`
}

// A Dependency names an object by its group, version, resource, namespace
// and name, that an external value waits for.
type Dependency struct {
	// Group is the API group of the object; empty for the core group.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Group string `json:"group,omitempty"`

	// Version is the API version of the object, e.g. v1.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Version string `json:"version"`

	// Resource is the plural, lower-case resource name, e.g. configmaps.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Resource string `json:"resource"`

	// Name of the object.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the object, for a namespaced resource. Defaults to the
	// namespace of a namespaced referencer.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// Ready, when true, also waits for the object's Ready condition to be
	// True (status.conditions, type Ready), not only for it to exist.
	// +optional
	Ready bool `json:"ready,omitempty"`
}

// SecretDataEncoding says how a value read from a Secret's data is given.
// +kubebuilder:validation:Enum=Decoded;Base64
type SecretDataEncoding string

// Secret data encodings.
const (
	// SecretDataDecoded gives a Secret's data decoded: the bytes, as
	// stringData would have given them. The default.
	SecretDataDecoded SecretDataEncoding = "Decoded"
	// SecretDataBase64 gives a Secret's data as stored, in standard base64.
	SecretDataBase64 SecretDataEncoding = "Base64"
)

// A Variable names the value of a field for a Template.
type Variable struct {
	// Name of the variable, used in the template as {{ .name }}.
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`

	// FromRef is the field whose value the variable holds.
	FromRef ObjectFieldRef `json:"fromRef"`
}

// ResolvePolicy says when a value is resolved.
// +kubebuilder:validation:Enum=IfNotPresent;Always
type ResolvePolicy string

// Resolve policies.
const (
	// ResolveIfNotPresent resolves a value only while its target field is
	// empty (missing, null or ""), so it is resolved once. The default.
	ResolveIfNotPresent ResolvePolicy = "IfNotPresent"
	// ResolveAlways resolves a value on every reconcile, so the target
	// follows its source.
	ResolveAlways ResolvePolicy = "Always"
)

// ResolutionPolicy says whether a value must be resolved.
// +kubebuilder:validation:Enum=Required;Optional
type ResolutionPolicy string

// Resolution policies.
const (
	// ResolutionRequired fails the whole resolution, writing nothing, when
	// the value cannot be resolved. The default.
	ResolutionRequired ResolutionPolicy = "Required"
	// ResolutionOptional skips a value that cannot be resolved and reports
	// it.
	ResolutionOptional ResolutionPolicy = "Optional"
)

// Policy says when a value is resolved and whether it must be.
type Policy struct {
	// Resolve is IfNotPresent (the default) or Always.
	// +optional
	Resolve ResolvePolicy `json:"resolve,omitempty"`

	// Resolution is Required (the default) or Optional.
	// +optional
	Resolution ResolutionPolicy `json:"resolution,omitempty"`

	// ToFieldPath says how the value is written to toFieldPath: Replace
	// (the default) replaces the target; the merge policies merge it into
	// the target, after the values before it that merge into the same
	// target, as Crossplane's patches do. A merged value is resolved on
	// every call (resolve Always).
	// +optional
	ToFieldPath ToFieldPathPolicy `json:"toFieldPath,omitempty"`
}

// ToFieldPathPolicy says how a value is written to its target.
// +kubebuilder:validation:Enum=Replace;MergeObjects;MergeObjectsAppendArrays;ForceMergeObjects;ForceMergeObjectsAppendArrays
type ToFieldPathPolicy string

// To-field-path policies, as Crossplane's patches name them. Objects merge
// field by field; arrays and other values replace, unless appended.
const (
	// ToFieldPathReplace replaces the target with the value. The default.
	ToFieldPathReplace ToFieldPathPolicy = "Replace"
	// ToFieldPathMergeObjects merges objects, keeping the values the
	// target already has (fieldpath's KeepMapValues).
	ToFieldPathMergeObjects ToFieldPathPolicy = "MergeObjects"
	// ToFieldPathMergeObjectsAppendArrays merges objects keeping the
	// target's values, and appends to the target's arrays the items they
	// do not hold (KeepMapValues and AppendSlice).
	ToFieldPathMergeObjectsAppendArrays ToFieldPathPolicy = "MergeObjectsAppendArrays"
	// ToFieldPathForceMergeObjects merges objects, the value's fields
	// winning.
	ToFieldPathForceMergeObjects ToFieldPathPolicy = "ForceMergeObjects"
	// ToFieldPathForceMergeObjectsAppendArrays merges objects, the
	// value's fields winning, and appends to arrays (AppendSlice).
	ToFieldPathForceMergeObjectsAppendArrays ToFieldPathPolicy = "ForceMergeObjectsAppendArrays"
)

// TransformType names a transform.
// +kubebuilder:validation:Enum=Base64Decode;Base64Encode;Format;Map;Convert;String;Match;Math
type TransformType string

// Transform types.
const (
	// TransformBase64Decode decodes a base64 string (standard encoding, as
	// in a Secret's data), e.g. "dXMtZWFzdC0x" to "us-east-1".
	TransformBase64Decode TransformType = "Base64Decode"
	// TransformBase64Encode encodes a string in standard base64.
	TransformBase64Encode TransformType = "Base64Encode"
	// TransformFormat formats the value with a fmt format of one verb, e.g.
	// "%s-subnet".
	TransformFormat TransformType = "Format"
	// TransformMap looks a string up in a map and gives its entry.
	TransformMap TransformType = "Map"
	// TransformConvert converts the value to another JSON type.
	TransformConvert TransformType = "Convert"
	// TransformString changes a string as its string field says: formats,
	// converts, trims, matches a regexp, joins or replaces, as
	// patch-and-transform's string transform does.
	TransformString TransformType = "String"
	// TransformMatch gives the result of the first of match's patterns the
	// value matches, or its fallback, as patch-and-transform's match
	// transform does.
	TransformMatch TransformType = "Match"
	// TransformMath multiplies a number, or clamps it, as math says, as
	// patch-and-transform's math transform does.
	TransformMath TransformType = "Math"
)

// MathTransformType names the operation of a Math transform.
// +kubebuilder:validation:Enum=Multiply;ClampMin;ClampMax
type MathTransformType string

// Math transform types.
const (
	// MathMultiply multiplies the value by multiply: an integer stays an
	// integer (overflow is an error), a fraction stays one.
	MathMultiply MathTransformType = "Multiply"
	// MathClampMin gives clampMin when the value is less, else the value.
	MathClampMin MathTransformType = "ClampMin"
	// MathClampMax gives clampMax when the value is greater, else the
	// value.
	MathClampMax MathTransformType = "ClampMax"
)

// A MathTransform is the operation of a Math transform: its type, and the
// one field that type takes.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'Multiply' || has(self.multiply)",message="a math transform of type Multiply needs multiply"
// +kubebuilder:validation:XValidation:rule="self.type != 'ClampMin' || has(self.clampMin)",message="a math transform of type ClampMin needs clampMin"
// +kubebuilder:validation:XValidation:rule="self.type != 'ClampMax' || has(self.clampMax)",message="a math transform of type ClampMax needs clampMax"
type MathTransform struct {
	// Type of the operation: Multiply, ClampMin or ClampMax.
	Type MathTransformType `json:"type"`

	// Multiply is the factor of type Multiply.
	// +optional
	Multiply *int64 `json:"multiply,omitempty"`

	// ClampMin is the least value of type ClampMin.
	// +optional
	ClampMin *int64 `json:"clampMin,omitempty"`

	// ClampMax is the greatest value of type ClampMax.
	// +optional
	ClampMax *int64 `json:"clampMax,omitempty"`
}

// MatchPatternType names the kind of a Match transform's pattern.
// +kubebuilder:validation:Enum=Literal;Regexp
type MatchPatternType string

// Match pattern types.
const (
	// MatchLiteral matches a string equal to literal.
	MatchLiteral MatchPatternType = "Literal"
	// MatchRegexp matches a string in which regexp finds a match.
	MatchRegexp MatchPatternType = "Regexp"
)

// MatchFallbackTo says what a Match transform gives when no pattern
// matches.
// +kubebuilder:validation:Enum=Value;Input
type MatchFallbackTo string

// Match fallbacks.
const (
	// MatchFallbackToValue gives fallbackValue (null when it is not
	// given); the default.
	MatchFallbackToValue MatchFallbackTo = "Value"
	// MatchFallbackToInput gives the value unchanged.
	MatchFallbackToInput MatchFallbackTo = "Input"
)

// A MatchTransform is the patterns of a Match transform and its fallback.
// fallbackValue and fallbackTo Input are exclusive (checked at resolution:
// CEL cannot see a field without a schema).
type MatchTransform struct {
	// Patterns are tried in order; the first that matches gives its
	// result.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Patterns []MatchPattern `json:"patterns,omitempty"`

	// FallbackValue is the result when no pattern matches, with
	// fallbackTo Value.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	FallbackValue *JSON `json:"fallbackValue,omitempty"`

	// FallbackTo is Value (the default: fallbackValue, or null) or Input
	// (the value unchanged).
	// +optional
	FallbackTo MatchFallbackTo `json:"fallbackTo,omitempty"`
}

// A MatchPattern is a pattern of a Match transform and its result.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'Literal' || has(self.literal)",message="a Literal pattern needs literal"
// +kubebuilder:validation:XValidation:rule="self.type != 'Regexp' || has(self.regexp)",message="a Regexp pattern needs regexp"
type MatchPattern struct {
	// Type of the pattern: Literal or Regexp.
	Type MatchPatternType `json:"type"`

	// Literal is the string a Literal pattern matches.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Literal *string `json:"literal,omitempty"`

	// Regexp is the regular expression, in Go's RE2 syntax, of a Regexp
	// pattern: it matches a string in which it finds a match.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Regexp *string `json:"regexp,omitempty"`

	// Result is the value the transform gives when this pattern is the
	// first to match: any JSON value.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	Result JSON `json:"result"`
}

// JSON is any JSON value, kept as its text.
type JSON struct {
	Raw []byte `json:"-"`
}

// MarshalJSON returns the value's text, or null when it has none.
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j.Raw) == 0 {
		return []byte("null"), nil
	}
	return j.Raw, nil
}

// UnmarshalJSON keeps a copy of the text; null is no value, as absent.
func (j *JSON) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		j.Raw = nil
		return nil
	}
	j.Raw = append(j.Raw[:0], b...)
	return nil
}

// StringTransformType names the operation of a String transform.
// +kubebuilder:validation:Enum=Format;Convert;TrimPrefix;TrimSuffix;Regexp;Join;Replace
type StringTransformType string

// String transform types.
const (
	// StringFormat formats the value with fmt, a format of one verb.
	StringFormat StringTransformType = "Format"
	// StringConvert converts the value as convert says.
	StringConvert StringTransformType = "Convert"
	// StringTrimPrefix removes trim from the start of the value, if there.
	StringTrimPrefix StringTransformType = "TrimPrefix"
	// StringTrimSuffix removes trim from the end of the value, if there.
	StringTrimSuffix StringTransformType = "TrimSuffix"
	// StringRegexp gives the first match of regexp in the value, or one of
	// its groups.
	StringRegexp StringTransformType = "Regexp"
	// StringJoin joins the items of an array with join's separator.
	StringJoin StringTransformType = "Join"
	// StringReplace replaces every search of the value with replace.
	StringReplace StringTransformType = "Replace"
)

// StringConversion names a conversion of a String transform of type
// Convert.
// +kubebuilder:validation:Enum=ToUpper;ToLower;ToBase64;FromBase64;ToJson;ToSha1;ToSha256;ToSha512;ToAdler32
type StringConversion string

// String conversions. A conversion of a string takes the string; of any
// other value, its %v text (ToUpper, ToLower, ToBase64, FromBase64) or its
// JSON (ToJson and the hashes).
const (
	StringToUpper    StringConversion = "ToUpper"
	StringToLower    StringConversion = "ToLower"
	StringToBase64   StringConversion = "ToBase64"
	StringFromBase64 StringConversion = "FromBase64"
	// StringToJSON gives the value as JSON text.
	StringToJSON StringConversion = "ToJson"
	// StringToSha1, StringToSha256 and StringToSha512 give the hash in
	// lower-case hex.
	StringToSha1   StringConversion = "ToSha1"
	StringToSha256 StringConversion = "ToSha256"
	StringToSha512 StringConversion = "ToSha512"
	// StringToAdler32 gives the Adler-32 checksum in decimal.
	StringToAdler32 StringConversion = "ToAdler32"
)

// A StringTransform is the operation of a String transform: its type, and
// the one field that type takes.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'Format' || has(self.fmt)",message="a string transform of type Format needs fmt"
// +kubebuilder:validation:XValidation:rule="self.type != 'Convert' || has(self.convert)",message="a string transform of type Convert needs convert"
// +kubebuilder:validation:XValidation:rule="!(self.type in ['TrimPrefix', 'TrimSuffix']) || has(self.trim)",message="a string transform of type TrimPrefix or TrimSuffix needs trim"
// +kubebuilder:validation:XValidation:rule="self.type != 'Regexp' || has(self.regexp)",message="a string transform of type Regexp needs regexp"
// +kubebuilder:validation:XValidation:rule="self.type != 'Join' || has(self.join)",message="a string transform of type Join needs join"
// +kubebuilder:validation:XValidation:rule="self.type != 'Replace' || has(self.replace)",message="a string transform of type Replace needs replace"
type StringTransform struct {
	// Type of the operation: Format, Convert, TrimPrefix, TrimSuffix,
	// Regexp, Join or Replace.
	Type StringTransformType `json:"type"`

	// Fmt is the fmt format of type Format, with exactly one verb, e.g.
	// "%s-subnet".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Fmt string `json:"fmt,omitempty"`

	// Convert is the conversion of type Convert.
	// +optional
	Convert StringConversion `json:"convert,omitempty"`

	// Trim is the prefix or suffix of type TrimPrefix or TrimSuffix.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Trim string `json:"trim,omitempty"`

	// Regexp is the regular expression of type Regexp.
	// +optional
	Regexp *StringTransformRegexp `json:"regexp,omitempty"`

	// Join is the separator of type Join.
	// +optional
	Join *StringTransformJoin `json:"join,omitempty"`

	// Replace is what type Replace replaces, and with what.
	// +optional
	Replace *StringTransformReplace `json:"replace,omitempty"`
}

// A StringTransformRegexp is the regular expression of a String transform of type
// Regexp.
type StringTransformRegexp struct {
	// Match is the regular expression, in Go's RE2 syntax: the value must
	// match it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Match string `json:"match"`

	// Group is the capture group of the first match to give: 0, the
	// default, gives the whole match.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Group *int32 `json:"group,omitempty"`
}

// A StringTransformJoin is the separator of a String transform of type Join.
type StringTransformJoin struct {
	// Separator goes between the items; it may be empty.
	// +kubebuilder:validation:MaxLength=4096
	Separator string `json:"separator"`
}

// A StringTransformReplace is what a String transform of type Replace replaces.
type StringTransformReplace struct {
	// Search is the text to replace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Search string `json:"search"`

	// Replace is the text that replaces it; it may be empty.
	// +kubebuilder:validation:MaxLength=4096
	Replace string `json:"replace"`
}

// ConvertType is the type a Convert transform converts to.
// +kubebuilder:validation:Enum=string;int;int64;float64;bool;object;array
type ConvertType string

// Convert types.
const (
	ConvertString  ConvertType = "string"
	ConvertInt64   ConvertType = "int64"
	ConvertFloat64 ConvertType = "float64"
	ConvertBool    ConvertType = "bool"
	// ConvertInt is int64, as patch-and-transform spells it too.
	ConvertInt ConvertType = "int"
	// ConvertObject and ConvertArray take format json: a string of JSON
	// text to the object or array it holds.
	ConvertObject ConvertType = "object"
	ConvertArray  ConvertType = "array"
)

// Convert formats: how a Convert transform reads a string.
const (
	// ConvertFormatNone reads a string in strconv's syntax; the default.
	ConvertFormatNone = "none"
	// ConvertFormatQuantity reads a Kubernetes quantity ("1000m", "2Gi")
	// to float64.
	ConvertFormatQuantity = "quantity"
	// ConvertFormatJSON reads JSON text to an object or array.
	ConvertFormatJSON = "json"
)

// A Transform changes a value.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'Format' || has(self.format)",message="a Format transform needs format"
// +kubebuilder:validation:XValidation:rule="self.type != 'Map' || has(self.map)",message="a Map transform needs map"
// +kubebuilder:validation:XValidation:rule="self.type != 'Convert' || has(self.toType)",message="a Convert transform needs toType"
// +kubebuilder:validation:XValidation:rule="self.type != 'String' || has(self.string)",message="a String transform needs string"
// +kubebuilder:validation:XValidation:rule="self.type != 'Match' || has(self.match)",message="a Match transform needs match"
// +kubebuilder:validation:XValidation:rule="self.type != 'Math' || has(self.math)",message="a Math transform needs math"
type Transform struct {
	// Type of the transform: Base64Decode, Base64Encode, Format, Map,
	// Convert, String, Match or Math.
	Type TransformType `json:"type"`

	// Format is the fmt format of a Format transform, with exactly one
	// verb, e.g. "%s-subnet"; or how a Convert transform reads a string:
	// none (the default), quantity (to float64) or json (to object or
	// array).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Format string `json:"format,omitempty"`

	// Map is the lookup table of a Map transform: the value, a string,
	// must be one of its keys.
	// +optional
	// +kubebuilder:validation:MaxProperties=256
	Map map[string]string `json:"map,omitempty"`

	// ToType is the type a Convert transform converts to: string, int
	// (int64), int64, float64, bool, or with format json object or array.
	// +optional
	ToType ConvertType `json:"toType,omitempty"`

	// String is the operation of a String transform.
	// +optional
	String *StringTransform `json:"string,omitempty"`

	// Match is the patterns of a Match transform.
	// +optional
	Match *MatchTransform `json:"match,omitempty"`

	// Math is the operation of a Math transform.
	// +optional
	Math *MathTransform `json:"math,omitempty"`
}
