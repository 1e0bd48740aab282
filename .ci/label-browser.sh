#!/usr/bin/env bash
# The labeling page (apeval label serve) in headless Chromium, driven from Go
# with chromedp: 20 items labeled by keys, the server killed mid-way and
# restarted, the labels file equal to what was pressed, no console error, no
# horizontal scroll at 1280 px (cmd/apeval/label_browser_test.go).
# Installs Debian's chromium when it is missing, like html-check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "label-browser: installing Debian's chromium"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  [ -x "$CHROMIUM" ] || { echo "label-browser: FAIL: chromium is not at $CHROMIUM after apt-get install"; exit 1; }
fi
CHROMIUM="$CHROMIUM" ${GO:-go} test -count=1 -tags browser -run '^TestLabelServeBrowser$' ./cmd/apeval
