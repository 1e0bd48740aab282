#!/usr/bin/env bash
# diff.html in headless Chromium, driven from Go with chromedp
# (reports/diff/browser_test.go): every filter clicked and its count checked
# against diff.parquet in DuckDB, a permalink, keyboard navigation, no
# console error, no horizontal scroll at 1280 px; masked spans of the judge
# inputs highlighted (TestDiffHTMLMaskedSpans); then a page of 100,000
# differing cases opened and filtered, its longest tasks reported.
# Installs Debian's chromium and the DuckDB Node package when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
. .ci/browser-lib.sh
ensure_chromium diff-browser
${MAKE:-make} -s duckdb
CHROMIUM="$CHROMIUM" APEVAL_REQUIRE_DUCKDB=1 ${GO:-go} test -count=1 -v -tags browser -run '^TestDiffHTML' ./reports/diff |
  grep -E '^(---|ok|FAIL|PASS)|browser_test.go' 
