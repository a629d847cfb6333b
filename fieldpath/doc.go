// Package fieldpath gets, sets, deletes and expands values in unstructured
// Kubernetes objects by field path, with crossplane-runtime's syntax.
package fieldpath
