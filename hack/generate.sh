#!/usr/bin/env bash
# Regenerates every generated file of the root module:
#   - deepcopy (zz_generated.deepcopy.go) for packages marked
#     +kubebuilder:object:generate=true;
#   - CRDs for every API package with a +groupName marker in doc.go, written to
#     the crds/ folder beside the version folder (x/v1alpha1 -> x/crds);
#   - Go code for every .proto file (protoc + protoc-gen-go), beside it.
# Usage: hack/generate.sh BIN   (BIN holds controller-gen and protoc-gen-go)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: hack/generate.sh BIN}

files() { git ls-files --cached --others --exclude-standard "$@" | grep -vE '^(bench|tools)/' || true; }

"$bin/controller-gen" object paths=./...

for doc in $(files '*doc.go' | xargs grep -l '^// +groupName=' 2>/dev/null || true); do
	pkg=$(dirname "$doc")
	out=$(dirname "$pkg")/crds
	rm -f "$out"/*_*.yaml # controller-gen's names (group_plural.yaml); other manifests there are written by hand
	"$bin/controller-gen" crd:crdVersions=v1 paths="./$pkg" output:crd:artifacts:config="$out"
	echo "generate: CRDs of ./$pkg -> $out"
done

protos=$(files '*.proto')
if [ -n "$protos" ]; then
	if ! command -v protoc >/dev/null; then
		echo "generate: protoc is missing; install it (Debian: apt-get install -y protobuf-compiler)" >&2
		exit 1
	fi
	for p in $protos; do
		protoc --plugin=protoc-gen-go="$bin/protoc-gen-go" -I . \
			--go_out=. --go_opt=module=github.com/ctrlkit/ctrlkit "$p"
		echo "generate: $p"
	done
fi
