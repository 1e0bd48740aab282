#!/usr/bin/env bash
# Fuzz one target for a bounded time: .ci/fuzz.sh FuzzName ./pkg [FUZZTIME].
#
# Go 1.26's fuzz coordinator can report a bare "context deadline exceeded"
# when -fuzztime runs out while a worker is mid-input (golang/go#75804,
# fixed in Go 1.27): on a loaded machine that fails a run that found
# nothing. A finding always writes its input to testdata/fuzz/FuzzName, so
# this fails on any new input written there, on any other failure, and on
# a seed-corpus replay that fails; a bare deadline with nothing written is
# reported as that race and passes.
set -uo pipefail
target=$1 pkg=$2 fuzztime=${3:-10s}
go=${GO:-go}
dir="$pkg/testdata/fuzz/$target"
before=$(ls "$dir" 2>/dev/null | sort)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
$go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && exit 0
after=$(ls "$dir" 2>/dev/null | sort)
if [ "$before" != "$after" ]; then
	echo "fuzz: $target: a failing input was written to $dir" >&2
	exit 1
fi
# The race's whole report is the FAIL line and the bare error.
if ! grep -q '^    context deadline exceeded$' "$out" || grep -q -e 'panic:' -e 'Failing input written' -e '_test.go:[0-9]' "$out"; then
	exit "$rc"
fi
echo "fuzz: $target: 'context deadline exceeded' at the -fuzztime boundary with no input written: Go's coordinator race (golang/go#75804), not a finding; replaying the seed corpus" >&2
$go test -count=1 -run "^$target\$" "$pkg"
