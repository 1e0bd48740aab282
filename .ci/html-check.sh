#!/usr/bin/env bash
# Opens the embedded sample's report.html in headless Chromium and checks that
# the page is self-contained and whole (issue 5): no console error or warning,
# no page error, no failed request, no request leaving file:/data:, no
# horizontal scrollbar at 1280 px (issue 12: a decision page), at least 3
# charts, and, from a full-page screenshot, that every chart drew (enough
# non-background pixels inside each chart's box, some of them coloured).
#
# Installs what it needs itself, idempotently: Debian's chromium (apt-get) and
# playwright-core from npm into the git-ignored .cache/node (no browser
# download: it drives /usr/bin/chromium). Leaves the screenshot and the chart
# boxes in $HTML_CHECK_OUT (default apeval-out/html-check) for a look after a
# failure. Then a self-test proves the check can fail: small pages with a
# console error, a script error, a network request, a missing file, an empty
# chart, too few charts, and a page or a box wider than the 1280 px viewport
# must each be rejected, and a clean one accepted. Last, from Go (chromedp,
# reports/browser_test.go): a tool name in the case tables wraps only after
# its separators, never inside a part.
# Exit 0 on pass, 1 on fail.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

PLAYWRIGHT_VERSION=1.65.1
NODE_DIR="$repo/.cache/node"
. "$repo/.ci/browser-lib.sh"
OUT=${HTML_CHECK_OUT:-apeval-out/html-check}

fail() {
  echo "html-check: FAIL: $*"
  exit 1
}

# check_page HTML DIR: the browser check, then the pixel check.
check_page() {
  node "$repo/.ci/html-check.cjs" "$NODE_DIR" "$CHROMIUM" "$1" "$2/report.png" "$2/charts.json" &&
    go run "$repo/.ci/chartpixels.go" "$2/report.png" "$2/charts.json"
}

ensure_chromium html-check
ensure_playwright html-check "$NODE_DIR" "$PLAYWRIGHT_VERSION"

make -s build

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
set +e
# With the sample's older judge version as the baseline and slices by tag, so
# the comparison (figures, forest plots) and the slice sections are on the
# page too.
./bin/apeval run --quiet --baseline recorded/ollama/qwen2.5:3b --by tag --out "$work/run" >"$work/run.log" 2>&1
rc=$?
set -e
# 1 (NO-GO) and 3 (INCONCLUSIVE) are the sample's verdicts, not failures.
case $rc in
0 | 1 | 3) ;;
*)
  cat "$work/run.log"
  fail "apeval run exited $rc"
  ;;
esac
[ -s "$work/run/report.html" ] || fail "apeval run wrote no report.html"
# apeval simulate's section (a timeout sweep and a cascade, with its two
# charts), added to report.html by the report that follows it.
./bin/apeval simulate "$work/run" --hook-timeout 300ms,500ms,800ms,1s,2s \
  --cascade 'recorded/ollama/qwen2.5:3b>recorded/ollama/qwen2.5:7b:match,unknown' --format tsv >"$work/simulate.log" 2>&1 ||
  { cat "$work/simulate.log"; fail "apeval simulate failed"; }
set +e
./bin/apeval report --by tag "$work/run" --format tsv >"$work/report.log" 2>&1
rc=$?
set -e
case $rc in 0 | 1 | 3) ;; *) cat "$work/report.log"; fail "apeval report exited $rc" ;; esac
grep -q 'id="simulate"' "$work/run/report.html" || fail "report.html has no Simulated deployment section after apeval simulate"

rm -rf "$OUT"
mkdir -p "$OUT"
cp "$work/run/report.html" "$OUT/report.html"
check_page "$work/run/report.html" "$OUT" || fail "report.html (screenshot: $OUT/report.png)"

# Self-test: the check must reject broken pages.
chart='<figure class="chart"><svg width="576pt" height="288pt" viewBox="0 0 576 288"><rect width="576" height="288" fill="white"/><path d="M20 260 L200 120 L560 30" stroke="#d62728" stroke-width="3" fill="none"/><text x="20" y="280" font-size="14">latency (ms)</text><rect x="300" y="150" width="80" height="110" fill="#1f77b4"/></svg></figure>'
empty='<figure class="chart"><svg width="576pt" height="288pt" viewBox="0 0 576 288"></svg></figure>'
declare -A bad=(
  [console-error]="$chart$chart$chart<script>console.error('boom')</script>"
  [script-error]="$chart$chart$chart<script>null.x()</script>"
  [network-request]="<link rel=stylesheet href=https://cdn.example.com/x.css>$chart$chart$chart"
  [missing-file]="$chart$chart$chart<img src=missing.png width=200 height=100>"
  [empty-chart]="$chart$empty$chart"
  [two-charts]="$chart$chart"
  [wide-page]="$chart$chart$chart<div style='width:1600px'>wide</div>"
  [wide-box]="$chart$chart$chart<div style='overflow-x:auto'><table><tr><td style='min-width:1600px'>wide</td></tr></table></div>"
)
# The reason each must be rejected for, so a check failing for the wrong
# reason does not pass the self-test.
declare -A why=(
  [console-error]="console error: boom"
  [script-error]="page error: "
  [network-request]="network request: https://cdn.example.com/x.css"
  [missing-file]="ERR_FILE_NOT_FOUND"
  [empty-chart]="FAIL: under 1.0 % ink"
  [two-charts]="2 chart(s) on the page, want at least 3"
  [wide-page]="horizontal scrollbar at 1280 px: the page is"
  [wide-box]="horizontal scrollbar at 1280 px: <div>"
)
self="$work/self"
mkdir -p "$self"
printf '<!doctype html><meta charset=utf-8><title>ok</title>%s\n' "$chart$chart$chart" >"$self/page.html"
check_page "$self/page.html" "$self" >"$self/log" 2>&1 || {
  cat "$self/log"
  fail "self-test: a clean page was rejected"
}
for name in "${!bad[@]}"; do
  printf '<!doctype html><meta charset=utf-8><title>bad</title>%s\n' "${bad[$name]}" >"$self/page.html"
  if check_page "$self/page.html" "$self" >"$self/log" 2>&1; then
    cat "$self/log"
    fail "self-test: a page with a $name was accepted"
  fi
  grep -qF -- "${why[$name]}" "$self/log" || {
    cat "$self/log"
    fail "self-test: the page with a $name was rejected, but not with \"${why[$name]}\""
  }
done
echo "html-check: self-test: ${#bad[@]} broken pages rejected, a clean one accepted"

# How the case tables wrap, driven from Go (chromedp): a tool name breaks
# only after its separators, never inside a part (reports/browser_test.go).
CHROMIUM="$CHROMIUM" ${GO:-go} test -count=1 -tags browser -run '^TestReportHTMLBrowser' ./reports >"$work/go-browser.log" 2>&1 || {
  cat "$work/go-browser.log"
  fail "report.html's case tables (go test -tags browser ./reports)"
}
echo "html-check: the case tables' tool names wrap between their parts (go test -tags browser ./reports)"

echo "html-check: PASS: report.html loads clean in $("$CHROMIUM" --version 2>/dev/null | head -1) and its charts drew (screenshot: $OUT/report.png)"
