// Package oracle checks ctrlkit against the upstream libraries its users
// port from, used as libraries rather than transcribed: the same inputs go
// through crossplane-runtime's fieldpath (v1 and v2) and ctrlkit's, and the
// results must agree except where docs/design/fieldpath.md lists a
// difference; nop's crossplane_managed_resource_* metrics are registered
// beside crossplane-runtime's in one Prometheus registry, which refuses a
// difference of help or labels. It is a module of its own so that users of ctrlkit never
// download the upstream modules.
package oracle
