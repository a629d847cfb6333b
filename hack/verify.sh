#!/usr/bin/env bash
# Fails when committed generated files differ from a fresh `make generate`, or
# when a module's go.mod/go.sum is not tidy. Run from a git checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: hack/verify.sh BIN}

git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "verify: needs a git checkout" >&2; exit 1; }

fail=0
for mod in . bench conformance oracle e2e tools/gen tools/controlplane tools/crossplane tools/providernop tools/images; do
	if ! out=$(cd "$mod" && go mod tidy -diff 2>&1); then
		echo "verify: $mod/go.mod or go.sum is not tidy; run (cd $mod && go mod tidy):"
		echo "$out"
		fail=1
	fi
done

# `go get github.com/ctrlkit/ctrlkit` must stay light: the server side of
# Kubernetes and etcd belong to tools/controlplane only.
#  - k8s.io/kubernetes must not even be in the root module graph;
#  - no package of the etcd server (or of k8s.io/kubernetes) may be compiled
#    into anything the root module builds, tests included. (Its go.mod is in
#    the graph: controller-runtime's manager imports apiextensions-apiserver,
#    whose go.mod requires the etcd server; no code of it is downloaded or built.)
#  - a user who imports only the packages without a controller-runtime
#    manager sees neither module in `go list -m all`.
if heavy=$(go list -m all | grep -E '^k8s\.io/kubernetes '); then
	echo "verify: the root module graph contains k8s.io/kubernetes:"; echo "$heavy"; fail=1
fi
if heavy=$(go list -deps -test ./... | grep -E '^(go\.etcd\.io/etcd/server/|k8s\.io/kubernetes/)' | head); then
	echo "verify: the root module compiles server packages:"; echo "$heavy"; fail=1
fi
consumer=$(mktemp -d)
trap 'rm -rf "$consumer"' EXIT
cat > "$consumer/go.mod" <<MOD
module example.com/consumer

go 1.26.0

require github.com/ctrlkit/ctrlkit v0.0.0

replace github.com/ctrlkit/ctrlkit => $PWD
MOD
cat > "$consumer/main.go" <<'SRC'
package main

import (
	_ "github.com/ctrlkit/ctrlkit/conditions"
	_ "github.com/ctrlkit/ctrlkit/fieldpath"
)

func main() {}
SRC
if ! out=$(cd "$consumer" && go mod tidy 2>&1 && go list -m all 2>&1); then
	echo "verify: a consumer of fieldpath and conditions does not resolve:"; echo "$out"; fail=1
elif heavy=$(echo "$out" | grep -E '^(k8s\.io/kubernetes|go\.etcd\.io/etcd/server/v3) '); then
	echo "verify: a consumer of fieldpath and conditions pulls server modules:"; echo "$heavy"; fail=1
fi

make --no-print-directory tools >/dev/null
generated=(':(glob)**/zz_generated.*.go' ':(glob)**/*.pb.go' ':(glob)**/crds/*.yaml' ':(glob)config/*/rbac/role.yaml' ':(glob)config/*/rbac/demo/role.yaml')
before=$(git status --porcelain --untracked-files=all -- "${generated[@]}")
hack/generate.sh "$bin" >/dev/null
after=$(git status --porcelain --untracked-files=all -- "${generated[@]}")
if [ "$before" != "$after" ]; then
	echo "verify: generated files drift from the sources; run make generate and commit:"
	diff <(echo "$before") <(echo "$after") || true
	git --no-pager diff --stat -- "${generated[@]}"
	fail=1
fi
exit $fail
