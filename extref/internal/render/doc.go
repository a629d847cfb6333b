// Package render is extref's bounded printing engine: the formats of
// combine and of Format transforms, the templates of external values and
// their functions, and the JSON size of a resolved value. Each computes the
// size of its output before building it, so that no input makes it build
// more than MaxOutputSize bytes (a render of a template at most twice that
// in all), and its errors describe a value by its type and size alone when
// it is secret.
//
// The entry points:
//
//   - ParseFormat and Format.Sprint: a fmt format checked for its values,
//     printed piece by piece.
//   - ParseTemplate and Template.Execute: a template without loops or
//     recursion, rendered from its parts.
//   - JSONSize: a value's size as JSON, counted up to a limit.
//   - Value, Failf and Seal: a value with whether it is secret, and errors
//     about it that never quote a secret one.
package render

// MaxOutputSize is the most bytes a transform, a combine format or a
// template may produce; extref.MaxOutputSize is the same.
const MaxOutputSize = 1 << 20

// MaxExpressionLength bounds a format or a template, as the CRD schema
// does.
const MaxExpressionLength = 4096
