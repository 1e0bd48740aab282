#!/usr/bin/env bash
# actionlint (pinned, through go run) on the GitHub Actions side of the
# repository: the example workflows in docs/examples/github-actions/, the
# workflow recipes of README.md, and action.yml, which actionlint reads as
# the metadata of a local action: each workflow is linted a second time in
# a scratch repository where `uses: apeval/apeval@REF` is `uses: ./`, so
# every input a workflow passes is checked against action.yml. shellcheck
# (Debian's) checks the action's script and the workflows' run: blocks.
# Then a self-test: a workflow passing an input action.yml lacks must fail.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
ACTIONLINT=github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

if ! command -v shellcheck >/dev/null; then
  echo "actionlint: installing Debian's shellcheck"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq shellcheck >/dev/null
fi
shellcheck -x .ci/gh-action.sh .ci/action-inputs.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lint() { go run "$ACTIONLINT" -shellcheck "$(command -v shellcheck)" "$@"; }

# The scratch repository: action.yml (and its script) at the root, the
# workflows in .github/workflows/ with the action referenced locally.
mk() {
  local dir=$1
  rm -rf "$dir" && mkdir -p "$dir/.github/workflows" "$dir/.ci"
  cp action.yml "$dir/"
  cp .ci/gh-action.sh .ci/action-inputs.sh "$dir/.ci/"
  git -C "$dir" init -q
}
scratch=$work/repo
mk "$scratch"
n=0
for f in docs/examples/github-actions/*.yml; do
  cp "$f" "$scratch/.github/workflows/"
  n=$((n + 1))
done
# README.md's workflow recipes: the yaml blocks that start with
# "# .github/workflows/NAME".
awk '
  /^```yaml$/ { inblock = 1; name = ""; next }
  inblock && /^```$/ { inblock = 0; if (out) close(out); out = ""; next }
  inblock && name == "" && /^# \.github\/workflows\// { name = $2; sub(/.*\//, "", name); out = dir "/readme-" name }
  inblock && out != "" { print > out }
' dir="$scratch/.github/workflows" README.md
n=$(find "$scratch/.github/workflows" -name '*.yml' | wc -l)
sed -i 's|uses: apeval/apeval@[A-Za-z0-9._/-]*|uses: ./|' "$scratch"/.github/workflows/*.yml
(cd "$scratch" && lint)
echo "actionlint: $n workflows and action.yml pass ($(go run "$ACTIONLINT" -version | head -1))"

# Self-test: an input action.yml does not declare must be reported.
bad=$work/bad
mk "$bad"
cat >"$bad/.github/workflows/bad.yml" <<'YAML'
on: pull_request
jobs:
  j:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: ./
        with:
          no-such-input: x
YAML
if (cd "$bad" && lint) >"$work/bad.log" 2>&1; then
  cat "$work/bad.log"
  echo "actionlint: FAIL: self-test: an undeclared input was accepted"
  exit 1
fi
grep -q 'no-such-input' "$work/bad.log" || {
  cat "$work/bad.log"
  echo "actionlint: FAIL: self-test: rejected, but not for the undeclared input"
  exit 1
}
echo "actionlint: self-test: a workflow passing an undeclared input is rejected"
