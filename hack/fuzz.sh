#!/usr/bin/env bash
# Runs every FuzzXxx test of the root module for a short time each.
# Usage: hack/fuzz.sh [fuzztime]   (default 10s)
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
count=0
while IFS= read -r file; do
	dir=$(dirname "$file")
	for name in $(grep -oE '^func Fuzz[A-Za-z0-9_]+\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
		echo "fuzz: ./$dir $name ($fuzztime)"
		go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "./$dir"
		count=$((count + 1))
	done
done < <(git ls-files '*_test.go' 2>/dev/null | grep -v '^bench/' | xargs grep -l '^func Fuzz' 2>/dev/null | sort || true)
echo "fuzz: $count fuzz targets ran for $fuzztime each"
