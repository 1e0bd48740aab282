#!/usr/bin/env bash
# The pull-request comment (apeval compare --comment) as a reader sees it:
# the golden comments of a GO, NO-GO, INCONCLUSIVE and ERROR run
# (reports/testdata/comment-*.md) and the embedded sample's comment are
# rendered from their Markdown as GitHub renders it (goldmark, GFM:
# .ci/commentpage.go) and opened in headless Chromium at 800 px with every
# <details> open; nothing may overflow (.ci/comment-check.cjs). Then a
# self-test: a comment with a table too wide for 800 px must be rejected.
# Installs Debian's chromium and playwright-core (.ci/browser-lib.sh); leaves
# the pages and screenshots in $COMMENT_CHECK_OUT (default
# apeval-out/comment-check).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
PLAYWRIGHT_VERSION=1.65.1
NODE_DIR="$repo/.cache/node"
. "$repo/.ci/browser-lib.sh"
OUT=${COMMENT_CHECK_OUT:-apeval-out/comment-check}
fail() {
  echo "comment-check: FAIL: $*"
  exit 1
}
ensure_chromium comment-check
ensure_playwright comment-check "$NODE_DIR" "$PLAYWRIGHT_VERSION"
make -s build
rm -rf "$OUT" && mkdir -p "$OUT"
cp reports/testdata/comment-*.md "$OUT/"
# The sample's own comment: its two recorded judges, base and head.
set +e
./bin/apeval run --quiet --judge recorded:ollama/qwen2.5:3b --out "$OUT/base" >/dev/null 2>&1
./bin/apeval run --quiet --judge recorded:ollama/qwen2.5:7b-instruct-q4_K_M --out "$OUT/head" >/dev/null 2>&1
./bin/apeval compare --comment --report-url https://github.com/o/r/actions/runs/1/artifacts/2 "$OUT/base" "$OUT/head" >"$OUT/comment-sample.md" 2>/dev/null
rc=$?
set -e
[ "$rc" -le 3 ] && [ "$rc" -ne 2 ] || fail "apeval compare --comment exited $rc"
pages=()
for md in "$OUT"/comment-*.md; do
  go run .ci/commentpage.go "$md" "${md%.md}.html"
  pages+=("${md%.md}.html")
done
[ "${#pages[@]}" -ge 5 ] || fail "only ${#pages[@]} comments to check"
node .ci/comment-check.cjs "$NODE_DIR" "$CHROMIUM" "${pages[@]}" || fail "a comment overflows 800 px (pages and screenshots in $OUT)"

# Self-test: a comment with a table wider than 800 px must be rejected.
self=$OUT/self
mkdir -p "$self"
{
  head -n 3 reports/testdata/comment-no-go.md
  echo
  # 16 columns of cells with no break opportunity: wider than 800 px.
  for _ in {1..16}; do printf '| figure '; done; echo '|'
  for _ in {1..16}; do printf '|---'; done; echo '|'
  for _ in {1..16}; do printf '| −0.081[−0.156,−0.007] '; done; echo '|'
} >"$self/comment-wide.md"
go run .ci/commentpage.go "$self/comment-wide.md" "$self/comment-wide.html"
if node .ci/comment-check.cjs "$NODE_DIR" "$CHROMIUM" "$self/comment-wide.html" >"$self/log" 2>&1; then
  cat "$self/log"
  fail "self-test: a comment with a table wider than 800 px was accepted"
fi
grep -q "scrolls sideways\|past 800 px" "$self/log" || {
  cat "$self/log"
  fail "self-test: rejected for another reason"
}
echo "comment-check: self-test: a comment with a too-wide table is rejected"
echo "comment-check: PASS: ${#pages[@]} comments fit 800 px in $("$CHROMIUM" --version 2>/dev/null | head -1)"
