#!/usr/bin/env bash
# Regenerates every generated file of the root module:
#   - deepcopy (zz_generated.deepcopy.go) for packages marked
#     +kubebuilder:object:generate=true;
#   - CRDs for every API package with a +groupName marker in doc.go, written to
#     the crds/ folder beside the version folder (x/v1alpha1 -> x/crds);
#     where that folder has a kustomization.yaml (config/ uses it), rewritten
#     to list every manifest of the folder;
#   - RBAC for every example with a kustomize base in config/: the manager
#     ClusterRole from the +kubebuilder:rbac markers of its controllers'
#     packages (config/<example>/rbac/role.yaml) and the demo ClusterRole from
#     those of its demo script (config/<example>/rbac/demo/role.yaml);
#   - Go code for every .proto file (protoc + protoc-gen-go), beside it.
# Usage: hack/generate.sh BIN   (BIN holds controller-gen and protoc-gen-go)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: hack/generate.sh BIN}

files() { git ls-files --cached --others --exclude-standard "$@" | grep -vE '^(bench|tools)/' || true; }

# The manifests of a CRD folder, for the kustomize bases in config/.
kustomization() {
	{
		echo "# The manifests of this folder, for kustomize (config/); written by make generate."
		echo "apiVersion: kustomize.config.k8s.io/v1beta1"
		echo "kind: Kustomization"
		echo "resources:"
		for f in $(cd "$1" && ls -- *.yaml | grep -vx kustomization.yaml); do echo "- $f"; done
	} >"$1/kustomization.yaml"
}

"$bin/controller-gen" object paths=./...

for doc in $(files '*doc.go' | xargs grep -l '^// +groupName=' 2>/dev/null || true); do
	pkg=$(dirname "$doc")
	out=$(dirname "$pkg")/crds
	rm -f "$out"/*_*.yaml # controller-gen's names (group_plural.yaml); other manifests there are written by hand
	"$bin/controller-gen" crd:crdVersions=v1 paths="./$pkg" output:crd:artifacts:config="$out"
	# A folder that a kustomize base in config/ uses has a kustomization.yaml.
	if [ -f "$out/kustomization.yaml" ]; then kustomization "$out"; fi
	echo "generate: CRDs of ./$pkg -> $out"
done


# example  the packages of its controllers  the package of its demo
while read -r example controllers demo; do
	"$bin/controller-gen" rbac:roleName="ctrlkit-$example-manager" paths="$controllers" output:rbac:artifacts:config="config/$example/rbac"
	"$bin/controller-gen" rbac:roleName="ctrlkit-$example-demo" paths="$demo" output:rbac:artifacts:config="config/$example/rbac/demo"
	echo "generate: RBAC of $example -> config/$example/rbac"
done <<'EXAMPLES'
composite   ./examples/composite/core        ./examples/composite/demo;./examples/internal/run
direct      ./examples/direct/controller     ./examples/direct/demo
extref      ./examples/extref/controller     ./examples/extref/demo
healthscope ./examples/healthscope/controllers ./examples/healthscope/demo;./examples/internal/run
nop         ./nop                            ./examples/nop
EXAMPLES

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
