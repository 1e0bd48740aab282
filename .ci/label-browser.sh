#!/usr/bin/env bash
# The labeling page (apeval label serve) in headless Chromium, driven from Go
# with chromedp: 20 items labeled by keys, the server killed mid-way and
# restarted, the labels file equal to what was pressed, no console error, no
# horizontal scroll at 1280 px (cmd/apeval/label_browser_test.go).
# Installs Debian's chromium when it is missing (.ci/browser-lib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
. .ci/browser-lib.sh
ensure_chromium label-browser
CHROMIUM="$CHROMIUM" ${GO:-go} test -count=1 -tags browser -run '^TestLabelServeBrowser$' ./cmd/apeval
