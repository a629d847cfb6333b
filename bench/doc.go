// Package bench holds side-by-side benchmarks of ctrlkit against peer
// libraries (apimachinery's unstructured and meta helpers, client-go's
// jsonpath, go-cmp, Cluster API's conditions). It is a separate module so that
// the peers never enter ctrlkit's own go.mod. Run it with `make bench-peers`;
// each comparison prints ctrlkit's figures, the peer's, and their ratio, from
// one run.
package bench
