#!/usr/bin/env bash
# Runs every FuzzXxx test (of the root module and the nested modules but
# bench/) for a short time each.
# Usage: hack/fuzz.sh [fuzztime]   (default 10s)
#
# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline
# exceeded" exactly when -fuzztime runs out (golang/go#75804, fixed in Go
# 1.27): no failing input is written, the target did nothing wrong. Such a
# run is retried once (and a second such run only warns); a failure that
# writes an input, or any other failure, fails at once.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
count=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() { # dir name; a nested module's targets run from that module
	local mod=$1
	while [ "$mod" != . ] && [ ! -f "$mod/go.mod" ]; do mod=$(dirname "$mod"); done
	(cd "$mod" && go test -run '^$' -fuzz "^${2}\$" -fuzztime "$fuzztime" "./${1#"$mod"}") >"$log" 2>&1
}

while IFS= read -r file; do
	dir=$(dirname "$file")
	for name in $(grep -oE '^func Fuzz[A-Za-z0-9_]+\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
		echo "fuzz: ./$dir $name ($fuzztime)"
		for attempt in 1 2; do
			if run "$dir" "$name"; then
				tail -n 3 "$log"
				break
			fi
			cat "$log"
			if grep -q 'Failing input written to' "$log" || ! grep -qx '    context deadline exceeded' "$log"; then
				echo "fuzz: ./$dir $name FAILED"
				exit 1
			fi
			if [ "$attempt" = 2 ]; then
				echo "fuzz: WARNING ./$dir $name hit the Go fuzz coordinator's deadline race twice (golang/go#75804); no failing input was found, so it counts as passed"
				break
			fi
			echo "fuzz: ./$dir $name: Go fuzz coordinator deadline race (golang/go#75804), no failing input written; running it again"
		done
		count=$((count + 1))
	done
done < <(git ls-files '*_test.go' 2>/dev/null | grep -v '^bench/' | xargs grep -l '^func Fuzz' 2>/dev/null | sort || true)
echo "fuzz: $count fuzz targets ran for $fuzztime each"
