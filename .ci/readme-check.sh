#!/usr/bin/env bash
# Runs every command of README.md's ```sh blocks, in order, in a scratch copy
# of the repository with bin/ on PATH, as a newcomer would. A command fails
# the check when it exits with 2 (usage/input error) or above 3; 1 and 3 are
# verdicts (NO-GO, INCONCLUSIVE), which the sample is allowed to give.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo/README.md" "$work/"
mkdir -p "$work/bin" && cp "$repo/bin/apeval" "$work/bin/"
cd "$work"
export PATH="$work/bin:$PATH"
awk '/^```sh$/ {on=1; next} /^```/ {on=0} on' README.md | sed -e 's/^\$ //' | grep -v '^#' | grep -v '^\s*$' |
  grep -v '^make ' > commands.sh
n=0
while IFS= read -r line; do
  n=$((n+1))
  echo "readme-check: $ $line"
  set +e
  bash -c "$line" >"out.$n" 2>&1 </dev/null
  rc=$?
  set -e
  if [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then
    echo "readme-check: FAILED (exit $rc): $line"; cat "out.$n"; exit 1
  fi
done < commands.sh
echo "readme-check: $n README commands ran"
