// Package gen pins the code generators that `make generate` runs: controller-gen
// (CRDs, deepcopy) and protoc-gen-go (protobuf). Its go.mod lists them as tool
// dependencies, so their versions change only by editing this module.
package gen
