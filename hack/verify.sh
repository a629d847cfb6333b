#!/usr/bin/env bash
# Fails when committed generated files differ from a fresh `make generate`, or
# when a module's go.mod/go.sum is not tidy. Run from a git checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: hack/verify.sh BIN}

git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "verify: needs a git checkout" >&2; exit 1; }

fail=0
for mod in . bench tools/gen tools/controlplane; do
	if ! out=$(cd "$mod" && go mod tidy -diff 2>&1); then
		echo "verify: $mod/go.mod or go.sum is not tidy; run (cd $mod && go mod tidy):"
		echo "$out"
		fail=1
	fi
done

# `go get github.com/ctrlkit/ctrlkit` must stay light: the server side of
# Kubernetes and etcd belong to tools/controlplane only.
if heavy=$(go list -m all | grep -E '^(k8s\.io/kubernetes|go\.etcd\.io/etcd/server/v3) '); then
	echo "verify: the root module's graph pulls in server modules it must not:"
	echo "$heavy"
	fail=1
fi

make --no-print-directory tools >/dev/null
generated=(':(glob)**/zz_generated.*.go' ':(glob)**/*.pb.go' ':(glob)**/crds/**')
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
