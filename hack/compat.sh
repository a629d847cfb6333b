#!/usr/bin/env bash
# Checks the Kubernetes versions ctrlkit supports.
#
#   hack/compat.sh floor K8S CR
#                           the floor (the versions in our go.mod) is at least
#                           two minors below the newest supported (k8s.io/*
#                           K8S, controller-runtime CR); a scratch module that
#                           requires the floor versions and imports every
#                           library package builds, and go mod tidy leaves its
#                           k8s.io/*, controller-runtime and go versions alone;
#   hack/compat.sh newest K8S CR
#                           a copy of the module moved to k8s.io/* K8S and
#                           controller-runtime CR passes go vet (every package
#                           and test compiles) and go test -short (the unit
#                           tests; the envtest tests skip under -short).
#
# The full suite, envtest included, runs at the floor: go.mod is the floor.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
k8s_mods=(k8s.io/api k8s.io/apimachinery k8s.io/client-go sigs.k8s.io/controller-runtime)

versions() { go list -m -f '{{.Path}} {{.Version}}' "${k8s_mods[@]}"; }
godirective() { go mod edit -json | sed -n 's/^\t"Go": "\(.*\)",$/\1/p'; }

# minor v0.35.2 prints 35.
minor() { echo "$1" | cut -d. -f2; }

floor() {
	local k8s=${1:?usage: hack/compat.sh floor K8S_VERSION CR_VERSION} cr=${2:?usage: hack/compat.sh floor K8S_VERSION CR_VERSION}
	local want go_version scratch pkgs mod v newest
	want=$(versions)
	while read -r mod v; do
		newest=$k8s
		[ "$mod" = sigs.k8s.io/controller-runtime ] && newest=$cr
		if [ $(($(minor "$newest") - $(minor "$v"))) -lt 2 ]; then
			echo "compat: go.mod requires $mod $v, less than two minors below the newest supported, $newest"
			return 1
		fi
	done <<<"$want"
	go_version=$(godirective)
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' RETURN
	# Every library package: what a user may import (commands are not).
	pkgs=$(go list -f '{{if and .GoFiles (ne .Name "main")}}{{.ImportPath}}{{end}}' ./... | grep -v -E '/(internal|examples|docs)(/|$)')
	{
		echo "module example.com/floor"
		echo
		echo "go $go_version"
		echo
		echo "require github.com/ctrlkit/ctrlkit v0.0.0"
		echo "replace github.com/ctrlkit/ctrlkit => $root"
		echo "$want" | while read -r mod v; do echo "require $mod $v"; done
	} >"$scratch/go.mod"
	{
		echo "package main"
		echo
		echo "import ("
		for p in $pkgs; do echo "	_ \"$p\""; done
		echo ")"
		echo
		echo "func main() {}"
	} >"$scratch/main.go"
	(cd "$scratch" && go mod tidy >/dev/null) || { echo "compat: a module on the floor versions cannot tidy"; return 1; }
	local got got_go
	got=$(cd "$scratch" && versions)
	got_go=$(cd "$scratch" && godirective)
	if [ "$got" != "$want" ] || [ "$got_go" != "$go_version" ]; then
		echo "compat: importing ctrlkit moves a module on the floor versions (go $go_version):"
		diff <(echo "$want"; echo "go $go_version") <(echo "$got"; echo "go $got_go") || true
		return 1
	fi
	(cd "$scratch" && go build ./...) || { echo "compat: a module on the floor versions does not build"; return 1; }
	echo "compat: floor ok: $(echo "$want" | tr '\n' ' ')go $go_version; $(echo "$pkgs" | wc -l) packages"
}

newest() {
	local k8s=${1:?usage: hack/compat.sh newest K8S_VERSION CR_VERSION} cr=${2:?usage: hack/compat.sh newest K8S_VERSION CR_VERSION}
	local copy
	copy=$(mktemp -d)
	trap 'rm -rf "$copy"' RETURN
	# The tracked and untracked (not ignored) files of this module, and
	# tools/controlplane, which builds the control plane some unit tests look
	# for; not the other nested modules.
	git ls-files -z --cached --others --exclude-standard -- . ':!bench' ':!tools/gen' |
		xargs -0 cp --parents -t "$copy" 2>/dev/null || true
	cd "$copy"
	go get k8s.io/api@"$k8s" k8s.io/apimachinery@"$k8s" k8s.io/client-go@"$k8s" sigs.k8s.io/controller-runtime@"$cr" 2>&1 | grep -v '^go: downloading' || true
	go mod tidy
	echo "compat: newest: $(versions | tr '\n' ' ')"
	go list -m -u -f '{{if .Update}}compat: note: {{.Path}} {{.Update.Version}} is out (tested: {{.Version}}){{end}}' "${k8s_mods[@]}" 2>/dev/null || true
	go vet ./...
	go test -short ./...
}

case "${1:-}" in
floor) shift; floor "$@" ;;
newest) shift; newest "$@" ;;
*) echo "usage: hack/compat.sh floor|newest K8S_VERSION CR_VERSION" >&2; exit 2 ;;
esac
