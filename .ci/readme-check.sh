#!/usr/bin/env bash
# Runs README.md's commands as a newcomer would, on a clean copy of the
# repository (its tracked files), in order:
#   1. every command of the ```sh blocks, `make install` included (into a
#      scratch GOBIN on PATH: the apeval the later commands use is the one
#      the install step built); `make test` and the other long targets are
#      left to CI's own steps;
#   2. the commands the CI recipes' jobs call (the `run:` steps of the GitHub
#      Actions block, the `script:` items of the GitLab block), with
#      GITHUB_STEP_SUMMARY pointing at a file; `go install …@latest` needs the
#      network and is skipped (step 1's install stands in for it);
#   3. that the files those jobs publish exist: the step summary is not
#      empty, and every report_paths/junit/path/paths entry exists.
# Each ```sh block runs in one shell, as a reader pastes it. An apeval command
# fails the check when it exits with 2 (usage/input error) or above 3; 1 and 3
# are verdicts (NO-GO, INCONCLUSIVE), which the sample may give. Any other
# command (cd, export, make, cat) must exit 0.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/clone" "$work/gobin"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  # Tracked files as they are in the work tree (a clean clone's content).
  (cd "$repo" && git ls-files -z | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$work/clone"
else
  (cd "$repo" && tar --exclude=./.cache --exclude=./bin --exclude=./apeval-out -cf - .) | tar -xf - -C "$work/clone"
fi
cd "$work/clone"
export GOBIN="$work/gobin" PATH="$work/gobin:$PATH"
export GITHUB_STEP_SUMMARY="$work/step-summary.md"
: > "$GITHUB_STEP_SUMMARY"

# One line per command, prefixed by its block's number: a block runs in one
# shell, as a reader pastes it (a `cd` or `export` holds for the lines after it).
awk '/^```sh$/ {on=1; blk++; next} /^```/ {on=0} on {print blk "\t" $0}' README.md | sed -e 's/\t\$ /\t/' |
  grep -Pv '^\d+\t#' | grep -Pv '^\d+\t\s*$' |
  grep -Pv '^\d+\tmake (test|ci|bench|e2e-ollama|html-check|readme-check)\b' > "$work/commands.tsv"
# The CI recipes: ```yaml blocks; GitHub "run:" steps and GitLab "script:" items.
awk '
  /^```yaml$/ {on=1; script=0; next}
  /^```/ {on=0; next}
  !on {next}
  /^[[:space:]]*(- )?run: / {sub(/^[[:space:]]*(- )?run: /, ""); print "ci\t" $0; next}
  /^[[:space:]]*script:[[:space:]]*$/ {script=1; next}
  script && /^[[:space:]]*- / {sub(/^[[:space:]]*- /, ""); print "ci\t" $0; next}
  script && !/^[[:space:]]*- / {script=0}
  /^[[:space:]]*(report_paths|junit|path):[[:space:]]/ {sub(/^[[:space:]]*(report_paths|junit|path):[[:space:]]*/, ""); print "file\t" $0; next}
  /^[[:space:]]*paths:[[:space:]]*$/ {paths=1; next}
  paths && /^[[:space:]]*- / {sub(/^[[:space:]]*- /, ""); print "file\t" $0; next}
  paths {paths=0}
' README.md > "$work/ci.tsv"

run_line() {
  local n=$1 line=$2
  echo "readme-check: $ $line"
  set +e
  bash -c "$line" >"$work/out.$n" 2>&1 </dev/null
  local rc=$?
  set -e
  if [ "$rc" -eq 2 ] || [ "$rc" -gt 3 ]; then
    echo "readme-check: FAILED (exit $rc): $line"; cat "$work/out.$n"; exit 1
  fi
}

# Each block becomes one script: every line echoed, run with its output kept
# apart, and its exit code checked before the next line runs.
n=0
for blk in $(cut -f1 "$work/commands.tsv" | uniq); do
  script="$work/block.$blk.sh"
  : > "$script"
  while IFS=$'\t' read -r b line; do
    [ "$b" = "$blk" ] || continue
    n=$((n+1))
    q=$(printf '%q' "$line")
    # An apeval command may exit 1 or 3 (a verdict); anything else (cd,
    # export, make, cat) must succeed.
    ok='[ "$rc" -eq 0 ]'
    case "$line" in apeval\ *) ok='[ "$rc" -ne 2 ] && [ "$rc" -le 3 ]' ;; esac
    cat >> "$script" <<EOS
echo "readme-check: \$ "$q
{ $line
} >"$work/out.$n" 2>&1 </dev/null
rc=\$?
if ! $ok; then echo "readme-check: FAILED (exit \$rc): "$q; cat "$work/out.$n"; exit 1; fi
EOS
  done < "$work/commands.tsv"
  bash "$script" || exit 1
done
command -v apeval | grep -q "^$work/gobin/" || { echo "readme-check: the README's install step did not put apeval on PATH"; exit 1; }

ci=0 files=0
while IFS=$'\t' read -r kind line; do
  case "$kind" in
  ci)
    if [[ "$line" == go\ install\ *@latest ]]; then
      echo "readme-check: skipped offline (needs the module proxy's published release): $line"
      continue
    fi
    n=$((n+1)); ci=$((ci+1))
    run_line "$n" "$line"
    ;;
  file)
    files=$((files+1))
    [ -e "$line" ] || { echo "readme-check: FAILED: the CI recipe publishes $line, which the jobs' commands did not write"; exit 1; }
    echo "readme-check: CI recipe's $line exists"
    ;;
  esac
done < "$work/ci.tsv"
[ "$ci" -gt 0 ] || { echo "readme-check: FAILED: found no CI job commands in README.md"; exit 1; }
[ "$files" -gt 0 ] || { echo "readme-check: FAILED: found no published files in README.md's CI recipes"; exit 1; }
grep -q 'apeval' "$GITHUB_STEP_SUMMARY" || { echo "readme-check: FAILED: the GitHub step summary is empty"; exit 1; }
echo "readme-check: $n README commands ran ($ci from the CI recipes), $files published files found"
